"""``--nlp-backend``: which settings it refuses at start-up, and what it says when its extra
is missing (the backend itself: tests/integration/test_onnx_backend.py)."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from nlp_gate.config import ConfigurationError
from nlp_gate.engine.onnx_backend import option_problem, validate_backend


@pytest.mark.parametrize(
    ("backend", "device", "dtype"),
    [
        ("torch", "auto", "float32"),
        ("torch", "cuda:1", "bfloat16"),
        ("onnx", "auto", "float32"),
        ("onnx", "cpu", "float32"),
    ],
)
def test_settings_each_backend_runs(backend: str, device: str, dtype: str) -> None:
    assert option_problem(backend, device, dtype) is None


@pytest.mark.parametrize(
    ("device", "dtype", "named"),
    [
        ("cuda", "float32", "--nlp-device cuda"),
        ("cuda:0", "float32", "--nlp-device cuda:0"),
        ("auto", "float16", "--nlp-dtype float16"),
        ("cpu", "bfloat16", "--nlp-dtype bfloat16"),
    ],
)
def test_onnx_refuses_a_gpu_device_or_a_half_precision_dtype(
    device: str, dtype: str, named: str
) -> None:
    problem = option_problem("onnx", device, dtype)
    assert problem is not None and named in problem and "--nlp-backend torch" in problem
    with pytest.raises(ConfigurationError, match=named):
        validate_backend("onnx", device, dtype, checkpoints=True)


def test_an_unknown_backend_is_named() -> None:
    assert option_problem("tensorrt", "auto", "float32") == (
        "--nlp-backend 'tensorrt': choose from torch, onnx"
    )


def _without(monkeypatch: pytest.MonkeyPatch, hidden: str) -> None:
    """Make ``hidden`` look uninstalled to ``importlib.util.find_spec``."""
    find_spec = importlib.util.find_spec

    def spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name == hidden else find_spec(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", spec)


def test_a_missing_onnxruntime_stops_the_run_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _without(monkeypatch, "onnxruntime")
    with pytest.raises(ConfigurationError) as refused:
        validate_backend("onnx", "auto", "float32", checkpoints=True)
    message = str(refused.value)
    assert len(message.splitlines()) == 1  # one message, not one per item
    assert "--nlp-backend onnx" in message and "[onnx] extra" in message
    assert "pip install 'nlp-gate[onnx]'" in message and "missing: onnxruntime" in message


def test_nothing_is_required_where_nothing_is_exported(monkeypatch: pytest.MonkeyPatch) -> None:
    _without(monkeypatch, "onnxruntime")
    validate_backend("torch", "auto", "float32", checkpoints=True)  # the default backend
    # Only prediction functions: no checkpoint to export, so the backend changes nothing.
    validate_backend("onnx", "auto", "float32", checkpoints=False)
