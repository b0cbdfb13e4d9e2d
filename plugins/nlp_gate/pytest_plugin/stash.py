"""Where the hook modules find the run's objects: its ``Run`` and pytest's session, in
``config.stash`` under the keys below.

Its own module, importing no hook module, so that ``plugin.py`` and the modules it hands off
to (``selection``, ``interrupt``, ``xdist_handoff``, ``outcome``, ``run_end``) read the same
keys without importing each other in a circle.
"""

from __future__ import annotations

import pytest

from nlp_gate.run import Run

RUN_KEY = pytest.StashKey[Run]()
# pytest's session, from its start: what a stop signal and xdist's node hooks act on, which
# pytest hands neither.
PYTEST_SESSION_KEY = pytest.StashKey[pytest.Session]()


def nlp_run(config: pytest.Config) -> Run:
    """The ``Run``, built at ``pytest_configure`` of a run that asked for nlp-gate."""
    run = config.stash.get(RUN_KEY, None)
    if run is None:  # a test of a run that did not ask asks for nlp_check / nlp_run
        raise pytest.UsageError(
            "nlp-gate is off in this run: set nlp_gate_paths (or another nlp_gate_* ini key) "
            "in the repository's pytest configuration, or give an --nlp-* option"
        )
    return run
