"""Writing your own behavioral test: the README's example, written into a user's repository,
is gated, recorded, tabled and in the Allure results; committed case files replace the
generated ones; the gates may name native tests, and only those that exist.

Its fast tests: ``tests/unit/test_native_tests.py``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from fixtures.gate_run import REPO
from fixtures.user_repo import user_repo as make_user_repo
from nlp_gate.report.verdict import NO_VERDICT

README = REPO / "README.md"
SUITE, TEST = "native_sentiment", "city_does_not_change_sentiment"


def readme_example() -> str:
    """The first Python block of the README's "Writing your own behavioral test"."""
    section = README.read_text().split("## Writing your own behavioral test", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]  # not None here (else the test fails)


def _pytest(cwd: Path, *args: str, zoo: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NLP_GATE_ZOO_DIR": str(zoo)}
    env.pop("NLP_GATE_CACHE", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture
def user_repo(tmp_path: Path, zoo: Path) -> Path:
    """A repository with two sentiment models, its gates and the README's test file."""
    models = {"current": zoo / "sst2" / "bert", "next": zoo / "sst2" / "albert"}
    repo = make_user_repo(
        tmp_path,
        models,
        {
            "checklist": {"default": 100, "tests": {SUITE: {TEST: 35}}},
            "comparison": {"baseline": "current", "candidate": "next"},
        },
    )
    (repo / "tests_behavioral" / "test_domain.py").write_text(readme_example())
    return repo


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_new_test_file_is_gated_recorded_tabled_and_in_allure(
    user_repo: Path, zoo: Path, workers: str
) -> None:
    run = _pytest(user_repo, "-n", workers, "--alluredir", "allure-results", zoo=zoo)
    assert run.returncode in (0, 1), run.stdout[-3000:] + run.stderr[-2000:]
    # two models and their comparison: three items of the one test function
    assert re.search(
        r"test_domain.py::test_city_does_not_change_sentiment\[sst2/current\]",
        run.stdout + _pytest(user_repo, "--co", "-q", zoo=zoo).stdout,
    )
    results = json.loads((user_repo / "reports" / "results.json").read_text())
    records = results["records"]
    assert [(r["suite"], r["test"], r["model"]) for r in records] == [
        (SUITE, TEST, "current"),
        (SUITE, TEST, "next"),
    ]
    assert {r["task"] for r in records} == {"sentiment"}
    assert {r["threshold"] for r in records} == {35.0}  # its own gate: tests.<suite>.<test>
    assert all(r["passed"] == (r["fail_rate"] <= 35.0) for r in records)
    assert [c["test"] for c in results["comparisons"]] == [TEST]
    table = (user_repo / "reports" / "tables" / f"checklist_{SUITE}.md").read_text()
    assert TEST in table
    allure = [
        json.loads(p.read_text()) for p in (user_repo / "allure-results").glob("*-result.json")
    ]
    named = [a for a in allure if a["name"].startswith("test_city_does_not_change_sentiment[")]
    assert len(named) == 3
    assert {lab["value"] for a in named for lab in a["labels"] if lab["name"] == "epic"} == {
        SUITE,
        f"{SUITE} regression",
    }
    cases = (user_repo / "reports" / "cases" / SUITE / f"{TEST}.jsonl").read_text().splitlines()
    header = json.loads(cases[0])
    assert (header["test"], header["seed"], header["source"]) == (
        TEST,
        1,
        "tests_behavioral/test_domain.py",
    )
    assert len(cases) - 1 == records[0]["n_cases"]


def test_committed_cases_replace_the_generated_ones(user_repo: Path, zoo: Path) -> None:
    first = _pytest(user_repo, "-n", "0", zoo=zoo)
    assert first.returncode in (0, 1), first.stdout[-3000:]
    written = user_repo / "reports" / "cases" / SUITE / f"{TEST}.jsonl"
    committed = user_repo / "tests_behavioral" / "cases" / f"{TEST}.jsonl"
    committed.parent.mkdir()
    lines = written.read_text().splitlines()
    # A reviewer drops all but three cases and rewrites one of them.
    rewritten = json.loads(lines[1])
    rewritten["data"] = ["The food in Oslo was great.", "The food in Paris was great."]
    committed.write_text("\n".join([lines[0], json.dumps(rewritten), *lines[2:4]]) + "\n")
    module = user_repo / "tests_behavioral" / "test_domain.py"
    committed_cases = f'task="sentiment",\n                 cases="cases/{TEST}.jsonl")'
    module.write_text(module.read_text().replace('task="sentiment")', committed_cases))
    second = _pytest(user_repo, "-n", "0", zoo=zoo)
    assert second.returncode in (0, 1), second.stdout[-3000:]
    records = json.loads((user_repo / "reports" / "results.json").read_text())["records"]
    assert {r["n_cases"] for r in records} == {3}
    replayed = written.read_text().splitlines()
    assert json.loads(replayed[1])["data"] == rewritten["data"]
    assert json.loads(replayed[0])["source"] == f"tests_behavioral/cases/{TEST}.jsonl"


def test_gates_naming_an_unknown_native_test_stop_a_full_run(user_repo: Path, zoo: Path) -> None:
    gates = yaml.safe_load((user_repo / "thresholds.yaml").read_text())
    gates["profiles"]["tiny"]["checklist"]["tests"][SUITE] = {"city_doesnt_change": 35}
    (user_repo / "thresholds.yaml").write_text(yaml.safe_dump(gates))
    run = _pytest(user_repo, zoo=zoo)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.stdout[-2000:]
    assert f"unknown {SUITE} test 'city_doesnt_change'; valid: {TEST}" in run.stdout + run.stderr


def test_a_test_returning_no_checklist_test_errors_with_the_reason(
    user_repo: Path, zoo: Path
) -> None:
    (user_repo / "tests_behavioral" / "test_broken.py").write_text(
        "from nlp_gate.native import behavioral_test\n\n"
        "@behavioral_test(capability='Logic', type='mft', task='sentiment')\n"
        "def test_broken():\n    return ['not a test']\n"
    )
    run = _pytest(user_repo, "-rE", zoo=zoo)
    assert run.returncode == NO_VERDICT, run.stdout[-2000:]  # errors, not a gate missed
    assert "3 errors" in run.stdout  # its two items and its comparison; the others still pass
    assert "test_broken.py::broken must return a CheckList test (MFT, INV or DIR" in run.stdout
