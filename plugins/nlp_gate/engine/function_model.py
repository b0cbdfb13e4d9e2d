"""A prediction function as a model: ``predict: mypkg.models:predict_proba`` in the models file.

The function takes a batch (a list of texts, or of ``(text, text)`` tuples for pair tasks)
and returns one row of class probabilities per input, in the entry's ``labels`` order: an ONNX
export, a scikit-learn pipeline, a served endpoint behind a client, as CheckList's
``PredictorWrapper`` takes.  It gets the engine of a checkpoint (``Classifier``): the same
batches and memo, and the persistent prediction cache only under a declared ``fingerprint``
(without one, nothing survives the run); its float64 rows stay float64.  It is called once on a
probe batch at start-up, and every batch it returns is checked (shape, finite, non-negative,
rows summing to 1): a wrong one stops the run, or the model's items, with one message.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nlp_gate.config.specs import ModelSpec
from nlp_gate.engine.checkpoint import ModelLoadError
from nlp_gate.engine.prediction_cache import PredictionCache
from nlp_gate.engine.predictor import Classifier, LoadOptions
from nlp_gate.engine.rows import InputIndex

PredictFunction = Callable[[list[Any]], Any]
SUM_TOLERANCE = 1e-3  # float32 softmax rows sum to 1 within ~1e-6; a logit row is far off


class PredictionError(ModelLoadError):
    """A prediction function returned something that is not class probabilities."""


def import_function(spec: ModelSpec, search: Sequence[Path] = ()) -> PredictFunction:
    """``module:function`` of ``spec``, imported.  ``search``: folders tried after the
    installed packages, in order: the rootdir (a module beside ``pytest.ini`` needs neither an
    install nor ``pythonpath``: the ``pytest`` command, unlike ``python -m pytest``, does not
    put the working directory on ``sys.path``), then the models file's folder, if any."""
    assert spec.function is not None
    module_name, _, name = spec.function.partition(":")
    for folder in search:
        if str(folder) not in sys.path:
            sys.path.append(str(folder))
    try:
        function = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError) as exc:
        where = " or ".join(str(folder) for folder in search)
        raise ModelLoadError(
            f"{spec.key} ({spec.source}): cannot import {spec.function}: "
            f"{exc}; install its package" + (f" or put the module in {where}" if where else "")
        ) from exc
    if not callable(function):
        raise ModelLoadError(f"{spec.key} ({spec.source}): {spec.function} is not callable")
    predict: Callable[[list[Any]], Any] = function
    return predict


# The packaged tasks whose inputs are (text, text) pairs; a models file's own task is one when
# its dataset is a known pair dataset (``eval_sets.HUB_SPLITS``: two text columns).
PAIR_TASKS = ("paraphrase", "entailment")


def probe_batch(spec: ModelSpec) -> list[Any]:
    """Two inputs of the kind the model's items will send: texts, or pairs of texts."""
    from nlp_gate.eval_sets import hub_split

    if spec.task.name in PAIR_TASKS or len(hub_split(spec).columns) == 2:
        return [
            ("How do I learn to cook?", "How can I learn cooking?"),
            ("Is the sky blue?", "What is the capital of France?"),
        ]
    return ["I really liked this movie.", "The food was cold and the service slow."]


def preflight_function(spec: ModelSpec, search: Sequence[Path]) -> str | None:
    """What stops a prediction-function model at start-up, or None: it cannot be imported,
    or called on a probe batch of its task's inputs it raises or returns something that is
    not class probabilities (labels, logits): one message then, not one per item."""
    try:
        function = import_function(spec, search)
    except ModelLoadError as exc:
        return str(exc)
    batch = probe_batch(spec)
    try:
        returned = function(list(batch))
    except Exception as exc:  # the user's code: whatever it raises is the message
        return (
            f"{spec.key} ({spec.source}) raised {type(exc).__name__} on a probe batch "
            f"{batch!r}: {exc}"
        )
    try:
        validate_rows(spec, returned, len(batch))
    except PredictionError as exc:
        return f"{exc} (on a probe batch {batch!r})"
    return None


def validate_rows(spec: ModelSpec, returned: Any, n: int) -> np.ndarray:
    """``returned`` as float64 class probabilities of ``n`` inputs (the function's own
    precision: CheckList's arithmetic on band edges such as 1/3 depends on it), or a
    ``PredictionError`` saying what it is instead."""
    where = f"{spec.key} ({spec.source})"
    try:
        rows = np.asarray(returned, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise PredictionError(
            f"{where} returned {type(returned).__name__}, not an array "
            f"of class probabilities: {exc}"
        ) from exc
    labels = len(spec.labels)
    if rows.shape != (n, labels):
        raise PredictionError(
            f"{where} returned shape {rows.shape} for {n} inputs; expected ({n}, {labels}): "
            f"one row per input, one probability per label {list(spec.labels)}"
            + (" (labels, not probabilities?)" if rows.shape == (n,) else "")
        )
    if not np.isfinite(rows).all():
        raise PredictionError(
            f"{where} returned NaN or infinite probabilities "
            f"({int((~np.isfinite(rows)).any(axis=1).sum())} of {n} rows)"
        )
    negative = np.flatnonzero((rows < 0).any(axis=1))
    if negative.size:
        row = int(negative[0])
        raise PredictionError(
            f"{where} returned rows with a negative probability ({negative.size} of {n}; row "
            f"{row} is {rows[row].tolist()}): return softmax probabilities, not logits or "
            "scores"
        )
    sums = rows.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1) > SUM_TOLERANCE)
    if bad.size:
        raise PredictionError(
            f"{where} returned rows that are not probabilities ({bad.size} of {n}; row "
            f"{int(bad[0])} sums to {sums[bad[0]]:.4g}): return softmax probabilities, not "
            "logits or scores"
        )
    return rows


class FunctionClassifier(Classifier):
    """``Classifier``'s memo, cache and batching over a prediction function.

    Nothing tells that a function changed between runs, so its answers (and the outcomes
    computed from them) persist only under the fingerprint its user declared (``spec.revision``:
    the models file's ``fingerprint``, ``--nlp-model TASK=module:function@FINGERPRINT``);
    without one the memo of the run is all there is.  Rows stay float64, as returned."""

    dtype = np.float64

    def __init__(
        self,
        spec: ModelSpec,
        function: PredictFunction,
        options: LoadOptions,
        cache: PredictionCache | None,
        inputs: InputIndex | None = None,
    ) -> None:
        fingerprint = hashlib.sha256(
            json.dumps(["predict", spec.function, spec.revision, list(spec.labels)]).encode()
        ).hexdigest()
        declared = spec.revision is not None
        super().__init__(
            spec,
            function,
            None,
            "python",
            options,
            fingerprint,
            cache if declared else None,
            inputs=inputs,
        )
        self.fingerprint_source = "declared" if declared else "none"
        self.backend = "python"  # the user's function computes: no --nlp-backend applies
        self.max_length = 0  # no tokenizer here: nothing is cut
        self.token_budget = self.largest_batch_tokens = None  # nor batches of tokens

    def _forward(self, inputs: list[Hashable]) -> np.ndarray:
        out = np.empty((len(inputs), len(self._order)), dtype=np.float64)
        size = self.options.batch_size
        for start in range(0, len(inputs), size):
            batch = list(inputs[start : start + size])  # texts, or (text, text) tuples
            rows = self._checked(self.model(batch), len(batch))
            out[start : start + len(batch)] = rows[:, self._order]
            self.largest_batch_rows = max(self.largest_batch_rows, len(batch))
            self._advance(len(batch))
        self.forward_count += len(inputs)
        return out

    def _checked(self, returned: Any, n: int) -> np.ndarray:
        return validate_rows(self.spec, returned, n)


def load_function_classifier(
    spec: ModelSpec,
    options: LoadOptions,
    search: Sequence[Path] = (),
    inputs: InputIndex | None = None,
) -> FunctionClassifier:
    # Without a declared fingerprint nothing of the function's is stored: no file opened.
    cache = (
        PredictionCache(options.cache, options.cache_max_mb << 20)
        if options.cache and spec.revision is not None
        else None
    )
    return FunctionClassifier(spec, import_function(spec, search), options, cache, inputs)
