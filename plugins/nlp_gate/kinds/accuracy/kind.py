"""Table 1 as gated pytest items: each model's accuracy on its dataset's evaluation split.

One item per model of the profile (``accuracy/<dataset>/<model>``, marker ``accuracy``), gated
by ``min_accuracy`` in the ``accuracy`` section of ``thresholds.yaml`` (percent)::

    accuracy:
      min_accuracy: 80                  # every model
      datasets: {rte: 60}               # per dataset
      overrides:                        # most specific: dataset and/or model
        - {dataset: rte, model: albert, min_accuracy: 65}

Resolution: the last matching override, else the dataset's entry, else ``min_accuracy``.
A model without a gate fails its item, as CheckList items do.  ``--nlp-sample`` does not apply:
Table 1 is defined on the split's first 1000 examples (see ``nlp_gate.eval_sets``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pytest

from nlp_gate.config.specs import ModelSpec
from nlp_gate.config.thresholds import percent_problems, raise_problems, unknown_names
from nlp_gate.eval_sets import EvalDataMissing
from nlp_gate.kinds.accuracy.report import REPORT
from nlp_gate.kinds.base import ItemKind, Labels, Models, OneModel, Verdict
from nlp_gate.stats import wilson_interval

GATE_KEYS = ("min_accuracy", "datasets", "overrides")
OVERRIDE_KEYS = ("dataset", "model")


@dataclass(frozen=True, repr=False)
class AccuracyCase(OneModel):
    kind = "accuracy"  # the registered kind that runs it (not a field)
    position: int
    model: ModelSpec

    @property
    def id(self) -> str:
        return f"accuracy/{self.model.dataset}/{self.model.name}"

    def marks(self) -> list[pytest.MarkDecorator]:
        # Same group as the model's CheckList items: the worker that holds it measures it.
        return [pytest.mark.accuracy, pytest.mark.xdist_group(self.model.key)]


@dataclass(frozen=True)
class MinAccuracy:
    limit: float  # percent
    source: str  # the rule of thresholds.yaml that set it

    def fails(self, accuracy: float) -> str | None:
        if accuracy < self.limit:
            return (
                f"accuracy {accuracy:.2f}% is below the gate {self.limit:.1f}% "
                f"(thresholds.yaml: accuracy.{self.source})"
            )
        return None


class AccuracyGates:
    """The ``accuracy`` section of a profile, parsed and validated."""

    def __init__(
        self, section: Mapping[str, Any], datasets: set[str], models: set[str], where: str
    ) -> None:
        problems = [
            f"unknown key {k!r} in the accuracy section; valid: {', '.join(GATE_KEYS)}"
            for k in section
            if k not in GATE_KEYS
        ]
        self.default = section.get("min_accuracy")
        self.datasets: Mapping[str, Any] = section.get("datasets") or {}
        self.overrides: list[Mapping[str, Any]] = list(section.get("overrides") or [])
        problems += unknown_names("accuracy dataset", self.datasets, datasets)
        values = [self.default, *self.datasets.values()]
        for i, rule in enumerate(self.overrides):
            if set(rule) - {*OVERRIDE_KEYS, "min_accuracy"} or "min_accuracy" not in rule:
                problems.append(
                    f"accuracy overrides[{i}]: keys must be among {OVERRIDE_KEYS} "
                    f"plus min_accuracy (required); got {sorted(rule)}"
                )
            for key, valid in (("dataset", datasets), ("model", models)):
                if key in rule:
                    problems += unknown_names(f"accuracy overrides[{i}] {key}", [rule[key]], valid)
            values.append(rule.get("min_accuracy"))
        problems += percent_problems("a min_accuracy", values)
        raise_problems(where, problems)

    def gate(self, dataset: str, model: str) -> MinAccuracy | None:
        for i, rule in reversed(list(enumerate(self.overrides))):
            if all(rule.get(k) in (None, v) for k, v in (("dataset", dataset), ("model", model))):
                return MinAccuracy(float(rule["min_accuracy"]), f"overrides[{i}]")
        if dataset in self.datasets:
            return MinAccuracy(float(self.datasets[dataset]), f"datasets.{dataset}")
        if self.default is not None:
            return MinAccuracy(float(self.default), "min_accuracy")
        return None


@dataclass(frozen=True)
class AccuracyRecord:
    dataset: str
    model: str
    model_id: str
    split: str
    source: str  # the file or hub dataset the examples came from
    n: int
    n_correct: int
    accuracy: float  # percent
    ci_low: float  # percent, 95% Wilson interval
    ci_high: float
    threshold: float | None  # percent; None when no gate is configured
    passed: bool


class AccuracyKind(ItemKind[AccuracyCase]):
    """Table 1: one item per model of the profile, on its evaluation split."""

    name = "accuracy"
    argname = "accuracy_case"
    section = "accuracy"
    report = REPORT
    records = REPORT.key
    case_type = AccuracyCase
    markers = {"accuracy": "Table 1 accuracy item (one per model)"}

    def parse_gates(self, section: Mapping[str, Any], where: str) -> AccuracyGates:
        profile = self.context.profile
        return AccuracyGates(section, set(profile.datasets), set(profile.model_names), where)

    def cases(self) -> list[AccuracyCase]:
        return [AccuracyCase(i, spec) for i, spec in enumerate(self.context.profile.models)]

    def labels(self, case: AccuracyCase) -> Labels:
        return Labels(
            "accuracy",
            case.model.dataset,
            case.model.name,
            {"dataset": case.model.dataset, "model": case.model.name},
        )

    def run(self, case: AccuracyCase, models: Models) -> Verdict:
        """Score the model and judge it against its gate."""
        # The data first: on a machine without the hub, say which data set is missing and how
        # to provide it, even when the models cannot be loaded either.
        data = self.context.eval_set(case.model)
        if isinstance(data, EvalDataMissing):
            return Verdict(None, str(data))
        predicted = models[case.model].predict_proba(data.inputs).argmax(axis=1)
        n_correct = int((predicted == np.asarray(data.gold)).sum())
        n = len(data.gold)
        accuracy = 100 * n_correct / n
        low, high = (100 * x for x in wilson_interval(n_correct, n))
        gate = self.gates.gate(case.model.dataset, case.model.name)
        if gate is None:
            message: str | None = (
                f"no accuracy gate configured for {case.model.dataset}/{case.model.name} in "
                f"{self.context.options.thresholds} (profile {self.context.profile.name!r}); "
                "add min_accuracy to its accuracy section"
            )
        else:
            message = gate.fails(accuracy)
        if message:
            message += (
                f"\n{n_correct} of {n} {data.split} examples correct (95% CI "
                f"{low:.1f}-{high:.1f}%), from {data.source}"
            )
        return Verdict(
            asdict(
                AccuracyRecord(
                    dataset=case.model.dataset,
                    model=case.model.name,
                    model_id=case.model.source,
                    split=data.split,
                    source=data.source,
                    n=n,
                    n_correct=n_correct,
                    accuracy=accuracy,
                    ci_low=low,
                    ci_high=high,
                    threshold=gate.limit if gate else None,
                    passed=message is None,
                )
            ),
            message,
        )
