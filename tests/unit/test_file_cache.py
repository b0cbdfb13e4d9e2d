"""The shared file cache's pruning: by count, and by size together (token files)."""

from __future__ import annotations

import os
from pathlib import Path

from nlp_gate.engine.file_cache import publish


def _write(folder: Path, name: str, size: int, keep: int, keep_bytes: int | None) -> None:
    publish(folder / f"{name}.npz", lambda f: f.write(b"x" * size), keep, keep_bytes)


def test_pruned_to_the_newest_by_count(tmp_path: Path) -> None:
    for n, name in enumerate("abcd"):
        _write(tmp_path, name, 10, keep=2, keep_bytes=None)
        os.utime(tmp_path / f"{name}.npz", (n, n))  # distinct ages: a oldest
    _write(tmp_path, "e", 10, keep=2, keep_bytes=None)
    assert sorted(p.stem for p in tmp_path.glob("*.npz")) == ["d", "e"]


def test_pruned_to_the_newest_that_fit_the_size(tmp_path: Path) -> None:
    for n, name in enumerate("abc"):
        _write(tmp_path, name, 40, keep=10, keep_bytes=None)
        os.utime(tmp_path / f"{name}.npz", (n, n))
    _write(tmp_path, "d", 40, keep=10, keep_bytes=100)  # d and c fit in 100 bytes, b does not
    assert sorted(p.stem for p in tmp_path.glob("*.npz")) == ["c", "d"]
    _write(tmp_path, "big", 500, keep=10, keep_bytes=100)  # the newest stays, alone
    assert [p.stem for p in tmp_path.glob("*.npz")] == ["big"]
    assert not list(tmp_path.glob("*.tmp"))
