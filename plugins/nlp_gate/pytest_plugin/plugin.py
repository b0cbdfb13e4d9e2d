"""The pytest plugin (entry point ``pytest11: nlp_gate``): its hooks and fixtures, each handing
off to the module that owns the work.

The run's state lives in ``RunState`` (``config.stash``, ``stash.py``), each kind of item behind
the ``ItemKind`` interface (``nlp_gate.kinds``).  ``selection`` knows which runs are behavioral
and which items they keep, ``validation`` refuses a bad configuration before any item runs,
``outcome`` is the one place a verdict passes, skips or fails an item, ``item_status``
gives it its status for JUnit XML and the terminal (``RECORDED``), ``xdist_handoff``
carries records from the workers, ``xdist_groups`` keeps each model's items on one worker,
``interrupt`` handles stop signals (``early_signals`` those that come while this module is
imported), ``run_end`` writes the reports.

Every hook is defined here, so that pytest finds them all at the entry point; the xdist
controller's hooks are a plugin object of their own (``xdist_handoff.XdistController``),
registered only where xdist runs the controller.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path

import pytest

from nlp_gate.pytest_plugin import early_signals

# First, before the imports below take their time: a Ctrl-C during them is then a stopped run,
# not a traceback out of pytest's plugin loading (early_signals.py).
early_signals.catch()


from nlp_gate.config import ConfigurationError  # noqa: E402  # after early_signals.catch()
from nlp_gate.pytest_plugin import (  # noqa: E402  # after early_signals.catch()
    item_status,
    outcome,
    path_values,
    run_end,
    selection,
    terminal_progress,
    validation,
    xdist_groups,
    xdist_handoff,
)
from nlp_gate.pytest_plugin.hypothesis_plugin import drop_idle_hypothesis_plugin  # noqa: E402  # after early_signals.catch()
from nlp_gate.pytest_plugin.interrupt import (  # noqa: E402  # after early_signals.catch()
    run_is_ending,
    stop_before_items,
    stop_on_signals,
    stop_pending,
    stopped_while_starting,
)
from nlp_gate.pytest_plugin.options import add_markers, add_options, options_from  # noqa: E402  # after early_signals.catch()
from nlp_gate.pytest_plugin.outcome import Check  # noqa: E402  # after early_signals.catch()
from nlp_gate.pytest_plugin.selection import NATIVE_ITEMS, RELEASED_ITEMS  # noqa: E402  # after early_signals.catch()
from nlp_gate.pytest_plugin.stash import PYTEST_SESSION_KEY, RUN_STATE_KEY, nlp_session  # noqa: E402  # after early_signals.catch()
from nlp_gate.report.header import report_header  # noqa: E402  # after early_signals.catch()
from nlp_gate.run_state import RunState  # noqa: E402  # after early_signals.catch()

# What test modules and tools import.
__all__ = ["NATIVE_ITEMS", "RELEASED_ITEMS", "Check", "nlp_session"]


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(tryfirst=True)  # before the conftests are imported
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    stop_on_signals(early_config)  # every process, xdist workers too (see interrupt.py)


def pytest_configure(config: pytest.Config) -> None:
    # First: a path value that moved the rootdir would have every default below read (and
    # the reports written) in the wrong folder.
    path_values.check(config)
    # CheckList's viewer (imported with its Editor and test types) uses a deprecated IPython
    # import: noise in every run that builds native tests, nothing a user can act on.
    config.addinivalue_line(
        "filterwarnings", "ignore:Importing display from IPython.core.display:DeprecationWarning"
    )
    add_markers(config)
    config.stash[RUN_STATE_KEY] = RunState(options_from(config), config.option)
    selection.add_packaged_suites(config)
    xdist_handoff.register_controller(config)
    item_status.register_notes(config)  # failures that miss no gate: no verdict
    terminal_progress.install_for_pytest(
        config
    )  # long stages (cold predictions) show signs of life


def pytest_report_header(config: pytest.Config) -> list[str]:
    try:
        return report_header(nlp_session(config))
    except ConfigurationError as exc:
        return [f"nlp-gate: configuration error: {exc}"]


@pytest.hookimpl(wrapper=True)  # around xdist's, which starts the workers
def pytest_sessionstart(session: pytest.Session) -> Generator[None, None, None]:
    session.config.stash[PYTEST_SESSION_KEY] = session  # for a stop signal (interrupt.py)
    if not stop_pending(session):  # stopped already: nothing to validate
        validation.validate_at_start(session)
    try:
        return (yield)
    except Exception:
        stopped_while_starting(session)  # a worker the signal killed as it booted
        raise


@pytest.hookimpl(wrapper=True)
def pytest_ignore_collect(
    collection_path: Path, config: pytest.Config
) -> Generator[None, bool | None, bool | None]:
    return selection.enter_packaged(collection_path, config, (yield))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    selection.parametrize(metafunc)


@pytest.hookimpl(trylast=True)  # after -m and -k deselected theirs: balance what is left
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    selection.select(session, config, items)
    xdist_groups.write_groups(config, items)  # a worker: its items' groups, for the controller


def pytest_collection_finish(session: pytest.Session) -> None:
    validation.validate_collected(session)


@pytest.hookimpl(wrapper=True)  # around pytest's and xdist's loops
def pytest_runtestloop(session: pytest.Session) -> Generator[None, object, object]:
    stop_before_items(session)
    try:
        return (yield)
    finally:
        run_is_ending(session.config)  # a signal from here on must not cut the results short


@pytest.fixture(scope="session", name="nlp_session")
def nlp_session_fixture(request: pytest.FixtureRequest) -> RunState:
    """The run's core: profile, thresholds, loaded models, the item kinds."""
    return nlp_session(request.config)


@pytest.fixture(autouse=True)
def _nlp_prepare(request: pytest.FixtureRequest) -> None:
    """Stop, in its setup, an item whose kind says it cannot run here (e.g. an attack recipe
    whose resource is missing): a named skip, or an error."""
    outcome.prepare(request)


@pytest.fixture(scope="session")
def nlp_check(request: pytest.FixtureRequest) -> Check:
    """Run a case of any registered kind as this item: labels, verdict, record, pass/fail."""
    return Check(nlp_session(request.config))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    outcome.record_failure(item, call.when, report)
    item_status.add_properties(item, report)  # JUnit XML's nlp_gate.*, RECORDED
    xdist_handoff.send_item_records(item, call.when, report)
    return report


def pytest_report_teststatus(
    report: pytest.TestReport,
) -> tuple[str, str, tuple[str, dict[str, bool]]] | None:
    return item_status.teststatus(report)  # RECORDED: passed a gate of 100


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    drop_idle_hypothesis_plugin(session.config)
    nlp_session(session.config).record_engine_stats()
    if hasattr(session.config, "workerinput"):  # a worker: the controller writes the reports
        xdist_handoff.send_remaining_records(session.config)
    else:
        run_end.finish(session, exitstatus)


def pytest_unconfigure(config: pytest.Config) -> None:
    run_end.finish_unstarted(config)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    if not hasattr(config, "workerinput"):
        run_end.terminal_summary(terminalreporter, exitstatus, config)
