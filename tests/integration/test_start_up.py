"""Collecting the behavioral suite imports none of the heavy libraries (issue 6: collection
in under 3 s): torch, transformers, CheckList and TextAttack load when a model or a decoded
suite is first needed, scipy when a statistic is, and hypothesis (the project's own tests
use it, the behavioral suite does not) not at all."""

from __future__ import annotations

import re

import pytest

from fixtures.gate_run import REPO

HEAVY = ("torch", "transformers", "checklist", "textattack", "scipy", "hypothesis")


def test_collecting_the_behavioral_suite_imports_no_heavy_library(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = (
        "--rootdir",
        str(REPO),
        "-c",
        str(REPO / "pyproject.toml"),
        "-p",
        "no:cacheprovider",
        "-n",
        "0",
        "--collect-only",
        "-q",
        str(REPO / "tests_behavioral"),
    )
    # The first collection on a fresh checkout decodes the suites once for their test index.
    assert pytester.runpytest_subprocess(*args).ret == pytest.ExitCode.OK
    monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")  # "import time: ... | <module>" lines
    result = pytester.runpytest_subprocess(*args, "-s")  # -s: pytest would capture them
    assert result.ret == pytest.ExitCode.OK
    assert re.search(r"^\d+ tests collected", result.stdout.str(), re.M)
    imported = {
        m.group(1).split(".")[0]
        for m in re.finditer(r"^import time:.*\|\s*([\w.]+)\s*$", result.stderr.str(), re.M)
    }
    assert "nlp_gate" in imported  # the import log is there and names our own modules
    assert imported.isdisjoint(HEAVY), sorted(imported & set(HEAVY))
