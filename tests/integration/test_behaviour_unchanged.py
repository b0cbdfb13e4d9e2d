"""A redesign changes no verdict: the behavioral suite's item ids and its CheckList outcomes are
those recorded before the redesign of issue #30 (``tests/data``, written from the commit
before it on the zoo that is now shipped: ``nlp_gate/zoo/weights``).

The outcomes are pinned on the shipped weights, not on a build of this machine's, so they
hold on any CPU: the same weights under other inference kernels change no CheckList outcome
(``benchmarks/bench_kernels.py``, docs/measurements/portability.md).

Both are run as a user runs them, in a subprocess on this repository: the ids from
``pytest --co`` over ``tests_behavioral`` (re-recorded for issue 51: only the path prefix
changed, ``plugins/nlp_gate/{released,native_tests}/`` to ``tests_behavioral/``, and so the
files' order), the outcomes from ``-m checklist`` with a seeded sample of 50 cases per test and
the prediction cache off (every number computed now).
When an intended change moves them, regenerate the files with the commands below and say why
in the commit:

    .venv/bin/python -m pytest --co -q -p no:cacheprovider | grep :: > tests/data/item_ids.txt
    .venv/bin/python -m pytest -m checklist --nlp-sample 50 -n 2 --nlp-prediction-cache off \\
        --nlp-results /tmp/r.json   # then the records' counts, as _outcomes() reads them
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fixtures.gate_run import REPO

DATA = Path(__file__).resolve().parents[1] / "data"
pytestmark = pytest.mark.usefixtures("zoo")


def _pytest(*args: str) -> subprocess.CompletedProcess[str]:
    # Not this run's xdist worker identity: the child is a run of its own.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )


def _outcomes(results: dict[str, Any]) -> dict[str, list[Any]]:
    return {
        "/".join((r["suite"], r["test"], r["dataset"], r["model"])): [
            r["n_cases"],
            r["n_failed"],
            r["fail_rate"],
            r["passed"],
        ]
        for r in results["records"]
    }


def test_the_collected_item_ids_are_unchanged() -> None:
    run = _pytest("--co", "-q")
    ids = [line for line in run.stdout.splitlines() if "::" in line]
    expected = (DATA / "item_ids.txt").read_text().splitlines()
    assert len(expected) == 1246
    assert ids == expected, run.stdout[-2000:] + run.stderr[-2000:]


def test_the_checklist_outcomes_are_unchanged(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    run = _pytest(
        "-m",
        "checklist",
        "--nlp-sample",
        "50",
        "-n",
        "2",
        "--nlp-prediction-cache",
        "off",
        "--nlp-results",
        str(results),
    )
    assert results.is_file(), run.stdout[-3000:] + run.stderr[-2000:]
    expected = json.loads((DATA / "checklist_sample50.json").read_text())
    assert len(expected) == 440
    assert _outcomes(json.loads(results.read_text())) == expected
