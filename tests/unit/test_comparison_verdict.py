"""nlp_gate.kinds.comparison: pairing CheckList outcomes by test case, and the gate's verdicts."""

from __future__ import annotations

from dataclasses import replace

import pytest

from nlp_gate.config.profiles import load_profile
from nlp_gate.kinds.checklist.run import ChecklistResult
from nlp_gate.kinds.comparison.kind import (
    ComparisonCase,
    ComparisonConfig,
    judge,
    pair_outcomes,
    worse_than_all,
)
from nlp_gate.stats import PairedCounts
from nlp_gate.suites.catalog import TestInfo as Info  # "Test*" names would be collected

PROFILE = load_profile("tiny")
CASE = ComparisonCase(
    0,
    Info("sentiment", "Typos", "Robustness", "inv", 500, ""),
    PROFILE.get("sst2", "albert"),
    PROFILE.get("sst2", "bert"),
)
CONFIG = ComparisonConfig("bert", "albert", 0.05, 2.0, {"Robustness": 5.0})


def _outcome(case_index: list[int], passed: list[bool | None]) -> ChecklistResult:
    failed = sum(p is False for p in passed)
    counted = sum(p is not None for p in passed)
    return ChecklistResult(counted, failed, 100 * failed / max(counted, 1), [], case_index, passed)


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
    assert (
        "exceeds the tolerance 5.0 pp (thresholds.yaml: "
        "comparison.tolerance.capabilities.Robustness)" in message
    )
    assert "224 cases fail only on albert, 4 only on bert" in message
    assert "over 24 comparisons" in message and "3, 4, 5, 6, 7, 8, 9, 10, 11, 12, ..." in message


@pytest.mark.parametrize(
    "counts, p_adjusted, verdict",
    [
        (PairedCounts(130, 7, 9, 354), 0.9, "no significant difference"),  # 27.4% vs 27.8%
        (PairedCounts(0, 30, 0, 970), 0.01, "worse within tolerance"),  # +3.0 pp, tolerance 5
        (PairedCounts(0, 60, 0, 940), 0.06, "no significant difference"),  # not after BH
        (PairedCounts(0, 0, 60, 940), 0.001, "better"),
    ],
)
def test_noise_small_and_favourable_differences_pass(
    counts: PairedCounts, p_adjusted: float, verdict: str
) -> None:
    result = judge(CASE, [], counts, p_adjusted / 2, p_adjusted, 10, CONFIG)
    assert (result.record.verdict, result.record.passed, result.message) == (verdict, True, None)


def test_nothing_compared_is_neither_a_pass_nor_a_failure() -> None:
    # CheckList's expectation filter can keep disjoint cases for the two models.
    result = judge(CASE, [], PairedCounts(0, 0, 0, 0), None, None, 3, CONFIG, (0, 4))
    assert (result.record.verdict, result.record.passed) == ("no paired cases", None)
    assert result.record.delta is None
    assert "(albert: 0 cases, bert: 4): nothing was compared" in (result.message or "")


# The baseline retrained with two other seeds: the candidate must be worse than all three.
RESEEDS = tuple(replace(PROFILE.get("sst2", "bert"), name=f"bert-seed{k}") for k in (2, 3))
RESEEDED = replace(CASE, reseeds=RESEEDS)
WORSE = PairedCounts(both_fail=40, worse=224, better=4, both_pass=232)  # +44 pp vs bert


def test_worse_than_the_baseline_but_not_than_a_reseed_passes() -> None:
    # Retraining noise: the second reseed fails as often as the candidate.
    reseeds = [PairedCounts(114, 150, 20, 216), PairedCounts(234, 30, 34, 202)]
    p_value = worse_than_all(WORSE, reseeds)
    assert p_value == 1.0  # not worse than bert-seed3: no evidence against the null
    result = judge(
        RESEEDED, list(range(3, 300)), WORSE, p_value, p_value, 24, CONFIG, reseeds=reseeds
    )
    r = result.record
    assert (r.verdict, r.passed, result.message) == ("no significant difference", True, None)
    assert r.delta == pytest.approx(44.0)  # still reported against the baseline
    assert r.excess == pytest.approx(-0.8)  # 52.8 % vs bert-seed3's 53.6 %
    assert [x["model"] for x in r.reseeds] == ["bert-seed2", "bert-seed3"]
    assert r.reseeds[1]["fail_rate"] == pytest.approx(53.6)


def test_worse_than_every_clean_model_fails_and_names_each() -> None:
    reseeds = [PairedCounts(114, 150, 20, 216), PairedCounts(204, 60, 10, 226)]
    p_value = worse_than_all(WORSE, reseeds)
    # The intersection-union p: the largest of the three p-values, bert-seed3's.
    assert p_value == max(worse_than_all(c, []) for c in (WORSE, *reseeds))
    assert p_value < 1e-9
    result = judge(
        RESEEDED, list(range(3, 300)), WORSE, p_value, p_value, 24, CONFIG, reseeds=reseeds
    )
    r = result.record
    assert (r.verdict, r.passed) == ("worse", False)
    assert r.excess == pytest.approx(10.0)  # over bert-seed3, the nearest clean model
    message = result.message or ""
    assert (
        "worse than each reseed of bert too: bert-seed2 +26.0 pp (150 cases fail only "
        "on albert, 20 only on bert-seed2" in message
    )
    assert "the least excess over a clean model, +10.0 pp, exceeds the tolerance" in message


def test_excess_within_tolerance_of_the_nearest_clean_model_passes() -> None:
    reseeds = [PairedCounts(114, 150, 20, 216), PairedCounts(240, 24, 4, 232)]  # +4 pp
    p_value = worse_than_all(WORSE, reseeds)
    result = judge(RESEEDED, [], WORSE, p_value, p_value, 24, CONFIG, reseeds=reseeds)
    assert (result.record.verdict, result.record.passed) == ("worse within tolerance", True)


@pytest.mark.parametrize("counts", [WORSE, WORSE.swapped(), PairedCounts(10, 5, 5, 80)])
def test_a_reseed_identical_to_the_baseline_changes_no_p_value(counts: PairedCounts) -> None:
    # Worse, better and no difference alike: the Benjamini-Hochberg family stays as it was.
    assert worse_than_all(counts, [counts, counts]) == worse_than_all(counts, [])
