"""The statistics of a release decision, as pure functions on counts.

- ``wilson_interval``: the 95% Wilson score interval of a rate (fail rate, accuracy).  It stays
  inside [0, 1] and keeps sensible coverage at 0 of 20 or 500 of 500, where the textbook
  normal interval collapses to a point.
- ``PairedCounts``: the 2x2 table of two models on the *same* test cases.  Only the discordant
  cells (one model fails, the other passes) carry evidence of a difference.
- ``mcnemar_exact``: McNemar's exact test, i.e. a two-sided binomial test of the discordant
  split against 1/2.
- ``paired_difference``: candidate minus baseline fail rate with Newcombe's (1998) hybrid score
  interval for paired proportions (his method 10): Wilson intervals of both rates, combined
  with the correlation of the paired outcomes.  It lies inside [-1, 1] and is recommended over
  the Wald interval by Fagerland, Lydersen & Laake (2014).  Known limit: with no discordant
  case and both rates near 50% it shrinks to (almost) a point.
- ``benjamini_hochberg``: p-values adjusted for the false discovery rate across a run's tests.

scipy does the arithmetic (binomial test, BH, the normal quantile of the Wilson interval);
this module only says which counts go in.  Rates are proportions in [0, 1]; callers convert to
percent.  ``scipy.stats`` is imported on first use, by the comparisons' statistics only:
it costs a process ~0.7 s and ~48 MiB, and every CheckList item wants a Wilson interval,
also in a run answered from the prediction cache, which loads no model (a loaded checkpoint
imports ``scipy.stats`` anyway, through transformers and scikit-learn).  So
``wilson_interval`` computes binomtest's own closed form (Newcombe 1998) with
``scipy.special.ndtri``: the same float operations in the same order, equal to
``binomtest(...).proportion_ci(method="wilson")`` to the last bit (tests/unit/test_stats.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

CONFIDENCE = 0.95


def wilson_interval(successes: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval of ``successes / n`` (proportions)."""
    if n <= 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n and n > 0, got {successes}/{n}")
    from scipy.special import ndtri

    # scipy.stats._binomtest._binom_wilson_conf_int (two-sided, no continuity correction),
    # operation for operation.
    z = float(ndtri(0.5 + 0.5 * confidence))
    rate = successes / n
    denom = 2 * (n + z**2)
    center = (2 * n * rate + z**2) / denom
    delta = z / denom * math.sqrt(4 * n * rate * (1 - rate) + z**2)
    low = 0.0 if successes == 0 else center - delta
    high = 1.0 if successes == n else center + delta
    # Clamp float noise so the interval always contains the rate and stays in [0, 1].
    return max(0.0, min(low, rate)), min(1.0, max(high, rate))


@dataclass(frozen=True)
class PairedCounts:
    """Outcomes of a candidate and a baseline on the same test cases."""

    both_fail: int
    worse: int  # the candidate fails, the baseline passes
    better: int  # the candidate passes, the baseline fails
    both_pass: int

    @classmethod
    def from_passed(cls, candidate: Sequence[bool], baseline: Sequence[bool]) -> PairedCounts:
        """From per-case pass flags, aligned: ``candidate[i]`` and ``baseline[i]`` are one case."""
        if len(candidate) != len(baseline):
            raise ValueError(f"unpaired outcomes: {len(candidate)} vs {len(baseline)} cases")
        pairs = list(zip(candidate, baseline))
        return cls(
            both_fail=pairs.count((False, False)),
            worse=pairs.count((False, True)),
            better=pairs.count((True, False)),
            both_pass=pairs.count((True, True)),
        )

    @property
    def n(self) -> int:
        return self.both_fail + self.worse + self.better + self.both_pass

    @property
    def candidate_fails(self) -> int:
        return self.both_fail + self.worse

    @property
    def baseline_fails(self) -> int:
        return self.both_fail + self.better

    def swapped(self) -> PairedCounts:
        """The same table with candidate and baseline exchanged."""
        return PairedCounts(self.both_fail, self.better, self.worse, self.both_pass)


def mcnemar_exact(counts: PairedCounts) -> float:
    """Two-sided exact McNemar p-value: are the discordant cases split other than 50/50?"""
    discordant = counts.worse + counts.better
    if discordant == 0:
        return 1.0  # the models agree on every case: no evidence of any difference
    from scipy.stats import binomtest

    return float(binomtest(counts.worse, discordant, 0.5, alternative="two-sided").pvalue)


@dataclass(frozen=True)
class Difference:
    """Candidate fail rate minus baseline fail rate, with its interval (proportions)."""

    delta: float
    low: float
    high: float


def paired_difference(counts: PairedCounts, confidence: float = CONFIDENCE) -> Difference:
    """Newcombe's hybrid score interval (method 10) for a difference of paired proportions."""
    n = counts.n
    if n == 0:
        raise ValueError("no paired cases")
    p1, p2 = counts.candidate_fails / n, counts.baseline_fails / n
    l1, u1 = wilson_interval(counts.candidate_fails, n, confidence)
    l2, u2 = wilson_interval(counts.baseline_fails, n, confidence)
    a, b, c, d = counts.both_fail, counts.worse, counts.better, counts.both_pass
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    # Correlation of the paired outcomes; Newcombe sets it to 0 when a margin is empty.
    phi = (a * d - b * c) / math.sqrt(margins) if margins else 0.0
    delta = p1 - p2
    below = (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    above = (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    return Difference(
        delta,
        max(-1.0, delta - math.sqrt(max(below, 0.0))),
        min(1.0, delta + math.sqrt(max(above, 0.0))),
    )


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values, in the input order.

    A test is a discovery at false discovery rate q when its adjusted p-value is <= q.
    """
    if not p_values:
        return []
    from scipy.stats import false_discovery_control

    return [float(p) for p in false_discovery_control(list(p_values), method="bh")]
