"""Candidate vs baseline: one gated pytest item per CheckList test and dataset.

Both models run the test on the identical (seeded) test cases; the paired outcomes give
Δ = candidate fail rate - baseline fail rate (percentage points) with Newcombe's interval,
McNemar's exact p-value on the discordant cases, and a Benjamini-Hochberg adjustment across
every comparison item of the run.  An item fails when the candidate is significantly worse
(adjusted p <= alpha) *and* Δ exceeds the tolerance δ of the test's capability.  It skips
when CheckList's expectation filter kept no case for both models (nothing to compare).

Retraining alone moves a model's fail rates: two clean fine-tunings that differ only in their
seed disagree on hundreds of cases of some tests (the defect zoo's clean re-seeds were
flagged on 17.7 % of items against one baseline, ``scripts/power.py``).  One baseline cannot
tell that noise from a regression.  ``reseeds`` names clean retrainings of the baseline; with
them an item fails only when the candidate is significantly worse than the baseline *and*
than each reseed (an intersection-union test: its p-value is the largest of the candidate's
p-values against them, 1 where it differs from one of them in the other direction or not at
all), and its excess over the nearest of these clean models exceeds δ.  A reseed identical
to the baseline changes nothing.

``thresholds.yaml`` (``--nlp-baseline`` / ``--nlp-candidate`` override the two names)::

    comparison:
      baseline: bert              # model names of the profile
      candidate: albert
      reseeds: [bert-seed2, bert-seed3]   # optional: the baseline retrained with other seeds
      alpha: 0.05                 # false discovery rate across the run's comparisons
      tolerance:                  # δ in percentage points of fail rate
        default: 0
        capabilities: {Robustness: 2}

Without a baseline and a candidate there are no comparison items.  BH needs every p-value of
the run, so the first comparison item computes all selected comparisons; all of them share one
xdist group, so that happens once, on one worker.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import pytest

from nlp_gate.config.profiles import ModelSpec
from nlp_gate.config.thresholds import (
    is_number,
    percent_problems,
    raise_problems,
    unknown_names,
)
from nlp_gate.kinds.base import ItemKind, Labels, Models, Verdict
from nlp_gate.kinds.checklist import ChecklistKind
from nlp_gate.kinds.checklist.kind import CAPABILITIES, suite_marks
from nlp_gate.kinds.checklist.run import Outcome
from nlp_gate.stats import (
    PairedCounts,
    benjamini_hochberg,
    mcnemar_exact,
    paired_difference,
)
from nlp_gate.suites.catalog import TestInfo

Pair = tuple[ModelSpec, ModelSpec, tuple[ModelSpec, ...]]  # candidate, baseline, reseeds
XDIST_GROUP = "nlp-comparison"
SECTION_KEYS = ("baseline", "candidate", "reseeds", "alpha", "tolerance")
DEFAULT_ALPHA = 0.05
MAX_LISTED_CASES = 10


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
            return (self.tolerance_capabilities[capability],
                    f"comparison.tolerance.capabilities.{capability}")
        return self.tolerance_default, "comparison.tolerance.default"


def parse_config(section: Mapping[str, Any], baseline: str | None, candidate: str | None,
                 models: set[str], capabilities: set[str], where: str) -> ComparisonConfig | None:
    """The comparison section with the command line's names; None when nothing is declared."""
    problems = [f"unknown key {k!r} in the comparison section; valid: {', '.join(SECTION_KEYS)}"
                for k in section if k not in SECTION_KEYS]
    baseline = baseline or section.get("baseline")
    candidate = candidate or section.get("candidate")
    if baseline is None and candidate is None and not problems:
        return None
    for role, name in (("baseline", baseline), ("candidate", candidate)):
        if name is None:
            problems.append(f"no {role} declared: pass --nlp-{role} or set comparison.{role}")
        elif name not in models:
            problems.append(f"unknown {role} model {name!r}; valid: {', '.join(sorted(models))}")
    reseeds = section.get("reseeds") or []
    if not isinstance(reseeds, list) or not all(isinstance(r, str) for r in reseeds):
        problems.append(f"comparison.reseeds must be a list of model names, got {reseeds!r}")
        reseeds = []
    problems += [f"unknown reseed model {r!r}; valid: {', '.join(sorted(models))}"
                 for r in reseeds if r not in models]
    problems += [f"comparison.reseeds names the {role} {r!r}: a reseed is another training "
                 f"of the baseline" for r in reseeds
                 for role, name in (("baseline", baseline), ("candidate", candidate))
                 if r == name]
    alpha = section.get("alpha", DEFAULT_ALPHA)
    if not is_number(alpha) or not 0 < alpha < 1:
        problems.append(f"comparison.alpha must be in (0, 1), got {alpha!r}")
    tolerance = section.get("tolerance") or {}
    if is_number(tolerance):
        tolerance = {"default": tolerance}
    if not isinstance(tolerance, Mapping) or set(tolerance) - {"default", "capabilities"}:
        problems.append("comparison.tolerance must be a number or a mapping with keys "
                        f"default, capabilities; got {tolerance!r}")
        tolerance = {}
    per_capability: Mapping[str, Any] = tolerance.get("capabilities") or {}
    problems += unknown_names("comparison.tolerance capability", per_capability, capabilities)
    default = tolerance.get("default", 0)
    problems += percent_problems("a tolerance", [default, *per_capability.values()],
                                 unit="percentage points")
    raise_problems(where, problems)
    return ComparisonConfig(str(baseline), str(candidate), float(alpha), float(default),
                            {c: float(v) for c, v in per_capability.items()}, tuple(reseeds))


@dataclass(frozen=True, repr=False)
class ComparisonCase:
    """One pytest item: a CheckList test on one dataset, candidate vs baseline."""

    position: int
    info: TestInfo
    model: ModelSpec  # the candidate
    baseline: ModelSpec
    reseeds: tuple[ModelSpec, ...] = ()  # the baseline retrained with other seeds
    source: str = "checklist"  # the kind whose outcomes it pairs: checklist or native

    @property
    def models(self) -> tuple[ModelSpec, ...]:
        return (self.model, self.baseline, *self.reseeds)

    @property
    def id(self) -> str:
        return (f"{self.info.suite}/{self.info.name}/{self.model.dataset}/"
                f"{self.model.name}-vs-{self.baseline.name}")

    def __repr__(self) -> str:
        return self.id

    def marks(self) -> list[pytest.MarkDecorator]:
        # BH needs every comparison of the run: keep them on one worker, computed once.
        native = [pytest.mark.native] if self.source == "native" else []  # -m native: all
        return [pytest.mark.regression, *native, *suite_marks(self.info, self.model.task.name),
                pytest.mark.xdist_group(XDIST_GROUP)]


@dataclass(frozen=True)
class ComparisonRecord:
    suite: str
    task: str
    capability: str
    test: str
    type: str
    dataset: str
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


class ComparisonKind(ItemKind[ComparisonCase]):
    name = "comparison"
    argname = "comparison_case"
    section = "comparison"
    records = "comparisons"
    case_type = ComparisonCase
    markers = {"regression": "candidate-vs-baseline comparison item"}

    @classmethod
    def add_options(cls, group: pytest.OptionGroup) -> None:
        group.addoption("--nlp-baseline", default=None,
                        help="model name the candidate is compared with (default: comparison."
                             "baseline in thresholds.yaml)")
        group.addoption("--nlp-candidate", default=None,
                        help="model name released in place of the baseline (default: "
                             "comparison.candidate in thresholds.yaml)")

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._done: dict[str, Comparison] = {}

    def source(self, case: ComparisonCase) -> ChecklistKind:
        """The kind whose outcomes the case pairs (and shares with that kind's items)."""
        kind = self.session.kinds[case.source]  # by name: the native kind builds on this one
        assert isinstance(kind, ChecklistKind)
        return kind

    def parse_gates(self, section: Mapping[str, Any], where: str) -> ComparisonConfig | None:
        return parse_config(section, self.option.nlp_baseline, self.option.nlp_candidate,
                            set(self.session.profile.model_names), set(CAPABILITIES), where)

    def pairs(self, specs: list[ModelSpec]) -> list[Pair]:
        """(candidate, baseline, reseeds) per dataset of ``specs`` that has a candidate and a
        baseline (and the reseeds it has); none unconfigured."""
        config, profile = self.gates, self.session.profile
        if config is None:
            return []
        names = {(s.dataset, s.name) for s in specs}
        return [(profile.get(d, config.candidate), profile.get(d, config.baseline),
                 tuple(profile.get(d, r) for r in config.reseeds if (d, r) in names))
                for d in dict.fromkeys(s.dataset for s in specs)
                if {(d, config.candidate), (d, config.baseline)} <= names]

    def cases(self) -> list[ComparisonCase]:
        """Released suite test x dataset where the profile has both models, in the seed
        tables' order.  (Native tests' comparisons are parametrized with the native test.)"""
        checklist = self.released
        cases: list[ComparisonCase] = []
        for suite in [] if checklist.missing else checklist.suites:
            pairs = self.pairs(self.session.profile.for_suite(suite))
            for info in checklist.catalog.index(suite):
                cases += [ComparisonCase(len(cases) + i, info, *pair)
                          for i, pair in enumerate(pairs)]
        return cases

    @property
    def released(self) -> ChecklistKind:
        return self.session.kind(ChecklistKind)

    def unavailable(self) -> Exception | None:
        return self.released.missing  # released comparisons need the released suites

    def params_for(self, function: Callable[..., Any]) -> list[Any]:
        problem = self.unavailable()
        if problem is not None:
            raise problem
        if self.gates is None:  # say why `-m regression` runs nothing, instead of "deselected"
            return [pytest.param(None, id="not-configured", marks=[
                pytest.mark.regression, pytest.mark.skip(
                    reason="no baseline/candidate declared: pass --nlp-baseline and "
                           "--nlp-candidate or add them to the comparison section of "
                           "thresholds.yaml")])]
        return super().params_for(function)

    def prepare(self, case: ComparisonCase) -> Verdict | None:
        problem = self.source(case).test_problem(case.info)
        return None if problem is None else Verdict(None, problem)

    def labels(self, case: ComparisonCase) -> Labels:
        return Labels(f"{case.info.suite} regression", case.info.capability, case.info.name,
                      {"dataset": case.model.dataset, "candidate": case.model.name,
                       "baseline": case.baseline.name}, case.info.description)

    def run(self, case: ComparisonCase, models: Models) -> Verdict:
        """This item's comparison; the first item computes every selected one (BH)."""
        if case.id not in self._done:
            selected = [c for c in self.session.selected[self.name]
                        if isinstance(c, ComparisonCase)]
            self._compare_all(selected if case in selected else [*selected, case], models)
        done = self._done[case.id]
        if done.record.passed is None:  # no evidence either way: say so, don't gate
            return Verdict(asdict(done.record), f"{case.id}: {done.message}", skip=True)
        return Verdict(asdict(done.record), done.message)

    def _compare_all(self, cases: list[ComparisonCase], models: Models) -> None:
        assert self.gates is not None
        self._prefetch(cases, models)
        paired: list[tuple[list[int], PairedCounts, tuple[int, int], list[PairedCounts]]] = []
        for case in cases:
            cand, base, *reseeds = (self.source(case).outcome(case.info, models[spec])[0]
                                    for spec in case.models)
            paired.append((*pair_outcomes(cand, base), (cand.n_cases, base.n_cases),
                           [pair_outcomes(cand, r)[1] for r in reseeds]))
        tested = [i for i, (_, counts, _, _) in enumerate(paired) if counts.n]
        raw = {i: worse_than_all(paired[i][1], paired[i][3]) for i in tested}
        adjusted = dict(zip(tested, benjamini_hochberg([raw[i] for i in tested])))
        for i, case in enumerate(cases):
            worse, counts, unfiltered, against_reseeds = paired[i]
            self._done[case.id] = judge(case, worse, counts, raw.get(i), adjusted.get(i),
                                        len(tested), self.gates, unfiltered, against_reseeds)

    def _prefetch(self, cases: list[ComparisonCase], models: Models) -> None:
        """Predict each model's inputs of every comparison in one batched pass, leaving out
        tests whose outcome a CheckList item (on any worker) or an earlier run stored."""
        inputs: dict[ModelSpec, list[Any]] = {}
        for case in cases:
            source = self.source(case)
            examples = source.examples(case.info)
            for spec in case.models:
                if source.stored_outcome(case.info, models[spec]) is None:
                    inputs.setdefault(spec, []).extend(examples)
        for spec, examples in inputs.items():
            models[spec].predict_proba(examples)

    def summary_lines(self, records: list[dict[str, Any]]) -> list[str]:
        if not records:
            return []
        verdicts = [r["verdict"] for r in records]
        first = records[0]
        lines = [f"candidate {first['candidate']} vs baseline {first['baseline']}: "
                 f"{len(records)} comparisons (BH q={first['alpha']}): "
                 + ", ".join(f"{verdicts.count(v)} {v}" for v in dict.fromkeys(verdicts))]
        for r in records:
            if r["passed"] is not True:
                delta = "n/a" if r["delta"] is None else (
                    f"{r['delta']:+.1f} pp [{r['ci_low']:+.1f}, {r['ci_high']:+.1f}], "
                    f"p_adj={r['p_adjusted']:.2g}")
                lines.append(f"  {r['verdict']}: {r['suite']}/{r['test']}/{r['dataset']}: {delta}")
        return lines


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
    return max(mcnemar_exact(c) if (c.worse > c.better, c.worse < c.better) == direction
               and any(direction) else 1.0 for c in (counts, *reseeds))


def reseed_record(spec: ModelSpec, counts: PairedCounts) -> dict[str, Any]:
    """The candidate against one reseed, for results.json and the failure message."""
    if not counts.n:
        return {"model": spec.name, "n_cases": 0, "fail_rate": None, "delta": None,
                "worse": 0, "better": 0, "p_value": None}
    return {"model": spec.name, "n_cases": counts.n,
            "fail_rate": 100 * counts.baseline_fails / counts.n,
            "delta": 100 * (counts.candidate_fails - counts.baseline_fails) / counts.n,
            "worse": counts.worse, "better": counts.better, "p_value": mcnemar_exact(counts)}


def judge(case: ComparisonCase, worse_cases: list[int], counts: PairedCounts,
          p_value: float | None, p_adjusted: float | None, family: int,
          config: ComparisonConfig, unfiltered: tuple[int, int] = (0, 0),
          reseeds: Sequence[PairedCounts] = ()) -> Comparison:
    """The gate's verdict on one comparison (``p_adjusted`` over ``family`` comparisons;
    ``unfiltered``: cases each model kept after CheckList's expectation filter; ``reseeds``:
    the candidate against each of ``case.reseeds``)."""
    tolerance, source = config.tolerance(case.info.capability)
    cand, base = case.model.name, case.baseline.name
    record: dict[str, Any] = dict(
        suite=case.info.suite, task=case.model.task.name, capability=case.info.capability,
        test=case.info.name, type=case.info.type, dataset=case.model.dataset, baseline=base,
        candidate=cand,
        n_cases=counts.n, worse=counts.worse, better=counts.better, p_value=p_value,
        p_adjusted=p_adjusted, alpha=config.alpha, tolerance=tolerance,
        reseeds=[reseed_record(spec, c) for spec, c in zip(case.reseeds, reseeds)])
    if counts.n == 0 or p_adjusted is None:
        return Comparison(ComparisonRecord(
            **record, baseline_fail_rate=None, candidate_fail_rate=None, delta=None,
            ci_low=None, ci_high=None, excess=None, verdict="no paired cases", passed=None),
            f"no test case was kept by CheckList's expectation filter for both models "
            f"({cand}: {unfiltered[0]} cases, {base}: {unfiltered[1]}): nothing was compared; "
            "a larger --nlp-sample may help")
    diff = paired_difference(counts)
    delta, low, high = (100 * x for x in (diff.delta, diff.low, diff.high))
    excess = min([delta, *(r["delta"] for r in record["reseeds"] if r["delta"] is not None)])
    verdict = comparison_verdict(p_adjusted, config.alpha, excess, tolerance)
    cand_rate, base_rate = (100 * counts.candidate_fails / counts.n,
                            100 * counts.baseline_fails / counts.n)
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
            f"cases only {cand} fails (CheckList test.data index): {listed}{more}")
        if record["reseeds"]:
            message += (
                f"\nworse than each reseed of {base} too: " + "; ".join(
                    f"{r['model']} {r['delta']:+.1f} pp ({r['worse']} cases fail only on "
                    f"{cand}, {r['better']} only on {r['model']}, p = {r['p_value']:.3g})"
                    for r in record["reseeds"])
                + f"; the least excess over a clean model, {excess:+.1f} pp, exceeds the "
                  "tolerance; the p-value above is the largest of these")
    return Comparison(ComparisonRecord(
        **record, baseline_fail_rate=base_rate, candidate_fail_rate=cand_rate, delta=delta,
        ci_low=low, ci_high=high, excess=excess, verdict=verdict, passed=message is None),
        message)


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
        judged.append({**r, "p_adjusted": adjusted[i], "verdict": verdict,
                       "passed": verdict != "worse"})
    return judged


def pair_outcomes(candidate: Outcome, baseline: Outcome) -> tuple[list[int], PairedCounts]:
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


