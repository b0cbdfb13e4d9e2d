"""Prediction: one ``Classifier`` per model and worker, made by ``loading``.

The mapping from output index to task class always comes from the models file
(``ModelSpec.labels``).  torch is imported inside functions so that collecting the suite
stays fast.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Generator, Hashable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nlp_gate.config.specs import ModelSpec
from nlp_gate.engine import pass_lock, producer
from nlp_gate.engine.batching import Encodings, encode
from nlp_gate.engine.encoded import Encoded
from nlp_gate.engine.keys import input_key
from nlp_gate.engine.onnx_backend import OnnxModel
from nlp_gate.engine.prediction_cache import PredictionCache
from nlp_gate.engine.rows import (
    RELEASE_EVERY,
    InputIndex,
    RowMemo,
    map_large_allocations,
    release_freed_memory,
)
from nlp_gate.progress import Reporter, Stage, current

# One model input: a text, or a (text_a, text_b) pair for paraphrase / entailment tasks.
ModelInput = str | tuple[str, str]


class UnencodableInput(ValueError):
    """An input that is not valid Unicode text (a lone surrogate such as '\\ud800'): no
    tokenizer, cache key or file can hold it, so it is never sent to a model."""


def unencodable(x: Any) -> str | None:
    """The text of an input (a text, a pair, a CheckList case's list of them) that cannot be
    encoded as UTF-8, if any."""
    if isinstance(x, (list, tuple)):
        return next((bad for part in x for bad in [unencodable(part)] if bad is not None), None)
    if isinstance(x, str) and not x.isascii():
        try:
            x.encode("utf-8")
        except UnicodeEncodeError:
            return x
    return None


@dataclass(frozen=True)
class LoadOptions:
    device: str = "auto"  # auto | cpu | cuda | cuda:N
    dtype: str = "float32"  # float32 | float16 | bfloat16 (the latter two on GPU only)
    # 128: fastest of 64/128/256 for the zoo's full suites on 2 CPU cores
    # (docs/measurements/performance.md); inputs are length-sorted, so a larger batch adds no
    # padding.
    batch_size: int = 128  # a batch's most rows
    # A batch's most padded tokens (rows x the longest row's tokens); None: per device
    # (``token_budget``).
    token_budget: int | None = None
    max_length: int = 128
    cache: Path | None = None  # persistent prediction cache file; None disables it
    cache_max_mb: int = 2048
    backend: str = "torch"  # torch | onnx (ONNX Runtime on the CPU: engine/onnx_backend.py)
    export_dir: Path | None = None  # the ONNX exports; None: <cache dir>/onnx


# The default token budget on a CUDA device: 256 rows at 128 tokens, the batches the paper's
# workload ran on one GPU (docs/measurements/performance.md).  It bounds a worker's peak
# activation memory, so several workers fit on one accelerator; on the CPU the rows alone
# bound a batch, as before (``token_budget``).
CUDA_TOKEN_BUDGET = 32_768


def token_budget(options: LoadOptions, device: str) -> int:
    """A batch's most padded tokens on ``device``: ``--nlp-token-budget``, else on CUDA
    ``CUDA_TOKEN_BUDGET``, else (the CPU) the batch size at the maximum length, a budget the
    rows reach first, so CPU batches are those of the row count alone."""
    if options.token_budget is not None:
        return options.token_budget
    if device.startswith("cuda"):
        return CUDA_TOKEN_BUDGET
    return options.batch_size * options.max_length


def cpu_threads() -> int:
    """Intra-op threads per process: the cores shared out among xdist workers.

    More OpenMP threads than cores makes tiny models tens of times slower (spin-waiting
    threads of two workers fight over the same cores), so never oversubscribe.
    """
    return max(1, (os.cpu_count() or 1) // worker_count())


def worker_count() -> int:
    """Number of xdist workers of this run (1 without xdist)."""
    return int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))


# Inputs whose cache keys (their JSON text) and stored rows exist at once: a suite's pass
# asks ~170k, whose keys alone held ~60 MiB at the pass's peak when made all at once.
_KEYED_SLICE = 16_384


class Classifier:
    """The prediction engine of one model: every consumer (CheckList items, comparisons,
    attacks) asks it, so each unique input costs at most one forward pass per run, and none
    when the persistent cache already holds it for this model fingerprint.

    Inference is batched, length-sorted, under ``inference_mode`` (and autocast for
    fp16/bf16 on GPU); probabilities come back in task class order.
    """

    dtype: type[np.floating[Any]] = np.float32  # of the rows it returns (softmax in float32)
    # What the fingerprint stands for: "content" (the checkpoint's files, config and library
    # versions, hashed), "declared" (a function's version string), "none" (a function without
    # one: nothing persists beyond the run).
    fingerprint_source = "content"

    def __init__(
        self,
        spec: ModelSpec,
        model: Any,
        tokenizer: Any,
        device: str,
        options: LoadOptions,
        fingerprint: str = "",
        cache: PredictionCache | None = None,
        loader: Callable[[], tuple[Any, Any]] | None = None,
        encodings: Encodings | None = None,
        exported: Callable[[], tuple[OnnxModel, Any]] | None = None,
        inputs: InputIndex | None = None,
    ) -> None:
        self.spec = spec
        self.device = device
        self.options = options
        self.fingerprint = fingerprint
        self.cache = cache
        self.forward_count = 0  # inputs that went through the model
        self.cache_hits = 0  # inputs answered by the persistent cache
        self.cache_rejected = 0  # stored rows read back that failed their checksum
        self.forward_seconds = 0.0  # spent computing those: the summary's cold-prediction cost
        self._stage: Stage | None = None  # the forward pass under way, for its progress
        self.truncated = 0  # forwarded inputs longer than max_length, cut to it
        # None where no tokenizer makes batches (a function or endpoint model).
        self.token_budget: int | None = token_budget(options, device)
        self.largest_batch_rows = 0  # of the batches forwarded (results.json engine[])
        self.largest_batch_tokens: int | None = 0  # padded: rows x width
        self.max_length = options.max_length  # narrowed to the position table at first pass
        self._model, self._tokenizer = model, tokenizer
        self._loader = loader  # loads (model, tokenizer) when they are None
        # The ONNX backend: opens the exported model (exporting it first) and the tokenizer;
        # the torch model then loads only if something asks for it (an attack's gradients).
        self._exported = exported
        self._onnx: OnnxModel | None = None
        self.backend = "onnx" if exported is not None else "torch"
        self.encodings = encodings  # tokenizations shared with this process's other models
        self._order = spec.class_index()
        # Row numbers shared with this process's other models (``inputs``; else its own).
        self._memo = RowMemo(len(self._order), self.dtype, inputs)

    def load(self) -> None:
        """Load what predicting needs, if not done yet (validating the checkpoint): the
        weights and tokenizer, or on the ONNX backend the export (made from the validated
        weights when there is none yet) and tokenizer."""
        if self._exported is None:
            self._load_model()
        elif self._onnx is None:
            self._onnx, self._tokenizer = self._exported()

    def _load_model(self) -> None:
        if self._model is None and self._loader is not None:
            self._model, self._tokenizer = self._loader()

    @property
    def model(self) -> Any:
        """The torch model, on either backend."""
        self._load_model()
        return self._model

    @property
    def tokenizer(self) -> Any:
        self.load()
        return self._tokenizer

    @property
    def loaded(self) -> bool:
        return self._model is not None or self._onnx is not None

    @property
    def unique_inputs(self) -> int:
        return len(self._memo)

    def predict_proba(self, inputs: Sequence[ModelInput]) -> np.ndarray:
        keys = [_key(x) for x in inputs]
        todo = list(dict.fromkeys(self._memo.missing(keys)))
        bad = next((text for k in todo for text in [unencodable(k)] if text is not None), None)
        if bad is not None:  # before the cache or the model sees any of the batch
            raise UnencodableInput(
                f"{self.spec.key}: input {bad!r} is not valid Unicode text (a lone surrogate "
                "cannot be encoded as UTF-8); no model is asked about it"
            )
        cached = 0
        if todo and self.cache is not None:
            cached = self._from_cache(todo)
            todo = [k for k in todo if k not in self._memo]
        if todo:
            with self._shared_pass(len(todo)) as waited:
                if waited:  # another process computed this model meanwhile: its rows first
                    cached += self._from_cache(todo)
                    todo = [k for k in todo if k not in self._memo]
                if todo:
                    self._compute(todo)
        if not todo and cached and self.cache is not None:
            self.cache.touch(self.fingerprint, self.spec.source)  # keep it from eviction
        return self._memo.rows(keys)

    def _compute(self, todo: list[Hashable]) -> None:
        """Forward ``todo`` into the memo, and into the persistent cache."""
        with self._cold_pass(len(todo)):
            rows = self._forward(todo)
        self._memo.put(todo, rows)
        if self.cache is not None:
            for start in range(0, len(todo), _KEYED_SLICE):
                end = start + _KEYED_SLICE
                self.cache.put(
                    self.fingerprint,
                    self.spec.source,
                    [(input_key(k), row) for k, row in zip(todo[start:end], rows[start:end])],
                )

    def _from_cache(self, todo: list[Hashable]) -> int:
        """Into the memo: the rows the persistent cache holds of ``todo``; how many it held."""
        assert self.cache is not None
        held = 0
        for start in range(0, len(todo), _KEYED_SLICE):
            part = todo[start : start + _KEYED_SLICE]
            keyed = [input_key(k) for k in part]
            rejected = self.cache.rejected
            cached = self.cache.get(self.fingerprint, keyed, len(self._order))
            self.cache_rejected += self.cache.rejected - rejected
            found = [i for i, text in enumerate(keyed) if text in cached]
            if found:
                self._memo.put(
                    [part[i] for i in found], np.stack([cached[keyed[i]] for i in found])
                )
            held += len(cached)
        self.cache_hits += held
        return held

    def _shared_pass(self, n: int) -> contextlib.AbstractContextManager[bool]:
        """A pass of ``n`` inputs, one of a model's large ones, that another process sharing
        the cache may be computing at the same time: one computes, the other waits
        (``pass_lock``).  Small passes (an attack's queries) never wait."""
        if self.cache is None or self.cache.broken or n <= self.options.batch_size:
            return contextlib.nullcontext(False)
        return pass_lock.computing(self.cache.path, self.fingerprint)

    def _forward(self, inputs: list[Hashable]) -> np.ndarray:
        self.load()
        map_large_allocations()
        out = np.empty((len(inputs), len(self._order)), dtype=np.float32)
        config = self._onnx.config if self._onnx is not None else self.model.config
        # Never longer than the model's position table (the tiny zoo's models have 64).
        max_length = min(
            self.options.max_length,
            getattr(config, "max_position_embeddings", None) or self.options.max_length,
        )
        self.max_length = max_length
        tokenizer = self.tokenizer

        def encoded(part: Sequence[Hashable]) -> Encoded:
            if self.encodings is not None:
                return self.encodings.encode(tokenizer, part, max_length)
            return encode(tokenizer, part, max_length)

        ahead = producer.runs_ahead(self.device)

        def made() -> Generator[producer.Part, None, None]:
            return producer.parts(
                tokenizer,
                inputs,
                max_length,
                self.options.batch_size,
                self.token_budget,
                encoded,
                eager=ahead,
            )

        stream = producer.produced(made) if ahead else made()
        # Closed on the way out, error or Ctrl-C included: the producer's thread then stops.
        with self._inference(), contextlib.closing(stream):
            n = 0
            for part in stream:
                # An empty text is its special tokens alone; a long one is cut (as in the
                # seed's pipeline), and the report counts how many were.
                self.truncated += part.truncated
                for idx, features in part.batches:
                    out[idx] = self._probabilities(features)
                    self._advance(len(idx))
                    rows, width = features["input_ids"].shape
                    self.largest_batch_rows = max(self.largest_batch_rows, rows)
                    self.largest_batch_tokens = max(self.largest_batch_tokens or 0, rows * width)
                    n += 1
                    if n % RELEASE_EVERY == 0:
                        release_freed_memory()
        self.forward_count += len(inputs)
        return out

    def _inference(self) -> contextlib.AbstractContextManager[Any]:
        """torch's inference mode (and autocast for fp16/bf16); nothing for ONNX Runtime."""
        if self._onnx is not None:
            return contextlib.nullcontext()
        import torch

        mode = contextlib.ExitStack()
        mode.enter_context(torch.inference_mode())
        if self.options.dtype != "float32":
            mode.enter_context(
                torch.autocast(device_type="cuda", dtype=getattr(torch, self.options.dtype))
            )
        return mode

    def _probabilities(self, features: dict[str, np.ndarray]) -> np.ndarray:
        """One padded batch's probabilities, in task class order."""
        if self._onnx is not None:
            return self._onnx.probabilities(features)[:, self._order]
        import torch

        enc = {k: torch.from_numpy(v).to(self.device) for k, v in features.items()}
        logits = self.model(**enc).logits.float()
        return torch.softmax(logits, dim=-1)[:, self._order].cpu().numpy()

    @contextlib.contextmanager
    def _cold_pass(self, n: int) -> Iterator[None]:
        """Time ``n`` inputs' forward passes, and report the progress of one longer than a
        batch (a model's first, prefetching item: all its inputs at once) as a stage."""
        reporter = current()
        stage = Stage(
            f"cold predictions: {self.spec.dataset}/{self.spec.name}",
            n,
            "inputs",
            reporter if n > self.options.batch_size else Reporter(reporter.clock),
        )
        self._stage = stage
        try:
            with stage:
                yield
        finally:
            self._stage = None
            self.forward_seconds += stage.elapsed

    def _advance(self, n: int) -> None:
        """``n`` more inputs of the forward pass under way went through the model."""
        if self._stage is not None:
            self._stage.advance(n)


def _key(x: Any) -> Hashable:
    # CheckList stores pairs as lists or tuples; both must hit the same memo entry.
    return tuple(x) if isinstance(x, (list, tuple)) else x
