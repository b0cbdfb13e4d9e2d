"""Folders published whole: a zoo, the embedded default's copy, the masked LM.

Each is written into a private folder beside its place (``.<name>.build-<pid>-<random>``)
under the place's file lock, and renamed into place only when complete, so no reader ever sees
half of one; what a crashed writer left is removed by the next one that holds the lock.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def remove_leftovers(root: Path) -> None:
    """Temp dirs of builds that crashed (we hold the lock, so none is live)."""
    for pattern in (f".{root.name}.build-*", f".{root.name}.old-*"):
        for path in root.parent.glob(pattern):
            shutil.rmtree(path, ignore_errors=True)


def swap_into_place(tmp: Path, root: Path) -> None:
    # rename() cannot replace a non-empty directory, so move the old zoo
    # aside first; the window without a root only sends readers to the lock.
    old = root.parent / f".{root.name}.old-{os.getpid()}"
    if root.exists():
        root.rename(old)
    tmp.rename(root)
    shutil.rmtree(old, ignore_errors=True)
