"""The run (``Run``, kept in ``config.stash``): what a run knows that is not particular to one
kind of item -- its options, profile and gates, its kinds and their selected cases -- and the
two entry points of every gated item, ``prepare`` and ``check``.  Its models are its
``ModelPool``'s (``nlp_gate.pool``), its records its ``Recorder``'s (``nlp_gate.results.recorder``);
its header and results.json metadata are ``nlp_gate.report.header``'s; its zoo's card and
drift, ``nlp_gate.report.zoo_drift``'s; the items an xdist worker lost,
``pytest_plugin.xdist_handoff``'s.

Data flow: options -> profile (models) and thresholds -> the registered item kinds' cases
(pytest items) -> models loaded once per worker -> each kind's verdict -> results.json
records (handed from xdist workers to the controller) -> reports.
"""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Iterable
from functools import cached_property
from typing import Any

from nlp_gate.config import ConfigurationError
from nlp_gate.config.options import Options
from nlp_gate.config.profiles import CLI_PROFILE, cli_profile, load_profile
from nlp_gate.config.specs import ModelSpec, Profile
from nlp_gate.config.thresholds import Thresholds, cli_thresholds, load_thresholds
from nlp_gate.engine.onnx_backend import validate_backend
from nlp_gate.eval_sets import EvalDataMissing, EvalSet
from nlp_gate.kinds import KINDS
from nlp_gate.kinds.base import Case, ItemKind, Verdict
from nlp_gate.pool import ModelPool
from nlp_gate.report import mlflow_log
from nlp_gate.report.zoo_drift import ZooDrift
from nlp_gate.results.recorder import Recorder
from nlp_gate.sources import source_of

__all__ = ["Run"]


class Run:
    """The run; also every kind's ``KindContext`` (``nlp_gate.kinds.context``): the kinds see
    the run through that protocol only, never through this class.

    ``option``: pytest's parsed options, read here only by each kind's ``create`` (its own
    options); everything else the run reads comes parsed, in ``options``."""

    def __init__(self, options: Options, option: Namespace) -> None:
        self.options = options
        self.recorder = Recorder()
        # Each kind reads its own command-line options once, here (``ItemKind.create``).
        self.kinds: dict[str, ItemKind[Any]] = {k.name: k.create(self, option) for k in KINDS}
        # The selected items' cases, per kind: what to load and what to prefetch.
        self.selected: dict[str, list[Case]] = {name: [] for name in self.kinds}
        self.pool = ModelPool(options, self._selected_models)
        # zoo.json and the zoo models built with other weights than the gates were calibrated on.
        self.zoo = ZooDrift(self)
        # Found after collection on an xdist worker (see plugin.pytest_collection_finish).
        self.configuration_problem: str | None = None
        # Found while parametrizing, reported together once collection ends (no xdist).
        self.collection_problems: list[str] = []

    def kind(self, name: str) -> ItemKind[Any]:
        """The run's instance of the registered kind ``name``, as the interface: how kinds
        that build on another's tests (comparison, search, native) reach it."""
        return self.kinds[name]

    def _selected_models(self) -> list[ModelSpec]:
        return [m for cases in self.selected.values() for c in cases for m in c.models]

    # -- config ---------------------------------------------------------------------------
    @cached_property
    def profile(self) -> Profile:
        if self.options.cli_models:  # the one-line start: no models file needed
            return cli_profile(self.options.cli_models, self.options.models_file, self.pool)
        return load_profile(self.options.profile, self.options.models_file)

    @cached_property
    def thresholds(self) -> Thresholds:
        sections = [k.section for k in self.kinds.values()]
        if self.profile.name == CLI_PROFILE:
            names: dict[str, list[str]] = {}
            for m in self.profile.models:
                names.setdefault(m.dataset, []).append(m.name)
            pairs = [(n[0], n[1]) for n in names.values() if len(n) > 1]
            return cli_thresholds(self.options.thresholds, CLI_PROFILE, pairs, sections)
        return load_thresholds(self.options.thresholds, self.profile.name, sections)

    def validate(self, requested: Iterable[str] = ()) -> None:
        """Every kind's cases and gates: raises a ``ConfigurationError`` on the first bad one;
        whether the kinds whose argument names the run's test modules ask for (``requested``)
        can make their items; then every model of the profile (its source's preflight), all
        problems in one error."""
        self.validate_backend()
        mlflow_log.refusal(self.options.mlflow_log)
        requested = set(requested)
        for kind in self.kinds.values():
            kind.cases()
            _ = kind.gates  # parsed now: a bad section stops the run at start
            problem = kind.unavailable() if kind.argname in requested else None
            if problem is not None:
                raise problem
        problems = self.pool.preflight(self.profile.models)
        if problems:
            # Name what the user gave: the packaged models file only lends --nlp-model its tasks.
            given = (
                "given with --nlp-model"
                if self.options.cli_models
                else f"of profile {self.profile.name!r} ({self.profile.source_file})"
            )
            raise ConfigurationError(
                f"{len(problems)} model(s) {given} cannot be tested:\n"
                + "\n".join(f"  - {p}" for p in problems)
            )

    def validate_backend(self) -> None:
        """``--nlp-backend``: what it needs installed, a device and dtype it runs on."""
        load = self.options.load
        validate_backend(
            load.backend,
            load.device,
            load.dtype,
            checkpoints=any(source_of(m).uses_backend for m in self.profile.models),
        )

    def validate_collected(self) -> None:
        """After collection: what only the collected tests tell (native tests' names)."""
        for kind in self.kinds.values():
            kind.validate_collected()

    def eval_set(self, spec: ModelSpec) -> EvalSet | EvalDataMissing:
        """The model's evaluation split (``KindContext``): the pool's, read once."""
        return self.pool.eval_set(spec)

    def drift_note(self, spec: ModelSpec) -> str:
        """What to append to a gate miss of a drifted zoo model (``report.zoo_drift``)."""
        return self.zoo.drift_note(spec)

    # -- running --------------------------------------------------------------------------
    def shard_group(self, case: Case | None) -> tuple[str | None, float]:
        """The item's sharding group (its dataset: comparisons stay with their models) and
        expected cost (the weight bytes of the models it runs)."""
        if case is None or not case.models:
            return None, 0.0
        return case.models[0].dataset, float(sum(self.weight_bytes[m.key] for m in case.models))

    @cached_property
    def weight_bytes(self) -> dict[str, int]:
        """Each model's weight file bytes (1 when unknown): the sharding cost."""
        return self.pool.weight_bytes(self.profile.models)

    def prepare(self, case: Case) -> Verdict | None:
        """The verdict of an item that cannot run (its setup), recorded for results.json."""
        if self.configuration_problem:
            return Verdict(None, self.configuration_problem)
        kind = self.kinds[case.kind]
        verdict = kind.prepare(case)
        if verdict is not None:
            self.recorder.verdict(kind, case, verdict)
        return verdict

    def check(self, case: Case) -> Verdict:
        """Run one item by its case's kind: its verdict, recorded for results.json.  A model
        refused at load raises its ``ModelLoadError`` (``outcome.Check`` fails the item)."""
        kind = self.kinds[case.kind]
        verdict = kind.run(case, self.pool)
        self.recorder.verdict(kind, case, verdict)
        return verdict

    def has_verdict(self, case: Case) -> bool:
        """Whether ``case``'s item recorded a gate verdict in this process."""
        return self.recorder.has_verdict(self.kinds[case.kind], case)

    def record_error(self, case: Case, nodeid: str, when: str, message: str) -> None:
        """Record an item that ended without a gate verdict (``Recorder.error``)."""
        self.recorder.error(self.kinds[case.kind], case, nodeid, when, message)

    def record_engine_stats(self) -> None:
        """Forward passes vs cache hits per model, for the summary (and the benchmark)."""
        self.recorder.engine_stats(
            self.pool.classifiers.values(), self.kinds.values(), self.profile.models
        )
