"""The run's state (``RunState``, kept in ``config.stash``): everything a run knows that is not
particular to one kind of item — its options, profile and gates, its models (loaded once per
process), its kinds and their records.  Its header and results.json metadata are
``nlp_gate.report.header``'s; its zoo's card and drift, ``nlp_gate.report.zoo_drift``'s; the
items an xdist worker lost, ``pytest_plugin.xdist_handoff``'s.

Data flow: options -> profile (models) and thresholds -> the registered item kinds' cases
(pytest items) -> models loaded once per worker -> each kind's verdict -> results.json
records (handed from xdist workers to the controller) -> reports.
"""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Callable, Iterable
from functools import cached_property
from typing import Any, TypeVar

from nlp_gate import sources
from nlp_gate.config import ConfigurationError
from nlp_gate.config.profiles import (
    CLI_PROFILE,
    ModelSpec,
    Profile,
    cli_profile,
    load_profile,
)
from nlp_gate.config.thresholds import Thresholds, cli_thresholds, load_thresholds
from nlp_gate.engine.batching import Encodings
from nlp_gate.engine.checkpoint import ModelLoadError
from nlp_gate.engine.onnx_backend import check_backend
from nlp_gate.engine.predictor import Classifier
from nlp_gate.engine.rows import InputIndex
from nlp_gate.eval_sets import EvalDataMissing, EvalSet, load_eval_set
from nlp_gate.kinds import KINDS
from nlp_gate.kinds.base import Case, ItemKind, Verdict
from nlp_gate.report import mlflow_log
from nlp_gate.report.zoo_drift import ZooDrift
from nlp_gate.results import ResultStore
from nlp_gate.settings import Options
from nlp_gate.shard import weights_size

__all__ = ["RunState"]

T = TypeVar("T")


class RunState:
    """The run's state; also every kind's ``KindContext`` (``nlp_gate.kinds.context``): the
    kinds see the run through that protocol only, never through this class."""

    def __init__(self, options: Options, option: Namespace) -> None:
        self.options = options
        self.results = ResultStore()
        # Each kind reads its own command-line options once, here (``ItemKind.create``).
        self.kinds: dict[str, ItemKind[Any]] = {k.name: k.create(self, option) for k in KINDS}
        # The selected items' cases, per kind: what to load and what to prefetch.
        self.selected: dict[str, list[Case]] = {name: [] for name in self.kinds}
        self.classifiers: dict[str, Classifier] = {}
        # Models whose weights were refused at load: only their own items fail with it.
        self.load_failures: dict[str, ModelLoadError] = {}
        self._eval_sets: dict[str, EvalSet | EvalDataMissing] = {}
        self._zoo_in_place = False  # checked once per process: hashing the copy costs ~30 ms
        # zoo.json and the zoo models built with other weights than the gates were calibrated on.
        self.zoo = ZooDrift(self)
        # Found after collection on an xdist worker (see plugin.pytest_collection_finish).
        self.configuration_problem: str | None = None
        # Found while parametrizing, reported together once collection ends (no xdist).
        self.collection_problems: list[str] = []
        # What the model sources keep for the process (``kept``): MLflow's resolved URIs.
        self._kept: dict[str, Any] = {}

    def kind(self, name: str) -> ItemKind[Any]:
        """The run's instance of the registered kind ``name``, as the interface: how kinds
        that build on another's tests (comparison, search, native) reach it."""
        return self.kinds[name]

    # -- config ---------------------------------------------------------------------------
    @cached_property
    def profile(self) -> Profile:
        if self.options.cli_models:  # the one-line start: no models file needed
            return cli_profile(self.options.cli_models, self.options.models_file, self)
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
        can make their items; then every local checkpoint of the profile, all problems in
        one error."""
        self.validate_backend()
        mlflow_log.refusal(self.options.mlflow_log)
        requested = set(requested)
        for kind in self.kinds.values():
            kind.cases()
            kind.gates
            problem = kind.unavailable() if kind.argname in requested else None
            if problem is not None:
                raise problem
        problems = [
            p for m in self.profile.models for p in [sources.source_of(m).preflight(m, self)] if p
        ]
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

    def ensure_zoo(self) -> None:
        """The embedded zoo in place (copied from the shipped files, sha256 checked): shipped
        files that are damaged or edited are a configuration error, never used."""
        from nlp_gate.zoo import ensure_zoo
        from nlp_gate.zoo.embedded import EmbeddedError

        if self._zoo_in_place:
            return
        try:
            ensure_zoo(self.options.zoo_dir)
        except EmbeddedError as exc:
            raise ConfigurationError(str(exc)) from None
        self._zoo_in_place = True

    def validate_backend(self) -> None:
        """``--nlp-backend``: what it needs installed, a device and dtype it runs on."""
        load = self.options.load
        check_backend(
            load.backend,
            load.device,
            load.dtype,
            checkpoints=any(sources.source_of(m).uses_backend for m in self.profile.models),
        )

    def kept(self, name: str, make: Callable[[], T]) -> T:
        """What a model source keeps for this process under ``name`` (``SourceContext``)."""
        if name not in self._kept:
            self._kept[name] = make()
        kept: T = self._kept[name]
        return kept

    def validate_collected(self) -> None:
        """After collection: what only the collected tests tell (native tests' names)."""
        for kind in self.kinds.values():
            kind.validate_collected()

    @cached_property
    def encodings(self) -> Encodings:
        """Tokenizations shared by the models of one tokenizer: one pass per suite, for all
        workers, kept beside the prediction cache (``<cache>.tokens/``) and off with it.
        With those files, memory keeps none past its pass: reading a suite's tokens back
        takes a tenth of a second, while the last one kept (~23 MiB for QQP's pairs) would
        sit beside the next suite's at that pass's peak."""
        cache = self.options.load.cache
        return Encodings(keep=0, directory=cache.with_suffix(".tokens")) if cache else Encodings()

    @cached_property
    def inputs(self) -> InputIndex:
        """The row numbers of every input this process's models answer: one dict for all
        of them (a suite asks each of its models the same inputs), not one per model."""
        return InputIndex()

    # -- models ---------------------------------------------------------------------------
    def load_models(self, specs: Iterable[ModelSpec]) -> dict[str, Classifier]:
        specs = list(dict.fromkeys(specs))
        for s in specs:
            if s.key not in self.classifiers and s.key not in self.load_failures:
                try:
                    self.classifiers[s.key] = sources.source_of(s).load(s, self)
                except ModelLoadError as exc:
                    self.load_failures[s.key] = exc
        return self.classifiers

    def __getitem__(self, spec: ModelSpec) -> Classifier:
        """The loaded model (``Models``): on first use, every model of the selected items
        is loaded and validated, before any of them predicts.  A model refused at load (what
        only its weights tell: an untrained head, a pickle that is not only tensors) fails
        its own items; the other models' items run."""
        if spec.key not in self.classifiers and spec.key not in self.load_failures:
            selected = [m for cases in self.selected.values() for c in cases for m in c.models]
            self.load_models([*selected, spec])
        if spec.key in self.load_failures:
            raise self.load_failures[spec.key]
        return self.classifiers[spec.key]

    def eval_set(self, spec: ModelSpec) -> EvalSet | EvalDataMissing:
        """The model's evaluation split (accuracy and attack items), or why there is none;
        read once per dataset and source."""
        key = f"{spec.dataset}:{'zoo' if spec.is_zoo else 'hub'}"
        if key not in self._eval_sets:
            try:
                self._eval_sets[key] = load_eval_set(
                    spec, self.options.data_dir, self.options.zoo_dir
                )
            except EvalDataMissing as exc:
                self._eval_sets[key] = exc
        return self._eval_sets[key]

    def location(self, spec: ModelSpec) -> str:
        """Where the model is (its source's ``location``): the header, records, sharding."""
        return sources.source_of(spec).location(spec, self)

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
        return {m.key: weights_size(self.location(m)) for m in self.profile.models}

    def kind_of(self, case: Case) -> ItemKind[Any]:
        """The kind whose case type ``case`` is (the kinds' case types are unrelated)."""
        for kind in self.kinds.values():
            if isinstance(case, kind.case_type):
                return kind
        raise TypeError(f"{case!r} is no case of a registered item kind ({', '.join(self.kinds)})")

    def prepare(self, case: Case) -> Verdict | None:
        """The verdict of an item that cannot run (its setup), recorded for results.json."""
        kind = self.kind_of(case)
        if self.configuration_problem:
            return Verdict(None, self.configuration_problem)
        verdict = kind.prepare(case)
        if verdict is not None:
            self._record(case, kind, verdict)
        return verdict

    def check(self, case: Case) -> Verdict:
        """Run one item: its verdict, recorded for results.json.  A model refused at load
        raises its ``ModelLoadError`` (``outcome.Check`` fails the item with it)."""
        kind = self.kind_of(case)
        verdict = kind.run(case, self)
        self._record(case, kind, verdict)
        return verdict

    def _record(self, case: Case, kind: ItemKind[Any], verdict: Verdict) -> None:
        if verdict.record is not None:
            self.results.add(kind.records, case.position, dict(verdict.record))

    def has_verdict(self, case: Case) -> bool:
        """Whether ``case``'s item recorded a gate verdict in this process."""
        return self.results.has(self.kind_of(case).records, case.position)

    def record_error(self, case: Case, nodeid: str, when: str, message: str) -> None:
        """Record an item that ended without a gate verdict (an exception, a model refused at
        load, a setup that failed): results.json ``errors``; the run then has no verdict.
        Once per item: a teardown error after a call error adds nothing."""
        if any(r["item"] == nodeid for r in self.results.records("errors")):
            return
        self.results.add(
            "errors",
            case.position,
            {
                "item": nodeid,
                "kind": self.kind_of(case).name,
                "models": [f"{m.dataset}/{m.name}" for m in case.models],
                "when": when,
                "message": message,
            },
        )

    def record_engine_stats(self) -> None:
        """Forward passes vs cache hits per model, for the summary (and the benchmark)."""
        for c in self.classifiers.values():
            extra: dict[str, Any] = {}
            for kind in self.kinds.values():
                extra.update(kind.engine_fields(c.spec.key))
            if not c.unique_inputs and not any(extra.values()):
                continue  # loaded on this worker, but its items ran on another
            self.results.add(
                "engine",
                self.profile.models.index(c.spec),
                {
                    "dataset": c.spec.dataset,
                    "model": c.spec.name,
                    "fingerprint": c.fingerprint,
                    "unique_inputs": c.unique_inputs,
                    "forward_passes": c.forward_count,
                    "cache_hits": c.cache_hits,
                    "device": c.device,
                    "max_length": c.max_length,
                    "truncated_inputs": c.truncated,
                    "model_id": c.spec.source,
                    "fingerprint_source": c.fingerprint_source,
                    "cache_rejected": c.cache_rejected,
                    "forward_seconds": round(c.forward_seconds, 3),
                    "backend": c.backend,
                    **extra,
                },
            )
