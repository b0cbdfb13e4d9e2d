"""The ONNX Runtime backend (``--nlp-backend onnx``) on the tiny zoo: its predictions agree
with torch's to float rounding, the export is made once per checkpoint, its predictions never
mix with torch's in the prediction cache, and the run header and results.json name it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fixtures.gate_run import RunGate
from nlp_gate.config.profiles import ModelSpec, load_profile
from nlp_gate.engine import onnx_backend
from nlp_gate.engine.loading import load_classifier, zoo_location
from nlp_gate.engine.predictor import Classifier, LoadOptions
from nlp_gate.zoo import default_zoo_root, ensure_zoo

PROFILE = load_profile("tiny")
SENTIMENT = PROFILE.get("sst2", "albert")
PARAPHRASE = PROFILE.get("qqp", "bert")
# ONNX Runtime's kernels (fused, other summation orders) round differently from torch's: on
# the zoo the probabilities agree to ~2e-5 (docs/measurements/performance.md).
TOLERANCE = 1e-4

LONG = " ".join(["a remarkably long and winding review"] * 30)  # cut to the 64-token table
TEXTS = [
    "good movie",
    "not a good movie",
    "",
    "I never thought I'd say this: great!",
    LONG,
    "é 🙂 ünïcödé",
    "the food was awful but the service was great",
]
PAIRS = [
    ("How do I learn Python?", "What is the best way to learn Python?"),
    ("", ""),
    ("Is it raining?", LONG),
    ("a", "b"),
    ("Who won?", "Who lost?"),
]


@pytest.fixture(scope="module")
def zoo() -> Path:
    ensure_zoo()
    return default_zoo_root()


def _load(
    zoo: Path, spec: ModelSpec, backend: str, exports: Path, cache: Path | None = None
) -> Classifier:
    options = LoadOptions(device="cpu", cache=cache, backend=backend, export_dir=exports)
    return load_classifier(spec, zoo_location(zoo, spec), options)


@pytest.mark.parametrize(
    ("spec", "inputs"), [(SENTIMENT, TEXTS), (PARAPHRASE, PAIRS)], ids=["sst2-albert", "qqp-bert"]
)
def test_onnx_predictions_agree_with_torch(
    zoo: Path, tmp_path: Path, spec: ModelSpec, inputs: list[Any]
) -> None:
    torch_run = _load(zoo, spec, "torch", tmp_path)
    onnx_run = _load(zoo, spec, "onnx", tmp_path)
    expected, probs = torch_run.predict_proba(inputs), onnx_run.predict_proba(inputs)
    assert (torch_run.backend, onnx_run.backend) == ("torch", "onnx")
    assert probs.dtype == np.float32 and probs.shape == expected.shape
    np.testing.assert_allclose(probs, expected, atol=TOLERANCE, rtol=0)
    np.testing.assert_allclose(probs.sum(axis=1), 1, atol=1e-6)
    # The same tokens went in: the long input cut to the same position table.
    assert (
        (onnx_run.max_length, onnx_run.truncated)
        == (torch_run.max_length, torch_run.truncated)
        == (64, 1)
    )


def test_the_export_is_made_once_per_checkpoint(
    zoo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _load(zoo, SENTIMENT, "onnx", tmp_path)
    expected = first.predict_proba(TEXTS)
    exported = list(tmp_path.glob("*.onnx"))
    assert [p.stem for p in exported] == [first.fingerprint]  # named by the fingerprint

    def export_again(*args: Any) -> None:
        raise AssertionError("exported a second time")

    monkeypatch.setattr(onnx_backend, "export", export_again)
    again = _load(zoo, SENTIMENT, "onnx", tmp_path)
    assert np.array_equal(again.predict_proba(TEXTS), expected)
    assert list(tmp_path.glob("*.onnx")) == exported


def test_a_damaged_export_is_made_again(zoo: Path, tmp_path: Path) -> None:
    first = _load(zoo, SENTIMENT, "onnx", tmp_path)
    expected = first.predict_proba(TEXTS)
    path = onnx_backend.export_path(tmp_path, first.fingerprint)
    path.write_bytes(b"not an ONNX model")
    again = _load(zoo, SENTIMENT, "onnx", tmp_path)
    assert np.array_equal(again.predict_proba(TEXTS), expected)
    assert path.stat().st_size > 1000  # exported anew in its place


def test_torch_and_onnx_never_answer_for_each_other_in_the_cache(zoo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "predictions.sqlite"
    torch_run = _load(zoo, PARAPHRASE, "torch", tmp_path, cache)
    torch_run.predict_proba(PAIRS)
    onnx_run = _load(zoo, PARAPHRASE, "onnx", tmp_path, cache)
    assert onnx_run.fingerprint != torch_run.fingerprint
    onnx_run.predict_proba(PAIRS)
    assert (onnx_run.forward_count, onnx_run.cache_hits) == (len(PAIRS), 0)
    # Each backend's re-run is answered by its own rows.
    for backend, first in (("torch", torch_run), ("onnx", onnx_run)):
        rerun = _load(zoo, PARAPHRASE, backend, tmp_path, cache)
        assert rerun.fingerprint == first.fingerprint
        assert np.array_equal(rerun.predict_proba(PAIRS), first.predict_proba(PAIRS))
        assert (rerun.forward_count, rerun.cache_hits) == (0, len(PAIRS))


def test_the_header_and_results_json_name_the_backend(run_gate: RunGate, tmp_path: Path) -> None:
    run = run_gate(
        "-m",
        "checklist",
        "-k",
        "/sst2/bert]",
        "--nlp-sample",
        "5",
        "--nlp-backend",
        "onnx",
        "--nlp-prediction-cache",
        str(tmp_path / "predictions.sqlite"),
    )
    assert run.result.ret in (0, 1), run.result.stdout.str()  # 1: a gate may fail
    run.result.stdout.fnmatch_lines(["nlp-gate: profile=tiny * backend=onnx"])  # the header
    assert run.json["run"]["backend"] == "onnx"
    assert run.json["records"]
    engine = run.json["engine"]
    assert [(r["model"], r["backend"]) for r in engine] == [("bert", "onnx")]
    assert engine[0]["forward_passes"] > 0


def test_onnx_on_a_gpu_device_stops_the_run_at_start(run_gate: RunGate) -> None:
    run = run_gate("-m", "checklist", "--nlp-backend", "onnx", "--nlp-device", "cuda")
    assert run.result.ret == 4
    run.result.stderr.fnmatch_lines(["*--nlp-backend onnx runs on the CPU*--nlp-device cuda*"])
    assert "--nlp-backend onnx runs on the CPU" in run.json["refused"]
    assert run.json["run"]["backend"] == "onnx"
