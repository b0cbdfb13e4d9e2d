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
Table 1 is defined on the split's first 1000 examples (see ``plugins.eval_sets``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fixtures.profiles import ModelSpec
from plugins.eval_sets import EvalDataMissing, EvalSet, load_eval_set
from plugins.plugin import CONFIG_ERRORS, gate_session, validate_at_start
from plugins.predictor import Classifier
from plugins.session import GateSession
from plugins.stats import wilson_interval
from plugins.thresholds import ThresholdsError

ACCURACY_KEY = pytest.StashKey["AccuracyRun"]()
GATE_KEYS = ("min_accuracy", "datasets", "overrides")
OVERRIDE_KEYS = ("dataset", "model")


@pytest.hookimpl(trylast=True)  # after plugins.plugin made the option group
def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("nlp-gate")
    group.addoption("--nlp-data-dir", type=Path, default=None,
                    help="offline evaluation sets for the accuracy items: "
                         "DIR/<dataset>/<split>.jsonl (python -m plugins.eval_sets DIR "
                         "writes them); default: the zoo's held-out sets, hub datasets")


@pytest.hookimpl(trylast=True)  # after plugins.plugin stashed the GateSession
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "accuracy: Table 1 accuracy item (one per model)")
    config.stash[ACCURACY_KEY] = AccuracyRun(gate_session(config), config.option.nlp_data_dir)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    validate_at_start(session.config, lambda: session.config.stash[ACCURACY_KEY].gates)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "accuracy_case" not in metafunc.fixturenames:
        return
    run = metafunc.config.stash[ACCURACY_KEY]
    try:
        run.gates  # validate the accuracy section before anything runs
        cases = [AccuracyCase(i, spec) for i, spec in enumerate(run.gate.profile.models)]
    except CONFIG_ERRORS as exc:
        raise pytest.UsageError(str(exc)) from exc
    metafunc.parametrize("accuracy_case",
                         [pytest.param(c, id=c.id, marks=c.marks()) for c in cases])


@pytest.fixture(scope="session")
def nlp_accuracy(request: pytest.FixtureRequest) -> AccuracyRun:
    return request.config.stash[ACCURACY_KEY]


@dataclass(frozen=True, repr=False)
class AccuracyCase:
    position: int
    model: ModelSpec  # ``nlp_models`` loads every ``.model`` of the selected cases

    @property
    def id(self) -> str:
        return f"accuracy/{self.model.dataset}/{self.model.name}"

    def __repr__(self) -> str:
        return self.id

    def marks(self) -> list[pytest.MarkDecorator]:
        # Same group as the model's CheckList items: the worker that holds it measures it.
        return [pytest.mark.accuracy, pytest.mark.xdist_group(self.model.key)]


@dataclass(frozen=True)
class MinAccuracy:
    limit: float  # percent
    source: str  # the rule of thresholds.yaml that set it

    def fails(self, accuracy: float) -> str | None:
        if accuracy < self.limit:
            return (f"accuracy {accuracy:.2f}% is below the gate {self.limit:.1f}% "
                    f"(thresholds.yaml: accuracy.{self.source})")
        return None


class AccuracyGates:
    """The ``accuracy`` section of a profile, parsed and validated."""

    def __init__(self, section: Mapping[str, Any], datasets: set[str], models: set[str],
                 where: str) -> None:
        problems = [f"unknown key {k!r} in the accuracy section; valid: {', '.join(GATE_KEYS)}"
                    for k in section if k not in GATE_KEYS]
        self.default = section.get("min_accuracy")
        self.datasets: Mapping[str, Any] = section.get("datasets") or {}
        self.overrides: list[Mapping[str, Any]] = list(section.get("overrides") or [])
        problems += [f"unknown accuracy dataset {d!r}; valid: {', '.join(sorted(datasets))}"
                     for d in self.datasets if d not in datasets]
        values = [self.default, *self.datasets.values()]
        for i, rule in enumerate(self.overrides):
            if set(rule) - {*OVERRIDE_KEYS, "min_accuracy"} or "min_accuracy" not in rule:
                problems.append(f"accuracy overrides[{i}]: keys must be among {OVERRIDE_KEYS} "
                                f"plus min_accuracy (required); got {sorted(rule)}")
            for key, valid in (("dataset", datasets), ("model", models)):
                if key in rule and rule[key] not in valid:
                    problems.append(f"unknown accuracy overrides[{i}] {key} {rule[key]!r}; "
                                    f"valid: {', '.join(sorted(valid))}")
            values.append(rule.get("min_accuracy"))
        problems += [f"a min_accuracy must be a percentage in [0, 100], got {v!r}"
                     for v in values if v is not None and not _is_percent(v)]
        if problems:
            raise ThresholdsError(f"{where}:\n  " + "\n  ".join(problems))

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


@dataclass
class AccuracyRun:
    """Per-process state of the accuracy items: gates, and each dataset's examples, read once."""

    gate: GateSession
    data_dir: Path | None
    _eval_sets: dict[str, EvalSet | EvalDataMissing] = field(default_factory=dict)

    @cached_property
    def gates(self) -> AccuracyGates:
        thresholds = self.gate.thresholds
        return AccuracyGates(thresholds.section("accuracy"), set(self.gate.profile.datasets),
                             set(self.gate.profile.model_names),
                             f"{thresholds.path} (profile {thresholds.profile!r})")

    def eval_set(self, spec: ModelSpec) -> EvalSet | EvalDataMissing:
        """The model's evaluation set, or why there is none (read once per dataset and source)."""
        key = f"{spec.dataset}:{'zoo' if spec.is_zoo else 'hub'}"
        if key not in self._eval_sets:
            try:
                self._eval_sets[key] = load_eval_set(spec, self.data_dir,
                                                     self.gate.options.zoo_dir)
            except EvalDataMissing as exc:
                self._eval_sets[key] = exc
        return self._eval_sets[key]

    def measure(self, case: AccuracyCase, data: EvalSet, classifier: Classifier) -> str | None:
        """Score the model, record it, and return the failure message (None: passed)."""
        predicted = classifier.predict_proba(data.inputs).argmax(axis=1)
        n_correct = int((predicted == np.asarray(data.gold)).sum())
        n = len(data.gold)
        accuracy = 100 * n_correct / n
        low, high = (100 * x for x in wilson_interval(n_correct, n))
        gate = self.gates.gate(case.model.dataset, case.model.name)
        if gate is None:
            message: str | None = (
                f"no accuracy gate configured for {case.model.dataset}/{case.model.name} in "
                f"{self.gate.options.thresholds} (profile {self.gate.profile.name!r}); add "
                "min_accuracy to its accuracy section")
        else:
            message = gate.fails(accuracy)
        if message:
            message += (f"\n{n_correct} of {n} {data.split} examples correct (95% CI "
                        f"{low:.1f}-{high:.1f}%), from {data.source}")
        self.gate.results.add("accuracy", case.position, asdict(AccuracyRecord(
            dataset=case.model.dataset, model=case.model.name, model_id=case.model.source,
            split=data.split, source=data.source, n=n, n_correct=n_correct,
            accuracy=accuracy, ci_low=low, ci_high=high,
            threshold=gate.limit if gate else None, passed=message is None)))
        return message


def _is_percent(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 100
