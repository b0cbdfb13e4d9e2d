"""Running one CheckList test on one classifier.

The fail rate is CheckList's: computed by CheckList's own ``run`` and
``AbstractTest.get_stats`` (``--nlp-scoring checklist``, the reference path), or in bulk over
the prediction matrix by ``kinds.checklist.scoring``, whose verdicts equal CheckList's on
every form it covers (``tests/unit/test_bulk_scoring.py``); a test whose expectation has no
bulk version is scored by CheckList either way.  This module adapts our classifier to
CheckList's ``predict_and_confidence_fn`` contract and summarises the outcome.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

from nlp_gate.config.options import SCORINGS
from nlp_gate.engine.predictor import Classifier
from nlp_gate.kinds.checklist.scoring import FAIL, NONE, PASS, BulkScores, NoBulkForm, bulk_scores

PredictFn = Callable[[Sequence[Any]], tuple[np.ndarray, np.ndarray]]

# CheckList's sentiment suite is 3-class (0 negative, 1 neutral, 2 positive).  For binary
# models CheckList documents a neutral band: p(positive) in the open band (1/3, 2/3) counts
# as neutral; the two edges themselves read as negative, as in CheckList's own snippet
# (``binary_to_three_class``).
NEUTRAL_MARGIN = 1 / 3


def binary_to_three_class(p_pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CheckList's documented conversion of binary sentiment probabilities to 3 classes.

    The arithmetic of the conversion in CheckList's README for binary sentiment models, to
    the letter: outside the band the confidence is split between negative and positive;
    inside it, neutral gets 1 at p=0.5 and falls linearly to 0 at the band's edges.  The
    edges themselves (p exactly 1/3 or 2/3, as a function returning float64 can give) belong
    to no branch there, so their row stays all zero and argmax reads it as negative: kept,
    so that the fail rates are CheckList's own on such a model too.
    """
    half = NEUTRAL_MARGIN / 2
    pp = np.zeros((p_pos.shape[0], 3))
    neg = p_pos < 0.5 - half
    pos = p_pos > 0.5 + half
    for mask in (neg, pos):
        pp[mask, 0] = 1 - p_pos[mask]
        pp[mask, 2] = p_pos[mask]
    neutral_pos = (p_pos >= 0.5) & (p_pos < 0.5 + half)
    neutral_neg = (p_pos < 0.5) & (p_pos > 0.5 - half)
    for mask, side in ((neutral_pos, 2), (neutral_neg, 0)):
        pp[mask, 1] = 1 - (1 / NEUTRAL_MARGIN) * np.abs(p_pos[mask] - 0.5)
        pp[mask, side] = 1 - pp[mask, 1]
    return np.argmax(pp, axis=1), pp


def predict_fn(classifier: Classifier, neutral_band: bool = False) -> PredictFn:
    """A CheckList ``predict_and_confidence_fn`` backed by ``classifier``: the argmax of its
    task classes, or (``neutral_band``: the released 3-class sentiment suite on a binary
    model) CheckList's neutral-band conversion."""

    def sentiment(examples: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        probs = classifier.predict_proba(examples)  # columns: negative, positive
        return binary_to_three_class(probs[:, 1])

    def paired(examples: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        probs = classifier.predict_proba(examples)  # columns: not_duplicate, duplicate
        return np.argmax(probs, axis=1), probs

    return sentiment if neutral_band else paired


@dataclass
class ChecklistResult:
    """One CheckList test run on one model: its fail counts and each case's pass/fail (not an
    item's pytest outcome, which ``nlp_gate.pytest_plugin.outcome`` decides)."""

    n_cases: int  # test cases that counted (run, not filtered by the expectation)
    n_failed: int
    fail_rate: float  # percent, as CheckList reports it
    failing: list[str] = field(default_factory=list)  # first failing cases, readable
    # Per run case (index into test.data): True pass, False fail, None filtered.  Two
    # models run with the same sample/seed have the same case_index, so they can be paired.
    # Every case of an unsampled test: a range (a run keeps every item's outcome; a list of
    # ints costs ~36 bytes a case, ~9 MiB over the two released suites per model).
    case_index: Sequence[int] = field(default_factory=list)
    passed: list[bool | None] = field(default_factory=list)
    # The cases ``failing`` describes, in its order (indices into test.data): what a
    # reviewer reads, and all an explanation of an item looks at.
    shown: list[int] = field(default_factory=list)

    def stored(self) -> dict[str, Any]:
        """As the prediction cache stores it: JSON, ``case_index`` a list."""
        return {**asdict(self), "case_index": list(self.case_index)}

    @classmethod
    def from_stored(cls, stored: dict[str, Any]) -> ChecklistResult:
        outcome = cls(**stored)
        every = range(len(outcome.case_index))
        if list(outcome.case_index) == list(every):  # every case: a range again
            outcome.case_index = every
        return outcome


@cache
def harness_digest() -> str:
    """What, besides the model and the suite file, decides an ``ChecklistResult``: this module,
    the bulk scoring, the release-suite decoder and CheckList's version.  Stored outcomes are
    keyed by it, so a change of any of them re-evaluates every test instead of reusing stale
    verdicts."""
    import nlp_gate.suites as decoder

    h = hashlib.sha256(version("checklist-pattern").encode())
    from nlp_gate.kinds.checklist import scoring

    decoded = sorted(Path(decoder.__file__).parent.glob("*.py"))
    files = [Path(__file__), Path(scoring.__file__), *decoded]
    for path in files:
        h.update(path.name.encode() + path.read_bytes())
    return h.hexdigest()


def examples_of(test: Any, sample: int | None, seed: int) -> list[Any]:
    """The inputs ``test.run(n=sample, seed=seed)`` will ask the model for."""
    examples: list[Any]
    examples, _ = test.example_list_and_indices(n=sample, seed=seed)
    return examples


def run_test(
    test: Any,
    fn: PredictFn,
    sample: int | None,
    seed: int,
    max_examples: int = 5,
    scoring: str = "bulk",
) -> ChecklistResult:
    """``test`` run on ``fn``'s model: CheckList's ``run`` and ``get_stats`` (``scoring``
    ``checklist``), or the same verdicts computed in bulk (``kinds.checklist.scoring``),
    CheckList's again for an expectation with no bulk version.  Only the reference path
    leaves CheckList's ``test.results`` on the test."""
    if scoring not in SCORINGS:
        raise ValueError(f"scoring {scoring!r} is not one of {SCORINGS}")
    if scoring == "checklist":
        test.run(fn, overwrite=True, verbose=False, n=sample, seed=seed)
        return _checklist_result(test, max_examples)
    # What test.run does before scoring: the (seeded) cases, then the model's predictions.
    examples, _ = test.example_list_and_indices(n=sample, seed=seed)
    preds, confs = fn(examples)
    try:
        scores = bulk_scores(test, preds, confs)
    except NoBulkForm:
        test.run_from_preds_confs(preds, confs, overwrite=True)
        return _checklist_result(test, max_examples)
    test.__dict__.pop("results", None)  # an earlier reference run's, now stale
    return _bulk_result(test, scores, preds, confs, max_examples)


def _checklist_result(test: Any, max_examples: int) -> ChecklistResult:
    stats = test.get_stats()
    # With sampling, fail_idxs() indexes the sampled cases, not test.data.
    run_idxs = test.run_idxs
    fails = [int(i if run_idxs is None else run_idxs[i]) for i in test.fail_idxs()]
    n_run = stats.get("testcases_run", stats["testcases"])
    n_cases = int(stats.get("after_filtering", n_run))
    results = test.results
    return ChecklistResult(
        n_cases=n_cases,
        n_failed=len(fails),
        fail_rate=float(stats.get("fail_rate", 0.0)),
        failing=[
            _describe(test, i, results.preds[i], results.confs[i]) for i in fails[:max_examples]
        ],
        shown=fails[:max_examples],
        case_index=range(len(test.data)) if run_idxs is None else [int(i) for i in run_idxs],
        passed=[None if p is None else bool(p) for p in results.passed],
    )


def _bulk_result(
    test: Any, scores: BulkScores, preds: np.ndarray, confs: np.ndarray, max_examples: int
) -> ChecklistResult:
    """``_checklist_result``'s figures from bulk verdicts, computed as ``get_stats`` does."""
    passed = scores.passed
    failed = np.flatnonzero(passed == FAIL)
    n_run = len(passed)
    nonfiltered = n_run - int(np.count_nonzero(passed == NONE))
    fails = [int(scores.run_cases[j]) for j in failed]
    return ChecklistResult(
        n_cases=nonfiltered,
        n_failed=len(fails),
        fail_rate=100 * len(fails) / nonfiltered if nonfiltered else 0.0,
        failing=[
            _describe(test, int(scores.run_cases[j]), *scores.case_predictions(preds, confs, j))
            for j in failed[:max_examples]
        ],
        shown=fails[:max_examples],
        case_index=(
            range(len(test.data)) if test.run_idxs is None else [int(i) for i in scores.run_cases]
        ),
        passed=[None if p == NONE else bool(p == PASS) for p in passed.tolist()],
    )


def _describe(test: Any, i: int, preds: Any, confs: Any) -> str:
    """Case ``i`` (index into test.data) as a failing example reads, from its predictions
    and confidences as CheckList's results hold them."""
    data = test.data[i]
    label = test.labels[i] if isinstance(test.labels, list) else test.labels
    if not isinstance(data, list):
        data, preds, confs = [data], [preds], [confs]
    lines = [f"  case {i} (expected label: {label})"]
    for text, pred, conf in list(zip(data, preds, confs))[:4]:
        conf = np.asarray(conf)
        lines.append(f"    pred={int(pred)} conf={np.round(conf, 2).tolist()}  {text!r}")
    return "\n".join(lines)
