"""Accuracy items (Table 1) and --nlp-data-dir: the zoo's held-out sets by default, a local
directory offline, and a hub profile without the hub that says which data is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from fixtures.gate_run import ZOO, RunGate


@pytest.mark.parametrize("workers", [0, 2])
def test_tiny_profile_measures_table1_on_the_zoo_heldout_sets(
    run_gate: RunGate, workers: int
) -> None:
    run = run_gate("-m", "accuracy", workers=workers)
    records = run.json["accuracy"]
    assert len(records) == 6 * 2, run.result.stdout.str()[-3000:]
    assert [(r["dataset"], r["model"]) for r in records] == [
        (d, m)
        for d in ("rotten_tomatoes", "yelp_polarity", "sst2", "qqp", "mrpc", "rte")
        for m in ("bert", "albert")
    ]
    for r in records:
        assert r["split"] == "heldout" and r["source"].endswith(f"{r['dataset']}/heldout.jsonl")
        assert r["n"] == 1000 and r["accuracy"] == pytest.approx(100 * r["n_correct"] / 1000)
        assert r["ci_low"] < r["accuracy"] < r["ci_high"]
        assert r["passed"] == (r["accuracy"] >= r["threshold"])
    assert run.result.ret == pytest.ExitCode.OK  # thresholds.yaml's tiny gates hold


def test_data_dir_replaces_the_evaluation_set(run_gate: RunGate, tmp_path: Path) -> None:
    from nlp_gate.zoo import ensure_zoo

    ensure_zoo(ZOO)
    rows = [json.loads(line) for line in (ZOO / "sst2" / "heldout.jsonl").open()][:50]
    path = tmp_path / "data" / "sst2" / "heldout.jsonl"
    path.parent.mkdir(parents=True)
    # Every label wrong: a good model now scores near zero and fails its gate.
    path.write_text("".join(json.dumps({**r, "label": 1 - r["label"]}) + "\n" for r in rows))
    run = run_gate("-m", "accuracy", "-k", "sst2", "--nlp-data-dir", str(tmp_path / "data"))
    records = run.json["accuracy"]
    assert [r["source"] for r in records] == [str(path)] * 2
    assert all(r["n"] == 50 and not r["passed"] for r in records)
    out = run.result.stdout.str()
    assert "is below the gate" in out and "of 50 heldout examples correct (95% CI" in out
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_hub_dataset_without_hub_names_the_missing_data_and_how_to_provide_it(
    run_gate: RunGate, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkpoint of one's own (a local copy of a zoo model, so it loads offline) on the
    hub's sst2: its evaluation split is GLUE's, which an offline machine does not have."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")  # an air-gapped machine: no retries
    models = _own_models_file(tmp_path)
    own = (
        "--nlp-models-file",
        str(models),
        "--nlp-profile",
        "own",
        "--nlp-thresholds",
        str(models.with_name("gates.yaml")),
        "-m",
        "accuracy",
    )
    run = run_gate(*own)
    out = run.result.stdout.str()
    assert "no evaluation data for sst2: nyu-mll/glue/sst2 split 'validation'" in out, out
    assert "--nlp-data-dir DATA" in out and "DATA/sst2/validation.jsonl" in out
    outcomes = run.result.parseoutcomes()
    assert outcomes["failed"] == 1 and "passed" not in outcomes

    # With the data provided, the model is measured on it.
    data = tmp_path / "data" / "sst2" / "validation.jsonl"
    data.parent.mkdir(parents=True)
    data.write_text(json.dumps({"sentence": "a fine film", "label": 1}) + "\n")
    run = run_gate(*own, "--nlp-data-dir", str(tmp_path / "data"))
    assert "no evaluation data" not in run.result.stdout.str()
    [record] = run.json["accuracy"]
    assert (record["source"], record["n"]) == (str(data), 1)


def _own_models_file(tmp: Path) -> Path:
    from nlp_gate.config.profiles import DEFAULT_MODELS_FILE
    from nlp_gate.zoo import ensure_zoo

    ensure_zoo(ZOO)
    tasks = yaml.safe_load(DEFAULT_MODELS_FILE.read_text())["tasks"]
    path = tmp / "models.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "tasks": tasks,
                "profiles": {
                    "own": {
                        "datasets": {
                            "sst2": {
                                "task": "sentiment",
                                "models": {
                                    "mine": {
                                        "id": str(ZOO / "sst2" / "bert"),
                                        "labels": ["negative", "positive"],
                                    }
                                },
                            }
                        }
                    }
                },
            }
        )
    )
    path.with_name("gates.yaml").write_text(yaml.safe_dump({"profiles": {"own": {}}}))
    return path
