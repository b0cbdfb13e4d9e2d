"""A run whose items error instead of reaching a gate verdict (a prediction function that
passes the start-up probe and raises on every item's batch) says so: results.json
is this run's, with every errored item under ``errors`` (item, models, cause), the verdict
line counts them and the run ends without a verdict (exit 3), with ``-n 0`` and ``-n 2``
(under xdist the controller writes results.json from what the workers sent; before, a run
that recorded nothing left the previous run's file there and printed no verdict line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.gate_run import RunGate
from fixtures.user_repo import LABELS, write_gates, write_models
from nlp_gate.report.verdict import NO_VERDICT

FUNCTION = "fixtures.lexicon_model:{}"
# The released Fairness tests of the sentiment suite: four CheckList items per model.
SELECT = ["-m", "fairness and not native", "--nlp-sample", "20", "--nlp-prediction-cache", "off"]


def _models(tmp: Path, **functions: str) -> list[str]:
    """A models file with these sst2 prediction-function models (name -> function)."""
    models = write_models(
        tmp / f"models-{'-'.join(functions)}.yaml",
        {
            name: {
                "predict": FUNCTION.format(function),
                "fingerprint": f"{function}-1",
                "labels": LABELS,
            }
            for name, function in functions.items()
        },
    )
    gates = write_gates(tmp / "gates.yaml", {"checklist": {"default": 100}})
    return ["--nlp-models-file", str(models), "--nlp-thresholds", str(gates)]


@pytest.mark.parametrize("workers", [0, 2])
def test_a_run_whose_every_item_errored_rewrites_results_and_prints_the_verdict(
    run_gate: RunGate, tmp_path: Path, workers: int
) -> None:
    results = tmp_path / "reports" / "results.json"
    where = ["--nlp-results", str(results)]
    good = run_gate(*_models(tmp_path, good="predict_proba"), *SELECT, *where, workers=workers)
    assert good.result.ret == pytest.ExitCode.OK, good.result.stdout.str()[-3000:]
    assert len(json.loads(results.read_text())["records"]) == 4

    run = run_gate(*_models(tmp_path, bad="small_requests"), *SELECT, *where, workers=workers)
    out = run.result.stdout.str()
    assert run.result.ret == NO_VERDICT, out[-3000:]
    body = json.loads(results.read_text())
    assert body["records"] == [] and body["ran"] == 0, body  # not the previous run's 4
    assert [m["model"] for m in body["run"]["models"]] == ["bad"]
    assert body["summary"]["errored"] == 4 and len(body["errors"]) == 4
    for error in body["errors"]:
        assert error["models"] == ["sst2/bad"] and error["when"] == "call"
        assert "413 request too large" in error["message"]
        assert "test_checklist" in error["item"]
    assert "every selected item errored" in body["no_results"]
    assert "release gate NO VERDICT: 4 items errored without a gate verdict" in out, out[-3000:]
    assert body["verdict"] == "no_verdict" and body["exitstatus"] == NO_VERDICT


@pytest.mark.parametrize("workers", [0, 2])
def test_errored_items_of_a_refused_model_are_recorded_beside_the_others(
    run_gate: RunGate, tmp_path: Path, workers: int
) -> None:
    run = run_gate(
        *_models(tmp_path, good="predict_proba", bad="small_requests"), *SELECT, workers=workers
    )
    out = run.result.stdout.str()
    assert run.result.ret == NO_VERDICT, out[-3000:]
    body = run.json
    assert {r["model"] for r in body["records"]} == {"good"}
    assert body["ran"] == 4 and body["no_results"] is None
    assert body["summary"] == {
        "checklist_items": 4,
        "passed": 4,
        "failed": 0,
        "errored": 4,
        "lost": 0,
    }
    assert sorted({tuple(e["models"]) for e in body["errors"]}) == [("sst2/bad",)]
    assert (
        "release gate NO VERDICT: 4 CheckList items recorded, not gated (gate 100); 4 items "
        "errored without a gate verdict"
    ) in out, out[-3000:]
