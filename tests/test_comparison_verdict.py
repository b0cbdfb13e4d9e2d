"""nlp_gate.kinds.comparison: pairing CheckList outcomes by test case, and the gate's verdicts."""

from __future__ import annotations

import pytest
from nlp_gate.config.profiles import load_profile
from nlp_gate.kinds.checklist.run import Outcome
from nlp_gate.kinds.comparison import (
    ComparisonCase,
    ComparisonConfig,
    judge,
    pair_outcomes,
)
from nlp_gate.stats import PairedCounts
from nlp_gate.suites.catalog import TestInfo as Info  # "Test*" names would be collected

PROFILE = load_profile("tiny")
CASE = ComparisonCase(0, Info("sentiment", "Typos", "Robustness", "inv", 500, ""),
                      PROFILE.get("sst2", "albert"), PROFILE.get("sst2", "bert"))
CONFIG = ComparisonConfig("bert", "albert", 0.05, 2.0, {"Robustness": 5.0})


def _outcome(case_index: list[int], passed: list[bool | None]) -> Outcome:
    failed = sum(p is False for p in passed)
    counted = sum(p is not None for p in passed)
    return Outcome(counted, failed, 100 * failed / max(counted, 1), [], case_index, passed)


def test_outcomes_are_paired_by_case_and_filtered_cases_left_out() -> None:
    candidate = _outcome([4, 9, 2, 7, 5], [False, True, None, False, False])
    baseline = _outcome([2, 4, 5, 7, 9], [True, True, False, None, False])
    worse, counts = pair_outcomes(candidate, baseline)
    # case 4: cand fails, base passes; 9: cand passes, base fails; 5: both fail;
    # 2 (filtered for the candidate) and 7 (for the baseline) are not compared.
    assert worse == [4]
    assert counts == PairedCounts(both_fail=1, worse=1, better=1, both_pass=0)


def test_significantly_worse_beyond_the_tolerance_fails_with_the_evidence() -> None:
    counts = PairedCounts(both_fail=40, worse=224, better=4, both_pass=232)
    result = judge(CASE, list(range(3, 300)), counts, 1e-60, 4e-59, 24, CONFIG)
    r = result.record
    assert (r.verdict, r.passed) == ("worse", False)
    assert (r.candidate_fail_rate, r.baseline_fail_rate) == pytest.approx((52.8, 8.8))
    assert r.delta == pytest.approx(44.0) and r.ci_low < 44.0 < r.ci_high
    assert r.tolerance == 5.0 and (r.worse, r.better, r.n_cases) == (224, 4, 500)
    message = result.message or ""
    assert "candidate albert is significantly worse than baseline bert" in message
    assert "exceeds the tolerance 5.0 pp (thresholds.yaml: " \
           "comparison.tolerance.capabilities.Robustness)" in message
    assert "224 cases fail only on albert, 4 only on bert" in message
    assert "over 24 comparisons" in message and "3, 4, 5, 6, 7, 8, 9, 10, 11, 12, ..." in message


@pytest.mark.parametrize("counts, p_adjusted, verdict", [
    (PairedCounts(130, 7, 9, 354), 0.9, "no significant difference"),  # 27.4% vs 27.8%
    (PairedCounts(0, 30, 0, 970), 0.01, "worse within tolerance"),  # +3.0 pp, tolerance 5
    (PairedCounts(0, 60, 0, 940), 0.06, "no significant difference"),  # not after BH
    (PairedCounts(0, 0, 60, 940), 0.001, "better"),
])
def test_noise_small_and_favourable_differences_pass(counts: PairedCounts, p_adjusted: float,
                                                     verdict: str) -> None:
    result = judge(CASE, [], counts, p_adjusted / 2, p_adjusted, 10, CONFIG)
    assert (result.record.verdict, result.record.passed, result.message) == (verdict, True, None)


def test_nothing_compared_is_neither_a_pass_nor_a_failure() -> None:
    # CheckList's expectation filter can keep disjoint cases for the two models.
    result = judge(CASE, [], PairedCounts(0, 0, 0, 0), None, None, 3, CONFIG, (0, 4))
    assert (result.record.verdict, result.record.passed) == ("no paired cases", None)
    assert result.record.delta is None
    assert "(albert: 0 cases, bert: 4): nothing was compared" in (result.message or "")
