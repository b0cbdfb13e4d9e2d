"""The pytest plugin (entry point ``pytest11: nlp_gate``): inert until a run asks for it.

pytest loads it into every run where the package is installed, a team's own unit tests
included.  Here only what every run needs: the options and ini keys (so that ``--nlp-*`` and
``nlp_gate_*`` are known), the stop-signal handlers taken over as early as a hook can, and the
one ``pytest_configure`` that decides whether the run asked for nlp-gate (``opt_in``).  A run
that did not gets its signal handlers back and nothing else: no header, markers, validation,
files or reports.  One that did gets the gate's state (``Run`` on ``config.stash``,
``stash.py``), its markers (``marks``), and the hooks of a gate run, registered as a plugin of
their own (``gate_hooks``); the xdist controller's hooks are another
(``xdist_handoff.XdistController``), registered only where xdist runs the controller.

The fixtures ``nlp_run`` and ``nlp_check`` are defined here for test modules to ask for;
neither is autouse, so the team's tests' fixtures are unchanged.
"""

from __future__ import annotations

import pytest

from nlp_gate.pytest_plugin import early_signals

# First, before the imports below take their time: a Ctrl-C during them is then a stopped run,
# not a traceback out of pytest's plugin loading (early_signals.py).
early_signals.catch()


from nlp_gate.pytest_plugin import (  # noqa: E402  # after early_signals.catch()
    gate_hooks,
    item_status,
    marks,
    opt_in,
    path_values,
    selection,
    terminal_progress,
    xdist_handoff,
)
from nlp_gate.pytest_plugin.interrupt import hand_back_signals, stop_on_signals  # noqa: E402  # after early_signals.catch()
from nlp_gate.pytest_plugin.options import add_options, options_from  # noqa: E402  # after early_signals.catch()
from nlp_gate.pytest_plugin.outcome import Check  # noqa: E402  # after early_signals.catch()
from nlp_gate.pytest_plugin.selection import NATIVE_ITEMS, RELEASED_ITEMS  # noqa: E402  # after early_signals.catch()
from nlp_gate.pytest_plugin.stash import RUN_KEY, nlp_run  # noqa: E402  # after early_signals.catch()
from nlp_gate.run import Run  # noqa: E402  # after early_signals.catch()

# What test modules and tools import.
__all__ = ["NATIVE_ITEMS", "RELEASED_ITEMS", "Check", "nlp_run"]


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)
    opt_in.remember_option_defaults(parser)


@pytest.hookimpl(tryfirst=True)  # before the conftests are imported
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    # Every process, xdist workers too (see interrupt.py); given back at configure in a run
    # that did not ask for nlp-gate.
    stop_on_signals(early_config)


# Last: the markers the team's conftests register in their pytest_configure are theirs
# (marks.py), and a run that is not ours is decided before we touch anything.
@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    if not opt_in.decide(config):
        hand_back_signals(config)
        return
    # First: a path value that moved the rootdir would have every default below read (and
    # the reports written) in the wrong folder.
    path_values.validate(config)
    # CheckList's viewer (imported with its Editor and test types) uses a deprecated IPython
    # import: noise in every run that builds native tests, nothing a user can act on.
    config.addinivalue_line(
        "filterwarnings", "ignore:Importing display from IPython.core.display:DeprecationWarning"
    )
    marks.register(config)
    config.stash[RUN_KEY] = Run(options_from(config), config.option)
    selection.add_packaged_suites(config)
    xdist_handoff.register_controller(config)
    item_status.register_notes(config)  # failures that miss no gate: no verdict
    terminal_progress.install_for_pytest(
        config
    )  # long stages (cold predictions) show signs of life
    config.pluginmanager.register(gate_hooks, "nlp-gate-run")


@pytest.fixture(scope="session", name="nlp_run")
def nlp_run_fixture(request: pytest.FixtureRequest) -> Run:
    """The run's core: profile, thresholds, loaded models, the item kinds."""
    return nlp_run(request.config)


@pytest.fixture(scope="session")
def nlp_check(request: pytest.FixtureRequest) -> Check:
    """Run a case of any registered kind as this item: labels, verdict, record, pass/fail."""
    return Check(nlp_run(request.config))
