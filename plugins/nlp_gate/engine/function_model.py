"""A prediction function as a model: ``predict: mypkg.models:predict_proba`` in the models file.

The function takes a batch (a list of texts, or of ``(text, text)`` tuples for pair tasks)
and returns one row of class probabilities per input, in the entry's ``labels`` order: an ONNX
export, a scikit-learn pipeline, a served endpoint behind a client, as CheckList's
``PredictorWrapper`` takes.  It gets the engine of a checkpoint (``Classifier``): the same
batches, memo and persistent prediction cache, keyed by the entry's declared ``fingerprint``;
every batch it returns is checked (shape, finite, rows summing to 1), and a wrong one stops the
model's items with one message.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

import numpy as np

from nlp_gate.config.profiles import ModelSpec
from nlp_gate.engine.predictor import Classifier, LoadOptions, ModelLoadError
from nlp_gate.engine.prediction_cache import PredictionCache

PredictFunction = Callable[[list[Any]], Any]
SUM_TOLERANCE = 1e-3  # float32 softmax rows sum to 1 within ~1e-6; a logit row is far off


class PredictionError(ModelLoadError):
    """A prediction function returned something that is not class probabilities."""


def import_function(spec: ModelSpec, search: Path | None = None) -> PredictFunction:
    """``module:function`` of ``spec``, imported (``search``: a folder tried last, the models
    file's, so a module beside it needs no install)."""
    assert spec.function is not None
    module_name, _, name = spec.function.partition(":")
    if search is not None and str(search) not in sys.path:
        sys.path.append(str(search))
    try:
        function = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError) as exc:
        raise ModelLoadError(f"{spec.key} ({spec.source}): cannot import {spec.function}: "
                             f"{exc}; install its package or put the module beside the "
                             "models file") from exc
    if not callable(function):
        raise ModelLoadError(f"{spec.key} ({spec.source}): {spec.function} is not callable")
    return function


def preflight_function(spec: ModelSpec, search: Path | None) -> str | None:
    """What stops a prediction-function model at start-up (it cannot be imported), or None."""
    try:
        import_function(spec, search)
    except ModelLoadError as exc:
        return str(exc)
    return None


class FunctionClassifier(Classifier):
    """``Classifier``'s memo, cache and batching over a prediction function."""

    def __init__(self, spec: ModelSpec, function: PredictFunction, options: LoadOptions,
                 cache: PredictionCache | None) -> None:
        fingerprint = hashlib.sha256(json.dumps(
            ["predict", spec.function, spec.revision, list(spec.labels)]).encode()).hexdigest()
        super().__init__(spec, function, None, "python", options, fingerprint, cache)
        self.max_length = 0  # no tokenizer here: nothing is cut

    def _forward(self, inputs: list[Hashable]) -> np.ndarray:
        out = np.empty((len(inputs), len(self._order)), dtype=np.float32)
        size = self.options.batch_size
        for start in range(0, len(inputs), size):
            batch = list(inputs[start:start + size])  # texts, or (text, text) tuples
            rows = self._checked(self.model(batch), len(batch))
            out[start:start + len(batch)] = rows[:, self._order]
        self.forward_count += len(inputs)
        return out

    def _checked(self, returned: Any, n: int) -> np.ndarray:
        where = f"{self.spec.key} ({self.spec.source})"
        try:
            rows = np.asarray(returned, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise PredictionError(f"{where} returned {type(returned).__name__}, not an array "
                                  f"of class probabilities: {exc}") from exc
        labels = len(self.spec.labels)
        if rows.shape != (n, labels):
            raise PredictionError(
                f"{where} returned shape {rows.shape} for {n} inputs; expected ({n}, {labels}): "
                f"one row per input, one probability per label {list(self.spec.labels)}")
        if not np.isfinite(rows).all():
            raise PredictionError(f"{where} returned NaN or infinite probabilities "
                                  f"({int((~np.isfinite(rows)).any(axis=1).sum())} of {n} rows)")
        sums = rows.sum(axis=1)
        bad = np.flatnonzero((np.abs(sums - 1) > SUM_TOLERANCE) | (rows < 0).any(axis=1))
        if bad.size:
            raise PredictionError(
                f"{where} returned rows that are not probabilities ({bad.size} of {n}; row "
                f"{int(bad[0])} sums to {sums[bad[0]]:.4g}): return softmax probabilities, not "
                "logits or scores")
        return rows


def load_function_classifier(spec: ModelSpec, options: LoadOptions,
                             search: Path | None = None) -> FunctionClassifier:
    cache = PredictionCache(options.cache, options.cache_max_mb << 20) if options.cache else None
    return FunctionClassifier(spec, import_function(spec, search), options, cache)
