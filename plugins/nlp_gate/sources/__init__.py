"""Model sources: the one place where they register (as ``nlp_gate.kinds.KINDS`` is for item
kinds).

Each source implements ``nlp_gate.sources.base.ModelSource``.  ``source_of`` is the one
question "which kind of source is this string?" in the package: ``SOURCES`` is asked in
order, the first that recognises the string answers, and the checkpoint source (a folder or
hub id) is last, the fallback.  A new source is one module and one line here -- or, from a
third party's code or a test, ``register(source)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from nlp_gate.config.specs import ModelSpec
from nlp_gate.extras import ONNX, Need, eval_set_needs
from nlp_gate.sources.base import ModelSource, SourceContext
from nlp_gate.sources.checkpoint import CheckpointSource
from nlp_gate.sources.endpoint import EndpointSource
from nlp_gate.sources.function import FunctionSource
from nlp_gate.sources.mlflow import MlflowSource
from nlp_gate.sources.zoo import ZooSource

__all__ = [
    "SOURCES",
    "ModelSource",
    "SourceContext",
    "entry_keys",
    "item_needs",
    "model_needs",
    "register",
    "source_given",
    "source_of",
]

# Asked in this order; the fallback last.  ``register`` inserts before it.
SOURCES: list[ModelSource] = [
    EndpointSource(),
    MlflowSource(),
    FunctionSource(),
    ZooSource(),
    CheckpointSource(),
]


def register(source: ModelSource) -> ModelSource:
    """Add ``source``, asked before the built-in ones (a third party's source may claim
    strings that would otherwise be a checkpoint's); returns it."""
    SOURCES.insert(0, source)
    return source


def source_of(spec: ModelSpec | str) -> ModelSource:
    """The source of a spec, or of a spec's source string (``ModelSpec.source``)."""
    source = spec.source if isinstance(spec, ModelSpec) else spec
    return next(s for s in SOURCES if s.recognises(source))


def source_given(given: str) -> ModelSource:
    """The source ``--nlp-model TASK=SOURCE`` names with ``given`` (``SOURCE[@REV]``: each
    source is asked about ``given`` without the revision it would split off)."""
    return next(s for s in SOURCES if s.recognises_given(s.split_revision(given)[0]))


def entry_keys() -> tuple[str, ...]:
    """The models-file keys that name a model's source (``id``, ``zoo``, ``predict``)."""
    return tuple(dict.fromkeys(s.entry_key for s in SOURCES))


def by_entry_key(key: str) -> ModelSource | None:
    """The source a models-file key other than ``id`` names (``zoo``, ``predict``)."""
    return next((s for s in SOURCES if s.entry_key == key and key != "id"), None)


def model_needs(models: Iterable[ModelSpec], backend: str = "torch") -> list[Need]:
    """What the models need installed, source by source in ``SOURCES`` order (an MLflow URI's
    [mlflow] before a checkpoint's [hf]: only once resolved is its flavor known), and [onnx]
    when ``--nlp-backend onnx`` runs any of them."""
    models = list(dict.fromkeys(models))
    used = [(s, [m for m in models if source_of(m) is s]) for s in SOURCES]
    used = [(s, specs) for s, specs in used if specs]
    needs = [n for source, specs in used for n in source.needs(specs)]
    if backend == "onnx" and any(source.uses_backend for source, _ in used):
        needs.append(Need(ONNX, "--nlp-backend onnx runs the checkpoints with ONNX Runtime"))
    return needs


def item_needs(
    selected: Mapping[str, Sequence[Any]], data_dir: Path | None, backend: str = "torch"
) -> list[Need]:
    """What the selected items (kind name -> cases) need: their models', then their
    evaluation sets' (``extras.eval_set_needs``)."""
    needs = model_needs(
        (m for cases in selected.values() for c in cases for m in c.models), backend
    )
    return [*needs, *eval_set_needs(selected, data_dir)]
