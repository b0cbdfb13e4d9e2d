"""--nlp-models-file: a user's own models, named columns; broken checkpoints fail loudly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from nlp_gate.config.profiles import DEFAULT_MODELS_FILE

from fixtures.gate_run import RunGate

ARGS = ("-m", "fairness and not native", "--nlp-sample", "10")



def _models_file(tmp_path: Path, models: dict) -> Path:
    tasks = yaml.safe_load(DEFAULT_MODELS_FILE.read_text())["tasks"]
    path = tmp_path / "models.yaml"
    path.write_text(yaml.safe_dump({"tasks": tasks, "profiles": {"tiny": {"datasets": {
        "sst2": {"task": "sentiment", "models": models}}}}}))
    return path


def _thresholds(tmp_path: Path) -> str:
    path = tmp_path / "gates.yaml"
    path.write_text(yaml.safe_dump({"profiles": {"tiny": {"checklist": {"default": 100}}}}))
    return str(path)


@pytest.mark.parametrize("workers", [0, 2])
def test_user_models_get_their_own_names(run_gate: RunGate, tmp_path: Path, zoo: Path,
                                         workers: int) -> None:
    path = _models_file(tmp_path, {
        "baseline": {"id": str(zoo / "sst2" / "bert"), "labels": ["negative", "positive"]},
        "candidate": {"id": str(zoo / "sst2" / "albert"), "labels": ["negative", "positive"]},
    })
    run = run_gate("--nlp-models-file", str(path), "--nlp-thresholds", _thresholds(tmp_path),
                   *ARGS, workers=workers)
    assert {r["model"] for r in run.records} == {"baseline", "candidate"}
    assert len(run.records) == 4 * 2
    assert {r["model_id"] for r in run.records} == {str(zoo / "sst2" / m) for m in ("bert", "albert")}


def test_missing_classifier_head_fails_before_any_test_runs(run_gate: RunGate, tmp_path: Path,
                                                            zoo: Path) -> None:
    broken = tmp_path / "no-head"
    shutil.copytree(zoo / "sst2" / "bert", broken)
    from safetensors.torch import load_file, save_file

    weights = load_file(broken / "model.safetensors")
    save_file({k: v for k, v in weights.items() if not k.startswith("classifier.")},
              broken / "model.safetensors", metadata={"format": "pt"})
    path = _models_file(tmp_path, {
        "broken": {"id": str(broken), "labels": ["negative", "positive"]}})
    run = run_gate("--nlp-models-file", str(path), "--nlp-thresholds", _thresholds(tmp_path),
                   *ARGS)
    out = run.result.stdout.str()
    assert "classifier weights missing" in out and "classifier.weight" in out
    assert run.result.parseoutcomes().get("passed", 0) == 0
    assert json.loads(run.results_path.read_text())["records"] == []


def test_fill_mask_checkpoint_fails_before_any_test_runs(run_gate: RunGate, tmp_path: Path,
                                                         zoo: Path) -> None:
    masked = tmp_path / "fill-mask"
    shutil.copytree(zoo / "sst2" / "bert", masked)
    config = json.loads((masked / "config.json").read_text())
    config["architectures"] = ["BertForMaskedLM"]
    (masked / "config.json").write_text(json.dumps(config))
    path = _models_file(tmp_path, {"mlm": {"id": str(masked), "labels": ["negative", "positive"]}})
    run = run_gate("--nlp-models-file", str(path), "--nlp-thresholds", _thresholds(tmp_path),
                   *ARGS)
    assert "BertForMaskedLM checkpoint, not a sequence classifier" in run.result.stdout.str()
    assert run.result.parseoutcomes().get("passed", 0) == 0
