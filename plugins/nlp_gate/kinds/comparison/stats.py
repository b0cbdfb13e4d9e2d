"""Candidate vs baseline as numbers: pairing two models' outcomes of one CheckList test,
the gate's verdict on the pair (``judge``), and the verdicts judged again over another
Benjamini-Hochberg family (``rejudge``: the merge of sharded runs).

pytest-free and kind-free: the comparison kind (``nlp_gate.kinds.comparison``) judges its
items with it, ``report/merge.py`` re-judges the merged records with it.  The method and the
thresholds.yaml section it reads are described in the kind's module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from nlp_gate.results.records import RecordHead, head
from nlp_gate.stats import PairedCounts, benjamini_hochberg, mcnemar_exact, paired_difference

if TYPE_CHECKING:
    from nlp_gate.config.specs import ModelSpec
    from nlp_gate.suites.catalog import TestInfo

MAX_LISTED_CASES = 10


class PairedTest(Protocol):
    """What judging needs of a comparison item (``ComparisonCase``)."""

    @property
    def info(self) -> TestInfo: ...
    @property
    def model(self) -> ModelSpec: ...  # the candidate
    @property
    def baseline(self) -> ModelSpec: ...
    @property
    def reseeds(self) -> tuple[ModelSpec, ...]: ...


class CaseOutcomes(Protocol):
    """One model's outcome of a test, case by case (``kinds.checklist.run.ChecklistResult``)."""

    @property
    def case_index(self) -> Sequence[int]: ...
    @property
    def passed(self) -> Sequence[bool | None]: ...


@dataclass(frozen=True)
class ComparisonConfig:
    baseline: str
    candidate: str
    alpha: float
    tolerance_default: float  # percentage points
    tolerance_capabilities: Mapping[str, float]
    reseeds: tuple[str, ...] = ()  # clean retrainings of the baseline

    def tolerance(self, capability: str) -> tuple[float, str]:
        """The capability's δ and the thresholds.yaml rule that set it."""
        if capability in self.tolerance_capabilities:
            return (
                self.tolerance_capabilities[capability],
                f"comparison.tolerance.capabilities.{capability}",
            )
        return self.tolerance_default, "comparison.tolerance.default"


@dataclass(frozen=True)
class ComparisonRecord(RecordHead):
    baseline: str
    candidate: str
    n_cases: int  # cases run, and not filtered, on both models
    baseline_fail_rate: float | None  # percent, over the paired cases
    candidate_fail_rate: float | None
    delta: float | None  # percentage points, candidate - baseline
    ci_low: float | None  # 95% Newcombe interval of delta
    ci_high: float | None
    worse: int  # cases the candidate fails and the baseline passes
    better: int  # cases the candidate passes and the baseline fails
    p_value: float | None  # exact McNemar, two-sided; with reseeds the intersection-union p
    p_adjusted: float | None  # Benjamini-Hochberg across the run's comparisons
    excess: float | None  # pp over the nearest clean model: delta, or with reseeds the least
    reseeds: list[dict[str, Any]]  # per reseed: model, fail_rate, delta, worse, better, p_value
    alpha: float
    tolerance: float  # percentage points
    verdict: str  # worse | worse within tolerance | better | no significant difference | ...
    passed: bool | None  # None: skipped, no case was run on both models


@dataclass(frozen=True)
class Comparison:
    record: ComparisonRecord
    message: str | None  # why the item fails (or skips); None when the gate passed


def worse_than_all(counts: PairedCounts, reseeds: Sequence[PairedCounts]) -> float:
    """The item's p-value: exact McNemar against the baseline; with reseeds, the
    intersection-union p of "differs from each clean model in the direction it differs from
    the baseline" (worse than all, or better than all): the largest p-value, where a clean
    model it differs from the other way, or not at all, counts as 1.  Two-sided like the
    baseline's alone, so a reseed identical to the baseline leaves every p-value -- and the
    Benjamini-Hochberg family -- as it was."""
    if not reseeds:
        return mcnemar_exact(counts)
    direction = counts.worse > counts.better, counts.worse < counts.better
    return max(
        mcnemar_exact(c)
        if (c.worse > c.better, c.worse < c.better) == direction and any(direction)
        else 1.0
        for c in (counts, *reseeds)
    )


def reseed_record(spec: ModelSpec, counts: PairedCounts) -> dict[str, Any]:
    """The candidate against one reseed, for results.json and the failure message."""
    if not counts.n:
        return {
            "model": spec.name,
            "n_cases": 0,
            "fail_rate": None,
            "delta": None,
            "worse": 0,
            "better": 0,
            "p_value": None,
        }
    return {
        "model": spec.name,
        "n_cases": counts.n,
        "fail_rate": 100 * counts.baseline_fails / counts.n,
        "delta": 100 * (counts.candidate_fails - counts.baseline_fails) / counts.n,
        "worse": counts.worse,
        "better": counts.better,
        "p_value": mcnemar_exact(counts),
    }


def judge(
    case: PairedTest,
    worse_cases: list[int],
    counts: PairedCounts,
    p_value: float | None,
    p_adjusted: float | None,
    family: int,
    config: ComparisonConfig,
    unfiltered: tuple[int, int] = (0, 0),
    reseeds: Sequence[PairedCounts] = (),
) -> Comparison:
    """The gate's verdict on one comparison (``p_adjusted`` over ``family`` comparisons;
    ``unfiltered``: cases each model kept after CheckList's expectation filter; ``reseeds``:
    the candidate against each of ``case.reseeds``)."""
    tolerance, source = config.tolerance(case.info.capability)
    cand, base = case.model.name, case.baseline.name
    record: dict[str, Any] = dict(
        **head(case.info, case.model),
        baseline=base,
        candidate=cand,
        n_cases=counts.n,
        worse=counts.worse,
        better=counts.better,
        p_value=p_value,
        p_adjusted=p_adjusted,
        alpha=config.alpha,
        tolerance=tolerance,
        reseeds=[reseed_record(spec, c) for spec, c in zip(case.reseeds, reseeds)],
    )
    if counts.n == 0 or p_adjusted is None:
        return Comparison(
            ComparisonRecord(
                **record,
                baseline_fail_rate=None,
                candidate_fail_rate=None,
                delta=None,
                ci_low=None,
                ci_high=None,
                excess=None,
                verdict="no paired cases",
                passed=None,
            ),
            f"no test case was kept by CheckList's expectation filter for both models "
            f"({cand}: {unfiltered[0]} cases, {base}: {unfiltered[1]}): nothing was compared; "
            "a larger --nlp-sample may help",
        )
    diff = paired_difference(counts)
    delta, low, high = (100 * x for x in (diff.delta, diff.low, diff.high))
    excess = min([delta, *(r["delta"] for r in record["reseeds"] if r["delta"] is not None)])
    verdict = comparison_verdict(p_adjusted, config.alpha, excess, tolerance)
    cand_rate, base_rate = (
        100 * counts.candidate_fails / counts.n,
        100 * counts.baseline_fails / counts.n,
    )
    message = None
    if verdict == "worse":
        listed = ", ".join(map(str, worse_cases[:MAX_LISTED_CASES]))
        more = ", ..." if len(worse_cases) > MAX_LISTED_CASES else ""
        message = (
            f"candidate {cand} is significantly worse than baseline {base} on the same "
            f"{counts.n} cases: fail rate {cand_rate:.1f}% vs {base_rate:.1f}%, "
            f"delta {delta:+.1f} pp (95% CI {low:+.1f} to {high:+.1f}) exceeds the "
            f"tolerance {tolerance:.1f} pp (thresholds.yaml: {source})\n"
            f"{counts.worse} cases fail only on {cand}, {counts.better} only on {base}; "
            f"exact McNemar p = {p_value:.3g}, Benjamini-Hochberg adjusted p = "
            f"{p_adjusted:.3g} <= alpha {config.alpha} over {family} comparisons\n"
            f"cases only {cand} fails (CheckList test.data index): {listed}{more}"
        )
        if record["reseeds"]:
            message += (
                f"\nworse than each reseed of {base} too: "
                + "; ".join(
                    f"{r['model']} {r['delta']:+.1f} pp ({r['worse']} cases fail only on "
                    f"{cand}, {r['better']} only on {r['model']}, p = {r['p_value']:.3g})"
                    for r in record["reseeds"]
                )
                + f"; the least excess over a clean model, {excess:+.1f} pp, exceeds the "
                "tolerance; the p-value above is the largest of these"
            )
    return Comparison(
        ComparisonRecord(
            **record,
            baseline_fail_rate=base_rate,
            candidate_fail_rate=cand_rate,
            delta=delta,
            ci_low=low,
            ci_high=high,
            excess=excess,
            verdict=verdict,
            passed=message is None,
        ),
        message,
    )


def comparison_verdict(p_adjusted: float, alpha: float, excess: float, tolerance: float) -> str:
    """The verdict on one comparison; only "worse" fails the item.  Also used by the merge of
    sharded runs, which adjusts the p-values over every shard's comparisons."""
    significant = p_adjusted <= alpha
    if significant and excess > tolerance:
        return "worse"
    if significant and excess > 0:
        return "worse within tolerance"
    return "better" if significant else "no significant difference"


def rejudge(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Comparison records (position order) judged again as one Benjamini-Hochberg family:
    what one run of all of them would have recorded."""
    tested = [i for i, r in enumerate(records) if r["p_value"] is not None]
    adjusted = dict(zip(tested, benjamini_hochberg([records[i]["p_value"] for i in tested])))
    judged = []
    for i, r in enumerate(records):
        if i not in adjusted:
            judged.append(dict(r))
            continue
        verdict = comparison_verdict(adjusted[i], r["alpha"], r["excess"], r["tolerance"])
        judged.append(
            {**r, "p_adjusted": adjusted[i], "verdict": verdict, "passed": verdict != "worse"}
        )
    return judged


def pair_outcomes(
    candidate: CaseOutcomes, baseline: CaseOutcomes
) -> tuple[list[int], PairedCounts]:
    """Pair outcomes by test case; a case filtered out for either model is left out.

    Returns the cases only the candidate fails, and the 2x2 counts.
    """
    base = dict(zip(baseline.case_index, baseline.passed))
    cand_flags: list[bool] = []
    base_flags: list[bool] = []
    worse: list[int] = []
    for index, passed in zip(candidate.case_index, candidate.passed):
        other = base.get(index)
        if passed is None or other is None:
            continue
        cand_flags.append(passed)
        base_flags.append(other)
        if other and not passed:
            worse.append(index)
    return worse, PairedCounts.from_passed(cand_flags, base_flags)
