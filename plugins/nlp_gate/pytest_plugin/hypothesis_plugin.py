"""Unregister hypothesis's pytest plugin before the terminal summary of a run that only ran
behavioral items.

That plugin imports all of hypothesis in its terminal summary (~0.85 s, in every xdist worker
and then in the controller) even when no test used it, as no behavioral item does: a third
of a run that answers every item from the prediction cache.  Runs of the project's own tests
(which use hypothesis) keep it.
"""

from __future__ import annotations

import sys

import pytest

from nlp_gate.pytest_plugin.selection import runs_only_behavioral_suite


def drop_idle_hypothesis_plugin(config: pytest.Config) -> None:
    """At session finish, before any terminal summary."""
    if runs_only_behavioral_suite(config) and "hypothesis" not in sys.modules:
        config.pluginmanager.unregister(name="hypothesispytest")
