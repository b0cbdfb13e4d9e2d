"""Shared helpers for the project's own tests: run the behavioral suite in a subprocess."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent

pytest_plugins = ["pytester"]


class GateRun:
    def __init__(self, result: pytest.RunResult, results_path: Path) -> None:
        self.result = result
        self.results_path = results_path

    @property
    def json(self) -> dict[str, Any]:
        return json.loads(self.results_path.read_text())

    @property
    def records(self) -> list[dict[str, Any]]:
        return self.json["records"]


RunGate = Callable[..., GateRun]


@pytest.fixture
def run_gate(pytester: pytest.Pytester) -> RunGate:
    """Run ``pytest tests_behavioral`` of this repo with the given options, in a subprocess.

    ``workers`` > 0 runs it under pytest-xdist.  Each call writes its results.json (and
    reports) to its own folder of the test's tmp dir, so a test comparing two runs never
    reads the later run's file for the earlier one (``GateRun.json`` reads on access).
    """
    calls = itertools.count()

    def run(*args: str, workers: int = 0) -> GateRun:
        results = pytester.path / f"run-{next(calls)}" / "results.json"
        result = pytester.runpytest_subprocess(
            "--rootdir", str(REPO), "-c", str(REPO / "pyproject.toml"), "-p", "no:cacheprovider",
            str(REPO / "tests_behavioral"), "--nlp-results", str(results), "-n", str(workers), *args,
            timeout=1200,
        )
        return GateRun(result, results)

    return run
