"""Progress on pytest's terminal: the reporter of a pytest process (``install_for_pytest``),
written past pytest's output capture; none under ``-q``."""

from __future__ import annotations

import contextlib
import os
from typing import Any

import pytest

from nlp_gate.progress import Reporter, Stage, StreamSink, TextReporter, use


class PytestSink:
    """pytest's terminal, written with pytest's output capture suspended (progress comes
    mostly from inside an item's call, where capture is on).  On an xdist worker, whose
    stdout goes nowhere, the stderr it shares with the controller, line by line and marked
    with the worker's name; elsewhere pytest's terminal reporter, so that pytest's own line
    (its progress dots) is ended first."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.worker = (
            os.environ.get("PYTEST_XDIST_WORKER") if hasattr(config, "workerinput") else None
        )
        self.stream = StreamSink(fresh_line=True)
        self._live = False

    def line(self, text: str) -> None:
        with self._uncaptured():
            terminal = self._terminal()
            if self.worker is not None or terminal is None:
                self.stream.line(f"[{self.worker}] {text}" if self.worker else text)
            elif self._live:
                terminal.rewrite(text, erase=True)
                terminal.write("\n")
            else:
                terminal.write_line(text)
            if terminal is not None:
                terminal.flush()
        self._live = False

    def live(self, text: str) -> None:
        with self._uncaptured():
            terminal = self._terminal()
            if terminal is None:
                return
            if not self._live:
                terminal.ensure_newline()
            terminal.rewrite(text, erase=True)
            terminal.flush()
        self._live = bool(text)

    def interactive(self) -> bool:
        terminal = self._terminal()
        return self.worker is None and terminal is not None and bool(terminal.isatty)

    def _terminal(self) -> Any:
        return self.config.pluginmanager.getplugin("terminalreporter")

    def _uncaptured(self) -> contextlib.AbstractContextManager[Any]:
        # The capture manager's own switch (what pytest's live logging uses); with capture
        # off (-s, -p no:capture) there is nothing to suspend.
        capture = self.config.pluginmanager.getplugin("capturemanager")
        suspend = getattr(capture, "global_and_fixture_disabled", None)
        return suspend() if suspend is not None else contextlib.nullcontext()


def for_pytest(config: pytest.Config) -> Reporter:
    """The reporter of a pytest process: quiet under ``-q``; else pytest's terminal
    (interactive on a terminal without xdist, line by line elsewhere)."""
    if config.get_verbosity() < 0:
        return Reporter()
    return _PytestReporter(PytestSink(config))


def install_for_pytest(config: pytest.Config) -> None:
    """``for_pytest`` as the process's reporter until ``config`` ends (then the one before,
    for a run inside another: pytester's in-process runs)."""
    previous = use(for_pytest(config))

    def restore() -> None:
        use(previous)

    config.add_cleanup(restore)


class _PytestReporter(TextReporter):
    """Decides interactive at the first stage: pytest's terminal reporter is registered
    after the plugin's ``pytest_configure``, where this reporter is made."""

    def __init__(self, sink: PytestSink) -> None:
        super().__init__(sink)
        self._pytest_sink = sink
        self._decided = False

    def started(self, stage: Stage) -> None:
        if not self._decided:
            self.interactive = self._pytest_sink.interactive()
            self._decided = True
        super().started(stage)
