"""The packed form of a pass's tokens (``Encoded``) and how a pass builds it (``Packer``, in
chunks of ``ENCODE_CHUNK`` inputs).  Shared by the engine's two ways of tokenizing a pass:
input by input (``batching.encode``) and, for pairs, text by text (``pair_encoding.encode_pairs``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Encoded:
    """A pass's inputs tokenized once, unpadded and packed: input ``i``'s tokens of feature
    ``name`` are ``flat[name][starts[i]:starts[i] + lengths[i]]``.  Packed arrays of the
    smallest unsigned type that holds them (16 bits for the ids of most vocabularies, 8 for
    token types) take a twentieth of the memory of the tokenizer's lists of Python ints, so a
    pass of a whole suite (and the ``Encodings`` kept for the next model) stays small: ~40
    MiB for a QQP suite's pairs in int32, ~14 MiB packed so."""

    lengths: np.ndarray
    starts: np.ndarray
    flat: dict[str, np.ndarray]
    truncated: int = 0  # inputs longer than max_length, cut to it (counted for the report)


# Inputs per tokenizer call: bounds what one call leaves alive at once (the tokenizer's
# encodings, their Python lists of ids).  Freed memory mostly stays with the process (glibc
# keeps it), so a chunk's size shows in the peak RSS: a suite's ~165k inputs peaked 200-500
# MiB higher in chunks of 16384 than of 1024, at the same CPU time (the same packed arrays;
# docs/measurements/performance.md, "Where a cold run's memory goes").
ENCODE_CHUNK = 1024
# And every this many chunks, the freed memory is handed back (glibc's malloc_trim): the
# tokenizer's threads free theirs into arenas glibc keeps.  A QQP suite's 167,357 pairs (the
# zoo's ALBERT tokenizer, one process): peak +94 MiB without, +78 MiB every 8 chunks, +74
# every chunk.
TRIM_EVERY = 8


class Packer:
    """Non-negative ints appended a chunk at a time into one array, in the smallest unsigned
    type that holds all of them.

    The array is allocated once for ``bound`` values (every input at ``max_length`` tokens),
    or in doublings past 2**24 of them; only the pages written become resident, so a pass's
    tokens are held once while they are packed.  Joining per-chunk arrays at the end held
    them twice: ~15 MiB more at a QQP pass's peak, the peak of a cold run.
    """

    def __init__(self, bound: int) -> None:
        self._values = np.empty(max(1, min(bound, 1 << 24)), dtype=np.uint8)
        self._size = 0

    def append(self, chunk: np.ndarray) -> None:
        end = self._size + len(chunk)
        dtype = self._values.dtype
        if len(chunk):
            dtype = np.promote_types(dtype, np.min_scalar_type(int(chunk.max())))
        size = len(self._values) if end <= len(self._values) else max(end, 2 * len(self._values))
        if size != len(self._values) or dtype != self._values.dtype:
            # Full, or widened (once per type, at the first chunk that needs it): a new
            # array, the values so far copied over.
            grown = np.empty(size, dtype=dtype)
            grown[: self._size] = self._values[: self._size]
            self._values = grown
        self._values[self._size : end] = chunk
        self._size = end

    def array(self) -> np.ndarray:
        return self._values[: self._size]
