"""The release verdict from results.json alone (``nlp_gate.report.verdict``): passed, failed
or no verdict, the exit status each gives, the items recorded, not gated (a gate of 100)
counted apart, and the job summary's Markdown (``report.step_summary``).

Its integration tests (real runs, JUnit XML, ``$GITHUB_STEP_SUMMARY``):
``tests/integration/test_user_ci_verdict.py``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from nlp_gate.report.figures import figures
from nlp_gate.report.parts import part_for
from nlp_gate.report.step_summary import ROWS, append_step_summary, step_summary
from nlp_gate.report.verdict import NO_VERDICT, exit_status, verdict, with_verdict


def _checklist(passed: bool | None, threshold: float | None = 30, test: str = "t") -> dict:
    return {
        "suite": "sentiment",
        "test": test,
        "capability": "Fairness",
        "dataset": "sst2",
        "model": "bert",
        "fail_rate": 12.5,
        "threshold": threshold,
        "passed": passed,
    }


def _results(*records: dict, **top: Any) -> dict[str, Any]:
    return {"schema": 1, "exitstatus": 0, "run": {}, "records": list(records), **top}


@pytest.mark.parametrize(
    ("results", "expected"),
    [
        (_results(_checklist(True)), "passed"),
        (_results(_checklist(True), _checklist(False)), "failed"),
        (_results(_checklist(False), exitstatus=1), "failed"),
        # Something else went wrong: no verdict, whatever the gates said.
        (_results(_checklist(False), errors=[{"item": "x"}]), "no_verdict"),
        (_results(_checklist(True), lost=[{"item": "x"}]), "no_verdict"),
        (_results(_checklist(True), recovered=[{"item": "x"}]), "no_verdict"),
        (_results(_checklist(False), other_failures=[{"item": "x"}]), "no_verdict"),
        (_results(_checklist(True), interrupted=True, exitstatus=2), "no_verdict"),
        (_results(refused="bad option", exitstatus=4), "no_verdict"),
        (_results(_checklist(True), exitstatus=1), "no_verdict"),  # a failure of no gate
        (_results(_checklist(False), exitstatus=3), "no_verdict"),
    ],
)
def test_the_three_verdicts(results: dict[str, Any], expected: str) -> None:
    assert verdict(results).status == expected
    word = {"passed": "PASSED", "failed": "FAILED", "no_verdict": "NO VERDICT"}[expected]
    assert verdict(results).line().startswith(f"release gate {word}: ")


@pytest.mark.parametrize(
    ("pytest_status", "gate", "expected"),
    [
        (0, "passed", 0),
        (1, "failed", 1),
        (0, "failed", 1),  # a run gate (attacks.min_ran) that no item failed for
        (1, "no_verdict", NO_VERDICT),
        (0, "no_verdict", NO_VERDICT),  # e.g. the reports could not be written
        (2, "no_verdict", 2),  # interrupted
        (4, "no_verdict", 4),  # refused at start-up
        (5, "no_verdict", 5),  # nothing collected
    ],
)
def test_exit_status(pytest_status: int, gate: Any, expected: int) -> None:
    assert exit_status(pytest_status, gate) == expected


def test_results_json_gets_its_verdict_after_the_schema() -> None:
    body = with_verdict(_results(_checklist(False), errors=[{"item": "x"}]))
    assert list(body)[:3] == ["schema", "verdict", "exitstatus"]
    assert body["verdict"] == "no_verdict"


def test_a_gate_of_100_is_recorded_and_counted_apart() -> None:
    results = _results(
        _checklist(True, 100, "a"), _checklist(True, 100, "b"), _checklist(False, 30, "c")
    )
    gate = verdict(results)
    assert gate.status == "failed"
    assert gate.line() == (
        "release gate FAILED: 1 of 1 CheckList items over their gate; "
        "2 CheckList items recorded, not gated (gate 100)"
    )


@pytest.mark.parametrize(
    ("section", "record", "expected"),
    [
        ("records", _checklist(True, 100), "recorded"),
        ("records", _checklist(True, 99.9), "passed"),
        ("records", _checklist(False, 100), "failed"),  # every case filtered out
        ("records", _checklist(None, 100), None),
        ("comparisons", {"tolerance": 100, "passed": True}, "recorded"),
        ("comparisons", {"tolerance": 2, "passed": True}, "passed"),
        ("comparisons", {"tolerance": 100, "passed": None}, None),  # skipped
        ("attacks", {"threshold": {"max_attack_success_rate": 100}, "passed": True}, "recorded"),
        (
            "attacks",
            {
                "threshold": {"max_attack_success_rate": 100, "min_accuracy_under_attack": 20},
                "passed": True,
            },
            "passed",  # the floor still gates it
        ),
        ("attacks", {"threshold": None, "passed": None, "status": "skipped"}, None),
        ("accuracy", {"threshold": 100, "passed": True}, "passed"),  # a floor of 100 gates
        ("searches", {"passed": True}, "passed"),
    ],
)
def test_the_item_status_of_a_record(section: str, record: dict, expected: str | None) -> None:
    part = part_for(section)
    assert part.status(record) == expected
    assert part.recorded(record) is (expected == "recorded")


def test_the_figures_of_each_kind() -> None:
    accuracy = figures(
        "accuracy", {"dataset": "sst2", "model": "m", "accuracy": 87.9, "threshold": 85}
    )
    assert (accuracy.model, accuracy.capability) == ("sst2/m", "accuracy")
    assert accuracy.fail_rate == pytest.approx(12.1) and accuracy.gate == 15
    comparison = figures(
        "comparisons",
        {
            "suite": "s",
            "test": "t",
            "capability": "NER",
            "dataset": "sst2",
            "candidate": "c",
            "baseline": "b",
            "candidate_fail_rate": 40.0,
            "excess": 12.5,
            "tolerance": 2,
            "p_adjusted": 0.01,
            "alpha": 0.05,
        },
    )
    assert (comparison.item, comparison.model, comparison.fail_rate, comparison.gate) == (
        "s/t",
        "sst2/c",
        40.0,
        2,
    )
    assert comparison.extra["baseline"] == "sst2/b" and comparison.extra["delta"] == 12.5
    attack = figures(
        "attacks",
        {
            "recipe": "textfooler",
            "dataset": "rte",
            "model": "m",
            "attack_success_rate": 60.0,
            "threshold": {"max_attack_success_rate": 90},
        },
    )
    assert (attack.item, attack.capability, attack.fail_rate, attack.gate) == (
        "textfooler",
        "adversarial",
        60.0,
        90,
    )


def _comparison(verdict: str, passed: bool) -> dict:
    return {
        "suite": "sentiment",
        "test": "protected: race",
        "capability": "Fairness",
        "dataset": "sst2",
        "candidate": "albert",
        "baseline": "bert",
        "candidate_fail_rate": 30.0,
        "delta": 25.0,
        "excess": 25.0,
        "ci_low": 10.0,
        "ci_high": 40.0,
        "p_adjusted": 0.001,
        "alpha": 0.05,
        "tolerance": 2,
        "verdict": verdict,
        "passed": passed,
    }


def test_the_job_summary_names_missed_gates_losses_and_errors() -> None:
    results = _results(
        _checklist(False, test="a | b"),
        _checklist(True, test="c"),
        comparisons=[
            _comparison("worse", False),
            _comparison("worse within tolerance", True),
            _comparison("better", True),
        ],
        errors=[
            {"item": "t.py::x[a_b]", "models": ["sst2/m"], "when": "call", "message": "boom\n2"}
        ],
        run={"profile": "tiny", "gates": "thresholds.yaml (profile 'tiny')"},
    )
    text = step_summary(results, verdict(results))
    assert text.startswith("## :warning: nlp-gate: release gate NO VERDICT\n"), text
    assert "### Gates missed (1)" in text
    assert r"| sentiment/a \| b | sst2/bert | Fairness | 12.5 | 30.0 |" in text  # "|" escaped
    assert "### Comparison losses (candidate significantly worse) (2)" in text
    assert text.count("| +25.0 [+10.0, +40.0] | 0.001 | 2.0 |") == 2
    assert "| missed |" in text and "| within tolerance |" in text
    assert "| `t.py::x[a_b]` | sst2/m | call | boom |" in text  # a node id as code, one line


def test_the_job_summary_cuts_long_tables(tmp_path: Path) -> None:
    results = _results(*(_checklist(False, test=f"t{i}") for i in range(ROWS + 5)))
    path = tmp_path / "summary.md"
    path.write_text("before\n")
    assert append_step_summary(path, results, verdict(results)) is None
    text = path.read_text()
    assert text.startswith("before\n## :x: nlp-gate: release gate FAILED\n"), text
    assert text.count("| sst2/bert |") == ROWS and "… and 5 more" in text
    problem = append_step_summary(tmp_path, results, verdict(results))  # a folder: no file
    assert problem is not None and str(tmp_path) in problem
