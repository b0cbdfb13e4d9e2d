"""The interface every kind of model source implements (``ModelSource``), and what a source
sees of the run's model pool while it works (``SourceContext``).

A model source is where a model's predictions come from: a checkpoint folder or hub id, the
embedded zoo, a ``module:function``, an MLflow model URI, a served endpoint.  The models file
and ``--nlp-model`` name one by a string; ``nlp_gate.sources.source_of`` finds the source that
recognises it, and everything that depends on the kind of source (its models-file entry, the
extra it needs, its start-up check, its label names, where it is, how it loads) is asked of
that object -- nothing else in the package tells sources apart.

ONNX is no source here: ``--nlp-backend onnx`` (``engine.onnx_backend``) runs the checkpoints
of the sources whose ``uses_backend`` is true with ONNX Runtime instead of torch.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from nlp_gate.config.endpoint_url import Access
from nlp_gate.config.specs import ModelSpec, ProfileError

if TYPE_CHECKING:
    from nlp_gate.config.options import Options
    from nlp_gate.engine.batching import Encodings
    from nlp_gate.engine.predictor import Classifier
    from nlp_gate.engine.rows import InputIndex
    from nlp_gate.extras import Need

T = TypeVar("T")


class SourceContext(Protocol):
    """What a source sees of the run while it checks and loads its models: the options, what
    the process's models share (token encodings, the input index), the zoo put in place
    once, and a place for the state a source keeps for the process (``kept``)."""

    @property
    def options(self) -> Options: ...

    @property
    def encodings(self) -> Encodings: ...

    @property
    def inputs(self) -> InputIndex: ...

    def ensure_zoo(self) -> None: ...

    def kept(self, name: str, make: Callable[[], T]) -> T:
        """The object kept under ``name`` for this process, made on first use."""
        ...


class ModelSource(ABC):
    """One kind of model source.  Instances are stateless (the state a source keeps for a
    process lives in its ``SourceContext``): ``nlp_gate.sources.SOURCES`` holds one each.

    ``name``: what it is called in messages.  ``entry_key``: the models-file key whose value
    names it (``id`` unless it has its own: ``zoo``, ``predict``); ``revision_key``: the key of
    its revision (``revision``; a function's declared ``fingerprint``).  ``uses_backend``:
    whether its models run on ``--nlp-backend`` (torch or ONNX Runtime)."""

    name: ClassVar[str]
    entry_key: ClassVar[str] = "id"
    revision_key: ClassVar[str] = "revision"
    uses_backend: ClassVar[bool] = True

    # -- recognising ------------------------------------------------------------------------
    @abstractmethod
    def recognises(self, source: str) -> bool:
        """Whether ``source``, a spec's source string (``ModelSpec.source``), is this kind's."""

    def recognises_given(self, given: str) -> bool:
        """Whether ``given``, the SOURCE of ``--nlp-model TASK=SOURCE`` without its ``@REV``
        (``split_revision``), is this kind's."""
        return self.recognises(given)

    # -- parsing: the models file and --nlp-model ------------------------------------------
    def source_string(self, value: str) -> str:
        """The spec's source for the value of its ``entry_key``."""
        return value

    def parse_entry(self, raw: Mapping[str, Any], where: str) -> Access:
        """A models-file entry's keys that are this kind's (``ProfileError`` when they are
        wrong), and what its requests send (only an endpoint sends anything)."""
        if "auth" in raw or "headers" in raw:
            raise ProfileError(
                f"{where}: 'auth' and 'headers' are for a served endpoint's requests "
                "(an id that is an http:// or https:// URL)"
            )
        return Access()

    def split_revision(self, given: str) -> tuple[str, str | None]:
        """``SOURCE[@REV]`` of ``--nlp-model``: an existing path is a directory whole, '@'
        included (hub ids and module names have no '@')."""
        if Path(given).exists() or "@" not in given:
            return given, None
        source, _, revision = given.rpartition("@")
        return source, revision or None

    def column_name(self, given: str) -> str:
        """A ``--nlp-model`` model's report column name: its directory's or id's last part."""
        return Path(given.rstrip("/")).name or given

    # Whether a --nlp-model model's labels are read from it (``label_names``); else they are
    # its task's classes in order.
    reads_labels: ClassVar[bool] = True

    # -- running -----------------------------------------------------------------------------
    def needs(self, specs: Sequence[ModelSpec]) -> list[Need]:
        """The optional features (extras) its models ``specs`` need installed."""
        return []

    def preflight(self, spec: ModelSpec, context: SourceContext) -> str | None:
        """What stops ``spec`` at start-up (said once, before any item runs), or None."""
        return None

    def label_names(self, given: str, context: SourceContext | None) -> list[str] | None:
        """The names ``given`` gives its outputs, in output order; None when it cannot be
        read (``ConfigurationError`` when only the user can name them)."""
        return None

    def location(self, spec: ModelSpec, context: SourceContext) -> str:
        """Where the model is, for the header, results.json and the sharding cost."""
        return spec.source

    def record(self, spec: ModelSpec, context: SourceContext) -> dict[str, Any]:
        """What results.json's ``run.models`` entry adds for it (an MLflow URI's resolution)."""
        return {}

    def described(self, spec: ModelSpec, context: SourceContext) -> list[str]:
        """Lines the report header adds under the model's line."""
        return []

    @abstractmethod
    def load(self, spec: ModelSpec, context: SourceContext) -> Classifier:
        """The model's engine; ``ModelLoadError`` when what only loading tells refuses it."""
