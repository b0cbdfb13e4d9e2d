"""--nlp-thresholds: gates fail with rate, threshold and examples; bad files fail at start-up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from fixtures.gate_run import RunGate

ARGS = ("-m", "fairness and not native", "-k", "sst2", "--nlp-sample", "30")


def _thresholds(tmp_path: Path, checklist: dict) -> str:
    path = tmp_path / "gates.yaml"
    path.write_text(yaml.safe_dump({"profiles": {"tiny": {"checklist": checklist}}}))
    return str(path)


@pytest.mark.parametrize("workers", [0, 2])
def test_zero_tolerance_gate_fails_with_rate_threshold_and_examples(
    run_gate: RunGate, tmp_path: Path, workers: int
) -> None:
    run = run_gate(
        "--nlp-thresholds", _thresholds(tmp_path, {"default": 0}), *ARGS, workers=workers
    )
    records = run.records
    failing = [r for r in records if r["n_failed"] > 0]
    assert failing, "the tiny zoo should fail some fairness cases"
    assert all(not r["passed"] and r["threshold"] == 0 for r in failing)
    assert all(r["passed"] for r in records if r["n_failed"] == 0)
    out = run.result.stdout.str()
    assert "exceeds the gate 0.0% (thresholds.yaml: default)" in out
    assert "first failing cases" in out and "expected label" in out
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED


def test_lenient_gate_passes(run_gate: RunGate, tmp_path: Path) -> None:
    run = run_gate("--nlp-thresholds", _thresholds(tmp_path, {"default": 100}), *ARGS)
    assert run.result.ret == pytest.ExitCode.OK
    assert all(r["passed"] and r["threshold"] == 100 for r in run.records)


def test_test_without_threshold_is_reported_not_passed(run_gate: RunGate, tmp_path: Path) -> None:
    run = run_gate("--nlp-thresholds", _thresholds(tmp_path, {"capabilities": {"NER": 5}}), *ARGS)
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    assert "no threshold configured" in run.result.stdout.str()
    assert all(r["threshold"] is None and not r["passed"] for r in run.records)


def test_unknown_names_stop_the_run_and_list_valid_names(run_gate: RunGate, tmp_path: Path) -> None:
    path = _thresholds(
        tmp_path,
        {"capabilities": {"Fairnes": 5}, "overrides": [{"model": "roberta", "max_fail_rate": 1}]},
    )
    run = run_gate("--nlp-thresholds", path, *ARGS)
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    err = run.result.stderr.str()
    assert "unknown capability 'Fairnes'" in err and "Fairness" in err
    assert "unknown overrides[0] model 'roberta'; valid: albert, bert" in err


def test_zoo_not_the_calibrated_one_is_named_in_header_and_gate_misses(
    run_gate: RunGate, tmp_path: Path
) -> None:
    # sst2/albert: recorded weights no zoo has; sst2/bert: nothing recorded, so never named.
    path = tmp_path / "gates.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "profiles": {
                    "tiny": {
                        "checklist": {"default": 0},
                        "calibrated_on": {"sst2/albert": "0" * 16},
                    }
                }
            }
        )
    )
    run = run_gate("--nlp-thresholds", str(path), *ARGS)
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    zoo = Path(
        next(m["location"] for m in run.json["run"]["models"] if m["model_id"] == "zoo:sst2/albert")
    ).parents[1]
    built = next(
        m["weights_sha256"]
        for m in json.loads((zoo / "zoo.json").read_text())["models"]
        if m["path"] == "sst2/albert"
    )
    named = (
        f"zoo model sst2/albert has weights {built[:12]}, "
        f"but gates.yaml was calibrated on {'0' * 16}"
    )
    out = run.result.stdout.str()
    assert "WARNING: 1 zoo model(s) differ from the zoo the gates were calibrated on" in out
    assert f"nlp-gate:   {named}" in out
    failed_albert = [r for r in run.records if not r["passed"] and r["model"] == "albert"]
    assert failed_albert and out.count(f"note: {named}") >= len(failed_albert)
    assert "zoo model sst2/bert" not in out


@pytest.mark.parametrize(
    ("body", "where", "problem"),
    [
        ("profiles:\n  tiny:\n    checklist: {default: 50\n", ":4:1", "expected ',' or '}'"),
        # A tag that would build an object (here: run a command) is refused, never executed.
        (
            "profiles: !!python/object/apply:os.system ['touch {marker}']\n",
            ":1:11",
            "could not determine a constructor for the tag",
        ),
    ],
)
def test_malformed_yaml_stops_the_run_with_file_and_line_and_no_traceback(
    run_gate: RunGate, tmp_path: Path, body: str, where: str, problem: str
) -> None:
    path, marker = tmp_path / "gates.yaml", tmp_path / "executed"
    path.write_text(body.replace("{marker}", str(marker)))
    run = run_gate("--nlp-thresholds", str(path), *ARGS)
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    err, out = run.result.stderr.str(), run.result.stdout.str()
    assert f"ERROR: {path}{where}: not valid YAML ({problem}" in err
    assert "Traceback" not in err + out and "INTERNALERROR" not in err + out
    assert not marker.exists()
