"""The embedded zoo (``zoo: sst2/bert``, source ``zoo:sst2/bert``): the shipped checkpoints,
put in place (sha256 checked) under the zoo folder on first use."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from nlp_gate import extras
from nlp_gate.config.specs import ModelSpec
from nlp_gate.sources.base import SourceContext
from nlp_gate.sources.checkpoint import CheckpointSource, models

if TYPE_CHECKING:
    from nlp_gate.engine.predictor import Classifier

PREFIX = "zoo:"


class ZooSource(CheckpointSource):
    name = "zoo"
    entry_key = "zoo"

    def recognises(self, source: str) -> bool:
        return source.startswith(PREFIX)

    def recognises_given(self, given: str) -> bool:
        # --nlp-model names checkpoints, functions, URIs and URLs; a zoo model is the
        # models file's (``zoo: sst2/bert``).
        return False

    def source_string(self, value: str) -> str:
        return f"{PREFIX}{value}"

    def needs(self, specs: Sequence[ModelSpec]) -> list[extras.Need]:
        return [
            extras.Need(
                extras.ZOO,
                models(
                    specs, "a checkpoint of the embedded zoo", "checkpoints of the embedded zoo"
                ),
            )
        ]

    def preflight(self, spec: ModelSpec, context: SourceContext) -> str | None:
        context.ensure_zoo()  # on the controller: a damaged zoo stops the run at start
        return None

    def location(self, spec: ModelSpec, context: SourceContext) -> str:
        from nlp_gate.engine.loading import zoo_location

        return zoo_location(context.options.zoo_dir, spec)

    def load(self, spec: ModelSpec, context: SourceContext) -> Classifier:
        context.ensure_zoo()
        return super().load(spec, context)
