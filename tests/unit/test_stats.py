"""nlp_gate.stats: interval, paired test and FDR properties, and exact values from the
literature."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binom, binomtest, false_discovery_control

from nlp_gate.stats import (
    PairedCounts,
    benjamini_hochberg,
    mcnemar_exact,
    paired_difference,
    wilson_interval,
)

counts = st.builds(PairedCounts, *(st.integers(0, 400) for _ in range(4))).filter(lambda c: c.n > 0)
rates = st.integers(1, 5000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n)))
p_values = st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=60)


# -- Wilson interval -----------------------------------------------------------------------


@given(rates)
def test_wilson_interval_contains_the_rate_and_stays_in_0_1(kn: tuple[int, int]) -> None:
    k, n = kn
    low, high = wilson_interval(k, n)
    assert 0 <= low <= k / n <= high <= 1


@given(rates)
def test_wilson_interval_is_symmetric_under_relabelling(kn: tuple[int, int]) -> None:
    k, n = kn
    low, high = wilson_interval(k, n)
    flipped_low, flipped_high = wilson_interval(n - k, n)
    assert low == pytest.approx(1 - flipped_high, abs=1e-12)
    assert high == pytest.approx(1 - flipped_low, abs=1e-12)


@pytest.mark.parametrize(
    "k, n, low, high",
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Stat Med 17,
        # Table II, method 3 (score interval without continuity correction).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0000, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_interval_matches_published_values(k: int, n: int, low: float, high: float) -> None:
    assert wilson_interval(k, n) == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_narrows_with_more_cases() -> None:
    small, large = wilson_interval(5, 20), wilson_interval(125, 500)
    assert large[1] - large[0] < small[1] - small[0]


@given(
    st.integers(1, 10**7).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
    st.sampled_from([0.8, 0.9, 0.95, 0.99, 0.999]),
)
def test_wilson_interval_is_binomtests_to_the_last_bit(
    kn: tuple[int, int], confidence: float
) -> None:
    k, n = kn
    ci = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    rate = k / n
    expected = max(0.0, min(float(ci.low), rate)), min(1.0, max(float(ci.high), rate))
    assert wilson_interval(k, n, confidence) == expected


def test_a_wilson_interval_leaves_scipy_stats_unimported() -> None:
    # Every CheckList item computes one, also in a run answered from the prediction cache,
    # which loads no model: scipy.stats was ~48 MiB and ~0.7 s of each such process
    # (docs/measurements/performance.md, 0.3.12).
    code = (
        "import sys; from nlp_gate.stats import wilson_interval; "
        "print(wilson_interval(3, 10)); print('scipy.stats' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[1] == "False", out


@pytest.mark.parametrize("k, n", [(0, 0), (3, 2), (-1, 5)])
def test_wilson_interval_rejects_impossible_counts(k: int, n: int) -> None:
    with pytest.raises(ValueError):
        wilson_interval(k, n)


# -- paired counts and McNemar -------------------------------------------------------------


def test_paired_counts_from_per_case_flags() -> None:
    candidate = [True, False, False, True, False]
    baseline = [True, True, False, False, True]
    c = PairedCounts.from_passed(candidate, baseline)
    assert (c.both_fail, c.worse, c.better, c.both_pass) == (1, 2, 1, 1)
    assert (c.candidate_fails, c.baseline_fails, c.n) == (3, 2, 5)
    with pytest.raises(ValueError, match="unpaired"):
        PairedCounts.from_passed(candidate, baseline[:-1])


@given(counts)
def test_mcnemar_equals_scipy_binomial_test_on_the_discordant_cases(c: PairedCounts) -> None:
    m = c.worse + c.better
    expected = binomtest(c.worse, m, 0.5).pvalue if m else 1.0
    assert mcnemar_exact(c) == pytest.approx(expected, rel=1e-12)
    # The textbook form of the exact test: twice the smaller binomial tail, capped at 1.
    textbook = min(1.0, 2 * binom.cdf(min(c.worse, c.better), m, 0.5)) if m else 1.0
    assert mcnemar_exact(c) == pytest.approx(textbook, rel=1e-9, abs=1e-300)


def test_mcnemar_ignores_concordant_cases() -> None:
    # 27.4% vs 27.8% on 500 cases: noise.  The concordant cells do not enter the test.
    noise = PairedCounts(both_fail=130, worse=7, better=9, both_pass=354)
    assert mcnemar_exact(noise) == mcnemar_exact(PairedCounts(0, 7, 9, 0))
    assert mcnemar_exact(noise) == pytest.approx(0.8036, abs=1e-4)  # 2 * P(X <= 7), X~B(16, 1/2)
    # 52.7% vs 8.8% on 500 cases: not noise.
    assert mcnemar_exact(PairedCounts(40, 224, 4, 232)) < 1e-50


# -- paired difference ---------------------------------------------------------------------


@given(counts)
def test_difference_interval_contains_the_difference(c: PairedCounts) -> None:
    d = paired_difference(c)
    assert d.delta == pytest.approx((c.worse - c.better) / c.n)
    assert -1 <= d.low <= d.delta <= d.high <= 1


@given(counts)
def test_swapping_candidate_and_baseline_flips_the_sign(c: PairedCounts) -> None:
    d, s = paired_difference(c), paired_difference(c.swapped())
    assert s.delta == pytest.approx(-d.delta, abs=1e-12)
    assert (s.low, s.high) == pytest.approx((-d.high, -d.low), abs=1e-12)
    assert mcnemar_exact(c.swapped()) == pytest.approx(mcnemar_exact(c), rel=1e-12)


@given(counts)
def test_difference_interval_narrows_with_more_cases(c: PairedCounts) -> None:
    bigger = PairedCounts(*(4 * x for x in (c.both_fail, c.worse, c.better, c.both_pass)))
    d, big = paired_difference(c), paired_difference(bigger)
    # 1e-9: with no discordant case at a 50% rate both widths are 0 up to float noise.
    assert big.high - big.low <= d.high - d.low + 1e-9


def test_difference_interval_excludes_zero_only_for_a_clear_difference() -> None:
    noise = paired_difference(PairedCounts(130, 7, 9, 354))
    assert noise.low < 0 < noise.high
    regression = paired_difference(PairedCounts(40, 224, 4, 232))
    assert regression.delta == pytest.approx(0.44)
    assert 0.39 < regression.low < regression.delta < regression.high < 0.49


def test_identical_models_have_a_zero_difference_and_p_one() -> None:
    same = PairedCounts(both_fail=12, worse=0, better=0, both_pass=88)
    d = paired_difference(same)
    assert d.delta == 0 and d.low < 0 < d.high
    assert mcnemar_exact(same) == 1.0
    with pytest.raises(ValueError):
        paired_difference(PairedCounts(0, 0, 0, 0))


# -- Benjamini-Hochberg --------------------------------------------------------------------


def _step_up(p: list[float]) -> list[float]:
    """Benjamini & Hochberg (1995) step-up, written out: min over j >= i of p_(j) * m / j."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p[i] * m / rank)
        adjusted[i] = running
    return adjusted


@given(p_values)
def test_bh_adjusted_p_values_are_monotone_and_not_below_the_raw_ones(p: list[float]) -> None:
    adjusted = benjamini_hochberg(p)
    assert len(adjusted) == len(p)
    for raw, adj in zip(p, adjusted):
        assert raw <= adj + 1e-12 and adj <= 1
    for i in range(len(p)):
        for j in range(len(p)):
            if p[i] <= p[j]:
                assert adjusted[i] <= adjusted[j] + 1e-12


@given(p_values)
def test_bh_matches_scipy_and_the_written_out_step_up(p: list[float]) -> None:
    adjusted = benjamini_hochberg(p)
    assert adjusted == pytest.approx(list(false_discovery_control(p, method="bh")), abs=1e-12)
    assert adjusted == pytest.approx(_step_up(p), abs=1e-12)


def test_bh_reproduces_the_1995_paper_example() -> None:
    # Benjamini & Hochberg (1995), section 3.2: 15 p-values; at q = 0.05 the procedure
    # rejects the four smallest (Bonferroni only the three smallest).
    p = [
        0.0001,
        0.0004,
        0.0019,
        0.0095,
        0.0201,
        0.0278,
        0.0298,
        0.0344,
        0.0459,
        0.3240,
        0.4262,
        0.5719,
        0.6528,
        0.7590,
        1.000,
    ]
    adjusted = benjamini_hochberg(p)
    assert [a <= 0.05 for a in adjusted] == [True] * 4 + [False] * 11
    assert adjusted[3] == pytest.approx(0.0095 * 15 / 4)
    assert sum(x * 15 <= 0.05 for x in p) == 3


def test_bh_of_nothing_is_nothing() -> None:
    assert benjamini_hochberg([]) == []
