"""One process computes a model's large cold pass; another process that needs the same model
at the same time waits for its rows instead of computing them again.

Under ``-n 2`` each model's items run on one worker, but the comparison items (all on one
worker: Benjamini-Hochberg needs every comparison of the run) need both models of a dataset.
When they start while a model's own worker is still in its first pass, they computed the same
~170,000 inputs a second time (a fresh main job, 2026-11-26: mrpc/albert twice, 40 s of a
worker).  The lock lies beside the prediction cache file (``<cache>.locks/<fingerprint>.lock``),
so only processes that share that file meet there; without a cache nothing is shared and
nothing waits.

Only ever a wait, never a fault: a lock that cannot be made, or that another process holds
longer than ``WAIT_S``, lets this process compute the rows itself.  The operating system
releases the lock of a process that dies, so a killed worker never blocks another.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

WAIT_S = 15 * 60.0  # longer than any one model's cold pass on 2 cores (the largest: ~70 s)


@contextlib.contextmanager
def computing(cache_path: Path, fingerprint: str) -> Iterator[bool]:
    """Held while this process computes ``fingerprint``'s rows.  Yields whether it waited for
    another process first: the caller then reads what that one stored before computing."""
    waited = False
    try:
        folder = cache_path.with_name(cache_path.name + ".locks")
        folder.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(folder / f"{fingerprint}.lock"))
        try:
            lock.acquire(timeout=0)
        except Timeout:
            waited = True
            lock.acquire(timeout=WAIT_S)
    except (OSError, Timeout):
        yield waited
        return
    try:
        yield waited
    finally:
        lock.release()
