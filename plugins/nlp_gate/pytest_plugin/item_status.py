"""Each gated item's status where CI reads it, and the failures that were no gate's.

* JUnit XML: every gated item carries ``nlp_gate.*`` properties (``item.user_properties``,
  which travel with its reports from an xdist worker): model, capability, fail rate, gate
  (its kind's ``ReportPart.figures``) and ``nlp_gate.status``: ``passed``, ``failed`` (over
  its gate), ``recorded`` (passed a gate of 100: recorded, not gated), ``skipped`` or
  ``errored`` (ended without a gate verdict).
* The terminal: a recorded item's status word is ``RECORDED`` (letter ``R``, category
  ``recorded``), so pytest's closing line counts them apart ("13 recorded").
* The verdict: a failed report that is not a gate miss (an errored item, a test that is not
  a gated item, a teardown error) means no verdict.  The controller notes each one here
  (``FailureNotes``); ``run_end`` keeps those that no ``errors`` or ``lost`` entry explains
  as results.json ``other_failures``.
"""

from __future__ import annotations

from typing import Any

import pytest

from nlp_gate.kinds.report_part import ReportPart, number
from nlp_gate.pytest_plugin.selection import case_of
from nlp_gate.pytest_plugin.stash import nlp_run

STATUS = "nlp_gate.status"
# The failed reports of this run that missed no gate, on the controller (or a run without
# xdist): node id, phase and the first line of the cause.
FAILURES_KEY = pytest.StashKey[list[dict[str, str]]]()


def add_properties(item: pytest.Item, report: pytest.TestReport) -> None:
    """After a phase's report of a gated item: its ``nlp_gate.*`` properties, once, with the
    report of its call (or of the phase that ended it early: a skip or error in its setup)."""
    if report.when != "call" and report.passed:
        return  # a setup that passed: its call says; a teardown that passed adds nothing
    if any(name == STATUS for name, _ in item.user_properties):
        return
    run = nlp_run(item.config)
    case = case_of(run, item)
    if case is None:
        return
    part = run.kinds[case.kind].report
    record = run.recorder.get(part.key, case.position)
    status = part.status(record) if record is not None else None
    if status is None:  # nothing judged: the report says what happened
        status = "skipped" if report.skipped else "errored" if report.failed else "passed"
    properties = (
        _properties(part, record, status) if record is not None else _case_properties(case, status)
    )
    item.user_properties.extend(properties)  # the later phases' reports (JUnit: teardown's)
    report.user_properties.extend(properties)  # this one's, made already


def _properties(part: ReportPart, record: dict[str, Any], status: str) -> list[tuple[str, str]]:
    f = part.figures(record)
    properties = [("nlp_gate.model", f.model), ("nlp_gate.capability", f.capability)]
    if f.fail_rate is not None:
        properties.append(("nlp_gate.fail_rate", number(f.fail_rate)))
    if f.gate is not None:
        properties.append(("nlp_gate.gate", number(f.gate)))
    properties.append((STATUS, status))
    properties += [(f"nlp_gate.{k}", number(v)) for k, v in f.extra.items() if v is not None]
    return properties


def _case_properties(case: Any, status: str) -> list[tuple[str, str]]:
    """An item without a record: its models and, for a CheckList test's, its capability."""
    properties = [("nlp_gate.model", ", ".join(f"{m.dataset}/{m.name}" for m in case.models))]
    info = getattr(case, "info", None)  # the kinds built on a CheckList test (TestInfo)
    if info is not None:
        properties.append(("nlp_gate.capability", str(info.capability)))
    return [*properties, (STATUS, status)]


def status_of(report: pytest.TestReport) -> str | None:
    # Under xdist a report's properties arrive as lists, not tuples.
    return next((str(value) for name, value in report.user_properties if name == STATUS), None)


def teststatus(report: pytest.TestReport) -> tuple[str, str, tuple[str, dict[str, bool]]] | None:
    """``RECORDED`` for the call of an item that passed a gate it could not miss."""
    if report.when == "call" and report.passed and status_of(report) == "recorded":
        return "recorded", "R", ("RECORDED", {"yellow": True})
    return None


def register_notes(config: pytest.Config) -> None:
    """On the controller, or in a run without xdist: note the failures that miss no gate."""
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(FailureNotes(config), "nlp-gate-failures")


class FailureNotes:
    """Notes each failed report that is not a gate miss (``FAILURES_KEY``)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not report.failed:
            return
        if report.when == "call" and status_of(report) == "failed":
            return  # a gate missed: what exit 1 and the verdict FAILED are for
        notes = self.config.stash.setdefault(FAILURES_KEY, [])
        if any(note["item"] == report.nodeid for note in notes):
            return  # once per item
        crash = getattr(report.longrepr, "reprcrash", None)
        message = crash.message if crash is not None else report.longreprtext
        first = (message.strip().splitlines() or [""])[0]
        notes.append({"item": report.nodeid, "when": report.when, "message": first[:300]})
