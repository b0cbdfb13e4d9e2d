"""A registry's pyfunc model as a prediction function (``nlp_gate.engine.mlflow_source``'s).

A pyfunc is loaded by running the code pickled into the registry (the registry asks for
consent first), answers as a prediction function does, and is fingerprinted by the registry
identity it was resolved to.  Separate from the URIs' resolution because it is the one part
that runs the model: the resolution never loads a pyfunc.  The two helpers every call into
MLflow uses (``quiet``, ``first_line``) are here, below both, so that neither module imports
the other in a loop.

mlflow is imported inside functions only: a core install never imports it.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from nlp_gate.config.specs import ModelSpec
from nlp_gate.engine.checkpoint import ModelLoadError
from nlp_gate.engine.function_model import FunctionClassifier
from nlp_gate.engine.prediction_cache import PredictionCache
from nlp_gate.engine.predictor import LoadOptions
from nlp_gate.engine.rows import InputIndex

__all__ = ["PyfuncClassifier", "ResolvedPyfunc", "first_line", "load_pyfunc", "predict", "quiet"]


class ResolvedPyfunc(Protocol):
    """What a pyfunc is loaded from: ``mlflow_source.Resolved`` (named by its shape here,
    because ``mlflow_source`` imports this module)."""

    @property
    def location(self) -> str: ...

    @property
    def identity(self) -> dict[str, str | None]: ...


@contextmanager
def quiet() -> Iterator[None]:
    """MLflow's calls without the warnings of its own dependencies (SQLAlchemy's deprecations
    in its store, its type-hint notes on unpickling): nothing a gate's user can act on, and
    they would bury the one line a refused start-up prints."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def load_pyfunc(spec: ModelSpec, resolved: ResolvedPyfunc) -> Any:
    import mlflow.pyfunc

    try:
        with quiet():
            return mlflow.pyfunc.load_model(resolved.location)
    except Exception as exc:  # the registry's code runs here: whatever it raises is the reason
        raise ModelLoadError(
            f"{spec.key} ({spec.source}): cannot load the pyfunc model: "
            f"{type(exc).__name__}: {first_line(exc)}"
        ) from None


def predict(model: Any, batch: list[Hashable]) -> Any:
    """A pyfunc's rows for a batch: texts as a list of str, pairs as lists of two texts
    (what MLflow's scoring protocol's ``inputs`` carries)."""
    return model.predict([list(x) if isinstance(x, tuple) else x for x in batch])


class PyfuncClassifier(FunctionClassifier):
    """A registry pyfunc as a prediction function; its fingerprint is the registry identity
    it was resolved to, so its answers persist in the prediction cache under that version
    (a version's artifacts are immutable in the registry)."""

    def __init__(
        self,
        spec: ModelSpec,
        resolved: ResolvedPyfunc,
        model: Any,
        options: LoadOptions,
        inputs: InputIndex | None,
    ) -> None:
        cache = (
            PredictionCache(options.cache, options.cache_max_mb << 20) if options.cache else None
        )
        super().__init__(spec, lambda batch: predict(model, batch), options, cache, inputs)
        # FunctionClassifier keys on a declared version only; the registry gives one.
        self.fingerprint = hashlib.sha256(
            json.dumps(
                ["mlflow-pyfunc", resolved.identity, list(spec.labels)], sort_keys=True
            ).encode()
        ).hexdigest()
        self.cache = cache
        self.fingerprint_source = "registry"
