"""A pass's batches made ahead: tokenized and padded in parts (``parts``), in a background
thread (``produced``) while the model forwards the batches made before them.

On an accelerator the forward pass takes milliseconds and the CPU side (tokenizing, padding)
is the run: made in the same thread, the device waits while the next batches are tokenized,
and the CPU waits while the device computes.  The tokenizers library releases the GIL while
it encodes, and numpy while it pads, so a second thread overlaps them with the forward pass
(issue 60; docs/measurements/performance.md, "The CPU side off the accelerator's path").

Ahead of an accelerator, a pass is tokenized in parts of ``PASS_PART`` inputs, so that the
first batches are ready after a part's tokenizing rather than the whole pass's; each part is
sorted by length and padded on its own (``batching.padded_batches``), which keeps the
sorting's small padding.  On the CPU the pass is one part, sorted as a whole: its batches,
and so the float rounding of every row, are exactly those of a run before parts existed,
which the zoo's recorded outcomes and other CPUs' verdicts rest on.  Every batch is still
the tokenizer's own ``padding=True`` encoding of its inputs.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Generator, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from nlp_gate.engine.batching import padded_batches
from nlp_gate.engine.encoded import Encoded
from nlp_gate.engine.rows import release_freed_memory

# Inputs per part: a suite's pass (~170k inputs) is ~11 parts, so the device waits for the
# first part's tokenizing only (~1 s on a CPU core), and a part's ~130 batches are as tightly
# length-sorted as the whole pass's (a part holds hundreds of inputs of each token count).
PASS_PART = 16_384
# Parts made ahead of the one being forwarded: one is tokenized while another waits ready,
# so the device never waits for a part once the first is made.  Each holds its padded
# batches (int64): ~12 MiB for a part of the zoo's suites.
AHEAD = 1
_POLL = 0.1  # seconds between looks at the other thread's state while waiting on it

T = TypeVar("T")
Batch = tuple[np.ndarray, dict[str, np.ndarray]]


@dataclass(frozen=True)
class Part:
    """The padded batches of one part of a pass (indices into the whole pass's inputs) and
    how many of its inputs were cut to the maximum length."""

    batches: Iterable[Batch]
    truncated: int


def runs_ahead(device: str) -> bool:
    """Whether a pass's batches are made in a background thread on ``device``: on an
    accelerator, whose forward pass leaves the CPU free.  On the CPU the model's own threads
    already keep every core busy (``predictor.cpu_threads``), so a producer thread would only
    take turns with them; there the same parts are made in the calling thread."""
    return device.startswith("cuda")


def parts(
    tokenizer: Any,
    inputs: Sequence[Hashable],
    max_length: int,
    batch_size: int,
    token_budget: int | None,
    encode: Callable[[Sequence[Hashable]], Encoded],
    eager: bool,
) -> Generator[Part, None, None]:
    """``inputs`` in parts, each tokenized by ``encode`` (which may answer from
    ``Encodings``) and cut into padded batches; ``eager`` (made ahead of an accelerator):
    parts of ``PASS_PART`` padded at once, in the producer's thread; else the whole pass as
    one part, padded as the batches are asked for."""
    size = PASS_PART if eager else max(1, len(inputs))
    for start in range(0, len(inputs), size):
        part = inputs[start : start + size]
        encoded = encode(part)
        if len(part) > batch_size:
            # A part's tokenizing leaves freed memory kept by the allocator (its chunks' lists
            # of ids): returned before the batches add their own.
            release_freed_memory()
        batches = _offset(
            padded_batches(tokenizer, part, max_length, batch_size, encoded, token_budget), start
        )
        yield Part(list(batches) if eager else batches, encoded.truncated)


def _offset(batches: Iterator[Batch], start: int) -> Iterator[Batch]:
    for idx, features in batches:
        yield idx + start, features


def produced(source: Callable[[], Iterator[T]], ahead: int = AHEAD) -> Generator[T, None, None]:
    """``source()``'s items, made in a background thread at most ``ahead`` items ahead of the
    caller (a bounded queue).

    An exception raised by ``source`` is raised here, in the caller, after the items made
    before it; when the caller stops early (an error of its own, Ctrl-C) and closes the
    generator (``contextlib.closing``), the thread stops after the item under way and is
    waited for, so nothing keeps tokenizing behind a run that has moved on.  The caller
    waits in short polls, so Ctrl-C reaches it at once.
    """
    handoff: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=max(1, ahead))
    stop = threading.Event()

    def put(message: tuple[str, Any]) -> bool:
        while not stop.is_set():
            try:
                handoff.put(message, timeout=_POLL)
                return True
            except queue.Full:
                continue
        return False

    def run() -> None:
        try:
            for item in source():
                if not put(("item", item)):
                    return
            put(("end", None))
        except BaseException as exc:  # handed to the caller, which raises it
            put(("error", exc))

    thread = threading.Thread(target=run, name="nlp-gate batch producer", daemon=True)
    thread.start()
    try:
        while True:
            try:
                kind, value = handoff.get(timeout=_POLL)
            except queue.Empty:
                if not thread.is_alive() and handoff.empty():
                    raise RuntimeError("the batch producer ended without a word") from None
                continue
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value
    finally:
        stop.set()
        thread.join()
