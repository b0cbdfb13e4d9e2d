"""The package as a user installs it: the plugin comes from its ``pytest11`` entry point, and
a repository holding only a models file, ``thresholds.yaml`` and ``pytest.ini`` runs the
released items, with every default (gates, reports, caches) under *its* rootdir.

Its fast tests: ``tests/unit/test_installed_plugin.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from fixtures.gate_run import SHARED_SUITES
from fixtures.user_repo import write_gates, write_models


def _pytest(
    cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: int = 600
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def user_repo(tmp_path: Path, zoo: Path) -> Path:
    """A user's repository: two of their own classifiers, their gates, their pytest.ini."""
    repo = tmp_path / "their-repo"
    repo.mkdir()
    write_models(
        repo / "models.yaml", {"current": zoo / "sst2" / "bert", "next": zoo / "sst2" / "albert"}
    )
    write_gates(
        repo / "thresholds.yaml",
        {
            "checklist": {"default": 100, "capabilities": {"Fairness": 100}},
            "accuracy": {"min_accuracy": 50},
        },
    )
    (repo / "pytest.ini").write_text(
        "[pytest]\n"
        "nlp_gate_release_suites = true\n"
        "nlp_gate_models_file = models.yaml\n"
        f"addopts = --nlp-suite-dir {SHARED_SUITES}\n"
    )
    return repo


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_users_repository_runs_the_released_fairness_items(
    user_repo: Path, zoo: Path, workers: str
) -> None:
    env = {**os.environ, "NLP_GATE_ZOO_DIR": str(zoo)}
    env.pop("NLP_GATE_CACHE", None)
    run = _pytest(
        user_repo, "-m", "fairness and checklist", "--nlp-sample", "20", "-n", workers, env=env
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    # The 4 sentiment Fairness tests x sst2 x 2 models, under gates of 100: recorded.
    assert "8 recorded" in run.stdout
    results = json.loads((user_repo / "reports" / "results.json").read_text())
    assert {r["capability"] for r in results["records"]} == {"Fairness"}
    assert {r["model"] for r in results["records"]} == {"current", "next"}
    assert results["run"]["models_file"] == str(user_repo / "models.yaml")
    assert results["run"]["thresholds_file"] == str(user_repo / "thresholds.yaml")
    assert (user_repo / "reports" / "tables").is_dir()
    assert (user_repo / ".cache" / "predictions.sqlite").is_file()  # its cache, its rootdir
    assert "release gate PASSED" in run.stdout


def test_a_users_repository_gate_miss_fails_the_run(user_repo: Path, zoo: Path) -> None:
    gates = yaml.safe_load((user_repo / "thresholds.yaml").read_text())
    gates["profiles"]["tiny"]["checklist"]["capabilities"]["Fairness"] = 0
    (user_repo / "thresholds.yaml").write_text(yaml.safe_dump(gates))
    run = _pytest(
        user_repo,
        "-m",
        "fairness and checklist",
        "--nlp-sample",
        "20",
        env={**os.environ, "NLP_GATE_ZOO_DIR": str(zoo)},
    )
    assert run.returncode == pytest.ExitCode.TESTS_FAILED, run.stdout[-3000:]
    assert "exceeds the gate 0.0% (thresholds.yaml: capabilities.Fairness)" in run.stdout
