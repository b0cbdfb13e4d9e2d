"""The end of a gate run on the controller (or a run without xdist): results.json and the
reports from every process's records, the run's exit status, the terminal summary.

A run with no gated item (the project's own tests) leaves ``reports/`` untouched: the last
gate run's reports stay the ones a reader finds.  A gate run writes its own for every exit,
an interrupted start (no item collected) included, so the last run's never stand in for them;
one stopped before pytest's session began, where pytest skips ``pytest_sessionfinish``,
writes them as pytest unconfigures (``finish_unstarted``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nlp_gate.pytest_plugin.interrupt import STOP_SIGNAL_KEY
from nlp_gate.pytest_plugin.item_status import FAILURES_KEY
from nlp_gate.pytest_plugin.selection import expects_gated_items
from nlp_gate.pytest_plugin.stash import RUN_KEY, nlp_run
from nlp_gate.report import RunEnd, mlflow_log, write_run
from nlp_gate.report.header import run_metadata
from nlp_gate.report.step_summary import append_step_summary, step_summary_path
from nlp_gate.report.verdict import exit_status, verdict

RUN_END_KEY = pytest.StashKey[RunEnd]()  # what the controller wrote at the end of the run


def finish(session: pytest.Session, exitstatus: int) -> None:
    """Write the run's results and reports; set the run's exit status by its verdict: 1 only
    for gates missed (a run gate included) with nothing else wrong, 3 for no verdict
    (``report.verdict.exit_status``)."""
    config = session.config
    run = nlp_run(config)
    if config.option.collectonly:
        return
    # A usage error found while collecting (a bad native test name, no item to gate): the
    # run was refused, and pytest prints the message after this hook.
    refused = exitstatus == pytest.ExitCode.USAGE_ERROR
    if not (run.recorder.sections or any(run.selected.values()) or expects_gated_items(config)):
        return  # no gated item in this run (e.g. the project's own tests): reports/ untouched
    # pytest ends a run whose test modules fail to import as "Interrupted" (exit 2) too; no
    # signal stopped it, so results.json says what did.
    collection_errors = (
        session.testsfailed
        if exitstatus == pytest.ExitCode.INTERRUPTED and STOP_SIGNAL_KEY not in config.stash
        else 0
    )
    keep_other_failures(config)
    end = end_run(
        config,
        int(exitstatus),
        refused=(
            "a usage error (exit 4) stopped the run before any item ran; see its ERROR message"
            if refused
            else None
        ),
        collection_errors=collection_errors,
    )
    # pytest returns session.exitstatus after this hook: the verdict's (1 for a run gate,
    # attacks.min_ran, that no item failed for; 3 for no verdict, reports not written too).
    session.exitstatus = exit_status(int(session.exitstatus), end.verdict().status)
    mlflow_log.log_run(end, run.options.mlflow_log, int(session.exitstatus))  # when asked


def keep_other_failures(config: pytest.Config) -> None:
    """The failed reports that missed no gate (``item_status.FailureNotes``) and that no
    ``errors``, ``lost`` or ``recovered`` entry explains: results.json ``other_failures``."""
    run = nlp_run(config)
    explained = {
        r["item"]
        for section in ("errors", "lost", "recovered")
        for r in run.recorder.records(section)
    }
    notes = [n for n in config.stash.get(FAILURES_KEY, []) if n["item"] not in explained]
    run.recorder.take("other_failures", lambda _: True)  # the end of a run comes once
    for i, note in enumerate(notes):
        run.recorder.add("other_failures", i, note)


def finish_unstarted(config: pytest.Config) -> None:
    """A gate run stopped by a signal before its session began (pytest then skips
    ``pytest_sessionfinish``: e.g. Ctrl-C pressed twice while the models are checked) still
    writes its results.json and reports, as interrupted with no item run, and says so."""
    if (
        hasattr(config, "workerinput")
        or RUN_END_KEY in config.stash
        or STOP_SIGNAL_KEY not in config.stash
        or config.option.collectonly
        or RUN_KEY not in config.stash
        or not expects_gated_items(config)
    ):
        return
    end = end_run(config, pytest.ExitCode.INTERRUPTED)
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    if terminal is not None:
        for line in end.lines(pytest.ExitCode.INTERRUPTED):
            terminal.write_line(line)


def end_run(
    config: pytest.Config, exitstatus: int, refused: str | None = None, collection_errors: int = 0
) -> RunEnd:
    """results.json and the reports of this run, from the controller's records; whatever
    cannot be written is one message for the terminal summary (``RUN_END_KEY``)."""
    run = nlp_run(config)
    results = run.recorder.body(
        run_metadata(run),
        interrupted=exitstatus == pytest.ExitCode.INTERRUPTED and not collection_errors,
        exitstatus=exitstatus,
        refused=refused,
        collection_errors=collection_errors,
    )
    # What the run exits with, by its verdict: results.json records it.
    exitstatus = exit_status(exitstatus, verdict(results).status)
    results["exitstatus"] = exitstatus
    alluredir = config.getoption("allure_report_dir", default=None)  # allure-pytest's --alluredir
    end = write_run(
        run.options.results,
        results,
        alluredir=Path(alluredir) if alluredir else None,
        exitstatus=exitstatus,
        plot_cache=run.options.cache_dir / "plots",
    )
    summary = step_summary_path()
    if summary is not None:  # CI's job summary ($GITHUB_STEP_SUMMARY)
        end.notes.extend(
            filter(None, [append_step_summary(summary, end.results, end.verdict(exitstatus))])
        )
    config.stash[RUN_END_KEY] = end
    return end


def terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    """Each kind's lines, then the release verdict and where the reports are."""
    run = nlp_run(config)
    for kind in reversed(list(run.kinds.values())):
        lines = kind.summary_lines(run.recorder.records(kind.records))
        if lines:
            terminalreporter.section(f"nlp-gate {kind.name}")
            for line in lines:
                terminalreporter.write_line(line)
    end = config.stash.get(RUN_END_KEY, None)  # written by the controller only
    if end is None or end.results.get("refused"):
        return  # no gated item in this run, or refused: pytest prints the one message
    terminalreporter.section("nlp-gate")
    for line in end.lines():  # by the run's own exit status, as results.json records it
        terminalreporter.write_line(line)
