"""``--nlp-explain`` over whole runs: the same explanations with ``-n 0``, ``-n 2`` and a warm
re-run that reuses every stored outcome; and a prediction function of a checkpoint's exact
probabilities explained with the same occlusion scores as the checkpoint itself run without
the [explain] extra (whose run header says so once)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from fixtures.gate_run import REPO, GateRun, RunGate

SELECTION = ("-m", "fairness and not native", "-k", "sst2 and (race or sexual)")


def _explained(run: GateRun) -> list[tuple[str, str, str, Any]]:
    results = run.json
    rows = [(r["test"], r["model"], "", r["explanations"]) for r in results["records"]]
    rows += [
        (r["test"], r["candidate"], r["baseline"], r["explanations"])
        for r in results.get("comparisons", [])
    ]
    return rows


def test_explanations_are_the_same_across_workers_and_a_warm_rerun(
    run_gate: RunGate, zoo: Path, tmp_path: Path
) -> None:
    gates = tmp_path / "gates.yaml"
    gates.write_text(
        yaml.safe_dump(
            {
                "profiles": {
                    "tiny": {
                        "checklist": {"default": 0},
                        "comparison": {"baseline": "bert", "candidate": "albert"},
                    }
                }
            }
        )
    )
    args = ("--nlp-thresholds", str(gates), *SELECTION, "--nlp-sample", "30")
    args += ("--nlp-explain", "all")
    cold = run_gate(*args, "--nlp-prediction-cache", str(tmp_path / "a.sqlite"))
    assert cold.result.ret == pytest.ExitCode.TESTS_FAILED, cold.result.stdout.str()[-3000:]
    workers = run_gate(*args, "--nlp-prediction-cache", str(tmp_path / "b.sqlite"), workers=2)
    warm = run_gate(*args, "--nlp-prediction-cache", str(tmp_path / "a.sqlite"))
    explained = _explained(cold)
    assert len(explained) == 6  # 4 CheckList items, 2 comparisons
    assert all(e for *_, e in explained[:4]), "every item fails some case at a gate of 0"
    assert any(e for *_, e in explained[4:]), "albert fails some case bert passes"
    assert {e["method"] for *_, es in explained[:4] for e in es} == {"integrated_gradients"}
    assert _explained(workers) == explained
    assert _explained(warm) == explained
    assert cold.json["run"]["explain"] == "all"
    # The warm run explained stored outcomes: it evaluated no test again.
    assert all(e["checklist_stored_outcomes"] == 2 for e in warm.json["engine"])


def test_a_function_of_a_checkpoints_predictions_gets_its_occlusion_scores(
    run_gate: RunGate, zoo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ``-p fixtures.same_predictions`` is imported before the ini's pythonpath applies.
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    gates = tmp_path / "gates.yaml"
    gates.write_text(yaml.safe_dump({"profiles": {"cli": {"checklist": {"default": 0}}}}))
    common = ("--nlp-thresholds", str(gates), "-m", "fairness and not native", "-k", "race")
    common += ("--nlp-sample", "20", "--nlp-prediction-cache", "off")
    checkpoint = run_gate(
        "--nlp-model",
        f"sentiment={zoo / 'sst2' / 'bert'}",
        "--nlp-batch-size",
        "1",
        "-p",
        "fixtures.same_predictions",
        *common,
    )
    function = run_gate("--nlp-model", "sentiment=fixtures.same_predictions:predict", *common)
    (by_checkpoint,), (by_function,) = checkpoint.records, function.records
    assert by_checkpoint["n_failed"] == by_function["n_failed"] > 0
    assert by_checkpoint["explanations"], "a gate of 0 is missed: its examples are explained"
    assert {e["method"] for e in by_checkpoint["explanations"]} == {"occlusion"}
    assert by_function["explanations"] == by_checkpoint["explanations"]
    header = checkpoint.result.stdout.str()
    fallback = "checkpoints are explained by word occlusion instead of integrated gradients"
    assert header.count(fallback) == 1
    assert fallback not in function.result.stdout.str()  # no checkpoint: nothing falls back
