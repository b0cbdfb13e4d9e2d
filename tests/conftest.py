"""The project's own tests take their fixtures from ``fixtures/`` (this repository's pytest
fixtures and fixture data)."""

from __future__ import annotations

from fixtures.gate_run import REPO, ZOO, GateRun, RunGate, run_gate, zoo

pytest_plugins = ["pytester"]

__all__ = ["REPO", "ZOO", "GateRun", "RunGate", "run_gate", "zoo"]
