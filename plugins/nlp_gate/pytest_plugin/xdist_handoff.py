"""Records from xdist workers to the controller, and what a dead worker means.

Under xdist every item runs on a worker, but results.json and the reports are written once,
by the controller.  A worker's records travel with each item's teardown report (its
``user_properties``, which xdist serializes) and, for what is left at its end (engine stats),
in its ``workeroutput`` (as syrupy hands its workers' results over); the controller
merges both (``XdistController``).  No xdist internals: only its documented hooks.  The
controller's hooks also keep each model's items on one worker (``xdist_groups``).
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from nlp_gate.pytest_plugin import xdist_groups
from nlp_gate.pytest_plugin.interrupt import STOP_SIGNAL_KEY
from nlp_gate.pytest_plugin.opt_in import WORKERINPUT_KEY
from nlp_gate.pytest_plugin.selection import (
    REFUSAL_FILE_KEY,
    expects_gated_items,
    no_gated_items_message,
    runs_behavioral_suite,
)
from nlp_gate.pytest_plugin.stash import PYTEST_SESSION_KEY, nlp_run

if TYPE_CHECKING:
    from nlp_gate.run import Run

WIRE_KEY = "nlp_gate_records"


def register_controller(config: pytest.Config) -> None:
    """On the controller of an xdist run (xdist installed and not disabled) that asked for
    nlp-gate: it tells its workers so (``opt_in``)."""
    if not hasattr(config, "workerinput") and config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistController(config), "nlp-gate-xdist")


def send_item_records(item: pytest.Item, when: str, report: pytest.TestReport) -> None:
    """On a worker, with an item's teardown report: the records its run made."""
    if when == "teardown" and hasattr(item.config, "workerinput"):
        wire = nlp_run(item.config).recorder.take_wire()
        if wire:
            report.user_properties.append((WIRE_KEY, wire))


def send_remaining_records(config: pytest.Config) -> None:
    """On a worker at its end: what belongs to no item (engine stats), in its output."""
    wire = nlp_run(config).recorder.take_wire()
    if wire:
        config.workeroutput[WIRE_KEY] = wire  # type: ignore[attr-defined]  # xdist sets it


class XdistController:
    """Collects worker records on the controller (registered only when xdist is active), and
    tells a worker that died from a run that was stopped.

    Each item is counted once.  xdist reports the item a dead worker was running as failed
    and, under ``--dist loadgroup`` (this project's default), runs it again on another
    worker with the rest of its group; under ``--dist load`` it does not.  So a lost item is
    recorded in results.json ``lost`` when its worker dies, and moved to ``recovered`` when
    its final report arrives after all: its record is its outcome.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        # Node ids whose teardown report (which carries their records) has arrived.
        self.finished: set[str] = set()
        self.refusals: Path | None = None  # the folder of the workers' refusal files

    @pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook, on its controller
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """Under xdist only the workers collect: one that selected no item where items to gate
        were expected hands none (``selection.select``), and the run stops here.  Unless a
        stop signal cut the collection short (every process of the group got it): then the
        run is interrupted, which the controller's loop says once it has this event."""
        # A worker whose selection needs an extra that is not installed handed its message
        # (``selection.select``): the run stops with it, once, before any item runs.
        refusal = Path(node.workerinput.get(REFUSAL_FILE_KEY, "")) if ids == [] else None
        if refusal is not None and refusal.is_file():
            raise pytest.UsageError(refusal.read_text())
        session = self.config.stash.get(PYTEST_SESSION_KEY, None)
        if (
            not ids
            and expects_gated_items(self.config)
            and STOP_SIGNAL_KEY not in self.config.stash
            and not (session and session.testsfailed)
        ):
            raise pytest.UsageError(no_gated_items_message(self.config, 0))

    @pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook, on its controller
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[WORKERINPUT_KEY] = True  # this run asked for nlp-gate (opt_in)
        xdist_groups.give_groups_file(self.config, node)
        if self.refusals is None:  # where workers leave a refusal of their selection
            self.refusals = Path(tempfile.mkdtemp(prefix="nlp-gate-refusals-"))
            folder = self.refusals
            self.config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
        node.workerinput[REFUSAL_FILE_KEY] = str(
            self.refusals / f"{node.workerinput['workerid']}.txt"
        )

    @pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook (first result), on its controller
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        return xdist_groups.make_scheduler(config, log)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        wires = [value for name, value in report.user_properties if name == WIRE_KEY]
        # An item xdist ran again though it had finished (its worker died between its end
        # and xdist's note of it) brings its records a second time: the first stand.
        again = report.when == "teardown" and report.nodeid in self.finished
        for wire in wires if not again else []:
            nlp_run(self.config).recorder.merge_wire(str(wire))
        if wires:  # consumed: not for other reporters (JUnit XML properties)
            report.user_properties = [p for p in report.user_properties if p[0] != WIRE_KEY]
        if report.when == "teardown":
            self.finished.add(report.nodeid)
            settle_lost_item(nlp_run(self.config), report.nodeid)

    @pytest.hookimpl
    def pytest_testnodedown(self, node: object, error: object) -> None:
        wire = getattr(node, "workeroutput", {}).get(WIRE_KEY)
        if wire:
            nlp_run(self.config).recorder.merge_wire(wire)

    @pytest.hookimpl
    def pytest_handlecrashitem(
        self, crashitem: str, report: pytest.TestReport, sched: object
    ) -> None:
        """A worker died while running ``crashitem`` (xdist reports it as failed).

        After a stop signal (this process got it too: Ctrl-C and CI time-outs signal the
        whole group) the worker was stopped, not crashed: the item is reported as not run,
        and the run ends as interrupted.  Otherwise: an error of the run naming the lost
        item's models and the likely cause, recorded in results.json ``lost``, unless its
        final report comes after all (xdist ran it again, or it had finished): then its record
        counts, and ``recovered`` names it.  Either way the run has no verdict (exit 3)."""
        stop = self.config.stash.get(STOP_SIGNAL_KEY, None)
        if stop is not None:
            report.outcome = "skipped"
            report.when = "setup"
            report.longrepr = (
                crashitem.split("::")[0],
                None,  # type: ignore[assignment]  # no line: the item never started
                f"not run to its end: the run was interrupted ({stop})",
            )
            return
        if not runs_behavioral_suite(self.config):
            return  # not a gate run (e.g. the project's own tests): xdist's report as it is
        run = nlp_run(self.config)
        lost = record_lost_item(run, crashitem, str(report.longrepr))
        report.when = "setup"  # an error of the run, not a gate the model missed
        report.longrepr = f"{report.longrepr}\n{lost['message']}"
        if crashitem in self.finished:  # its records arrived before its worker died
            settle_lost_item(run, crashitem)


# -- items lost with their worker ------------------------------------------------------------
def record_lost_item(run: Run, nodeid: str, crash: str) -> dict[str, Any]:
    """Record an item whose xdist worker died while running it (the controller only
    knows its node id: the models are those its parameter id names)."""
    # "path::test[suite/test/sst2/bert]", "@<xdist group>" appended under --dist loadgroup
    param = re.sub(r"\](@[^\]]*)?$", "", nodeid).rpartition("[")[2]
    models = [
        f"{m.dataset}/{m.name}"
        for m in run.profile.models
        if re.search(
            rf"(^|/){re.escape(m.dataset)}/([^/]*-vs-)?"
            rf"{re.escape(m.name)}(-vs-|$)",
            param,
        )
    ]
    message = (
        f"nlp-gate: item lost, model {', '.join(models) or '(none of the profile)'}"
        ": its worker process died while running it (killed by a signal, e.g. "
        "the out-of-memory killer, or a native crash); the release gate has no verdict "
        "(exit 3), even where xdist runs it again to its end"
    )
    record = {"item": nodeid, "models": models, "cause": crash.splitlines()[0], "message": message}
    run.recorder.take("lost", lambda lost: lost["item"] == nodeid)  # lost again on a re-run
    run.recorder.add("lost", len(run.recorder.sections.get("lost", [])), record)
    return record


def settle_lost_item(run: Run, nodeid: str) -> None:
    """The final report of an item recorded as lost arrived (xdist ran it again on
    another worker, or its worker died just after it finished): its records are its
    outcome, so it leaves ``lost``, and ``recovered`` says that its worker died."""
    for record in run.recorder.take("lost", lambda lost: lost["item"] == nodeid):
        message = (
            f"nlp-gate: item recovered, model {', '.join(record['models'])}: its "
            "worker process died, but its outcome arrived (xdist ran it again on "
            "another worker); counted once, by that outcome (pytest's summary also "
            "counts the crash, as an error)"
        )
        run.recorder.add(
            "recovered",
            len(run.recorder.sections.get("recovered", [])),
            {**record, "message": message},
        )
