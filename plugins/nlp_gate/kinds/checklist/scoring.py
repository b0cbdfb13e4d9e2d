"""Bulk scoring: a CheckList test's expectation evaluated over its whole prediction matrix.

CheckList scores a test one case, one example at a time: ``run_from_preds_confs`` regroups
the predictions into per-case lists (``update_results_from_preds``), its ``Expect`` wrappers
call the expectation on each example and ``Expect.aggregate`` folds the results per case.
For the ``Expect`` forms the released suites (as ``nlp_gate.suites.expectations`` rebuilds
them) and the native tests use, this module computes the same per-case verdicts with numpy
over the flat predictions (``bulk_scores``), with CheckList's comparisons in CheckList's
dtypes (NumPy's promotion rules are the same for a scalar and an array), so that every
case's pass, fail or filtered is CheckList's.  Functions it does not know (a user's
``Expect.single``/``pairwise``/``testcase`` function) are called exactly as CheckList calls
them, per example or per case, and only the bookkeeping around them is done in bulk.
Anything else (a ``combine``, an aggregation function, labels that do not index the
confidences, predictions that are not a label vector and a confidence matrix) raises
``NoBulkForm`` and the caller runs the test through CheckList instead
(``kinds.checklist.run.run_test``).

A per-example result is coded as ``PASS``, ``FAIL`` or ``NONE`` (CheckList's ``None``: the
example does not count); CheckList's value for an example passes iff it is ``> 0``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

PASS, FAIL, NONE = 1, 0, -1

# What CheckList's ``iter_with_optional`` treats as a list of examples or values.
_LISTS = (list, np.ndarray)
# Values an expectation may return that NumPy compares with 0 as Python does.
_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)


class NoBulkForm(Exception):
    """This test's expectation (or its predictions) has no bulk version: use CheckList."""


@dataclass(frozen=True)
class BulkScores:
    """A test's verdicts as ``AbstractTest.results.passed`` holds them, and where each run
    case's predictions lie in the flat prediction arrays."""

    run_cases: np.ndarray  # indices into test.data, in run order (run_idxs or every case)
    passed: np.ndarray  # per run case: PASS, FAIL or NONE (filtered)
    starts: np.ndarray  # run case j's predictions are rows starts[j]:starts[j + 1]
    is_list: bool  # whether test.data's cases are lists of examples

    def case_predictions(self, preds: np.ndarray, confs: np.ndarray, j: int) -> tuple[Any, Any]:
        """Run case ``j``'s predictions and confidences as CheckList's results hold them."""
        lo, hi = int(self.starts[j]), int(self.starts[j + 1])
        if self.is_list:
            return preds[lo:hi], confs[lo:hi]
        return preds[lo], confs[lo]


@dataclass(frozen=True)
class _Matrix:
    """One test's flat predictions, with the case each row belongs to."""

    test: Any
    preds: np.ndarray  # (n_examples,) integer labels
    confs: np.ndarray  # (n_examples, n_classes)
    run_cases: np.ndarray
    starts: np.ndarray
    case_of: np.ndarray  # (n_examples,) run-case position of each row
    is_list: bool

    @property
    def first(self) -> np.ndarray:
        """Each row's case's first row: CheckList's ``orig_pred``/``orig_conf``."""
        first: np.ndarray = self.starts[:-1][self.case_of]
        return first

    def case_values(self, values: Any) -> list[Any]:
        """CheckList's per-case value of a test attribute (``labels``, ``meta``): an item of
        the list, or the same value for every case."""
        if type(values) not in _LISTS:
            return [values] * len(self.run_cases)
        if len(values) != len(self.test.data):
            raise NoBulkForm("labels/meta do not match data in length")  # CheckList raises
        return [values[i] for i in self.run_cases]

    def example_labels(self) -> np.ndarray:
        """Each row's label, as CheckList pairs them: a case's label, or its list's items."""
        out = np.empty(len(self.preds), dtype=np.int64)
        for j, label in enumerate(self.case_values(self.test.labels)):
            lo, hi = self.starts[j], self.starts[j + 1]
            if self.is_list and type(label) in _LISTS:
                if len(label) != hi - lo:
                    raise NoBulkForm("a case's labels do not match its examples")
                values = list(label)
            else:
                values = [label] * int(hi - lo)
            for v in values:
                if not isinstance(v, (int, np.integer)) or isinstance(v, (bool, np.bool_)):
                    raise NoBulkForm(f"label {v!r} is not an integer class")
            out[lo:hi] = values
        self.check_classes(out)
        return out

    def check_classes(self, labels: Any) -> None:
        """Labels CheckList would index the confidences with must be in range (else it
        raises, or Python's negative indexing reads another column: left to CheckList)."""
        labels = np.asarray(labels)
        if labels.size and (labels.min() < 0 or labels.max() >= self.confs.shape[1]):
            raise NoBulkForm("a label does not index the confidences")


def bulk_scores(test: Any, preds: Any, confs: Any) -> BulkScores:
    """``test``'s per-case verdicts from the predictions of ``test.example_list_and_indices``'s
    examples (called just before, with the run's sample and seed), or ``NoBulkForm``."""
    matrix = _matrix(test, preds, confs)
    codes = _evaluate(test.expect, matrix)
    passed = _aggregate(codes, matrix, test.agg_fn)
    return BulkScores(matrix.run_cases, passed, matrix.starts, matrix.is_list)


def _matrix(test: Any, preds: Any, confs: Any) -> _Matrix:
    data = test.data
    if not len(data):
        raise NoBulkForm("no test cases")
    run_cases = np.arange(len(data)) if test.run_idxs is None else np.asarray(test.run_idxs)
    # CheckList's example_list_and_indices and update_results_from_preds disagree on an
    # ndarray case (a list for one, not for the other): lists or plain examples only.
    kinds = {type(x) for x in data}
    if np.ndarray in kinds or (list in kinds and len(kinds) != 1):
        raise NoBulkForm("cases are neither all lists nor all single examples")
    is_list = kinds == {list}
    sizes = np.array([len(data[i]) for i in run_cases] if is_list else np.ones(len(run_cases)))
    if is_list and (sizes == 0).any():
        raise NoBulkForm("an empty case")
    starts = np.zeros(len(run_cases) + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts[1:])
    if not (
        isinstance(preds, np.ndarray)
        and isinstance(confs, np.ndarray)
        and preds.ndim == 1
        and np.issubdtype(preds.dtype, np.integer)
        and confs.ndim == 2
        and np.issubdtype(confs.dtype, np.floating)
        and len(preds) == len(confs) == starts[-1]
    ):
        raise NoBulkForm("predictions are not a label vector and a confidence matrix")
    case_of = np.repeat(np.arange(len(run_cases)), sizes.astype(np.int64))
    return _Matrix(test, preds, confs, run_cases, starts, case_of, is_list)


def _aggregate(codes: np.ndarray, m: _Matrix, agg_fn: Any) -> np.ndarray:
    """``Expect.aggregate``: per case, None when every example is None, else whether every
    counted one passed; ``all_except_first`` does not count the first example that is not
    None (CheckList drops the Nones first), so a case of one counted example passes."""
    if not isinstance(agg_fn, str) or agg_fn not in ("all", "all_except_first"):
        raise NoBulkForm(f"aggregation {agg_fn!r}")
    n = len(m.run_cases)
    valid = np.flatnonzero(codes != NONE)
    cases = m.case_of[valid]
    counted = valid
    if agg_fn == "all_except_first":
        first = np.ones(len(valid), dtype=bool)
        first[1:] = cases[1:] != cases[:-1]
        counted = valid[~first]
    failed = np.bincount(m.case_of[counted[codes[counted] == FAIL]], minlength=n) > 0
    out = np.where(failed, FAIL, PASS).astype(np.int8)
    out[np.bincount(cases, minlength=n) == 0] = NONE
    return out


# -- recognising CheckList's Expect closures --------------------------------------------------
def _cells(fn: Any) -> dict[str, Any]:
    code = getattr(fn, "__code__", None)
    if code is None:
        return {}
    return dict(zip(code.co_freevars, (c.cell_contents for c in fn.__closure__ or ())))


@cache
def _library_codes() -> dict[str, Any]:
    """The code object of each closure CheckList's ``Expect`` factories return."""
    # Imported here, not at the top: collecting the items imports this module, and
    # collection loads no CheckList (tests/integration/test_start_up.py).
    from checklist.expect import Expect

    def inner(fn: Any) -> Any:
        return _cells(fn)["fn"]

    def leaf(*args: Any) -> bool:
        return True

    return {
        "testcase": Expect.testcase(leaf).__code__,
        "single": inner(Expect.single(leaf)).__code__,
        "pairwise": inner(Expect.pairwise(leaf)).__code__,
        "eq": inner(inner(Expect.eq(0))).__code__,
        "inv": inner(inner(Expect.inv(0))).__code__,
        "monotonic": inner(inner(Expect.monotonic())).__code__,
        "wrap_slice": Expect.wrap_slice(leaf, leaf).__code__,
        "slice_orig": inner(inner(_cells(Expect.slice_orig(leaf, leaf))["slice_fn"])).__code__,
    }


def _role(fn: Any) -> str | None:
    """Which CheckList factory made ``fn``, the name of a function the release-suite decoder
    rebuilt (``nlp_gate.suites.expectations``), or None for anything else."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    for role, library in _library_codes().items():
        if code is library:
            return role
    # Looked up, not imported: the decoder imports CheckList's suite module, whose viewer
    # imports spaCy and so torch, which a prediction function's run must not load; and a
    # function it rebuilt exists only once it is imported.
    rebuilt = sys.modules.get("nlp_gate.suites.expectations")
    if rebuilt is not None and code.co_filename == rebuilt.__file__:
        return f"rebuilt:{code.co_name}"
    return None


def _evaluate(expect: Callable[..., Any], m: _Matrix) -> np.ndarray:
    """A test-level expectation's result for every row (PASS/FAIL/NONE)."""
    role = _role(expect)
    if role == "testcase":
        return _testcase(_cells(expect)["fn"], m)
    if role == "wrap_slice":
        cells = _cells(expect)
        codes = _evaluate(cells["expect_fn"], m)
        kept = _aggregate(_evaluate(cells["slice_fn"], m), m, cells["agg_fn"]) == PASS
        codes[~kept[m.case_of]] = NONE  # wrap_slice blanks every case not sliced in
        return codes
    raise NoBulkForm(f"test-level expectation {getattr(expect, '__qualname__', expect)!r}")


def _testcase(fn: Any, m: _Matrix) -> np.ndarray:
    role = _role(fn)
    if role == "single":
        return _single(_cells(fn)["fn"], m)
    if role == "pairwise":
        return _pairwise(_cells(fn)["fn"], m)
    if role == "rebuilt:expect_triplet":
        return _triplet(m)
    if role is None:
        return _per_case(fn, m)
    raise NoBulkForm(f"{role} inside Expect.testcase")


def _single(fn: Any, m: _Matrix) -> np.ndarray:
    role = _role(fn)
    preds = m.preds
    if role == "eq":
        val = _cells(fn)["val"]
        gt = m.example_labels() if val is None else _class(val, m)
        conf = m.confs[np.arange(len(preds)), gt]
        # ret_fn: True when pred == gt, else -(1 - conf[gt]) (which passes if conf > 1)
        return _codes((preds == gt) | (-(1 - conf) > 0))
    if role == "rebuilt:not_label":
        return _codes(preds != _cells(fn)["label"])
    if role == "rebuilt:qa_no":
        cells = _cells(fn)
        label = m.example_labels()
        return _codes(
            np.where(label == cells["special"], preds != cells["excluded"], preds == label)
        )
    if role is None:
        return _per_example(fn, m, pairwise=False)
    raise NoBulkForm(f"{role} inside Expect.single")


def _pairwise(fn: Any, m: _Matrix) -> np.ndarray:
    if not m.is_list:
        raise NoBulkForm("a pairwise expectation on single examples")  # CheckList raises
    role = _role(fn)
    first = m.first
    orig_pred, pred = m.preds[first], m.preds
    rows = np.arange(len(pred))
    if role == "inv":
        tolerance = _cells(fn)["tolerance"]
        m.check_classes(orig_pred)
        diff = m.confs[rows, orig_pred] - m.confs[first, orig_pred]
        return _codes((pred == orig_pred) | (np.abs(diff) <= tolerance))
    if role == "monotonic":
        cells = _cells(fn)
        label, increasing, tolerance = cells["keep_label"], cells["increasing"], cells["tolerance"]
        column = orig_pred if label is None else _class(label, m)
        m.check_classes(column)
        orig_conf = m.confs[first, column]
        conf_diff = m.confs[rows, column] - orig_conf
        if increasing:
            unable = orig_conf <= tolerance
            ok = conf_diff + tolerance >= 0
        else:
            unable = orig_conf >= 1 - tolerance
            ok = conf_diff - tolerance <= 0
        codes = _codes(ok)
        codes[unable] = NONE  # "can't fail": None
        return codes
    if role in ("rebuilt:diff_up", "rebuilt:diff_down"):
        cells = _cells(fn)
        change = _positive_change(cells["positive_change"], m, first)
        tolerance = cells["tolerance"]
        up = role == "rebuilt:diff_up"
        return _codes(change + tolerance >= 0 if up else change - tolerance <= 0)
    if role == "rebuilt:keep_if_orig_not":
        return _codes(orig_pred != _cells(fn)["neutral"])
    if role == "slice_orig":
        inner = _cells(fn)["slice_fn"]
        if _role(inner) != "rebuilt:orig_is":
            return _per_example(fn, m, pairwise=True)
        return _codes(orig_pred == _cells(inner)["label"])
    if role is None:
        return _per_example(fn, m, pairwise=True)
    raise NoBulkForm(f"{role} inside Expect.pairwise")


def _positive_change(fn: Any, m: _Matrix, first: np.ndarray) -> np.ndarray:
    if _role(fn) != "rebuilt:positive_change":
        raise NoBulkForm("diff_up/diff_down around an unknown change function")
    cells = _cells(fn)
    if m.confs.shape[1] != cells["n_labels"]:
        raise NoBulkForm("positive_change raises on this many classes")
    neg, pos = cells["neg"], cells["pos"]
    orig, conf = m.confs[first], m.confs
    # positive_change's own order of operations, so the floats are its own
    change: np.ndarray = orig[:, neg] - conf[:, neg] + conf[:, pos] - orig[:, pos]
    return change


def _triplet(m: _Matrix) -> np.ndarray:
    """The QQP implication test's ``expect_triplet`` (see ``suites.expectations``)."""
    sizes = np.diff(m.starts)
    if not m.is_list or (sizes < 3).any():
        raise NoBulkForm("expect_triplet on cases of fewer than three examples")
    s = m.starts[:-1]
    p0, p1, p2 = m.preds[s], m.preds[s + 1], m.preds[s + 2]
    both = p0 + p1 == 2
    one = (p0 + p1 == 1) & (p1 != 0)
    # A case it passes is [True]*3; one it fails [-3, -2, -1], a three-row array even for
    # a longer case (as in CheckList, its other rows have no result); else None.
    case = np.where(both, np.where(p2 != 1, FAIL, PASS), np.where(one, FAIL, NONE))
    codes = np.full(len(m.preds), NONE, dtype=np.int8)
    for k in range(3):
        codes[s + k] = case
    return codes


def _class(value: Any, m: _Matrix) -> Any:
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise NoBulkForm(f"class {value!r} is not an integer")
    m.check_classes(value)
    return value


def _codes(ok: np.ndarray) -> np.ndarray:
    return np.where(ok, PASS, FAIL).astype(np.int8)


# -- functions CheckList does not define: called as CheckList calls them ----------------------
def _code_of(value: Any) -> int:
    if value is None:
        return NONE
    if not isinstance(value, _SCALARS) or isinstance(value, complex):
        raise NoBulkForm(f"an expectation returned {type(value).__name__}")
    return PASS if value > 0 else FAIL


def _per_example(fn: Any, m: _Matrix, pairwise: bool) -> np.ndarray:
    """``Expect.single(fn)`` / ``Expect.pairwise(fn)`` of a user's ``fn``: called on each
    example with CheckList's arguments (a case's predictions as an array and its
    confidences as a matrix, so each example's are the same numpy scalars and rows)."""
    codes = np.empty(len(m.preds), dtype=np.int8)
    meta = m.case_values(m.test.meta)
    for j, (label, extra) in enumerate(zip(m.case_values(m.test.labels), meta)):
        lo, hi = int(m.starts[j]), int(m.starts[j + 1])
        if not m.is_list:  # pairwise needs lists (_pairwise)
            x, p, c = m.test.data[m.run_cases[j]], m.preds[lo], m.confs[lo]
            codes[lo] = _code_of(fn(x, p, c, label, extra))
            continue
        xs, preds, confs = m.test.data[m.run_cases[j]], m.preds[lo:hi], m.confs[lo:hi]
        labels = label if type(label) in _LISTS else [label] * len(xs)
        metas = extra if type(extra) in _LISTS else [extra] * len(xs)
        if len(labels) != len(xs) or len(metas) != len(xs):
            raise NoBulkForm("a case's labels/meta do not match its examples")
        for k in range(len(xs)):
            if pairwise:
                value = fn(preds[0], preds[k], confs[0], confs[k], labels[k], metas[k])
            else:
                value = fn(xs[k], preds[k], confs[k], labels[k], metas[k])
            codes[lo + k] = _code_of(value)
    return codes


def _per_case(fn: Any, m: _Matrix) -> np.ndarray:
    """``Expect.testcase(fn)`` of a user's ``fn``: called on each case."""
    codes = np.empty(len(m.preds), dtype=np.int8)
    meta = m.case_values(m.test.meta)
    for j, (label, extra) in enumerate(zip(m.case_values(m.test.labels), meta)):
        lo, hi = int(m.starts[j]), int(m.starts[j + 1])
        x = m.test.data[m.run_cases[j]]
        p, c = (m.preds[lo:hi], m.confs[lo:hi]) if m.is_list else (m.preds[lo], m.confs[lo])
        result = fn(x, p, c, label, extra)
        if result is None:
            codes[lo:hi] = NONE
            continue
        values = list(result) if type(result) in _LISTS else None
        if values is None or len(values) != hi - lo:
            raise NoBulkForm("a testcase expectation's result does not match its case")
        codes[lo:hi] = [_code_of(v) for v in values]
    return codes
