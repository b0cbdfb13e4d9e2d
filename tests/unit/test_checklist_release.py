"""Decoding CheckList's released suites: counts, safety, errors and hand-checked verdicts.

Exact agreement with CheckList on Python 3.7 is shown by scripts/crosscheck_release_suites.py
(a dev script needing a 3.7 environment); these tests pin what can be checked on 3.11.
"""

from __future__ import annotations

import collections
import dataclasses
import io
import pickle
import random
import types
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from checklist.test_suite import (
    TestSuite as ChecklistSuite,  # pytest must not collect it
)
from checklist.test_types import DIR, INV, MFT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nlp_gate import suites as cr
from nlp_gate.suites import expectations, source, unpickler

REPO_ROOT = Path(__file__).resolve().parents[2]
SEARCH_DIRS = cr.default_search_dirs(REPO_ROOT)

# Measured on the published tarballs (examples = flattened inputs a model is asked about).
COUNTS = {"sentiment": (38, 86_420, 178_578), "qqp": (53, 63_216, 207_301)}
CONSTRUCTIONS = {
    "sentiment": {
        "Expect.eq(None)": 16,
        "Expect.inv(tolerance=0.1)": 13,
        "Expect.single(lambda x, pred, *args: pred != 0)": 3,
        "Expect.single(lambda x, pred, _, label, _2: "
        "pred != 0 if label == 1 else pred == label)": 1,
        "Expect.pairwise(diff_up(tolerance=0.1))": 1,
        "Expect.pairwise(diff_down(tolerance=0.1))": 1,
        "Expect.slice_pairwise(Expect.monotonic(label=None, increasing=True, tolerance=0.1), "
        "lambda pred, *args, **kwargs: pred != 1, agg_fn='all_except_first')": 1,
        "Expect.slice_pairwise(Expect.monotonic(label=None, increasing=False, tolerance=0.1), "
        "lambda pred, *args, **kwargs: pred != 1, agg_fn='all_except_first')": 2,
    },
    "qqp": {
        "Expect.eq(None)": 37,
        "Expect.inv(tolerance=0.1)": 9,
        "Expect.eq(1)": 1,
        "Expect.eq(0)": 1,
        "Expect.slice_orig(Expect.eq(0), lambda orig, *args: orig == 1, agg_fn='all')": 4,
        "Expect.testcase(expect_triplet)": 1,
    },
}

PredictFn = Callable[[Sequence[Any]], tuple[np.ndarray, np.ndarray]]


def _tarball(name: str) -> Path:
    # The released suites sit in ../shared beside every checkout (CI's included): one absent
    # fails here with where it was looked for and how to get it, as the gate itself would.
    return cr.locate(name, SEARCH_DIRS)


@pytest.fixture(scope="module")
def suites() -> dict[str, ChecklistSuite]:
    return {name: cr.load_suite(name, _tarball(name)) for name in cr.SUITE_NAMES}


def per_example(fn: Callable[[Any], Sequence[float]]) -> PredictFn:
    """A CheckList predict_and_confidence_fn from a per-example probability function."""

    def predict(examples: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        confs = np.array([fn(x) for x in examples], dtype=float)
        return np.argmax(confs, axis=1), confs

    return predict


def constant(probs: Sequence[float]) -> PredictFn:
    return per_example(lambda _: probs)


def run(test: Any, fn: PredictFn, n: int | None = None, seed: int | None = None) -> Any:
    test.run(fn, overwrite=True, verbose=False, n=n, seed=seed)
    return test.get_stats()


# --- counts and structure ----------------------------------------------------------------


@pytest.mark.parametrize("name", cr.SUITE_NAMES)
def test_counts(suites: dict[str, ChecklistSuite], name: str) -> None:
    suite = suites[name]
    n_tests, n_cases, n_examples = COUNTS[name]
    assert len(suite.tests) == n_tests
    assert sum(len(t.data) for t in suite.tests.values()) == n_cases
    assert sum(len(t.example_list_and_indices()[0]) for t in suite.tests.values()) == n_examples
    assert set(suite.info) == set(suite.tests)  # same names (the pickle's info order differs)
    for test_name, test in suite.tests.items():
        assert type(test) in (MFT, INV, DIR)
        assert test.name == test_name
        assert suite.info[test_name]["type"] == type(test).__name__
        assert suite.info[test_name]["capability"] == test.capability


@pytest.mark.parametrize("name", cr.SUITE_NAMES)
def test_every_expectation_rebuilt_from_checklist(
    suites: dict[str, ChecklistSuite], name: str
) -> None:
    constructions = collections.Counter(
        cr.info_of(t.expect).construction for t in suites[name].tests.values()
    )
    assert constructions == CONSTRUCTIONS[name]
    for test in suites[name].tests.values():
        for code in _live_codes(test.expect):
            # Only installed checklist code or ours: nothing compiled from the pickle.
            assert code.co_filename.endswith(
                ("checklist/expect.py", "nlp_gate/suites/expectations.py")
            )


def _live_codes(fn: Any) -> list[types.CodeType]:
    codes, stack = [], [fn]
    while stack:
        f = stack.pop()
        if isinstance(f, types.FunctionType):
            codes.append(f.__code__)
            stack.extend(c.cell_contents for c in f.__closure__ or ())
    return codes


@pytest.mark.parametrize("name", cr.SUITE_NAMES)
def test_stale_state_cleared(name: str) -> None:
    suite = cr.load_suite(name, _tarball(name))  # fresh: the module fixture gets run
    assert suite.test_ranges == {}
    assert suite.format_example_fn is None and suite.print_fn is None
    assert suite.info["no such test"]["capability"] == ""  # CheckList's own factories again
    for test in suite.tests.values():
        assert test.run_idxs is None and test.result_indexes is None
        assert "results" not in vars(test)


def test_records_stay_inert() -> None:
    data = source.read_member(cr.RELEASE_SUITES["qqp"], _tarball("qqp"))
    raw = unpickler.loads(data)
    records = [t.expect for t in raw.tests.values()]
    seen = 0
    while records:
        rec = records.pop()
        if isinstance(rec, unpickler.FunctionRecord):
            seen += 1
            assert not callable(rec)
            assert isinstance(rec.code, unpickler.CodeRecord)
            assert not any(isinstance(c, types.CodeType) for c in rec.code.consts)
            records.extend(rec.cells().values())
            records.extend(rec.globals.values())
    assert seen > 53


# --- safety ------------------------------------------------------------------------------


class _RunsCommand:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        import os

        return (os.system, (f"touch {self.marker}",))


def test_unsafe_global_refused_without_executing(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    payload = pickle.dumps(_RunsCommand(marker), protocol=3)
    with pytest.raises(cr.UnsafePickle, match="system"):
        unpickler.loads(payload)
    assert not marker.exists()


@pytest.mark.parametrize(
    "payload",
    [
        b"cbuiltins\neval\n(S'1'\ntR.",
        b"cdill._dill\n_create_code\n(tR.",
        b"csubprocess\nPopen\n(tR.",
        # dill helpers are whitelisted, but only for harmless names
        b"cdill._dill\n_import_module\n(S'os'\ntR.",
        b"cdill._dill\n_load_type\n(S'FunctionType'\ntR.",
    ],
    ids=["eval", "create_code", "popen", "import-os", "functiontype"],
)
def test_non_whitelisted_names_refused(payload: bytes) -> None:
    with pytest.raises(cr.UnsafePickle):
        unpickler.loads(payload)


def test_unexpected_code_layout_refused() -> None:
    # A 16-field CodeType call (Python 3.8 layout) is not what the release pickles hold.
    payload = b"cdill._dill\n_load_type\n(S'CodeType'\ntR(" + b"I0\n" * 16 + b"tR."
    with pytest.raises(cr.UnsafePickle, match="16 fields"):
        unpickler.loads(payload)


def _raw_tests(name: str) -> dict[str, Any]:
    raw = unpickler.loads(source.read_member(cr.RELEASE_SUITES[name], _tarball(name)))
    return dict(raw.tests)


def _rename_innermost(rec: unpickler.FunctionRecord, new_name: str) -> unpickler.FunctionRecord:
    """Copy of ``rec`` whose innermost ``fn`` closure function has code name ``new_name``."""
    inner = rec.cell("fn")
    if isinstance(inner, unpickler.FunctionRecord) and "fn" in inner.code.freevars:
        new_inner = _rename_innermost(inner, new_name)
    else:
        new_inner = dataclasses.replace(inner, code=dataclasses.replace(inner.code, name=new_name))
    closure = tuple(
        unpickler.CellRecord(new_inner) if n == "fn" else c
        for n, c in zip(rec.code.freevars, rec.closure or (), strict=True)
    )
    return dataclasses.replace(rec, closure=closure)


def test_unmappable_code_name_raises_naming_test_and_code() -> None:
    record = _raw_tests("sentiment")["add positive phrases"].expect
    rebuilt = expectations.rebuild("add positive phrases", record)  # the original maps
    assert cr.info_of(rebuilt).construction == "Expect.pairwise(diff_up(tolerance=0.1))"
    with pytest.raises(cr.UnmappableExpectation) as err:
        expectations.rebuild("add positive phrases", _rename_innermost(record, "mystery_fn"))
    assert "'add positive phrases'" in str(err.value) and "'mystery_fn'" in str(err.value)
    assert err.value.code_name == "mystery_fn"


def test_changed_bytecode_raises_even_with_known_name() -> None:
    record = _raw_tests("qqp")["Testing implications"].expect
    triplet = record.cell("fn")
    tampered_code = dataclasses.replace(triplet.code, code=triplet.code.code[::-1])
    tampered = dataclasses.replace(
        record, closure=(unpickler.CellRecord(dataclasses.replace(triplet, code=tampered_code)),)
    )
    with pytest.raises(cr.UnmappableExpectation, match="expect_triplet"):
        expectations.rebuild("Testing implications", tampered)


def test_changed_constants_raise() -> None:
    record = _raw_tests("qqp")["Testing implications"].expect
    triplet = record.cell("fn")
    consts = tuple(-5 if c == -3 else c for c in triplet.code.consts)
    tampered = dataclasses.replace(
        record,
        closure=(
            unpickler.CellRecord(
                dataclasses.replace(triplet, code=dataclasses.replace(triplet.code, consts=consts))
            ),
        ),
    )
    with pytest.raises(cr.UnmappableExpectation, match="co_consts"):
        expectations.rebuild("Testing implications", tampered)


def test_non_function_expectation_raises() -> None:
    with pytest.raises(cr.UnmappableExpectation, match="'t'"):
        expectations.rebuild("t", "not a function")


# --- locating tarballs -------------------------------------------------------------------


def test_missing_tarball_message(tmp_path: Path) -> None:
    with pytest.raises(cr.SuiteUnavailable) as err:
        cr.locate("qqp", [tmp_path / "a"], cache_dir=tmp_path / "cache", download_hint="use --dl")
    msg = str(err.value)
    spec = cr.RELEASE_SUITES["qqp"]
    for needle in (
        spec.filename,
        spec.sha256,
        spec.url,
        str(tmp_path / "a" / spec.filename),
        str(tmp_path / "cache" / spec.filename),
        "curl",
        "use --dl",
    ):
        assert needle in msg


def test_sha_mismatch_message(tmp_path: Path) -> None:
    spec = cr.RELEASE_SUITES["sentiment"]
    bad = tmp_path / spec.filename
    bad.write_bytes(b"not the release")
    with pytest.raises(cr.SuiteUnavailable) as err:
        cr.locate("sentiment", [tmp_path])
    for needle in (str(bad), spec.sha256, spec.url):
        assert needle in str(err.value)
    with pytest.raises(cr.SuiteUnavailable, match="expected " + spec.sha256):
        cr.load_suite("sentiment", bad)  # load_suite re-verifies whatever it is given


def test_unknown_suite_name() -> None:
    with pytest.raises(ValueError, match="sentiment"):
        cr.locate("mnli", [])


def test_download_into_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = _tarball("sentiment").read_bytes()
    requested = []

    def fake_urlopen(url: str, timeout: float) -> io.BytesIO:
        requested.append(url)
        return io.BytesIO(real)

    monkeypatch.setattr("urllib.request.urlopen", fake_urlopen)
    cache = tmp_path / "cache"
    path = cr.locate("sentiment", [tmp_path / "nowhere"], cache_dir=cache, download=True)
    assert path == cache / "sentiment_suite.tar.gz" and path.read_bytes() == real
    assert requested == [cr.RELEASE_SUITES["sentiment"].url]
    assert cr.locate("sentiment", [], cache_dir=cache) == path  # found without downloading


def test_download_of_wrong_bytes_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("urllib.request.urlopen", lambda url, timeout: io.BytesIO(b"html"))
    with pytest.raises(cr.SuiteUnavailable, match="sha256"):
        cr.locate("qqp", [], cache_dir=tmp_path, download=True)
    assert list(tmp_path.iterdir()) == []


def test_default_search_dirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NLP_GATE_CACHE", str(tmp_path))
    assert cr.default_search_dirs(Path("/x/repo")) == [
        Path("/x/shared/reference/checklist-release"),
        tmp_path / "checklist-release",
    ]
    monkeypatch.delenv("NLP_GATE_CACHE")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert (
        cr.default_search_dirs(Path("/x/repo"))[1]
        == Path("~/.cache/nlp-gate/checklist-release").expanduser()
    )


# --- hand-checked verdicts ---------------------------------------------------------------


def test_mft_eq(suites: dict[str, ChecklistSuite]) -> None:
    test = suites["sentiment"].tests["single positive words"]  # label 2 for all 34 cases
    assert run(test, constant([0.1, 0.1, 0.8])).fails == 0
    assert run(test, constant([0.8, 0.1, 0.1])).fails == 34
    # Expect.eq(None) with per-case labels: a constant neutral model fails exactly the
    # cases labelled otherwise.
    test = suites["sentiment"].tests["Sentiment-laden words in context"]
    assert isinstance(test.labels, list)
    assert run(test, constant([0.1, 0.8, 0.1])).fails == sum(label != 1 for label in test.labels)
    qqp = suites["qqp"].tests["Modifier: adj"]  # single label 0 (not duplicate)
    assert run(qqp, constant([0.3, 0.7])).fails == len(qqp.data)
    assert run(qqp, constant([0.7, 0.3])).fails == 0


def test_mft_custom_single(suites: dict[str, ChecklistSuite]) -> None:
    test = suites["sentiment"].tests["Q & A: no"]  # label 1 accepts anything but 0
    labels = np.array(test.labels)
    assert set(labels) == {0, 1}
    assert run(test, constant([0.1, 0.2, 0.7])).fails == int(np.sum(labels == 0))
    assert run(test, constant([0.7, 0.2, 0.1])).fails == int(np.sum(labels != 0))


def test_inv(suites: dict[str, ChecklistSuite]) -> None:
    test = suites["sentiment"].tests["change names"]  # Expect.inv(tolerance=0.1)
    assert run(test, constant([0.2, 0.3, 0.5])).fails == 0

    def label_of(x: str) -> int:
        return x.count("a") % 3  # changes with some of the substituted names

    def probs(x: str) -> list[float]:
        p = [0.1, 0.1, 0.1]
        p[label_of(x)] = 0.8  # any prediction change moves p(orig class) by 0.7 > 0.1
        return p

    expected = sum(any(label_of(x) != label_of(case[0]) for x in case[1:]) for case in test.data)
    assert 0 < expected < len(test.data)
    assert run(test, per_example(probs)).fails == expected
    # Within the tolerance a changed prediction still passes.
    close = per_example(lambda x: [0.34, 0.33, 0.33] if label_of(x) else [0.33, 0.34, 0.33])
    assert run(test, close).fails == 0


def test_dir_custom_pairwise(suites: dict[str, ChecklistSuite]) -> None:
    test = suites["sentiment"].tests["add positive phrases"]  # diff_up(tolerance=0.1)

    def probs(x: str) -> list[float]:
        pos = 0.05 * (len(x) % 10)
        return [0.6 - pos, 0.4, pos]

    # Fails iff some perturbation lowers p(pos) - p(neg) by more than the tolerance.
    expected = sum(
        any((np.subtract(probs(x), probs(case[0])) @ [-1, 0, 1]) + 0.1 < 0 for x in case[1:])
        for case in test.data
    )
    assert 0 < expected < len(test.data)
    assert run(test, per_example(probs)).fails == expected
    with pytest.raises(Exception, match="3 labels"):  # the authors' guard is kept
        run(test, constant([0.5, 0.5]))


def test_dir_sliced_monotonic(suites: dict[str, ChecklistSuite]) -> None:
    test = suites["sentiment"].tests["intensifiers"]  # cases with a neutral original: filtered
    stats = run(test, constant([0.1, 0.8, 0.1]))
    assert stats.after_filtering == 0 and "fails" not in stats
    stats = run(test, constant([0.1, 0.1, 0.8]))  # positive and unchanged: monotonic holds
    assert stats.fails == 0 and "after_filtering" not in stats


def test_dir_slice_orig(suites: dict[str, ChecklistSuite]) -> None:
    test = suites["qqp"].tests["Change first name in one of the questions"]
    stats = run(test, constant([0.8, 0.2]))  # original not duplicate: filtered
    assert stats.after_filtering == 0
    stats = run(test, constant([0.2, 0.8]))  # kept, and perturbations still duplicate: fail
    assert stats.fails == len(test.data)


def test_expect_triplet(suites: dict[str, ChecklistSuite]) -> None:
    test = suites["qqp"].tests["Testing implications"]  # cases: (a, b), (b, c), (a, c)
    assert all(len(case) == 3 for case in test.data)
    assert run(test, constant([0.2, 0.8])).fails == 0  # all duplicates: consistent
    assert run(test, constant([0.8, 0.2])).after_filtering == 0  # premise never holds

    dup = _hashed(7, 2)

    def is_dup(pair: Any) -> int:
        p = dup(pair)
        return int(p[1] > p[0])

    fails = filtered = 0
    for case in test.data:
        ab, bc, ac = (is_dup(p) for p in case)
        if ab and bc:
            fails += not ac  # dup(a,b) & dup(b,c) => dup(a,c)
        elif ab + bc == 1 and bc:
            fails += 1  # as recorded: this branch tests bc twice, so it always fails
        else:
            filtered += 1
    stats = run(test, per_example(dup))
    assert (stats.fails, len(test.data) - stats.after_filtering) == (fails, filtered)
    assert fails > 0 and filtered > 0


# --- properties --------------------------------------------------------------------------


def _hashed(salt: int, n_classes: int) -> Callable[[Any], list[float]]:
    """Stable pseudo-random class weights per input (crc32: no PYTHONHASHSEED dependence)."""

    def probs(x: Any) -> list[float]:
        h = zlib.crc32(repr((salt, x)).encode())
        return [1.0 + (h >> (8 * i)) % 251 for i in range(n_classes)]

    return probs


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    name=st.sampled_from(
        [
            ("sentiment", "change names", 3),
            ("sentiment", "intensifiers", 3),
            ("qqp", "Change first name in one of the questions", 2),
            ("qqp", "Symmetry: f(a, b) = f(b, a)", 2),
        ]
    ),
    salt=st.integers(0, 2**16),
    n=st.integers(1, 60),
    seed=st.integers(0, 2**16),
    order_seed=st.integers(0, 2**32),
)
def test_verdicts_independent_of_batch_order_and_sampling(
    suites: dict[str, ChecklistSuite],
    name: tuple[str, str, int],
    salt: int,
    n: int,
    seed: int,
    order_seed: int,
) -> None:
    suite, test_name, n_classes = name
    test = suites[suite].tests[test_name]
    probs = _hashed(salt, n_classes)

    def shuffled(examples: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        # scores the batch in a random order, answers in the asked order
        perm = list(range(len(examples)))
        random.Random(order_seed).shuffle(perm)
        confs = np.empty((len(examples), n_classes))
        for i in perm:
            confs[i] = probs(examples[i])
        return np.argmax(confs, axis=1), confs

    run(test, per_example(probs))
    full_fails = set(int(i) for i in test.fail_idxs())
    full_filtered = set(int(i) for i in test.filtered_idxs())
    run(test, shuffled)
    assert set(int(i) for i in test.fail_idxs()) == full_fails
    # A sample's verdicts are the full run's verdicts on the sampled cases.
    run(test, shuffled, n=n, seed=seed)
    sampled = [int(i) for i in test.run_idxs]
    assert {sampled[i] for i in test.fail_idxs()} == full_fails & set(sampled)
    assert {sampled[i] for i in test.filtered_idxs()} == full_filtered & set(sampled)
