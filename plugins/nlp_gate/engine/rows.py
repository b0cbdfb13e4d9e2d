"""A model's probability rows of this run, and handing freed memory back between batches.

``RowMemo`` is ``Classifier``'s memo: every input it has answered, so each unique input costs
at most one forward pass (or cache read) per run.  ``release_freed_memory`` is what the
forward pass calls every few batches.  Both exist for the peak RSS of a cold run
(docs/measurements/performance.md, "Where a cold run's memory goes").
"""

from __future__ import annotations

import ctypes
from collections.abc import Hashable, Sequence
from functools import cache
from typing import Any

import numpy as np


class RowMemo:
    """Each input's row in one growing table, and a dict from input to its row number.

    A dict of one small array per input (a view into its pass's output) costs ~110 bytes of
    array object for 8 bytes of probabilities: ~26 MiB per model of a suite's ~165k inputs,
    held for the whole run.  Here a row costs its 8 bytes and a dict entry.
    """

    def __init__(self, width: int, dtype: Any) -> None:
        self._index: dict[Hashable, int] = {}
        self._table = np.empty((0, width), dtype=dtype)

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._index

    def put(self, keys: Sequence[Hashable], rows: np.ndarray) -> None:
        """Store ``rows[i]`` as the row of ``keys[i]`` (keys not stored yet)."""
        start = len(self._index)
        end = start + len(keys)
        if end > len(self._table):  # grow by doubling: an attack adds a few rows at a time
            grown = np.empty((max(end, 2 * len(self._table), 1024), self._table.shape[1]),
                             dtype=self._table.dtype)
            grown[:start] = self._table[:start]
            self._table = grown
        self._table[start:end] = rows
        self._index.update(zip(keys, range(start, end)))

    def rows(self, keys: Sequence[Hashable]) -> np.ndarray:
        """The rows of ``keys`` (all stored), in order: a new array."""
        return self._table[np.fromiter((self._index[k] for k in keys), dtype=np.int64,
                                       count=len(keys))]


# A forward pass returns memory every this many batches: torch's intermediate tensors,
# of another shape at every batch width (inputs are length-sorted), leave the heap
# fragmented, and glibc keeps what they freed.  Measured on the zoo's sst2 models (one process,
# cold): a pass's peak 932 -> 823 MiB at every 50 batches, 802 MiB at every batch, which
# cost a fifth more time (the pages are faulted in again).
RELEASE_EVERY = 50


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
