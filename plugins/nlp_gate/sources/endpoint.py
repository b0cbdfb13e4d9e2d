"""Served endpoints (``id: https://host/predict``, ``--nlp-model TASK=URL[@VERSION]``): batches
POSTed over HTTP, class probabilities (or label/score pairs) back (``engine.endpoint``;
docs/reference/endpoints.md).  Needs no extra; its secrets stay out of anything recorded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from nlp_gate.config.endpoint_url import (
    TOKEN_ENV,
    Access,
    endpoint_name,
    parse_access,
    remember,
    split_version,
)
from nlp_gate.config.specs import ModelSpec, ProfileError
from nlp_gate.sources.base import ModelSource, SourceContext

if TYPE_CHECKING:
    from nlp_gate.engine.predictor import Classifier

PREFIXES = ("http://", "https://")


def is_endpoint_source(source: str) -> bool:
    return source.startswith(PREFIXES)


class EndpointSource(ModelSource):
    name = "endpoint"
    uses_backend = False  # served: nothing to load
    reads_labels = False  # it answers in its task's class order, or names its labels

    def recognises(self, source: str) -> bool:
        return is_endpoint_source(source)

    def source_string(self, value: str) -> str:
        return remember(value)  # the public URL; its secret parameters kept apart

    def parse_entry(self, raw: Mapping[str, Any], where: str) -> Access:
        parts = urlsplit(str(raw["id"]))
        if parts.username or parts.password:
            # Not echoed: the URL would carry its password into the message and results.json.
            raise ProfileError(
                f"{where}: an endpoint URL with credentials in it "
                "is refused; name the environment variable that holds its token "
                f"(auth: {{bearer_env: VARIABLE}}), or set ${TOKEN_ENV}"
            )
        try:
            return parse_access(raw)
        except ValueError as exc:
            raise ProfileError(f"{where}: {exc}") from None

    def split_revision(self, given: str) -> tuple[str, str | None]:
        return split_version(given)

    def column_name(self, given: str) -> str:
        return endpoint_name(given)

    def preflight(self, spec: ModelSpec, context: SourceContext) -> str | None:
        from nlp_gate.engine.endpoint import preflight_endpoint

        return preflight_endpoint(spec, context.options.endpoint_timeout)

    def location(self, spec: ModelSpec, context: SourceContext) -> str:
        from nlp_gate.engine.endpoint import Endpoint

        return Endpoint(spec.source).shown  # never loaded from disk: its URL, as shown

    def load(self, spec: ModelSpec, context: SourceContext) -> Classifier:
        from nlp_gate.engine.endpoint import load_endpoint_classifier

        return load_endpoint_classifier(
            spec, context.options.load, context.options.endpoint_timeout, context.inputs
        )
