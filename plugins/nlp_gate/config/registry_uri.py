"""MLflow model URIs as model sources (``models:/NAME/VERSION``, ``models:/NAME@ALIAS``,
``runs:/RUN_ID/PATH``): recognised and parsed as plain text.

Apart from the engine's resolution (``nlp_gate.engine.mlflow_source``) because the models
file and ``--nlp-model`` parsing name a registry URI without importing mlflow: a core install,
which has no mlflow, still parses every other source.  Which strings are registry URIs is
``nlp_gate.sources.mlflow``'s to say.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The registry's own name rules are looser; these are the URIs MLflow's client resolves.
_VERSION = re.compile(r"models:/(?P<name>[^/@]+)/(?P<version>\d+)")
_ALIAS = re.compile(r"models:/(?P<name>[^/@]+)@(?P<alias>[\w-]+)")
_RUN = re.compile(r"runs:/(?P<run_id>[0-9A-Za-z]+)/(?P<path>.+)")
FORMS = "models:/NAME/VERSION, models:/NAME@ALIAS or runs:/RUN_ID/PATH"


class RegistryUriError(ValueError):
    """A ``models:/`` or ``runs:/`` source that names no model version or run artifact."""


@dataclass(frozen=True)
class RegistryUri:
    """One parsed URI: exactly one of (name, version), (name, alias), (run_id, path)."""

    uri: str
    name: str | None = None
    version: str | None = None
    alias: str | None = None
    run_id: str | None = None
    path: str | None = None

    @property
    def model_name(self) -> str:
        """A report column name for it, without '@' or '/' (node ids and xdist groups use
        them): ``sst2-bert-champion``, ``sst2-bert-3``, ``run-1a2b3c4d-model``."""
        if self.run_id is not None:
            return f"run-{self.run_id[:8]}-{(self.path or '').strip('/').replace('/', '-')}"
        return f"{self.name}-{self.alias or self.version}"


def parse(uri: str) -> RegistryUri:
    """``uri`` parsed, or a ``RegistryUriError`` naming the forms that are understood."""
    for pattern in (_VERSION, _ALIAS, _RUN):
        match = pattern.fullmatch(uri)
        if match:
            return RegistryUri(uri, **match.groupdict())
    raise RegistryUriError(f"{uri!r} is no MLflow model URI nlp-gate resolves; give {FORMS}")
