"""Gates for a model that is not in the zoo, calibrated on its own baseline run: a prediction
function named with ``--nlp-model`` (gates profile ``cli``), a sampled baseline run,
``python -m nlp_gate.calibrate`` writes the gates into the run's thresholds file, the same
model passes them, and the same function with a planted negation defect misses.

Three gate runs of the pure-Python lexicon model (released and native sentiment tests, 20
cases each, no xdist) and one calibration: ~11 s on 2 cores.  The rules themselves, and the
tiny profile's gates coming out of them: tests/unit/test_calibrate.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from fixtures.gate_run import RunGate

MODEL = "sentiment=fixtures.lexicon_model:{}"


def test_gates_calibrated_on_a_function_model_pass_it_and_catch_a_planted_defect(
    run_gate: RunGate, tmp_path: Path
) -> None:
    gates = tmp_path / "thresholds.yaml"
    selection = ["-m", "checklist or native", "--nlp-sample", "20", "--nlp-thresholds", str(gates)]

    baseline = run_gate("--nlp-model", MODEL.format("predict_proba"), *selection)
    results = baseline.json
    assert results["run"]["profile"] == "cli"
    assert results["run"]["gates"].startswith("built-in CLI gates")  # no cli profile yet
    assert {r["suite"] for r in results["records"]} == {"sentiment", "native_sentiment"}
    assert not any(r["model_id"].startswith("zoo:") for r in results["run"]["models"])

    calibrated = subprocess.run(
        [sys.executable, "-m", "nlp_gate.calibrate", str(baseline.results_path)]
        + ["--thresholds", str(gates)],
        capture_output=True,
        text=True,
    )
    assert calibrated.returncode == 0, calibrated.stderr
    assert "a sampled run (--nlp-sample 20, --nlp-seed 1)" in calibrated.stderr
    tests = yaml.safe_load(gates.read_text())["profiles"]["cli"]["checklist"]["tests"]
    assert sum(map(len, tests.values())) == len(results["records"])

    again = run_gate("--nlp-model", MODEL.format("predict_proba"), *selection)
    out = again.result.stdout.str()
    assert again.result.ret == pytest.ExitCode.OK, out[-3000:]
    assert again.json["run"]["gates"] == f"{gates} (profile 'cli')"
    assert len(again.records) == len(results["records"])
    assert all(r["passed"] and r["threshold"] is not None for r in again.records)

    defect = run_gate("--nlp-model", MODEL.format("negation_blind"), *selection)
    assert defect.result.ret == pytest.ExitCode.TESTS_FAILED, defect.result.stdout.str()[-3000:]
    missed = [r for r in defect.records if not r["passed"]]
    assert missed, "the planted defect passed every calibrated gate"
    assert {r["capability"] for r in missed} == {"Negation"}  # where it was planted
    assert {r["suite"] for r in missed} == {"sentiment", "native_sentiment"}
