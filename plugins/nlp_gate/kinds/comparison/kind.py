"""Candidate vs baseline: one gated pytest item per CheckList test and dataset.

Both models run the test on the identical (seeded) test cases; the paired outcomes give
Δ = candidate fail rate - baseline fail rate (percentage points) with Newcombe's interval,
McNemar's exact p-value on the discordant cases, and a Benjamini-Hochberg adjustment across
every comparison item of the run.  An item fails when the candidate is significantly worse
(adjusted p <= alpha) *and* Δ exceeds the tolerance δ of the test's capability.  It skips
when CheckList's expectation filter kept no case for both models (nothing to compare).

Retraining alone moves a model's fail rates: two clean fine-tunings that differ only in their
seed disagree on hundreds of cases of some tests (the defect zoo's clean re-seeds were
flagged on 17.7 % of items against one baseline, ``workshop/power.py``).  One baseline cannot
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
xdist group, so that happens once, on one worker.  The statistics and the verdict are
``nlp_gate.kinds.comparison.stats`` (pytest-free: the merge of sharded runs re-judges with it).
"""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import pytest

from nlp_gate.config.specs import ModelSpec
from nlp_gate.kinds.base import Attachment, Case, ItemKind, Labels, Models, Verdict
from nlp_gate.kinds.checklist.explained import explain_pair, wants_explanations
from nlp_gate.kinds.checklist.items import OnModelTest
from nlp_gate.kinds.checklist.marks import CAPABILITIES, suite_marks
from nlp_gate.kinds.comparison.gates import parse_config
from nlp_gate.kinds.comparison.report import REPORT
from nlp_gate.kinds.comparison.stats import (
    Comparison,
    ComparisonConfig,
    ComparisonRecord,
    comparison_verdict,
    judge,
    pair_outcomes,
    worse_than_all,
)
from nlp_gate.kinds.context import CheckListTests, KindContext
from nlp_gate.results.explanations import (
    description_html,
    explanations_html,
    explanations_text,
)
from nlp_gate.stats import PairedCounts, benjamini_hochberg
from nlp_gate.suites.catalog import TestInfo

__all__ = [
    "ComparisonCase",
    "ComparisonConfig",
    "ComparisonKind",
    "judge",
    "pair_outcomes",
    "worse_than_all",
]  # the statistics: their tests import them here

Pair = tuple[ModelSpec, ModelSpec, tuple[ModelSpec, ...]]  # candidate, baseline, reseeds
XDIST_GROUP = "nlp-comparison"
# The cases a comparison explains (``--nlp-explain``): its first cases the candidate fails
# and the baseline passes, as many as a CheckList item shows.
EXPLAINED_CASES = 5


@dataclass(frozen=True, repr=False)
class ComparisonCase:
    """One pytest item: a CheckList test on one dataset, candidate vs baseline."""

    kind = "comparison"  # the registered kind that runs it (not a field)

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
        return (
            f"{self.info.suite}/{self.info.name}/{self.model.dataset}/"
            f"{self.model.name}-vs-{self.baseline.name}"
        )

    def __repr__(self) -> str:
        return self.id

    def marks(self) -> list[pytest.MarkDecorator]:
        # BH needs every comparison of the run: keep them on one worker, computed once.
        native = [pytest.mark.native] if self.source == "native" else []  # -m native: all
        return [
            pytest.mark.regression,
            *native,
            *suite_marks(self.info, self.model.task.name),
            pytest.mark.xdist_group(XDIST_GROUP),
        ]


@dataclass(frozen=True)
class ComparisonOptions:
    baseline: str | None  # --nlp-baseline: overrides comparison.baseline
    candidate: str | None  # --nlp-candidate


def may_lose(record: ComparisonRecord) -> bool:
    """Whether ``--nlp-explain missed`` explains the comparison: the candidate is worse
    beyond the tolerance before the Benjamini-Hochberg adjustment.  Every comparison the
    candidate loses is (an adjusted p-value is never below its own), in whichever family it
    is judged: the whole run's or one shard's, so merged shards hold the explanations of the
    one run."""
    if record.p_value is None or record.excess is None:
        return False
    return comparison_verdict(record.p_value, record.alpha, record.excess, record.tolerance) == (
        "worse"
    )


class ComparisonKind(ItemKind[ComparisonCase]):
    name = "comparison"
    argname = "comparison_case"
    section = "comparison"
    report = REPORT
    records = REPORT.key
    case_type = ComparisonCase
    markers = {"regression": "candidate-vs-baseline comparison item"}

    @classmethod
    def add_options(cls, group: pytest.OptionGroup) -> None:
        group.addoption(
            "--nlp-baseline",
            default=None,
            help="model name the candidate is compared with (default: comparison."
            "baseline in thresholds.yaml)",
        )
        group.addoption(
            "--nlp-candidate",
            default=None,
            help="model name released in place of the baseline (default: "
            "comparison.candidate in thresholds.yaml)",
        )

    @classmethod
    def create(cls, context: KindContext, option: Namespace) -> ComparisonKind:
        return cls(context, ComparisonOptions(option.nlp_baseline, option.nlp_candidate))

    def __init__(self, context: KindContext, options: ComparisonOptions) -> None:
        super().__init__(context)
        self.options = options
        self._done: dict[str, Comparison] = {}
        # Per item: the cases the candidate fails and the baseline passes, in case order.
        self._worse: dict[str, list[int]] = {}

    def source(self, case: ComparisonCase) -> CheckListTests:
        """The tests whose outcomes the case pairs (shared with that kind's own items)."""
        tests = self.context.kind(case.source).checklist_tests()
        assert tests is not None, f"kind {case.source!r} runs no CheckList tests"
        return tests

    def parse_gates(self, section: Mapping[str, Any], where: str) -> ComparisonConfig | None:
        return parse_config(
            section,
            self.options.baseline,
            self.options.candidate,
            set(self.context.profile.model_names),
            set(CAPABILITIES),
            where,
        )

    def pairs(self, specs: list[ModelSpec]) -> list[Pair]:
        """(candidate, baseline, reseeds) per dataset of ``specs`` that has a candidate and a
        baseline (and the reseeds it has); none unconfigured."""
        config, profile = self.gates, self.context.profile
        if config is None:
            return []
        names = {(s.dataset, s.name) for s in specs}
        return [
            (
                profile.get(d, config.candidate),
                profile.get(d, config.baseline),
                tuple(profile.get(d, r) for r in config.reseeds if (d, r) in names),
            )
            for d in dict.fromkeys(s.dataset for s in specs)
            if {(d, config.candidate), (d, config.baseline)} <= names
        ]

    def cases(self) -> list[ComparisonCase]:
        """Released suite test x dataset where the profile has both models, in the seed
        tables' order: the CheckList kind's items, by test.  (Native tests' comparisons are
        parametrized with the native test: ``cases_for_test``.)"""
        specs: dict[TestInfo, list[ModelSpec]] = {}
        for case in self.context.kind("checklist").cases():
            assert isinstance(case, OnModelTest)
            specs.setdefault(case.info, []).append(case.model)
        cases: list[ComparisonCase] = []
        for info, models in specs.items():
            cases += [
                ComparisonCase(len(cases) + i, info, *pair)
                for i, pair in enumerate(self.pairs(models))
            ]
        return cases

    def cases_for_test(
        self, source: str, info: TestInfo, specs: Sequence[ModelSpec], first: int
    ) -> list[Case]:
        """A native test's comparisons: one per dataset of ``specs`` with both models."""
        return [
            ComparisonCase(first + i, info, *pair, source=source)
            for i, pair in enumerate(self.pairs(list(specs)))
        ]

    def unavailable(self) -> Exception | None:
        # Released comparisons need the released suites.
        return self.context.kind("checklist").unavailable()

    def params_for(self, function: Callable[..., Any]) -> list[Any]:
        problem = self.unavailable()
        if problem is not None:
            raise problem
        if self.gates is None:  # say why `-m regression` runs nothing, instead of "deselected"
            return [
                pytest.param(
                    None,
                    id="not-configured",
                    marks=[
                        pytest.mark.regression,
                        pytest.mark.skip(
                            reason="no baseline/candidate declared: pass --nlp-baseline and "
                            "--nlp-candidate or add them to the comparison section of "
                            "thresholds.yaml"
                        ),
                    ],
                )
            ]
        return super().params_for(function)

    def prepare(self, case: ComparisonCase) -> Verdict | None:
        problem = self.source(case).test_problem(case.info)
        return None if problem is None else Verdict(None, problem)

    def labels(self, case: ComparisonCase) -> Labels:
        return Labels(
            f"{case.info.suite} regression",
            case.info.capability,
            case.info.name,
            {
                "dataset": case.model.dataset,
                "candidate": case.model.name,
                "baseline": case.baseline.name,
            },
            case.info.description,
        )

    def run(self, case: ComparisonCase, models: Models) -> Verdict:
        """This item's comparison; the first item computes every selected one (BH)."""
        if case.id not in self._done:
            # A comparison whose test cannot run (a case no model may be asked about: a
            # lone surrogate) errors in its own setup (``prepare``); left out here, it
            # neither poisons the batched prefetch of the others nor joins their BH family,
            # so the other tests' comparisons are judged as in a run without it.
            selected = [
                c
                for c in self.context.selected[self.name]
                if isinstance(c, ComparisonCase) and self.source(c).test_problem(c.info) is None
            ]
            self._compare_all(selected if case in selected else [*selected, case], models)
        done = self._done[case.id]
        record = asdict(done.record)
        if done.record.passed is None:  # no evidence either way: say so, don't gate
            return Verdict({**record, "explanations": []}, f"{case.id}: {done.message}", skip=True)
        explanations = self.explanations(case, models, lost=may_lose(done.record))
        attachments = (
            [
                Attachment("explained failing examples", explanations_text(explanations)),
                Attachment(
                    "explained failing examples (HTML)",
                    explanations_html(case.id, explanations, standalone=True),
                    kind="html",
                ),
            ]
            if explanations
            else []
        )
        return Verdict(
            {**record, "explanations": explanations},
            done.message,
            attachments=attachments,
            description_html=(
                description_html(case.info.description, case.id, explanations)
                if explanations
                else None
            ),
        )

    def explanations(
        self, case: ComparisonCase, models: Models, lost: bool
    ) -> list[dict[str, Any]]:
        """The candidate's and the baseline's attributions, side by side, on the first cases
        only the candidate fails, where ``--nlp-explain`` asks for them."""
        worse = self._worse.get(case.id, [])[:EXPLAINED_CASES]
        if not worse or not wants_explanations(self.context.options.explain, lost):
            return []
        candidate, baseline = models[case.model], models[case.baseline]
        chosen = self.source(case).failing_examples(case.info, candidate, worse)
        return explain_pair(candidate, baseline, chosen)

    def _compare_all(self, cases: list[ComparisonCase], models: Models) -> None:
        assert self.gates is not None
        self._prefetch(cases, models)
        paired: list[tuple[list[int], PairedCounts, tuple[int, int], list[PairedCounts]]] = []
        for case in cases:
            cand, base, *reseeds = (
                self.source(case).outcome(case.info, models[spec])[0] for spec in case.models
            )
            paired.append(
                (
                    *pair_outcomes(cand, base),
                    (cand.n_cases, base.n_cases),
                    [pair_outcomes(cand, r)[1] for r in reseeds],
                )
            )
        tested = [i for i, (_, counts, _, _) in enumerate(paired) if counts.n]
        raw = {i: worse_than_all(paired[i][1], paired[i][3]) for i in tested}
        adjusted = dict(zip(tested, benjamini_hochberg([raw[i] for i in tested])))
        for i, case in enumerate(cases):
            worse, counts, unfiltered, against_reseeds = paired[i]
            self._worse[case.id] = worse
            self._done[case.id] = judge(
                case,
                worse,
                counts,
                raw.get(i),
                adjusted.get(i),
                len(tested),
                self.gates,
                unfiltered,
                against_reseeds,
            )

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
        lines = [
            f"candidate {first['candidate']} vs baseline {first['baseline']}: "
            f"{len(records)} comparisons (BH q={first['alpha']}): "
            + ", ".join(f"{verdicts.count(v)} {v}" for v in dict.fromkeys(verdicts))
        ]
        for r in records:
            if r["passed"] is not True:
                delta = (
                    "n/a"
                    if r["delta"] is None
                    else (
                        f"{r['delta']:+.1f} pp [{r['ci_low']:+.1f}, {r['ci_high']:+.1f}], "
                        f"p_adj={r['p_adjusted']:.2g}"
                    )
                )
                lines.append(f"  {r['verdict']}: {r['suite']}/{r['test']}/{r['dataset']}: {delta}")
        return lines
