"""Two runs sharing one cache folder (two CI jobs on one runner): both complete with the
same records, and the cache they filled together answers a third run without a forward
pass.  The prediction cache is SQLite in WAL mode with retries, token files and figures are
published by atomic rename, and a zoo build takes a file lock (tests/integration/test_zoo.py races
two builds of one recipe; tests/integration/test_prediction_cache.py two writers of one cache
file)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.gate_run import REPO

pytestmark = pytest.mark.slow
SELECT = ("-m", "checklist or regression", "--nlp-sample", "20")


def _start(tmp: Path, name: str, workers: int, zoo: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "NLP_GATE_CACHE": str(tmp / "shared-cache"), "NLP_GATE_ZOO_DIR": str(zoo)}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            str(REPO / "tests_behavioral"),
            "--rootdir",
            str(REPO),
            "-c",
            str(REPO / "pyproject.toml"),
            "-p",
            "no:cacheprovider",
            "-n",
            str(workers),
            "--nlp-results",
            str(tmp / name / "results.json"),
            *SELECT,
        ],
        cwd=tmp,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def _finish(proc: subprocess.Popen[str]) -> str:
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), out[-3000:]
    return out


def _records(tmp: Path, name: str) -> dict[str, list[dict]]:
    results = json.loads((tmp / name / "results.json").read_text())
    assert results["interrupted"] is False
    return {s: results[s] for s in ("records", "comparisons")}


def test_two_runs_on_one_cache_agree_and_fill_it_for_the_next(tmp_path: Path, zoo: Path) -> None:
    first, second = _start(tmp_path, "first", 2, zoo), _start(tmp_path, "second", 0, zoo)
    _finish(first), _finish(second)
    one, two = _records(tmp_path, "first"), _records(tmp_path, "second")
    assert one["records"] and one["comparisons"] and one == two

    third = _finish(_start(tmp_path, "third", 0, zoo))
    assert _records(tmp_path, "third") == one
    passes = re.search(r"prediction engine: CheckList items (\d+) forward passes", third)
    assert passes and passes.group(1) == "0", third[-2000:]
