"""The project's own tests take their fixtures from ``fixtures/`` (this repository's pytest
fixtures and fixture data), and come in two kinds, by folder: ``unit/`` (fast) and
``integration/`` (slow)."""

from __future__ import annotations

import os
from pathlib import Path

# Imported before any test: pytester's sys.modules snapshot drops the modules a test imported
# first, and C extensions do not survive a second import in one process: numpy.fft's refuses
# to load again (which broke every later scipy.stats user), torch's crashes the interpreter
# (a segmentation fault in the next test that loads weights in-process).
import pytest
import safetensors.torch  # noqa: F401  # imported once, up front (see above)
import scipy.stats  # noqa: F401  # imported once, up front (see above)
import torch  # noqa: F401  # imported once, up front (see above)
from hypothesis import settings

from fixtures.gate_run import REPO, ZOO, GateRun, RunGate, run_gate, zoo

pytest_plugins = ["pytester"]

__all__ = ["REPO", "ZOO", "GateRun", "RunGate", "run_gate", "zoo"]

# The property tests assert behaviour, never speed: Hypothesis' default 200 ms deadline per
# example is a timed assertion, and on a loaded 2-core CI machine one first call took 530 ms
# (tests/unit/test_stats.py, reported as Flaky in CI's lowest-versions leg).  Tests that set
# their own settings keep them; the plugin's native search sets deadline=None itself.
settings.register_profile("nlp-gate-project-tests", deadline=None)
settings.load_profile("nlp-gate-project-tests")

# The gate runs these tests start in subprocesses append to a CI job summary where
# $GITHUB_STEP_SUMMARY names one: not to the job summary of the CI step running the project's
# tests (tests/integration/test_user_ci_verdict.py sets its own).
os.environ.pop("GITHUB_STEP_SUMMARY", None)

# What makes a test slow: the built zoo (two minutes to build, seconds to load), or a pytest
# run in a subprocess.  Such tests live in tests/integration/, and every item there is marked
# slow; tests/unit/ is the fast subset (`-m "not slow"`, scripts/test_fast.sh), which CI also
# runs on Python 3.13.
INTEGRATION = Path(__file__).resolve().parent / "integration"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "slow: needs the built zoo or runs pytest in a "
        "subprocess (the fast subset is -m 'not slow')",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(INTEGRATION):
            item.add_marker(pytest.mark.slow)
