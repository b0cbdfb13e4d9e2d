"""A checkpoint folder or a Hugging Face hub id (``id: org/model`` or ``id: ./folder``): the
fallback source, whatever no other source recognises.  Loaded with transformers (the [hf]
extra), on ``--nlp-backend``'s runtime."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from nlp_gate import extras
from nlp_gate.config.specs import ModelSpec
from nlp_gate.sources.base import ModelSource, SourceContext

if TYPE_CHECKING:
    from nlp_gate.engine.predictor import Classifier


class CheckpointSource(ModelSource):
    name = "checkpoint"

    def recognises(self, source: str) -> bool:
        return True  # the fallback: SOURCES asks it last

    def needs(self, specs: Sequence[ModelSpec]) -> list[extras.Need]:
        return [extras.Need(extras.CHECKPOINTS, models(specs, "a checkpoint", "checkpoints"))]

    def preflight(self, spec: ModelSpec, context: SourceContext) -> str | None:
        from nlp_gate.engine.checkpoint import preflight

        return preflight(spec, self.location(spec, context))

    def label_names(self, given: str, context: SourceContext | None) -> list[str] | None:
        from nlp_gate.engine.checkpoint import checkpoint_label_names

        return checkpoint_label_names(given)

    def load(self, spec: ModelSpec, context: SourceContext) -> Classifier:
        from nlp_gate.engine.loading import load_classifier, worker_index

        return load_classifier(
            spec,
            self.location(spec, context),
            context.options.load,
            worker_index(),
            context.encodings,
            context.inputs,
        )


def models(specs: Sequence[ModelSpec], one: str, many: str) -> str:
    """``model sst2/bert is a checkpoint`` / ``models a, b are checkpoints``, for a ``Need``."""
    names = [f"{m.dataset}/{m.name}" for m in specs]
    if len(names) == 1:
        return f"model {names[0]} is {one}"
    return f"models {extras.listed(names)} are {many}"
