"""The one place where a gated item's verdict becomes its pytest outcome (``conclude``).

A verdict without a message passes; a skip reason skips, verbatim; any other message fails
the item: in its setup (the kind says it cannot run here, a configuration problem) an error
with the message alone, in its call a gate miss headed by the case's id.  A model refused at
load fails the item too, with ``model refused: ...``.  The way back is here as well: a gated
item that failed without a verdict (an exception, a failed setup) is recorded as an error.
"""

from __future__ import annotations

import pytest

from nlp_gate.engine.checkpoint import ModelLoadError
from nlp_gate.kinds.base import Case, Verdict
from nlp_gate.pytest_plugin.allure_labels import label_case, label_verdict
from nlp_gate.pytest_plugin.selection import case_of
from nlp_gate.pytest_plugin.stash import nlp_run
from nlp_gate.run import Run


def conclude(verdict: Verdict | None, name: str | None = None) -> None:
    """Pass, skip or fail the running item by ``verdict``; ``name`` heads a failure's message."""
    if verdict is None or not verdict.message:
        return
    if verdict.skip:
        pytest.skip(verdict.message)
    pytest.fail(f"{name}: {verdict.message}" if name else verdict.message, pytrace=False)


def prepare(item: pytest.Item) -> None:
    """Stop, in its setup, an item whose kind says it cannot run here (e.g. an attack recipe
    whose resource is missing): a named skip, or an error.  Any other item: nothing."""
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return
    run = nlp_run(item.config)
    for kind in run.kinds.values():
        case = callspec.params.get(kind.argname)
        conclude(run.prepare(case) if case is not None else None)


class Check:
    """``nlp_check``: run a case of any registered kind as this item (the kind its case
    names): labels, verdict, record, pass/fail."""

    def __init__(self, run: Run) -> None:
        self.run = run

    def __call__(self, case: Case) -> Verdict:
        kind = self.run.kinds[case.kind]
        label_case(kind, case)
        try:
            verdict = self.run.check(case)
        except ModelLoadError as exc:
            conclude(Verdict(None, f"model refused: {exc}"))
            raise  # not reached: conclude fails the item
        label_verdict(verdict, kind.report.status(verdict.record or {}))
        conclude(verdict, name=case.id)
        return verdict


def record_failure(item: pytest.Item, when: str, report: pytest.TestReport) -> None:
    """A gated item that failed without recording a gate verdict (an exception, a model
    refused at load, a failed setup) is recorded as an error with its cause."""
    run = nlp_run(item.config)
    case = case_of(run, item) if report.failed else None
    if case is not None and not run.has_verdict(case):
        crash = getattr(report.longrepr, "reprcrash", None)
        message = crash.message if crash is not None else report.longreprtext
        run.record_error(case, item.nodeid, when, message.removeprefix("Failed: "))
