"""Verdicts a CI job can read (issue 58): with ``-n 0`` and ``-n 2``, a run under
``GITHUB_STEP_SUMMARY`` appends its Markdown summary there, JUnit XML carries each gated item's
``nlp_gate.*`` properties, an item whose gate is 100 is RECORDED (its own word, letter and
count in pytest's closing line, its JUnit status, its Allure tag), and the exit status tells a
missed gate (1, verdict ``failed``) from no verdict (3, ``no_verdict``: an item that errored, a
failure outside the gates).

The model is the pure-Python word-list classifier of ``fixtures/lexicon_model.py`` on the
sentiment suite's four Fairness tests (20 cases each): each run takes about 3 s, ~40 s for the
file.  Its fast tests: ``tests/unit/test_report_verdict.py``."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from fixtures.function_repo import function_repo, run_repo
from fixtures.gate_run import GateRun, RunGate
from fixtures.user_repo import LABELS, write_gates, write_models
from nlp_gate.report.verdict import NO_VERDICT

SELECT = ["-m", "fairness and not native", "--nlp-sample", "20", "--nlp-prediction-cache", "off"]
RACE = "protected: race"  # the released test whose gate is set per test below


def _files(tmp: Path, gates: dict[str, Any], **functions: str) -> list[str]:
    """A models file with these sst2 models (name -> function of fixtures.lexicon_model)."""
    models = write_models(
        tmp / "models.yaml",
        {
            name: {
                "predict": f"fixtures.lexicon_model:{function}",
                "fingerprint": f"{function}-1",
                "labels": LABELS,
            }
            for name, function in functions.items()
        },
    )
    thresholds = write_gates(tmp / "gates.yaml", gates)
    return ["--nlp-models-file", str(models), "--nlp-thresholds", str(thresholds)]


def _run(
    run_gate: RunGate,
    tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
    files: list[str],
    workers: int,
    *args: str,
) -> tuple[GateRun, str, dict[str, dict[str, str]]]:
    """The run, its job summary (after a line a job's earlier step wrote) and its JUnit
    XML's properties per test case (name -> properties)."""
    summary, junit = tmp / "step-summary.md", tmp / "junit.xml"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    run = run_gate(*files, *SELECT, "--junitxml", str(junit), *args, workers=workers)
    text = summary.read_text()
    assert text.startswith("earlier step\n"), text  # appended, not replaced
    cases = {
        re.sub(r"@.*$", "", case.get("name", "")): {
            p.get("name", ""): p.get("value", "") for p in case.iter("property")
        }
        for case in ET.parse(junit).getroot().iter("testcase")
    }
    return run, text, cases


@pytest.mark.parametrize("workers", [0, 2])
def test_a_passing_run_writes_the_summary_properties_and_recorded_items(
    run_gate: RunGate, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    gates = {"checklist": {"default": 30, "tests": {"sentiment": {RACE: 100}}}}
    alluredir = tmp_path / "allure"
    run, summary, cases = _run(
        run_gate,
        tmp_path,
        monkeypatch,
        _files(tmp_path, gates, good="predict_proba"),
        workers,
        "-v",
        "--alluredir",
        str(alluredir),
    )
    out = run.result.stdout.str()
    assert run.result.ret == pytest.ExitCode.OK, out[-3000:]
    assert run.json["verdict"] == "passed" and run.json["exitstatus"] == 0
    line = (
        "release gate PASSED: 0 of 3 CheckList items over their gate; "
        "1 CheckList item recorded, not gated (gate 100)"
    )
    assert line in out, out[-3000:]
    assert re.search(r"=+ 3 passed, .*1 recorded in ", out), out[-500:]
    assert re.search(rf"RECORDED .*{RACE}|{RACE}.* RECORDED", out), out[-3000:]
    assert "## :white_check_mark: nlp-gate: release gate PASSED" in summary
    assert line in summary and "Gates missed" not in summary, summary

    assert len(cases) == 4, cases
    for name, properties in cases.items():
        recorded = RACE in name
        assert properties == {
            "nlp_gate.model": "sst2/good",
            "nlp_gate.capability": "Fairness",
            "nlp_gate.fail_rate": "0",
            "nlp_gate.gate": "100" if recorded else "30",
            "nlp_gate.status": "recorded" if recorded else "passed",
        }, name
    # Allure: the item stays passed (its statuses are fixed), tagged "recorded".
    tagged = [
        result["name"]
        for path in alluredir.glob("*-result.json")
        for result in [json.loads(path.read_text())]
        if {"name": "tag", "value": "recorded"} in result.get("labels", [])
    ]
    assert len(tagged) == 1 and RACE in tagged[0], tagged


@pytest.mark.parametrize("workers", [0, 2])
def test_a_planted_defect_misses_its_gates_exit_1(
    run_gate: RunGate, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    # The candidate calls any text naming one race word negative; the baseline does not.
    gates = {
        "checklist": {"default": 10},
        "comparison": {"baseline": "good", "candidate": "biased", "tolerance": 0},
    }
    files = _files(tmp_path, gates, good="predict_proba", biased="race_biased")
    run, summary, cases = _run(run_gate, tmp_path, monkeypatch, files, workers)
    out = run.result.stdout.str()
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    assert run.json["verdict"] == "failed" and run.json["exitstatus"] == 1
    line = (
        "release gate FAILED: 1 of 8 CheckList items over their gate; "
        "1 of 4 comparison items over their gate"
    )
    assert line in out and line in summary, out[-3000:] + summary
    assert "## :x: nlp-gate: release gate FAILED" in summary
    missed = re.search(r"### Gates missed \(1\)\n\n.*\n.*\n(.*)\n", summary)
    assert missed and missed.group(1).startswith(
        f"| sentiment/{RACE} | sst2/biased | Fairness | 100.0 | 10.0 |"
    ), summary
    losses = re.search(r"### Comparison losses .*\(1\)\n\n.*\n.*\n(.*)\n", summary)
    assert losses and losses.group(1).startswith(
        f"| sentiment/{RACE} | sst2/biased vs good | Fairness | +100.0 ["
    ), summary
    assert losses.group(1).endswith("| 0.0 | missed |"), summary

    biased = cases[f"test_checklist[sentiment/{RACE}/sst2/biased]"]
    assert biased["nlp_gate.status"] == "failed" and biased["nlp_gate.fail_rate"] == "100"
    assert biased["nlp_gate.gate"] == "10", biased
    comparison = cases[f"test_comparison[sentiment/{RACE}/sst2/biased-vs-good]"]
    assert comparison["nlp_gate.status"] == "failed", comparison
    assert comparison["nlp_gate.model"] == "sst2/biased", comparison
    assert comparison["nlp_gate.baseline"] == "sst2/good", comparison
    assert comparison["nlp_gate.delta"] == "100" and comparison["nlp_gate.gate"] == "0"
    assert {c["nlp_gate.status"] for c in cases.values()} == {"passed", "failed"}, cases


@pytest.mark.parametrize("workers", [0, 2])
def test_a_model_that_errors_ends_without_a_verdict_exit_3(
    run_gate: RunGate, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    # It passes the start-up probe, and raises on every item's batch.
    files = _files(tmp_path, {"checklist": {"default": 10}}, bad="small_requests")
    run, summary, cases = _run(run_gate, tmp_path, monkeypatch, files, workers)
    out = run.result.stdout.str()
    assert run.result.ret == NO_VERDICT, out[-3000:]
    assert run.json["verdict"] == "no_verdict" and run.json["exitstatus"] == NO_VERDICT
    line = "release gate NO VERDICT: 4 items errored without a gate verdict (results.json errors)"
    assert line in out and line in summary, out[-3000:] + summary
    assert "## :warning: nlp-gate: release gate NO VERDICT" in summary
    assert "### Items that errored without a gate verdict (4)" in summary
    assert summary.count("413 request too large") == 4, summary
    assert len(cases) == 4 and all(
        c
        == {
            "nlp_gate.model": "sst2/bad",
            "nlp_gate.capability": "Fairness",
            "nlp_gate.status": "errored",
        }
        for c in cases.values()
    ), cases


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_failure_outside_the_gates_leaves_no_verdict_beside_a_gate_miss(
    tmp_path: Path, workers: str
) -> None:
    # A team's repository: its function swaps the two outputs (misses the plain-words MFT's
    # gate), and one of its own tests fails in the same run.
    swapped = "def predict(texts):\n    return [[0.1, 0.9] for _ in texts]\n"
    repo = function_repo(tmp_path, module=swapped)
    (repo / "tests").mkdir()
    (repo / "tests" / "test_unit.py").write_text("def test_unit():\n    assert 1 == 2\n")
    args = ["--nlp-model", "sentiment=mymod:predict", "-n", workers]
    alone = run_repo(repo, "tests_behavioral", *args, run="alone")
    assert alone.process.returncode == pytest.ExitCode.TESTS_FAILED, alone.out[-3000:]
    assert alone.json["verdict"] == "failed", alone.out[-3000:]

    both = run_repo(repo, "tests_behavioral", "tests", *args, run="both")
    assert both.process.returncode == NO_VERDICT, both.out[-3000:]
    body = both.json
    assert body["verdict"] == "no_verdict" and body["exitstatus"] == NO_VERDICT
    assert [(f["item"], f["when"]) for f in body["other_failures"]] == [
        ("tests/test_unit.py::test_unit", "call")
    ], body["other_failures"]
    assert "assert 1 == 2" in body["other_failures"][0]["message"]
    assert (
        "release gate NO VERDICT: 1 of 1 CheckList items over their gate; 1 failure outside "
        "the gates (results.json other_failures)"
    ) in both.out, both.out[-3000:]
