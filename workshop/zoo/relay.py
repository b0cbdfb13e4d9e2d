"""The stages of a zoo build's worker processes (``build.SpawnPool``): each worker's reporter
sends its stages' events to the parent (``forward_to``), whose ``Relay`` replays them on its
own reporter (``nlp_gate.progress``'s)."""

from __future__ import annotations

import itertools
import os
import time
from typing import Any, Protocol

from nlp_gate.progress import FORWARD_S, Clock, Reporter, Stage, current, use


class EventQueue(Protocol):
    """What a ``multiprocessing.SimpleQueue`` offers: ``put`` returns once the event is in
    the pipe, so every event of a job has been sent when the job's result arrives."""

    def put(self, obj: Any, /) -> None: ...

    def get(self) -> Any: ...

    def empty(self) -> bool: ...


class QueueReporter(Reporter):
    """A worker process's reporter: its stages' events, to the parent's ``Relay``."""

    def __init__(
        self, queue: EventQueue, clock: Clock = time.monotonic, interval: float = FORWARD_S
    ) -> None:
        super().__init__(clock)
        self.queue = queue
        self.interval = interval
        self._ids = itertools.count()
        self._keys: dict[int, str] = {}
        self._sent: dict[int, float] = {}

    def started(self, stage: Stage) -> None:
        key = f"{os.getpid()}-{next(self._ids)}"
        self._keys[id(stage)] = key
        self._sent[id(stage)] = self.clock()
        self.queue.put(("start", key, stage.started_at, stage.name, stage.total, stage.unit))

    def advanced(self, stage: Stage) -> None:
        now = self.clock()
        if now - self._sent.get(id(stage), now) >= self.interval:
            self._sent[id(stage)] = now
            self.queue.put(("advance", self._keys[id(stage)], stage.done, stage.detail))

    def finished(self, stage: Stage) -> None:
        self._sent.pop(id(stage), None)
        key = self._keys.pop(id(stage))
        self.queue.put(("end", key, stage.done, stage.detail, stage.failed, stage.ended_at))


def forward_to(queue: EventQueue) -> None:
    """A worker process's initializer: its stages report to the parent through ``queue``."""
    use(QueueReporter(queue))


class Relay:
    """The parent's side of ``forward_to``: its workers' stages, replayed on its reporter.

    A stage starts and ends when its worker said (``time.monotonic`` is one clock for all
    processes of a machine); the parent writes its lines as the events arrive, when it
    ``pump``s (a waiting parent polls every fraction of a second)."""

    def __init__(self, queue: EventQueue, reporter: Reporter | None = None) -> None:
        self.queue = queue
        self.reporter = reporter if reporter is not None else current()
        self._stages: dict[str, Stage] = {}

    def pump(self) -> None:
        """Replay the events that arrived, then the heartbeats that are due."""
        while not self.queue.empty():
            self._replay(self.queue.get())
        self.reporter.tick()

    def close(self) -> None:
        """What arrived last; a stage whose worker ended without ending it failed."""
        while not self.queue.empty():
            self._replay(self.queue.get())
        for stage in self._stages.values():
            stage.finish(failed=True)
        self._stages.clear()

    def _replay(self, event: tuple[Any, ...]) -> None:
        kind, key, *rest = event
        if kind == "start":
            at, name, total, unit = rest
            stage = Stage(name, total, unit, self.reporter)
            stage.started_at = at
            self.reporter.started(stage)
            self._stages[key] = stage
            return
        found = self._stages.get(key)
        if found is None:
            return
        stage = found
        stage.done, stage.detail = rest[0], rest[1]
        if kind == "advance":
            self.reporter.advanced(stage)
        else:
            del self._stages[key]
            stage.finish(failed=bool(rest[2]), at=rest[3])
