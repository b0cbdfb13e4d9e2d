"""A folder of files used as a bounded, least-recently-used cache that processes share.

The token files of ``engine/batching.Encodings`` and the figures of
``kinds/checklist/plots`` are kept this way: written atomically (another xdist worker or a
concurrent run never reads half a file), marked on use, and pruned to the most recently used.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def publish(
    path: Path, write: Callable[[BinaryIO], object], keep: int, keep_bytes: int | None = None
) -> None:
    """Write ``path`` through ``write`` atomically, then keep only the ``keep`` most
    recently used files with its suffix in its folder, and (``keep_bytes``) only as many of
    them as fit that size together (the newest always stays)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.stem}.{os.getpid()}.tmp")
    with partial.open("wb") as f:
        write(f)
    partial.replace(path)
    stamped = []
    for other in path.parent.glob(f"*{path.suffix}"):
        with contextlib.suppress(FileNotFoundError):  # another process pruned it meanwhile
            stat = other.stat()
            stamped.append((stat.st_mtime, stat.st_size, other))
    total = 0
    for n, (_, size, old) in enumerate(sorted(stamped, reverse=True)):
        total += size
        if n >= keep or (n and keep_bytes is not None and total > keep_bytes):
            old.unlink(missing_ok=True)


def mark_used(path: Path) -> None:
    """Count ``path`` as just used, so pruning keeps it (a no-op if it was pruned)."""
    with contextlib.suppress(FileNotFoundError):
        os.utime(path)
