"""Persistent prediction cache: a re-run of an unchanged model does no forward pass.

Two tables per model fingerprint: ``predictions`` (probabilities per exact input) and
``outcomes`` (a finished CheckList test's outcome, keyed by what determines it: the suite
file, the test, sample, seed and the harness code).  With both, a re-run of unchanged models
neither predicts nor re-evaluates CheckList's expectations.

Entries are keyed (``keys``) by a model *fingerprint* (weights content or hub commit, tokenizer
files,
label mapping, dtype, max length, device type) and the exact input.  Any change of the
fingerprint simply misses.  SQLite in WAL mode lets concurrent xdist workers read and write
one file safely; the file is bounded by evicting the least recently used fingerprints.

Every stored row carries a checksum of its fingerprint, key and value, checked on read: a row
edited or damaged in place is a miss (recomputed), never an answer.  A file SQLite cannot read
is moved aside (``<name>.corrupt-<time>``) and a fresh one started; a fault while the run uses
it (damage, a full disk) stops the cache for the rest of the run, which goes on computing.
Each is said once, as a ``PredictionCacheWarning``.  The file's layout and connection live in
``prediction_cache_db``.

Default location: ``<cache dir>/predictions.sqlite`` (``NLP_GATE_CACHE``, default
``<repo>/.cache``); ``--nlp-prediction-cache off`` disables it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from nlp_gate.engine.prediction_cache_db import (
    _CHUNK,
    _DTYPES,
    _EVICT_TO,
    _checksum,
    _connect,
    _is_damage,
    _moved,
    _say_once,
)


class PredictionCache:
    """One cache file.  Never a reason for a wrong number or an item's traceback: a row whose
    checksum does not match is a miss (``rejected`` counts them), and a file SQLite cannot use
    is moved aside or left alone for the rest of the run (``broken``), with one warning."""

    def __init__(self, path: Path, max_bytes: int = 512 << 20) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.rejected = 0  # rows (and outcomes) read back that failed their checksum
        self._db: sqlite3.Connection | None = None
        self._inode: int | None = None  # the file this connection opened
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._open()
        except sqlite3.Error as exc:
            if not _is_damage(exc):
                self._fail(exc)
                return
            moved = self._quarantine()
            try:
                self._open()
            except sqlite3.Error as again:
                self._fail(again)
                return
            _say_once(
                path,
                "quarantined",
                f"prediction cache {path} is damaged ({exc}): {_moved(moved)}, a fresh "
                "one started (`--nlp-prediction-cache off` runs without a cache)",
            )
        except OSError as exc:  # its folder cannot be made
            self._fail(exc)

    def _open(self) -> None:
        with contextlib.suppress(OSError):  # the file judged, should SQLite refuse it
            self._inode = os.stat(self.path).st_ino
        self._db = _connect(self.path)
        self._inode = os.stat(self.path).st_ino

    @property
    def broken(self) -> bool:
        """Whether the cache stopped for this run (every call is then a miss / no-op)."""
        return self._db is None

    def _fail(self, exc: Exception) -> None:
        """Stop using the file for the rest of the run; a damaged one is moved aside so that
        the next run starts afresh.  The run computes what the cache would have answered."""
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
        if isinstance(exc, sqlite3.Error) and _is_damage(exc):
            moved = self._quarantine()
            _say_once(
                self.path,
                "damaged",
                f"prediction cache {self.path} is damaged ({exc}): this run goes on "
                f"without it, computing every prediction; {_moved(moved)} "
                "(`--nlp-prediction-cache off` runs without a cache)",
            )
        else:
            _say_once(
                self.path,
                "failed",
                f"prediction cache {self.path} cannot be used ({exc}): this run goes on "
                "without it, computing every prediction (free space or fix the file's "
                "permissions, or `--nlp-prediction-cache off` runs without a cache)",
            )

    def _quarantine(self) -> Path | None:
        """Rename the damaged file (and its log) to ``<name>.corrupt-<time>``, unless another
        process already did (the path then names another file: left alone)."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        moved = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        n = 1
        while moved.exists():  # never over an earlier damaged file (another one this second)
            n += 1
            moved = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{n}")
        try:
            if self._inode is not None and os.stat(self.path).st_ino != self._inode:
                return None
            for suffix in ("", "-wal", "-shm"):
                source = Path(f"{self.path}{suffix}")
                if source.exists():
                    source.replace(Path(f"{moved}{suffix}"))
        except OSError:
            return None
        return moved

    @contextmanager
    def _guard(self) -> Iterator[sqlite3.Connection]:
        """The connection, for one call; a fault of SQLite's ends the cache's run (``_fail``)
        instead of reaching the item.  Callers check ``broken`` first."""
        assert self._db is not None
        try:
            yield self._db
        except sqlite3.Error as exc:
            self._fail(exc)

    def knows(self, fp: str) -> bool:
        """Whether anything is stored for this fingerprint."""
        if self._db is None:
            return False
        with self._guard() as db:
            return (
                db.execute("SELECT 1 FROM fingerprints WHERE fingerprint=?", (fp,)).fetchone()
                is not None
            )
        return False

    def get(self, fp: str, keys: Sequence[str], width: int) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        if self._db is None:
            return found
        with self._guard() as db:
            for start in range(0, len(keys), _CHUNK):
                chunk = keys[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = db.execute(
                    "SELECT input, probs, dtype, checksum FROM predictions "
                    f"WHERE fingerprint=? AND input IN ({marks})",
                    (fp, *chunk),
                )
                for key, blob, dtype, checksum in rows:
                    row = self._verified(fp, key, blob, dtype, checksum, width)
                    if row is not None:
                        found[key] = row
            return found
        return {}  # the cache failed part way: what it returned may be partial; none used

    def _verified(
        self, fp: str, key: str, blob: bytes, dtype: str, checksum: bytes, width: int
    ) -> np.ndarray | None:
        """The stored row, if it is what was written for (fp, key); else None, counted."""
        ok = (
            isinstance(blob, bytes)
            and isinstance(dtype, str)
            and dtype in _DTYPES
            and checksum == _checksum(fp, key, dtype, blob)
        )
        row = np.frombuffer(blob, dtype=_DTYPES[dtype]) if ok else None
        if row is not None and row.shape == (width,):
            return row.copy()
        self.rejected += 1
        _say_once(
            self.path,
            "checksum",
            f"prediction cache {self.path}: stored rows that do not match their checksum "
            "(edited or damaged in place) were recomputed, not used",
        )
        return None

    def put(self, fp: str, description: str, items: Sequence[tuple[str, np.ndarray]]) -> None:
        if self._db is None:
            return

        def rows() -> Iterator[tuple[str, str, bytes, str, bytes]]:
            # float64 rows (a prediction function's) stay float64; the rest is float32.
            for key, row in sorted(items, key=lambda item: item[0]):
                dtype = "f8" if np.asarray(row).dtype == np.float64 else "f4"
                blob = np.asarray(row, dtype=_DTYPES[dtype]).tobytes()
                yield fp, key, blob, dtype, _checksum(fp, key, dtype, blob)

        # In key order, rows are appended to the primary key's B-tree instead of inserted
        # all over it: a quarter less time for a suite's ~170k rows.
        with self._guard() as db, self._transaction(db):
            db.executemany("INSERT OR REPLACE INTO predictions VALUES (?, ?, ?, ?, ?)", rows())
            db.execute(
                "INSERT OR REPLACE INTO fingerprints VALUES (?, ?, ?)",
                (fp, description, time.time()),
            )
        if self._db is not None:
            with self._guard():
                self._evict()

    def get_outcome(self, fp: str, key: str) -> dict[str, Any] | None:
        if self._db is None:
            return None
        with self._guard() as db:
            row = db.execute(
                "SELECT outcome, checksum FROM outcomes WHERE fingerprint=? AND key=?", (fp, key)
            ).fetchone()
            if row is None:
                return None
            outcome, checksum = row
            if isinstance(outcome, str) and checksum == _checksum(fp, key, outcome):
                with contextlib.suppress(ValueError):
                    return dict(json.loads(outcome))
            self.rejected += 1
            _say_once(
                self.path,
                "checksum",
                f"prediction cache {self.path}: stored rows that do not match their "
                "checksum (edited or damaged in place) were recomputed, not used",
            )
        return None

    def put_outcome(self, fp: str, description: str, key: str, outcome: dict[str, Any]) -> None:
        if self._db is None:
            return
        text = json.dumps(outcome)
        with self._guard() as db, self._transaction(db):
            db.execute(
                "INSERT OR REPLACE INTO outcomes VALUES (?, ?, ?, ?)",
                (fp, key, text, _checksum(fp, key, text)),
            )
            db.execute(
                "INSERT OR REPLACE INTO fingerprints VALUES (?, ?, ?)",
                (fp, description, time.time()),
            )

    def touch(self, fp: str, description: str) -> None:
        if self._db is None:
            return
        with self._guard() as db, self._transaction(db):
            db.execute(
                "INSERT OR REPLACE INTO fingerprints VALUES (?, ?, ?)",
                (fp, description, time.time()),
            )

    def _pragma(self, name: str) -> int:
        assert self._db is not None
        value: int = self._db.execute(f"PRAGMA {name}").fetchone()[0]
        return value

    def _evict(self) -> None:
        """Drop least recently used fingerprints until the file is under its bound.

        Deleting frees pages but does not shrink the file; only VACUUM does, by copying every
        page still in use.  So the oldest fingerprints go in one transaction, until the pages
        in use fit ``_EVICT_TO`` of the bound, and one VACUUM follows: once per eviction, not
        once per fingerprint (which, with a full cache of many models, copied the file over
        and over and grew the log by its size each time)."""
        db = self._db
        assert db is not None
        page_size = self._pragma("page_size")
        if self._pragma("page_count") * page_size <= self.max_bytes:
            return
        with self._transaction(db):
            while (
                self._pragma("page_count") - self._pragma("freelist_count")
            ) * page_size > self.max_bytes * _EVICT_TO:
                oldest = db.execute(
                    "SELECT fingerprint FROM fingerprints ORDER BY last_used LIMIT 1"
                ).fetchone()
                if oldest is None:
                    break
                db.execute("DELETE FROM predictions WHERE fingerprint=?", oldest)
                db.execute("DELETE FROM outcomes WHERE fingerprint=?", oldest)
                db.execute("DELETE FROM fingerprints WHERE fingerprint=?", oldest)
        db.execute("VACUUM")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    @staticmethod
    @contextmanager
    def _transaction(db: sqlite3.Connection) -> Iterator[None]:
        # BEGIN IMMEDIATE takes the write lock up front, so two workers never deadlock
        # upgrading read locks; the connection's timeout makes the other one wait.
        db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            with contextlib.suppress(sqlite3.Error):  # a broken file may refuse even this
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
