"""A signal the user or the CI runner sends to the run's process group is an interruption,
with and without xdist: a terminal's Ctrl-C is SIGINT to the whole group, a CI job's
time-out SIGTERM to it, so xdist's workers get it too.  The run ends with exit 2, a
results.json marked ``"interrupted": true`` that keeps every finished item's record and
loses none, and its verdict line; no worker is reported as crashed, none replaced."""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import time
from pathlib import Path

import pytest

from fixtures.slow_items import SlowRun

pytestmark = pytest.mark.slow


def _recorded(n: int) -> str:
    """The verdict line's count of SlowRun's items (gates of 100: recorded, not gated)."""
    return f"{n} CheckList item{'s' * (n != 1)} recorded, not gated (gate 100)"


def _assert_interrupted(run: SlowRun, out: str) -> None:
    assert run.proc.returncode == pytest.ExitCode.INTERRUPTED, out[-3000:]
    results = run.json()
    assert results["interrupted"] is True
    assert not results.get("lost"), results.get("lost")
    assert "crashed" not in out and "replacing" not in out, out[-3000:]
    records = results["records"]
    assert len(records) == len(re.findall(r"\bRECORDED\b", out)), out[-3000:]  # gates of 100
    assert (
        f"release gate NO VERDICT: {_recorded(len(records))}; run interrupted: only the items "
        "that finished are recorded" in out
    ), out[-3000:]


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_to_the_process_group_interrupts_the_run(
    tmp_path: Path, workers: int, sig: signal.Signals
) -> None:
    run = SlowRun(tmp_path, workers)
    out = run.act_after(3, lambda: os.killpg(run.proc.pid, sig))
    _assert_interrupted(run, out)
    assert len(run.json()["records"]) >= 3


@pytest.mark.parametrize("workers", [0, 2])
def test_a_second_signal_stops_at_once_still_as_an_interruption(
    tmp_path: Path, workers: int
) -> None:
    """The second SIGINT (a user pressing Ctrl-C again) ends the running items too: the
    run is still interrupted, with the records of the items that had finished.  (Were the
    two signals delivered as one, the run stops after its running items: the same claims.)"""
    run = SlowRun(tmp_path, workers, delay=2.0)

    def twice() -> None:
        os.killpg(run.proc.pid, signal.SIGINT)
        time.sleep(0.5)  # within the running items (2 s each): the second signal cuts them
        os.killpg(run.proc.pid, signal.SIGINT)

    out = run.act_after(2, twice)
    _assert_interrupted(run, out)


def _stale(tmp: Path) -> Path:
    """A previous run's results.json where this run writes its own."""
    results = tmp / "reports" / "results.json"
    results.parent.mkdir(parents=True)
    results.write_text(json.dumps({"previous run": True}))
    return results


def _assert_interrupted_before_any_item(
    run: SlowRun, out: str, exits: tuple[int, ...] = (2,)
) -> None:
    """Exit 2 (or one of ``exits``), this run's results.json (not the previous one) marked
    interrupted, with no record, and a verdict line that says so; no usage error, no
    traceback."""
    assert run.proc.returncode in exits, out[-3000:]
    results = run.json()
    assert "previous run" not in results, (
        "the previous run's results.json was left under this run's name:\n" + out[-3000:]
    )
    assert results["interrupted"] is True and results["records"] == [], out[-3000:]
    assert results["no_results"] == "interrupted before any item finished", results
    assert "no nlp-gate item" not in out and "Traceback" not in out, out[-3000:]
    assert re.search(r"release gate NO VERDICT: .*run interrupted", out), out[-3000:]


@pytest.mark.parametrize("workers", [0, 2])
def test_a_signal_while_collecting_interrupts_the_run(tmp_path: Path, workers: int) -> None:
    """Ctrl-C while the test modules are collected (by the xdist workers, under -n): an
    interrupted run, not one that "selected no item to gate" (a usage error, exit 4)."""
    _stale(tmp_path)
    run = SlowRun(tmp_path, workers, collect_delay=1.0)
    out = run.act_in_stage("collect", lambda: os.killpg(run.proc.pid, signal.SIGINT))
    _assert_interrupted_before_any_item(run, out)


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("signals", [1, 2])
@pytest.mark.parametrize("stage", ["conftest", "start"])
def test_a_signal_at_start_up_interrupts_the_run(
    tmp_path: Path, workers: int, signals: int, stage: str
) -> None:
    """Ctrl-C before any worker started: while the conftests are imported (a conftest that
    imports torch takes seconds), or while the session starts (its options and models are
    checked).  No item starts, and this run's results.json says it was interrupted; pressed
    twice, the run stops at once, with the same results.json.  Pressed twice while the
    conftests are imported, before pytest's session exists, there is no run to write: it
    stops at once with exit 2 and one line that says the results.json there is not this
    run's (not pytest's KeyboardInterrupt traceback)."""
    stale = _stale(tmp_path)
    run = SlowRun(tmp_path, workers, **{f"{stage}_delay": 3.0})

    def press() -> None:
        for _ in range(signals):
            os.killpg(run.proc.pid, signal.SIGINT)
            time.sleep(0.3)

    out = run.act_in_stage(stage, press)
    if (stage, signals) == ("conftest", 2):
        assert run.proc.returncode == pytest.ExitCode.INTERRUPTED, out[-3000:]
        assert "Traceback" not in out and json.loads(stale.read_text()) == {"previous run": True}
        assert out.strip().splitlines()[-1] == (
            "nlp-gate: stopped by a second SIGINT during pytest's start-up, before the run "
            f"began: no results were written ({stale}, if present, is an earlier run's)"
        ), out
        return
    _assert_interrupted_before_any_item(run, out)


@pytest.mark.parametrize("signals", [1, 2])
def test_a_signal_while_xdist_starts_its_workers_interrupts_the_run(
    tmp_path: Path, signals: int
) -> None:
    """Ctrl-C while xdist brings up its workers (about a second into a run): a worker still
    booting dies of it, and xdist's start of the session fails with execnet's EOFError.
    That is the signal's doing: an interrupted run (exit 2, this run's results.json and
    verdict line), not pytest's INTERNALERROR traceback (exit 3).  Pressed twice, the
    second press is only said while the results are written; one that comes after they
    are, while the process exits, ends it as any program Ctrl-C stops (killed by SIGINT,
    130 in a shell) -- its results.json and verdict line are this run's either way."""
    _stale(tmp_path)
    run = SlowRun(tmp_path, 2, boot_delay=3.0)

    def press() -> None:
        for _ in range(signals):
            os.killpg(run.proc.pid, signal.SIGINT)
            time.sleep(0.3)

    out = run.act_in_stage("boot", press)
    assert "INTERNALERROR" not in out, out[-3000:]
    _assert_interrupted_before_any_item(run, out, (2, -signal.SIGINT) if signals == 2 else (2,))


@pytest.mark.parametrize("workers", [0, 2])
def test_a_signal_while_the_results_are_written_is_said_not_acted_on(
    tmp_path: Path, workers: int
) -> None:
    """Ctrl-C, twice, once every item has run and the run writes its results: cutting that
    short would leave no results.json, or a previous run's, under this run's name.  The run
    finishes writing them, says it does, and ends with the verdict of the items it ran."""
    _stale(tmp_path)
    run = SlowRun(tmp_path, workers, delay=0.0, finish_delay=2.0)

    def press() -> None:
        for _ in range(2):
            os.killpg(run.proc.pid, signal.SIGINT)
            time.sleep(0.3)

    out = run.act_in_stage("finish", press)
    assert run.proc.returncode == pytest.ExitCode.OK, out[-3000:]
    assert "Traceback" not in out and "KeyboardInterrupt" not in out, out[-3000:]
    assert "SIGINT while this run's results are written: finishing them first" in out, out
    results = run.json()
    assert results["interrupted"] is False and len(results["records"]) == 20, out[-3000:]
    assert f"release gate PASSED: {_recorded(20)}" in out, out[-3000:]


@pytest.mark.parametrize("workers", [0, 2])
def test_a_signal_during_the_items_then_while_the_results_are_written(
    tmp_path: Path, workers: int
) -> None:
    """Ctrl-C during the items stops the run after its running items; pressed again while
    the results of the items that ran are written, it is said and not acted on: the run
    ends interrupted, with those records, not cut short in the writing (a second signal
    before the writing would stop at once)."""
    _stale(tmp_path)
    run = SlowRun(tmp_path, workers, finish_delay=2.0)

    def again_while_writing() -> None:
        if run.wait_for_stage("finish"):  # else the assertions below say what went wrong
            os.killpg(run.proc.pid, signal.SIGINT)

    def press() -> None:
        os.killpg(run.proc.pid, signal.SIGINT)
        threading.Thread(target=again_while_writing, daemon=True).start()

    out = run.act_after(3, press)
    _assert_interrupted(run, out)
    assert "SIGINT while this run's results are written: finishing them first" in out, out
    assert "Traceback" not in out and "KeyboardInterrupt" not in out, out[-3000:]


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("signals", [1, 2])
def test_a_signal_while_pytest_imports_the_plugin_interrupts_the_run(
    tmp_path: Path, workers: int, signals: int
) -> None:
    """Ctrl-C in a run's first second, while pytest imports the nlp-gate plugin (before any
    of its hooks can run): an interrupted run with this run's results.json, not Python's
    KeyboardInterrupt traceback out of pytest's plugin loading with the previous run's
    results.json left in place.  Pressed twice there, it stops at once with exit 2 and one
    line that says no results were written."""
    stale = _stale(tmp_path)
    run = SlowRun(tmp_path, workers, import_delay=2.0)

    def press() -> None:
        for _ in range(signals):
            os.killpg(run.proc.pid, signal.SIGINT)
            time.sleep(0.3)

    out = run.act_in_stage("import", press)
    if signals == 2:
        assert run.proc.returncode == pytest.ExitCode.INTERRUPTED, out[-3000:]
        assert "Traceback" not in out and json.loads(stale.read_text()) == {"previous run": True}
        assert out.strip().splitlines()[-1] == (
            "nlp-gate: stopped by a second SIGINT while pytest loaded its plugins, before the "
            "run began: no results were written (a results.json there, if present, is an earlier "
            "run's)"
        ), out
        return
    _assert_interrupted_before_any_item(run, out)
