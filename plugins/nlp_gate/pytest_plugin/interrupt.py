"""Stop signals: SIGTERM (a CI job's time-out) and SIGINT (Ctrl-C) stop the run cleanly.

The running items finish, no new one starts, and pytest ends the session as interrupted
(exit 2), so results.json and the reports are written for every finished item, marked
``"interrupted": true``.  A second signal stops at once.  (Without this, SIGTERM kills the
process outright, and an interrupt raised inside an arbitrary frame can crash pytest's own
interrupt report.)

Under xdist a terminal's Ctrl-C and a CI runner's SIGTERM reach every process of the group.
A worker then ends after its running item (xdist's worker loop checks ``session.shouldstop``
between items) and tells the controller so (its ``shouldstop``), whose own handler has
stopped scheduling: the run ends as interrupted, with no worker reported as crashed and none
replaced.  The controller remembers the signal (``STOP_SIGNAL_KEY``): a worker that dies
anyway (the second signal, or one that came before its handler was set) was stopped, not
crashed, and one whose collection it cut short selected nothing because it was stopped
(``xdist_handoff.XdistController``).

A signal before the first item (the run's start, its workers' boot, its collection) ends the
run before any item starts (``stop_pending``, ``stop_before_items``, ``stopped_while_starting``):
xdist's controller forgets a stop that came before its loop, and would start every item on
workers that began after the signal.  Once the items' loop has ended, a signal is said, not
acted on (``run_is_ending``): the run's results are being written.
"""

from __future__ import annotations

import signal
import sys
import threading
from typing import Any

import pytest

from nlp_gate.config.options import results_file
from nlp_gate.pytest_plugin import early_signals
from nlp_gate.pytest_plugin.stash import PYTEST_SESSION_KEY, RUN_KEY

# The stop signal this process received (SIGINT, SIGTERM), once one came.
STOP_SIGNAL_KEY = pytest.StashKey[str]()
# Set once no item is left to run (the items' loop ended, or the start failed on a signal):
# what is left is writing this run's results, which a signal must not cut short (a
# results.json half written, or a previous run's left under this run's name).
ENDING_KEY = pytest.StashKey[bool]()
# The handlers stop_on_signals replaced (those from before the plugin's import).
_PREVIOUS_KEY = pytest.StashKey[dict[signal.Signals, Any]]()


def stop_on_signals(config: pytest.Config) -> None:
    """Set the handlers in this process, restored at the end of the run: as early as a
    plugin's hook can (before the conftests are imported, which may take seconds: torch), so
    that a signal during start-up is a stop, not a traceback; one that came while pytest
    imported the plugin counts as received here (``early_signals``).

    Every process, xdist workers too: Ctrl-C and a CI time-out signal the whole process
    group, and a worker without a handler would die of it (SIGTERM) or abort its item
    (SIGINT), which the controller could only report as a crash."""
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers can only be set from the main thread
    stopping: list[str] = []
    said_ending: set[str] = set()  # signals said while the results are written

    def stop(signum: int, frame: object) -> None:
        name = signal.Signals(signum).name
        if config.stash.get(ENDING_KEY, False):
            if name not in said_ending:  # said once: users press Ctrl-C repeatedly
                said_ending.add(name)
                sys.stderr.write(
                    f"nlp-gate: {name} while this run's results are written: "
                    "finishing them first (seconds)\n"
                )
            return
        config.stash[STOP_SIGNAL_KEY] = name
        if stopping and RUN_KEY not in config.stash:
            # Pressed again while pytest still parses its options and imports the conftests
            # (only the options parsed so far say where the results would go).
            given = getattr(config.known_args_namespace, "nlp_results", None)
            early_signals.stop_before_the_run(
                name, "during pytest's start-up", str(results_file(given, config.rootpath))
            )
        if stopping:
            raise KeyboardInterrupt(f"signal {name}")
        stopping.append(name)
        session = config.stash.get(PYTEST_SESSION_KEY, None)
        if session is not None:  # else the session stops as it starts (stop_pending)
            _stop(config, session, name)

    config.stash[_PREVIOUS_KEY] = {
        sig: early_signals.take_over(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)
    }
    config.add_cleanup(lambda: restore_signals(config))
    early = early_signals.received()  # while pytest imported the plugin (early_signals.py)
    if early is not None:
        config.stash[STOP_SIGNAL_KEY] = early
        stopping.append(early)  # the next one stops at once, as after any first signal


def restore_signals(config: pytest.Config) -> None:
    """The handlers from before the plugin was imported, again: at the config's end, or at
    its configure in a run that did not ask for nlp-gate (``opt_in``).  Once, so that a
    handler the run set after that stays."""
    for sig, previous in config.stash.get(_PREVIOUS_KEY, {}).items():
        signal.signal(sig, previous)
    config.stash[_PREVIOUS_KEY] = {}


def hand_back_signals(config: pytest.Config) -> None:
    """A run that did not ask for nlp-gate: the handlers as they were, and a signal that came
    while the plugin held them delivered to those handlers now, as without the plugin (a
    Ctrl-C is then pytest's own KeyboardInterrupt)."""
    restore_signals(config)
    name = config.stash.get(STOP_SIGNAL_KEY, None)
    if name is not None:
        signal.raise_signal(signal.Signals[name])


def _stop(config: pytest.Config, session: pytest.Session, name: str) -> None:
    reason = f"{name}: stopping after the running items (send it again to stop now)"
    session.shouldstop = reason  # checked by pytest (and xdist's workers) between items
    dsession = config.pluginmanager.getplugin("dsession")
    if dsession is not None:  # the xdist controller: its loop stops the workers
        dsession.shouldstop = reason


def stop_pending(session: pytest.Session) -> bool:
    """At the session's start: whether a stop signal came before it (then the run collects
    and runs nothing, and ends as interrupted)."""
    name = session.config.stash.get(STOP_SIGNAL_KEY, None)
    if name is not None:
        _stop(session.config, session, name)
    return name is not None


def run_is_ending(config: pytest.Config) -> None:
    """From here on a stop signal is said, not acted on (``ENDING_KEY``)."""
    config.stash[ENDING_KEY] = True


def stop_before_items(session: pytest.Session) -> None:
    """Before the items' loop: a stop signal already received ends the run as interrupted,
    with no item started (pytest's own loop would run one item first, xdist's none of the
    signal)."""
    stop = session.config.stash.get(STOP_SIGNAL_KEY, None)
    if stop is not None:
        raise session.Interrupted(f"{stop}: stopped before any item started")


def stopped_while_starting(session: pytest.Session) -> None:
    """The session's start failed: when a stop signal had come, that is its doing, and the
    run ends as interrupted (exit 2, its results.json and verdict line) instead of with
    pytest's INTERNALERROR traceback (exit 3).  The signal reaches xdist's workers too, and
    one still booting dies of it, before its handler is set: execnet's start of it then fails
    (EOFError) inside xdist's ``pytest_sessionstart``."""
    name = session.config.stash.get(STOP_SIGNAL_KEY, None)
    if name is not None:
        run_is_ending(session.config)
        pytest.exit(
            f"{name}: stopped while the run started its workers",
            returncode=pytest.ExitCode.INTERRUPTED,
        )
