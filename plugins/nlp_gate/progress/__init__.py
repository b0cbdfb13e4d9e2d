"""Progress of long stages (a zoo build, a model's cold predictions): signs of life and costs.

    with Stage("zoo: sst2/bert: fine-tuning", total=300, unit="steps") as stage:
        for batch in batches:
            ...
            stage.advance()

A stage reports to the process's ``Reporter`` (``current()``), which whoever owns the output
chooses once (``use``): the zoo and attack CLIs (stderr; none under ``--quiet``), the pytest
plugin (``nlp_gate.pytest_plugin.terminal_progress``: its terminal, past pytest's output
capture; none under ``-q``), a worker of the zoo's workshop builds (``workshop/zoo/relay.py``:
its parent, which prints).

How it looks (``TextReporter``): on an interactive terminal the running stages share one line,
rewritten in place (count, rate, ETA), and a stage leaves one line when it ends; elsewhere (CI
logs, pipes) a stage writes a line when it starts, a line at most every ``HEARTBEAT_S`` while
it runs, and a line when it ends, with what it cost.  Throttled by ``time.monotonic``, with no
thread: a stage reports when it advances, and a process waiting on others (``Relay``) ticks.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from typing import IO, Protocol, Self

Clock = Callable[[], float]

# Non-interactive output promises a line at least every 30 s while a stage runs: a stage that
# advances writes one at most every HEARTBEAT_S; one that does not is ticked by its waiter.
HEARTBEAT_S = 20.0
REDRAW_S = 0.2  # an interactive line is redrawn at most this often
FORWARD_S = 0.5  # a worker sends its parent a stage's count at most this often


class Stage:
    """One long step: ``total`` (None when unknown) ``unit`` to do, ``advance``d as they are
    done; a context manager whose exit ends it (failed, when an exception leaves it)."""

    def __init__(
        self,
        name: str,
        total: int | None = None,
        unit: str = "items",
        reporter: Reporter | None = None,
    ) -> None:
        self.name = name
        self.total = total
        self.unit = unit
        self.reporter = reporter if reporter is not None else current()
        self.done = 0
        self.detail = ""  # a free note shown after the count (e.g. a running accuracy)
        self.failed = False
        self.started_at = 0.0
        self.ended_at: float | None = None

    def __enter__(self) -> Self:
        self.started_at = self.reporter.clock()
        self.reporter.started(self)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        self.finish(failed=exc_type is not None)

    def advance(self, n: int = 1, detail: str | None = None) -> None:
        self.done += n
        if detail is not None:
            self.detail = detail
        self.reporter.advanced(self)

    def finish(self, failed: bool = False, at: float | None = None) -> None:
        """End the stage (once), at ``at`` (default: now)."""
        if self.ended_at is None:
            self.ended_at = self.reporter.clock() if at is None else at
            self.failed = failed
            self.reporter.finished(self)

    @property
    def elapsed(self) -> float:
        end = self.ended_at if self.ended_at is not None else self.reporter.clock()
        return max(0.0, end - self.started_at)

    @property
    def rate(self) -> float | None:
        """Units per second so far (None before the first, or with no time spent)."""
        elapsed = self.elapsed
        return self.done / elapsed if self.done and elapsed > 0 else None

    @property
    def eta(self) -> float | None:
        """Seconds left at the rate so far (None without a total or a rate)."""
        rate = self.rate
        if self.total is None or rate is None:
            return None
        return max(0, self.total - self.done) / rate


class Reporter:
    """Where stages report.  This base reports nothing (quiet); see ``TextReporter``."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self.clock = clock

    def started(self, stage: Stage) -> None:
        pass

    def advanced(self, stage: Stage) -> None:
        pass

    def finished(self, stage: Stage) -> None:
        pass

    def tick(self) -> None:
        """Time passed with no stage advancing (a waiter calls it): heartbeats that are due."""


class Sink(Protocol):
    """A terminal, as a reporter writes to it."""

    def line(self, text: str) -> None:
        """A finished line (replacing the live line, if one is shown)."""

    def live(self, text: str) -> None:
        """The line rewritten in place (interactive only); empty text clears it."""


class StreamSink:
    """A text stream: ``stream``, or stderr as ``sys.stderr`` is at each write (pytest swaps
    it while capturing).  ``fresh_line``: start every finished line on a line of its own, for
    a stream that another process writes to mid-line (an xdist worker's stderr, where the
    controller writes its progress dots)."""

    def __init__(self, stream: IO[str] | None = None, fresh_line: bool = False) -> None:
        self.stream = stream
        self.fresh_line = fresh_line
        self._live = False

    def line(self, text: str) -> None:
        lead = "\r\x1b[K" if self._live else "\n" if self.fresh_line else ""
        self._write(f"{lead}{text}\n")
        self._live = False

    def live(self, text: str) -> None:
        self._write(f"\r{text}\x1b[K")
        self._live = bool(text)

    def _write(self, text: str) -> None:
        stream = self.stream or sys.stderr
        stream.write(text)
        stream.flush()


class TextReporter(Reporter):
    """Stages as text on ``sink`` (module docstring: interactive or line by line)."""

    def __init__(
        self,
        sink: Sink,
        *,
        interactive: bool = False,
        clock: Clock = time.monotonic,
        heartbeat: float = HEARTBEAT_S,
        redraw: float = REDRAW_S,
        width: Callable[[], int] = lambda: shutil.get_terminal_size().columns,
    ) -> None:
        super().__init__(clock)
        self.sink = sink
        self.interactive = interactive
        self.heartbeat = heartbeat
        self.redraw = redraw
        self.width = width
        self._active: list[Stage] = []
        self._last: dict[int, float] = {}  # id(stage) -> when its last line went out
        self._wrote_at = float("-inf")  # when any line went out
        self._drawn_at: float | None = None  # when the live line was last drawn

    def started(self, stage: Stage) -> None:
        self._active.append(stage)
        self._last[id(stage)] = stage.started_at
        if self.interactive:
            self._draw()
        else:
            size = f" ({stage.total} {stage.unit})" if stage.total is not None else ""
            self._line(f"{stage.name}: started{size}")

    def advanced(self, stage: Stage) -> None:
        now = self.clock()
        if self.interactive:
            if self._drawn_at is None or now - self._drawn_at >= self.redraw:
                self._draw()
        elif now - self._last.get(id(stage), now) >= self.heartbeat:
            # A stage with nothing to count (building, tokenizing) only keeps a quiet log
            # alive: another stage's line says as much.
            if stage.total is None and not stage.done and now - self._wrote_at < self.heartbeat:
                return
            self._last[id(stage)] = now
            self._line(running_text(stage))

    def finished(self, stage: Stage) -> None:
        if stage in self._active:
            self._active.remove(stage)
        self._last.pop(id(stage), None)
        self._line(finished_text(stage))
        if self.interactive and self._active:
            self._draw()

    def tick(self) -> None:
        if self.interactive:
            if self._active:
                self.advanced(self._active[0])
            return
        for stage in list(self._active):
            self.advanced(stage)

    def _line(self, text: str) -> None:
        self._wrote_at = self.clock()
        self.sink.line(text)

    def _draw(self) -> None:
        self._drawn_at = self.clock()
        if len(self._active) == 1:
            text = running_text(self._active[0])
        else:  # several share the line: each in short, the first's name prefix said once
            prefix = self._active[0].name.partition(": ")[0] + ": "
            text = " | ".join(
                short_text(s, prefix if i else "") for i, s in enumerate(self._active)
            )
        room = max(20, self.width() - 1)
        self.sink.live(text if len(text) <= room else text[: room - 1] + "…")


def running_text(stage: Stage) -> str:
    """``name: 120/300 steps (40%), 12.1 steps/s, ETA 14.9s, 9.9s elapsed; detail`` (what
    matters most first: a terminal's line is cut to its width)."""
    if stage.total is not None:
        percent = f" ({100 * stage.done // stage.total}%)" if stage.total else ""
        parts = [f"{stage.done}/{stage.total} {stage.unit}{percent}"]
    else:
        parts = [f"{stage.done} {stage.unit}"] if stage.done else []
    if stage.rate is not None:
        parts.append(_rate(stage.rate, stage.unit))
    if stage.eta is not None and stage.done < (stage.total or 0):
        parts.append(f"ETA {_duration(stage.eta)}")
    parts.append(f"{_duration(stage.elapsed)} elapsed")
    return f"{stage.name}: {', '.join(parts)}" + (f"; {stage.detail}" if stage.detail else "")


def short_text(stage: Stage, prefix: str = "") -> str:
    """``name 120/300 (40%), ETA 14.9s`` (``prefix`` left off the name): one of several
    stages on an interactive line."""
    name = stage.name.removeprefix(prefix)
    if stage.total is not None:
        percent = f" ({100 * stage.done // stage.total}%)" if stage.total else ""
        text = f"{name} {stage.done}/{stage.total}{percent}"
        if stage.eta is not None and stage.done < stage.total:
            text += f", ETA {_duration(stage.eta)}"
        return text
    count = f"{stage.done} {stage.unit}, " if stage.done else ""
    return f"{name} {count}{_duration(stage.elapsed)}"


def finished_text(stage: Stage) -> str:
    """``name: done in 24.8s, 300 steps (12.1 steps/s); detail`` (``failed after`` ...)."""
    text = (
        f"{stage.name}: {'failed after' if stage.failed else 'done in'} {_duration(stage.elapsed)}"
    )
    if stage.done:
        rate = f" ({_rate(stage.rate, stage.unit)})" if stage.rate is not None else ""
        text += f", {stage.done} {stage.unit}{rate}"
    return text + (f"; {stage.detail}" if stage.detail else "")


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    return f"{minutes // 60}h{minutes % 60:02d}m{secs:02d}s"


def _rate(rate: float, unit: str) -> str:
    """``12.1 steps/s``; below one every 10 s (models of a zoo build) ``one per 1m05s``."""
    if rate < 0.1:
        return f"one per {_duration(1 / rate)}"
    if round(rate, 1) >= 100:
        return f"{rate:.0f} {unit}/s"
    return f"{rate:.1f} {unit}/s" if round(rate, 2) >= 1 else f"{rate:.2f} {unit}/s"


# -- the process's reporter ------------------------------------------------------------------
_current: Reporter | None = None


def current() -> Reporter:
    """The process's reporter: as ``use`` set it, else stderr's (interactive on a terminal)."""
    global _current
    if _current is None:
        _current = TextReporter(StreamSink(), interactive=sys.stderr.isatty())
    return _current


def use(reporter: Reporter | None) -> Reporter | None:
    """Make ``reporter`` the process's (None: stderr's again, on first use); returns the one
    it replaces, for the caller to put back."""
    global _current
    previous, _current = _current, reporter
    return previous


def quiet() -> None:
    """No progress lines in this process (the CLIs' ``--quiet``)."""
    use(Reporter())


@contextlib.contextmanager
def using(reporter: Reporter) -> Iterator[Reporter]:
    """``reporter`` as the process's for the block (tests; nested runs)."""
    previous = use(reporter)
    try:
        yield reporter
    finally:
        use(previous)
