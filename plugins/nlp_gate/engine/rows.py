"""A model's probability rows of this run, and handing freed memory back between batches.

``RowMemo`` is ``Classifier``'s memo: every input it has answered, so each unique input costs
at most one forward pass (or cache read) per run.  Its row numbers come from an ``InputIndex``
that every model of a process shares.  ``release_freed_memory`` is what the forward pass calls
every few batches, and ``map_large_allocations`` what it calls once before its first.  All four
exist for the peak RSS of a cold run
(docs/measurements/performance.md, "Where a cold run's memory goes").
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Hashable, Sequence
from functools import cache
from typing import Any

import numpy as np


class InputIndex:
    """A row number for every input any model of this process has answered.

    The models of one suite are asked exactly the same ~170k inputs: one shared dict from
    input to row number (~75 bytes an input, its int object included) instead of one per
    model saves that much for every model after the first, ~12 MiB a model of a suite.
    Numbers are handed out in order and never taken back.
    """

    def __init__(self) -> None:
        self._ids: dict[Hashable, int] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def get(self, key: Hashable) -> int | None:
        return self._ids.get(key)

    def assign(self, keys: Sequence[Hashable]) -> np.ndarray:
        """The row numbers of ``keys``, new ones numbered next."""
        ids = self._ids
        setdefault = ids.setdefault
        # setdefault's default is len(ids) read before the call: the next free number.
        return np.fromiter((setdefault(k, len(ids)) for k in keys), dtype=np.int64, count=len(keys))

    def lookup(self, keys: Sequence[Hashable]) -> np.ndarray:
        """The row numbers of ``keys`` (all numbered)."""
        ids = self._ids
        return np.fromiter((ids[k] for k in keys), dtype=np.int64, count=len(keys))


class RowMemo:
    """One model's rows in a table indexed by the shared ``InputIndex``, and which of them
    it holds.

    A dict of one small array per input (a view into its pass's output) costs ~110 bytes of
    array object for 8 bytes of probabilities, and a dict per model ~75 bytes an input more:
    here a row costs its 8 bytes and a byte, for every input of the process (the other
    models' too: a table of the whole index stays a few MiB).
    """

    def __init__(self, width: int, dtype: Any, index: InputIndex | None = None) -> None:
        self.index = index if index is not None else InputIndex()
        self._table = np.empty((0, width), dtype=dtype)
        self._held = bytearray()  # 1 where the row of that number is this model's
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def __contains__(self, key: Hashable) -> bool:
        i = self.index.get(key)
        return i is not None and i < len(self._held) and self._held[i] == 1

    def missing(self, keys: Sequence[Hashable]) -> list[Hashable]:
        """The keys of ``keys`` without a row here, in order, repeats kept: ``k not in
        self`` for each, in one loop of C-level lookups (every item asks its whole test,
        ~1.9 M inputs over the Tables 2 + 3 workload, two method calls a key otherwise)."""
        number = self.index._ids.get
        held = self._held
        size = len(held)
        return [k for k in keys if (i := number(k)) is None or i >= size or held[i] != 1]

    def put(self, keys: Sequence[Hashable], rows: np.ndarray) -> None:
        """Store ``rows[i]`` as the row of ``keys[i]`` (keys not stored yet)."""
        ids = self.index.assign(keys)
        if len(self.index) > len(self._table):
            # Grow to the index, with room: an attack adds a few rows at a time.
            size = max(len(self.index), len(self._table) * 5 // 4, 1024)
            grown = np.empty((size, self._table.shape[1]), dtype=self._table.dtype)
            grown[: len(self._table)] = self._table
            self._table = grown
            self._held.extend(bytes(size - len(self._held)))
        self._table[ids] = rows
        np.frombuffer(self._held, dtype=np.uint8)[ids] = 1
        self._count += len(keys)

    def rows(self, keys: Sequence[Hashable]) -> np.ndarray:
        """The rows of ``keys`` (all stored), in order: a new array."""
        rows: np.ndarray = self._table[self.index.lookup(keys)]
        return rows


# A forward pass returns memory every this many batches: torch's intermediate tensors,
# of another shape at every batch width (inputs are length-sorted), leave the heap
# fragmented, and glibc keeps what they freed.  Measured on the zoo's sst2 models (one process,
# cold): a pass's peak 932 -> 823 MiB at every 50 batches, 802 MiB at every batch, which
# cost a fifth more time (the pages are faulted in again).
RELEASE_EVERY = 50


# Allocations of at least this many bytes get pages of their own (glibc's M_MMAP_THRESHOLD),
# which go back to the system the moment they are freed.  glibc's default threshold rises to
# 32 MiB as a program frees large blocks, so a forward pass's largest activations (a few MiB
# each, of another shape at every batch width) come from the heap instead and fragment it
# between trims.  Measured on the zoo's four sst2/qqp models, one process, cold: glibc's
# default 798 MiB peak in 119 s; 4 MiB 776 MiB in 99 s; 1 MiB 742 MiB in 141 s (every
# activation mapped anew: its pages faulted in again at every batch).
MMAP_THRESHOLD = 4 * 2**20
_M_MMAP_THRESHOLD = -3  # mallopt's parameter number, from glibc's malloc.h


@cache
def map_large_allocations() -> None:
    """Give large allocations pages of their own from now on (``MMAP_THRESHOLD``), once per
    process; nothing where the C library has no ``mallopt`` (macOS, musl), nor where the
    process was started with its own threshold (``MALLOC_MMAP_THRESHOLD_``, or
    ``GLIBC_TUNABLES`` naming it): that choice is the user's."""
    if "MALLOC_MMAP_THRESHOLD_" in os.environ or "mmap_threshold" in os.environ.get(
        "GLIBC_TUNABLES", ""
    ):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def release_freed_memory() -> None:
    """Hand the heap's free pages back to the system (glibc's ``malloc_trim``); nothing
    where the C library has no such call (macOS, musl)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim() -> Any | None:
    try:  # the process's own symbols, the C library's among them
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
