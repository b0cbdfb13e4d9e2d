"""--nlp-models-file: a user's own models, named columns; broken checkpoints fail loudly."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from fixtures.gate_run import RunGate
from fixtures.mlflow_registry import mlflow_registry, registry_env  # noqa: F401  # pytest fixtures, used by name
from nlp_gate.config.profiles import DEFAULT_MODELS_FILE

ARGS = ("-m", "fairness and not native", "--nlp-sample", "10")


def _models_file(tmp_path: Path, models: dict) -> Path:
    tasks = yaml.safe_load(DEFAULT_MODELS_FILE.read_text())["tasks"]
    path = tmp_path / "models.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "tasks": tasks,
                "profiles": {
                    "tiny": {"datasets": {"sst2": {"task": "sentiment", "models": models}}}
                },
            }
        )
    )
    return path


def _thresholds(tmp_path: Path) -> str:
    path = tmp_path / "gates.yaml"
    path.write_text(yaml.safe_dump({"profiles": {"tiny": {"checklist": {"default": 100}}}}))
    return str(path)


@pytest.mark.parametrize("workers", [0, 2])
def test_user_models_get_their_own_names(
    run_gate: RunGate, tmp_path: Path, zoo: Path, workers: int
) -> None:
    path = _models_file(
        tmp_path,
        {
            "baseline": {"id": str(zoo / "sst2" / "bert"), "labels": ["negative", "positive"]},
            "candidate": {"id": str(zoo / "sst2" / "albert"), "labels": ["negative", "positive"]},
        },
    )
    run = run_gate(
        "--nlp-models-file",
        str(path),
        "--nlp-thresholds",
        _thresholds(tmp_path),
        *ARGS,
        workers=workers,
    )
    assert {r["model"] for r in run.records} == {"baseline", "candidate"}
    assert len(run.records) == 4 * 2
    assert {r["model_id"] for r in run.records} == {
        str(zoo / "sst2" / m) for m in ("bert", "albert")
    }


@pytest.mark.parametrize("workers", [0, 2])
def test_a_head_missing_from_the_weights_fails_that_models_items_only(
    run_gate: RunGate, tmp_path: Path, zoo: Path, workers: int
) -> None:
    """What only the weights tell (the config names a classifier, the weights have no head)
    is found at load: the broken model's items fail with it, the good model's items run."""
    broken = tmp_path / "no-head"
    shutil.copytree(zoo / "sst2" / "bert", broken)
    from safetensors.torch import load_file, save_file

    weights = load_file(broken / "model.safetensors")
    save_file(
        {k: v for k, v in weights.items() if not k.startswith("classifier.")},
        broken / "model.safetensors",
        metadata={"format": "pt"},
    )
    labels = ["negative", "positive"]
    path = _models_file(
        tmp_path,
        {
            "broken": {"id": str(broken), "labels": labels},
            "good": {"id": str(zoo / "sst2" / "albert"), "labels": labels},
        },
    )
    run = run_gate(
        "--nlp-models-file",
        str(path),
        "--nlp-thresholds",
        _thresholds(tmp_path),
        *ARGS,
        workers=workers,
    )
    out = run.result.stdout.str()
    assert "classifier weights missing" in out and "classifier.weight" in out
    outcomes = run.result.parseoutcomes()
    # the good model's 4 items pass their gates of 100: recorded, not gated
    assert outcomes.get("failed") == 4 and outcomes.get("recorded") == 4, out[-2000:]
    assert {r["model"] for r in run.records} == {"good"} and len(run.records) == 4


def _edited_copy(zoo: Path, target: Path, **config_changes: object) -> Path:
    shutil.copytree(zoo / "sst2" / "bert", target)
    config = json.loads((target / "config.json").read_text())
    config.update(config_changes)
    (target / "config.json").write_text(json.dumps(config))
    return target


@pytest.mark.parametrize("workers", [0, 2])
def test_bad_checkpoints_stop_the_run_at_start_all_named_at_once(
    run_gate: RunGate, tmp_path: Path, zoo: Path, workers: int
) -> None:
    """One good model and five bad ones: one usage error (exit 4) listing the five, before any
    item runs, the good model's included; no traceback."""
    labels = ["negative", "positive"]
    path = _models_file(
        tmp_path,
        {
            "good": {"id": str(zoo / "sst2" / "bert"), "labels": labels},
            "missing": {"id": str(tmp_path / "no-such-model"), "labels": labels},
            "mlm": {
                "id": str(
                    _edited_copy(zoo, tmp_path / "fill-mask", architectures=["BertForMaskedLM"])
                ),
                "labels": labels,
            },
            "swapped": {
                "id": str(
                    _edited_copy(
                        zoo, tmp_path / "swapped", id2label={"0": "positive", "1": "negative"}
                    )
                ),
                "labels": labels,
            },
            "three": {
                "id": str(
                    _edited_copy(
                        zoo,
                        tmp_path / "three",
                        id2label={"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"},
                    )
                ),
                "labels": labels,
            },
            "remote": {
                "id": str(
                    _edited_copy(
                        zoo,
                        tmp_path / "remote",
                        auto_map={"AutoModelForSequenceClassification": "modeling_evil.Evil"},
                    )
                ),
                "labels": labels,
            },
        },
    )
    run = run_gate(
        "--nlp-models-file",
        str(path),
        "--nlp-thresholds",
        _thresholds(tmp_path),
        *ARGS,
        workers=workers,
    )
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    err, out = run.result.stderr.str(), run.result.stdout.str()
    assert f"ERROR: 5 model(s) of profile 'tiny' ({path}) cannot be tested:" in err
    assert f"sst2-missing ({tmp_path / 'no-such-model'}): no such directory" in err
    assert "BertForMaskedLM checkpoint, not a sequence classifier" in err
    assert (
        "output 0 is named 'positive' in the checkpoint but the models file maps it to "
        "'negative'; fix 'labels' in the models file" in err
    )
    assert "has 3 outputs but the models file maps 2 labels" in err
    assert (
        "(auto_map: AutoModelForSequenceClassification); nlp-gate never runs a checkpoint's"
        " own code (trust_remote_code=False)" in err
    )
    assert "sst2-good" not in err
    assert "Traceback" not in err + out and "passed" not in out
    # results.json says the run was refused (no earlier run's file stands in for it)
    assert run.json["refused"] and run.json["records"] == [] and run.json["ran"] == 0


# Run in a subprocess: torch is imported there, not in this process (the in-process runs
# before this test leave it in a state where importing torch can fail).
SAVE_BIN = """
import os, sys, torch
from safetensors.torch import load_file
source, target, marker = sys.argv[1:4]
class Hostile:
    def __reduce__(self):
        return os.system, (f"touch {marker}",)
extra = {"payload": Hostile()} if marker else {}
torch.save({**load_file(source), **extra}, target)
"""


def test_pickle_weights_are_read_weights_only_and_a_hostile_one_never_runs(
    run_gate: RunGate, tmp_path: Path, zoo: Path
) -> None:
    """A checkpoint without safetensors loads through torch's weights-only unpickler: the
    zoo's weights saved as pytorch_model.bin work; one carrying a payload is refused."""
    labels = ["negative", "positive"]
    marker = tmp_path / "payload-ran"
    models = {}
    for name, payload in (("plain", ""), ("hostile", str(marker))):
        target = tmp_path / name
        shutil.copytree(zoo / "sst2" / "bert", target)
        subprocess.run(
            [
                sys.executable,
                "-c",
                SAVE_BIN,
                str(target / "model.safetensors"),
                str(target / "pytorch_model.bin"),
                payload,
            ],
            check=True,
        )
        (target / "model.safetensors").unlink()
        models[name] = {"id": str(target), "labels": labels}
    plain = run_gate(
        "--nlp-models-file",
        str(_models_file(tmp_path, {"plain": models["plain"]})),
        "--nlp-thresholds",
        _thresholds(tmp_path),
        *ARGS,
    )
    assert {r["model"] for r in plain.records} == {"plain"}
    hostile = run_gate(
        "--nlp-models-file",
        str(_models_file(tmp_path, {"hostile": models["hostile"]})),
        "--nlp-thresholds",
        _thresholds(tmp_path),
        *ARGS,
    )
    out = hostile.result.stdout.str()
    assert not marker.exists()
    assert "cause: Trying to load unsupported GLOBAL posix.system" in out  # torch refused it
    assert "re-save the model with save_pretrained() (safetensors)" in out
    assert hostile.result.parseoutcomes().get("passed", 0) == 0


def test_registry_uris_are_ids_of_a_models_file(
    run_gate: RunGate, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """An MLflow model URI as an entry's ``id`` (the real local registry of
    ``fixtures.mlflow_registry``): resolved at start-up, its version recorded."""
    pytest.importorskip("mlflow")
    registry = request.getfixturevalue("registry_env")
    labels = ["negative", "positive"]
    path = _models_file(
        tmp_path,
        {
            "champion": {"id": "models:/sst2-bert@champion", "labels": labels},
            "challenger": {"id": "models:/sst2-bert@challenger", "labels": labels},
        },
    )
    run = run_gate("--nlp-models-file", str(path), "--nlp-thresholds", _thresholds(tmp_path), *ARGS)
    assert {r["model"] for r in run.records} == {"champion", "challenger"}
    resolved = {m["model"]: m["registry"] for m in run.json["run"]["models"]}
    assert {name: (r["version"], r["run_id"]) for name, r in resolved.items()} == {
        "champion": ("1", registry.versions["sst2-bert/1"]),
        "challenger": ("2", registry.versions["sst2-bert/2"]),
    }
