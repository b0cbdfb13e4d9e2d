"""Stop signals that come while pytest imports this plugin, before its hooks can run.

The plugin's own import takes a while (about 0.4 s of a run's first 0.9 s on an idle machine,
seconds under load or where pytest must rewrite the modules' assertions anew): a Ctrl-C there
was Python's ``KeyboardInterrupt`` traceback out of pytest's plugin loading, exit 130, and the
previous run's results.json left under this run's name.  ``catch`` is called first thing by
``plugin.py`` and records such a signal; ``interrupt.stop_on_signals``, in the plugin's
first hook, takes the record over, and the run then ends as any run stopped before its first
item (exit 2, this run's results.json marked interrupted, its verdict line).

This module imports nothing of the plugin, so that it is quick to import, and it acts only
inside a pytest run (``PYTEST_VERSION``, set by pytest while it runs): a program that imports
the plugin for its names keeps Python's own Ctrl-C.  It takes over only a handler still at
Python's default, so that it never hides one that somebody else set.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any, NoReturn

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_PYTHON_DEFAULTS: dict[int, Any] = {
    signal.SIGINT: signal.default_int_handler,
    signal.SIGTERM: signal.SIG_DFL,
}

# The handlers ``catch`` replaced (restored at the end of the run), and the signals it got.
_replaced: dict[int, Any] = {}
_received: list[str] = []


def catch() -> None:
    """Record SIGINT and SIGTERM from here until the plugin's first hook; a second one stops
    at once (nothing of the run exists yet to write)."""
    if (
        "PYTEST_VERSION" not in os.environ
        or threading.current_thread() is not threading.main_thread()
    ):
        return
    for sig in _SIGNALS:
        if signal.getsignal(sig) is _PYTHON_DEFAULTS[sig]:
            _replaced[sig] = signal.signal(sig, _record)


def stop_before_the_run(name: str, during: str, results: str) -> NoReturn:
    """A second signal before pytest's session exists: nothing of the run exists to write,
    and pytest would print a KeyboardInterrupt traceback; end at once, saying so."""
    sys.stderr.write(
        f"nlp-gate: stopped by a second {name} {during}, before the run began: "
        f"no results were written ({results}, if present, is an earlier run's)\n"
    )
    raise SystemExit(2)  # pytest.ExitCode.INTERRUPTED (this module imports nothing of pytest)


def _record(signum: int, frame: FrameType | None) -> None:
    name = signal.Signals(signum).name
    if _received:  # no options parsed yet: where the results would go is not known
        stop_before_the_run(name, "while pytest loaded its plugins", "a results.json there")
    _received.append(name)


def take_over(sig: signal.Signals, handler: Callable[[int, FrameType | None], Any]) -> Any:
    """Set ``handler`` for ``sig``; the handler to restore at the end of the run (the one
    before ``catch``'s, where it set one)."""
    previous = signal.signal(sig, handler)
    return _replaced.pop(sig, previous)


def received() -> str | None:
    """The signal recorded before the plugin's hooks ran, if one was (said once: a run that
    pytester starts in the same process must not inherit it)."""
    name = _received[0] if _received else None
    _received.clear()
    return name
