"""MLflow model URIs (``models:/NAME/VERSION``, ``models:/NAME@ALIAS``, ``runs:/RUN_ID/PATH``):
resolved once per process with MLflow's client (the [mlflow] extra), then loaded as the
checkpoint (transformers flavor) or the pyfunc model it names (``engine.mlflow_source``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nlp_gate import extras
from nlp_gate.config import ConfigurationError
from nlp_gate.config.registry_uri import RegistryUriError, parse
from nlp_gate.config.specs import ModelSpec, ProfileError
from nlp_gate.sources.base import ModelSource, SourceContext
from nlp_gate.sources.checkpoint import models

if TYPE_CHECKING:
    from nlp_gate.engine.mlflow_source import Registry
    from nlp_gate.engine.predictor import Classifier

PREFIXES = ("models:/", "runs:/")


def is_registry_source(source: str) -> bool:
    return source.startswith(PREFIXES)


class MlflowSource(ModelSource):
    name = "MLflow model URI"

    def recognises(self, source: str) -> bool:
        return is_registry_source(source)

    def split_revision(self, given: str) -> tuple[str, str | None]:
        return given, None  # models:/NAME@ALIAS: the alias stays in the URI

    def column_name(self, given: str) -> str:
        """``sst2-bert-champion``, or a usage error naming the forms understood."""
        try:
            return parse(given).model_name
        except RegistryUriError as exc:
            raise ProfileError(f"--nlp-model: model source {exc}") from None

    def needs(self, specs: Sequence[ModelSpec]) -> list[extras.Need]:
        # Its [hf] only once resolved to a transformers flavor: ``preflight`` asks.
        return [
            extras.Need(extras.MLFLOW, models(specs, "an MLflow model URI", "MLflow model URIs"))
        ]

    def preflight(self, spec: ModelSpec, context: SourceContext) -> str | None:
        problem: str | None = registry(context).preflight(spec)
        return problem

    def label_names(self, given: str, context: SourceContext | None) -> list[str] | None:
        """A transformers flavor's label names, once resolved (its [mlflow] extra asked for
        first: resolving needs it); a pyfunc's outputs only the user can name."""
        extras.require([extras.Need(extras.MLFLOW, f"model source {given} is an MLflow model URI")])
        assert context is not None, "resolving an MLflow URI needs the run's model pool"
        names: list[str] | None = registry(context).label_names(given)
        if names is None:
            raise ConfigurationError(
                f"--nlp-model: {given} is an MLflow pyfunc model, whose outputs only you can "
                f"name: give its labels in output order, --nlp-model 'TASK[label,...]={given}'"
            )
        return names

    def location(self, spec: ModelSpec, context: SourceContext) -> str:
        # Its download once resolved; before that (a run refused at start, whose report
        # names it) the URI: a report never resolves it, nor needs [mlflow] for it.
        resolved = resolution(spec, context)
        return resolved.location if resolved is not None else spec.source

    def record(self, spec: ModelSpec, context: SourceContext) -> dict[str, Any]:
        """results.json's ``registry``: what the URI resolved to in this process."""
        resolved = resolution(spec, context)
        return {"registry": resolved.record() if resolved is not None else None}

    def described(self, spec: ModelSpec, context: SourceContext) -> list[str]:
        resolved = resolution(spec, context)
        # What the alias named when this run resolved it.
        return [f"resolved: {resolved.describe()}"] if resolved is not None else []

    def load(self, spec: ModelSpec, context: SourceContext) -> Classifier:
        from nlp_gate.engine.loading import worker_index

        classifier: Classifier = registry(context).load(
            spec, context.options.load, worker_index(), context.encodings, context.inputs
        )
        return classifier


def registry(context: SourceContext) -> Registry:
    """The process's MLflow URIs, each resolved once (``engine.mlflow_source``; imported only
    when a model names one: it needs the [mlflow] extra)."""

    def make() -> Registry:
        from nlp_gate.engine.mlflow_source import Registry

        options = context.options
        return Registry(options.cache_dir, options.trusted_registry_code)

    return context.kept("mlflow-registry", make)


def resolution(spec: ModelSpec, context: SourceContext) -> Any:
    """What ``spec``'s URI resolved to in this process (None before), without resolving it."""
    return registry(context).resolved(spec.source)
