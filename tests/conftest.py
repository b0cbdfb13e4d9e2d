"""The project's own tests take their fixtures from ``fixtures/`` (this repository's pytest
fixtures and fixture data), and are split into a fast subset and the slow rest."""

from __future__ import annotations

# Imported before any test: pytester's sys.modules snapshot drops the modules a test imported
# first, and C extensions do not survive a second import in one process: numpy.fft's refuses
# to load again (which broke every later scipy.stats user), torch's crashes the interpreter
# (a segmentation fault in the next test that loads weights in-process).
import pytest
import safetensors.torch  # noqa: F401
import scipy.stats  # noqa: F401
import torch  # noqa: F401

from fixtures.gate_run import REPO, ZOO, GateRun, RunGate, run_gate, zoo

pytest_plugins = ["pytester"]

__all__ = ["REPO", "ZOO", "GateRun", "RunGate", "run_gate", "zoo"]

# What makes a test slow: the built zoo (two minutes to build, seconds to load), or a pytest
# run in a subprocess.  The rest is the fast subset (`-m "not slow"`, scripts/test_fast.sh),
# which CI also runs on Python 3.13.
SLOW_FIXTURES = {"zoo", "run_gate", "pytester"}
SLOW_MODULES = {"test_zoo", "test_engine_properties", "test_prediction_cache", "test_attack_run"}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: needs the built zoo or runs pytest in a "
                                       "subprocess (the fast subset is -m 'not slow')")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        module = item.module.__name__.rpartition(".")[2] if isinstance(item, pytest.Function) \
            else ""
        if module in SLOW_MODULES or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
