"""ONNX Runtime backend (``--nlp-backend onnx``): a checkpoint's forward pass run by ONNX
Runtime on the CPU instead of by torch.

The checkpoint is exported once with torch's own exporter (``torch.onnx.export``, the
torch.export-based one that torch 2.9+ makes the default; the TorchScript one is deprecated),
from the very module the torch backend runs: loaded and validated by the engine, its fused
activation and last-layer pruning in place.  The file is kept as
``<cache>/onnx/<fingerprint>.onnx``, where the fingerprint is the model's prediction-cache
fingerprint: the checkpoint's files and settings plus the backend and the versions of
onnxruntime, onnx and onnxscript (``fingerprint_parts``).  So a re-run, or another xdist
worker, opens the file instead of exporting again, and torch's and ONNX Runtime's predictions
never answer for each other in the prediction cache.

Only the forward pass changes: the engine (``predictor.Classifier``) tokenizes, sorts and pads
exactly as for torch and hands each padded batch to ``OnnxModel.probabilities``.
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Callable, Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

from nlp_gate.config import ConfigurationError
from nlp_gate.engine.file_cache import mark_used, publish
from nlp_gate.extras import ONNX, Need, require

BACKENDS = ("torch", "onnx")
# 18: the lowest opset torch.onnx's torch.export-based exporter writes without converting down.
OPSET = 18
# Exports kept in ``<cache>/onnx/``: one per model of a run and more (the zoo's suites run ten
# models); a base-size BERT is ~440 MB, the zoo's models under 1 MB each.
KEEP_EXPORTS = 16


def fingerprint_parts() -> dict[str, object]:
    """What the ONNX backend adds to a model's fingerprint: its predictions differ from
    torch's by float rounding, and each of these libraries decides them."""
    return {
        "backend": "onnx",
        "opset": OPSET,
        "onnxruntime": version("onnxruntime"),
        "onnx": version("onnx"),
        "onnxscript": version("onnxscript"),
    }


def option_problem(backend: str, device: str, dtype: str) -> str | None:
    """What is wrong with ``--nlp-backend`` given ``--nlp-device`` and ``--nlp-dtype``, if
    anything (a usage error at start-up)."""
    if backend not in BACKENDS:
        return f"--nlp-backend {backend!r}: choose from {', '.join(BACKENDS)}"
    if backend != "onnx":
        return None
    if device not in ("auto", "cpu"):
        return (
            f"--nlp-backend onnx runs on the CPU (onnxruntime's CPU package), not on "
            f"--nlp-device {device}: use --nlp-backend torch on a GPU"
        )
    if dtype != "float32":
        return (
            f"--nlp-backend onnx computes in float32; --nlp-dtype {dtype} is for "
            "--nlp-backend torch on a GPU"
        )
    return None


def validate_backend(backend: str, device: str, dtype: str, checkpoints: bool) -> None:
    """Refuse at start-up (``ConfigurationError``, exit 4) a backend that cannot run:
    ``--nlp-backend onnx`` with checkpoints to run and its ``[onnx]`` extra not installed, or
    with a device or dtype it does not run on."""
    if backend == "onnx" and checkpoints:
        require(
            [Need(ONNX, "this run asks for --nlp-backend onnx", "or run with --nlp-backend torch")]
        )
    problem = option_problem(backend, device, dtype)
    if problem:
        raise ConfigurationError(problem)


def export_path(directory: Path, fingerprint: str) -> Path:
    return directory / f"{fingerprint}.onnx"


class OnnxModel:
    """An exported checkpoint in an ONNX Runtime session: padded batches in, probabilities
    out.  ``config`` is the checkpoint's transformers config (the engine reads its position
    table's size)."""

    def __init__(self, path: Path, config: Any, threads: int) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        # The engine's thread policy (cpu_threads: the cores shared out among xdist workers);
        # one batch at a time, so no inter-op pool.
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.inputs = [i.name for i in self.session.get_inputs()]
        self.config = config
        self.path = path

    def probabilities(self, features: dict[str, np.ndarray]) -> np.ndarray:
        """Softmax of the logits of one padded batch (float32, the model's output order)."""
        (logits,) = self.session.run(["logits"], {k: features[k] for k in self.inputs})
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True), dtype=np.float32)
        probabilities: np.ndarray = shifted / shifted.sum(axis=1, keepdims=True)
        return probabilities


def load_exported(
    path: Path,
    weights: Callable[[], tuple[Any, Any]],
    tokenizer: Callable[[], Any],
    config: Callable[[], Any],
    threads: int,
) -> tuple[OnnxModel, Any]:
    """The exported model at ``path`` and the checkpoint's tokenizer.

    Without the file, ``weights()`` loads (and validates) the torch model and tokenizer, and
    the model is exported to ``path`` first; with it, only the tokenizer and config load.  A
    file ONNX Runtime cannot open (damaged on disk) is exported again.
    """
    if path.is_file():
        mark_used(path)  # the most recently used export: the last one pruned
        try:
            return OnnxModel(path, config(), threads), tokenizer()
        except Exception:
            path.unlink(missing_ok=True)
    model, tok = weights()
    export(model, tok, path)
    return OnnxModel(path, model.config, threads), tok


def export(model: Any, tokenizer: Any, path: Path) -> None:
    """Export ``model`` (a transformers sequence classifier, as the engine runs it) to
    ``path`` with dynamic batch and sequence axes, written atomically (another worker never
    reads half a file), keeping the ``KEEP_EXPORTS`` most recently used exports."""
    import onnx
    import torch
    from torch.export import Dim

    # Two inputs of different lengths, padded: neither axis is 1, which torch.export would
    # take for a constant.
    example = tokenizer(
        ["an example input", "a second, somewhat longer example input"],
        padding=True,
        return_tensors="pt",
    )
    inputs = {name: example[name] for name in tokenizer.model_input_names if name in example}
    batch, sequence = Dim("batch"), Dim("sequence")
    with _quiet_exporter():
        program = torch.onnx.export(
            model,
            (),
            kwargs=inputs,
            dynamo=True,
            opset_version=OPSET,
            dynamic_shapes={name: {0: batch, 1: sequence} for name in inputs},
            output_names=["logits"],
            optimize=True,
            verbose=False,
        )
    assert program is not None  # dynamo=True always returns the program
    publish(path, lambda f: onnx.save_model(program.model_proto, f), KEEP_EXPORTS)


@contextlib.contextmanager
def _quiet_exporter() -> Iterator[None]:
    """The exporter's own notices, none of them about the model: torchvision's operators it
    skips (not installed), deprecations inside torch, axis names it merges."""
    registration = logging.getLogger("torch.onnx._internal.exporter._registration")
    level = registration.level
    registration.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            warnings.filterwarnings("ignore", message=".*axis name.*", category=UserWarning)
            yield
    finally:
        registration.setLevel(level)
