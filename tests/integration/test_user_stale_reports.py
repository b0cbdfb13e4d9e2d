"""Reports are this run's or none: after a good run, a run refused at start-up or one whose
items all errored leaves no table or summary with the good run's numbers (before, the tables
and summary.html of the earlier run stayed under the new run's name); and the run header
names the gates that applied, not a thresholds file the run never read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.function_repo import PLAIN_WORDS_TEST, function_repo, run_repo
from fixtures.gate_run import RunGate
from fixtures.user_repo import LABELS, write_gates, write_models
from nlp_gate.report.verdict import NO_VERDICT

MODEL = "sentiment=fixtures.lexicon_model:{}"
SELECT = ["-m", "fairness and not native", "--nlp-sample", "20", "--nlp-prediction-cache", "off"]


def _model(tmp: Path, function: str) -> list[str]:
    """A models file whose one sst2 model is the lexicon fixture's ``function``."""
    models = write_models(
        tmp / f"{function}.yaml",
        {
            "lexicon": {
                "predict": f"fixtures.lexicon_model:{function}",
                "fingerprint": "1",
                "labels": LABELS,
            }
        },
    )
    gates = write_gates(tmp / "gates.yaml", {"checklist": {"default": 100}})
    return ["--nlp-models-file", str(models), "--nlp-thresholds", str(gates)]


def _good_run(run_gate: RunGate, reports: Path) -> None:
    run = run_gate(
        *_model(reports.parent, "predict_proba"),
        *SELECT,
        "--nlp-results",
        str(reports / "results.json"),
    )
    assert run.result.ret == pytest.ExitCode.OK, run.result.stdout.str()[-3000:]
    assert "protected: race" in (reports / "tables" / "table2.md").read_text()
    summary = (reports / "summary.html").read_text()
    assert "Table 2:" in summary and "release gate PASSED" in summary


def _no_stale_reports(reports: Path, reason: str) -> dict:
    assert not list((reports / "tables").glob("table*")), "the good run's tables stayed"
    assert not list((reports / "plots").glob("*.png")), "the good run's plots stayed"
    summary = (reports / "summary.html").read_text()
    assert "Table 2:" not in summary and "release gate PASSED" not in summary
    assert "release gate NO VERDICT" in summary and "No results in this run" in summary
    assert reason in summary
    body = json.loads((reports / "results.json").read_text())
    assert body["records"] == [] and body["ran"] == 0 and reason in body["no_results"]
    return body


def test_a_run_refused_at_start_up_leaves_no_stale_reports(
    run_gate: RunGate, tmp_path: Path
) -> None:
    reports = tmp_path / "reports"
    _good_run(run_gate, reports)
    run = run_gate(
        *_model(tmp_path, "no_such_function"),
        *SELECT,
        "--nlp-results",
        str(reports / "results.json"),
    )
    err = run.result.stderr.str()
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR, err[-3000:]
    assert "cannot import fixtures.lexicon_model:no_such_function" in err
    body = _no_stale_reports(reports, "refused at start-up")
    assert "cannot import fixtures.lexicon_model:no_such_function" in body["refused"]
    assert body["exitstatus"] == pytest.ExitCode.USAGE_ERROR


def test_a_run_whose_items_all_errored_leaves_no_stale_reports(
    run_gate: RunGate, tmp_path: Path
) -> None:
    reports = tmp_path / "reports"
    _good_run(run_gate, reports)
    run = run_gate(
        *_model(tmp_path, "small_requests"), *SELECT, "--nlp-results", str(reports / "results.json")
    )
    assert run.result.ret == NO_VERDICT, run.result.stdout.str()[-3000:]
    body = _no_stale_reports(reports, "every selected item errored")
    assert len(body["errors"]) == 4


def test_the_header_names_the_gates_that_applied(run_gate: RunGate, tmp_path: Path) -> None:
    # The repository's thresholds.yaml has no `cli` profile: the built-in CLI gates apply.
    run = run_gate("--nlp-model", MODEL.format("predict_proba"), *SELECT)
    out = run.result.stdout.str()
    assert run.result.ret == pytest.ExitCode.OK, out[-3000:]
    header = next(line for line in out.splitlines() if line.startswith("nlp-gate: profile="))
    assert "gates=built-in CLI gates (CLI_GATES" in header and "thresholds=" not in header
    assert run.json["run"]["gates"].startswith("built-in CLI gates (CLI_GATES")

    gates = write_gates(tmp_path / "gates.yaml", {"checklist": {"default": 100}}, profile="cli")
    run = run_gate(
        "--nlp-model", MODEL.format("predict_proba"), *SELECT, "--nlp-thresholds", str(gates)
    )
    out = run.result.stdout.str()
    assert run.result.ret == pytest.ExitCode.OK, out[-3000:]
    assert f"gates={gates} (profile 'cli')" in out
    assert run.json["run"]["gates"] == f"{gates} (profile 'cli')"


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_run_whose_test_modules_fail_to_import_writes_its_own_results(
    tmp_path: Path, workers: str
) -> None:
    """A user's behavioral test module that no longer imports (pytest's collection error):
    the run ends without a verdict of any item, and results.json is this run's, with no
    record, not "interrupted" (no signal stopped it) and, without xdist, saying why; before,
    the previous good run's results.json stayed under this run's name."""
    repo = function_repo(tmp_path)
    good = run_repo(repo, "--nlp-model", "sentiment=mymod:predict", "-n", workers)
    assert good.json["records"], good.out[-3000:]
    (repo / "tests_behavioral" / "test_words.py").write_text(
        "import a_module_that_is_gone\n" + PLAIN_WORDS_TEST
    )
    broken = run_repo(repo, "--nlp-model", "sentiment=mymod:predict", "-n", workers)
    assert broken.process.returncode in (NO_VERDICT, pytest.ExitCode.INTERRUPTED), broken.out[
        -3000:
    ]
    body = broken.json
    assert body["records"] == [] and body["ran"] == 0 and body["interrupted"] is False, body
    assert body["exitstatus"] == broken.process.returncode
    if workers == "0":  # xdist reports it as an error of the run (no verdict), with no count
        assert body["no_results"] == (
            "1 error(s) during collection (see pytest's ERRORs): no item ran"
        ), body["no_results"]
    assert "release gate NO VERDICT: no results in this run" in broken.out, broken.out[-3000:]
