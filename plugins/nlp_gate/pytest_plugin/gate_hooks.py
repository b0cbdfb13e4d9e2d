"""The hooks of a run that asked for nlp-gate (``opt_in``), each handing off to the module
that owns the work.

A plugin of its own, registered by ``plugin.pytest_configure`` only in such a run: a run of a
team's own tests never calls one of them.  The run's state lives in ``Run``
(``config.stash``, ``stash.py``), each kind of item behind the ``ItemKind`` interface
(``nlp_gate.kinds``).  ``selection`` knows which runs are behavioral and which items they
keep, ``validation`` refuses a bad configuration before any item runs, ``outcome`` is the one
place a verdict passes, skips or fails an item, ``item_status`` gives it its status for JUnit
XML and the terminal (``RECORDED``), ``xdist_handoff`` carries records from the workers,
``xdist_groups`` keeps each model's items on one worker, ``interrupt`` handles stop signals,
``run_end`` writes the reports, ``checkout_suites`` collects the packaged suites in a checkout.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path

import pytest

from nlp_gate.config import ConfigurationError
from nlp_gate.pytest_plugin import (
    checkout_suites,
    item_status,
    outcome,
    run_end,
    selection,
    validation,
    xdist_groups,
    xdist_handoff,
)
from nlp_gate.pytest_plugin.hypothesis_plugin import drop_idle_hypothesis_plugin
from nlp_gate.pytest_plugin.interrupt import (
    run_is_ending,
    stop_before_items,
    stop_pending,
    stopped_while_starting,
)
from nlp_gate.pytest_plugin.stash import PYTEST_SESSION_KEY, nlp_run
from nlp_gate.report.header import report_header


def pytest_report_header(config: pytest.Config) -> list[str]:
    try:
        return report_header(nlp_run(config))
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


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    return checkout_suites.suite_folder(path, parent)


def pytest_pycollect_makemodule(
    module_path: Path, parent: pytest.Collector
) -> pytest.Module | None:
    return checkout_suites.suite_module(module_path, parent)


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


def pytest_runtest_setup(item: pytest.Item) -> None:
    # A hook, not an autouse fixture: the team's tests keep their own fixtures, and an item
    # of ours that cannot run here stops before its fixtures are set up.
    outcome.prepare(item)


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
    nlp_run(session.config).record_engine_stats()
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
