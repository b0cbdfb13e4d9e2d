"""Persistent prediction cache: a re-run of an unchanged model does no forward pass.

Two tables per model fingerprint: ``predictions`` (probabilities per exact input) and
``outcomes`` (a finished CheckList test's outcome, keyed by what determines it: the suite
file, the test, sample, seed and the harness code).  With both, a re-run of unchanged models
neither predicts nor re-evaluates CheckList's expectations.

Entries are keyed by a model *fingerprint* (weights content or hub commit, tokenizer files,
label mapping, dtype, max length, device type) and the exact input.  Any change of the
fingerprint simply misses.  SQLite in WAL mode lets concurrent xdist workers read and write
one file safely; the file is bounded by evicting the least recently used fingerprints.

Default location: ``<cache dir>/predictions.sqlite`` (``NLP_GATE_CACHE``, default
``<repo>/.cache``); ``--nlp-prediction-cache off`` disables it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
# Not in typeshed nor json's documentation, but what json.dumps itself calls for a str
# (the C encoder, since Python 2.6); tests/test_prediction_cache.py checks they agree.
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

import numpy as np

_SCHEMA = """
CREATE TABLE IF NOT EXISTS predictions (
    fingerprint TEXT NOT NULL,
    input TEXT NOT NULL,
    probs BLOB NOT NULL,
    PRIMARY KEY (fingerprint, input)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS outcomes (
    fingerprint TEXT NOT NULL,
    key TEXT NOT NULL,
    outcome TEXT NOT NULL,
    PRIMARY KEY (fingerprint, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS fingerprints (
    fingerprint TEXT PRIMARY KEY,
    description TEXT NOT NULL,
    last_used REAL NOT NULL
);
"""
_CHUNK = 500  # SQLite limits the number of bound parameters per statement
# Eviction frees down to this share of the bound, so that the one VACUUM it costs (a copy of
# the whole file) comes once per tenth of the bound written, not after every put.
_EVICT_TO = 0.9
_WAL_LIMIT = 64 << 20  # what a checkpointed write-ahead log is truncated to
_TIMEOUT_S = 60.0  # how long a worker waits for another one's write lock


def fingerprint(parts: dict[str, object], files: Iterable[Path]) -> str:
    """sha256 over the described settings and the content of ``files`` (sorted by name)."""
    h = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode())
    for path in sorted(files, key=lambda p: p.name):
        h.update(path.name.encode())
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def input_key(x: Hashable) -> str:
    """Exact, unambiguous text key of one input (a text or a pair of texts): its JSON text,
    ``json.dumps(x, ensure_ascii=False)``.

    Texts and pairs of texts are encoded with the json module's own string encoder, which is
    what ``json.dumps`` calls for them, without its per-call setup: a third of the time, for
    the same key (a suite asks ~170k keys of each model).
    """
    if isinstance(x, str):
        return encode_basestring(x)
    if isinstance(x, tuple) and all(isinstance(part, str) for part in x):
        return "[" + ", ".join(map(encode_basestring, x)) + "]"
    return json.dumps(x, ensure_ascii=False)


def _enable_wal(db: sqlite3.Connection) -> None:
    """Put the file in WAL mode (persistent, so usually already done).

    Converting needs exclusive access and SQLite answers "database is locked" at once instead
    of waiting for the busy timeout, so two xdist workers opening a new cache file together
    would fail to load their models: retry until the timeout.
    """
    deadline = time.monotonic() + _TIMEOUT_S
    while db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        try:
            db.execute("PRAGMA journal_mode=WAL")
        except sqlite3.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)  # another worker is converting or writing the file


class PredictionCache:
    def __init__(self, path: Path, max_bytes: int = 512 << 20) -> None:
        self.path = path
        self.max_bytes = max_bytes
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=_TIMEOUT_S, isolation_level=None)
        _enable_wal(self._db)
        self._db.execute("PRAGMA synchronous=NORMAL")
        # Without a limit the log keeps the size of the largest transaction it ever held: a
        # VACUUM of a 2 GiB cache left a 2 GiB log beside it.
        self._db.execute(f"PRAGMA journal_size_limit={_WAL_LIMIT}")
        self._db.executescript(_SCHEMA)

    def knows(self, fp: str) -> bool:
        """Whether anything is stored for this fingerprint."""
        return self._db.execute("SELECT 1 FROM fingerprints WHERE fingerprint=?",
                                (fp,)).fetchone() is not None

    def get(self, fp: str, keys: Sequence[str], width: int) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(keys), _CHUNK):
            chunk = keys[start:start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT input, probs FROM predictions WHERE fingerprint=? AND input IN ({marks})",
                (fp, *chunk))
            for key, blob in rows:
                row = np.frombuffer(blob, dtype=np.float32)
                if row.shape == (width,):
                    found[key] = row.copy()
        return found

    def put(self, fp: str, description: str, items: Sequence[tuple[str, np.ndarray]]) -> None:
        # In key order, rows are appended to the primary key's B-tree instead of inserted
        # all over it: a quarter less time for a suite's ~170k rows.
        with self._transaction():
            self._db.executemany(
                "INSERT OR REPLACE INTO predictions VALUES (?, ?, ?)",
                ((fp, key, np.asarray(row, dtype=np.float32).tobytes())
                 for key, row in sorted(items, key=lambda item: item[0])))
            self._db.execute("INSERT OR REPLACE INTO fingerprints VALUES (?, ?, ?)",
                             (fp, description, time.time()))
        self._evict()

    def get_outcome(self, fp: str, key: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT outcome FROM outcomes WHERE fingerprint=? AND key=?",
                               (fp, key)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def put_outcome(self, fp: str, description: str, key: str, outcome: dict[str, Any]) -> None:
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO outcomes VALUES (?, ?, ?)",
                             (fp, key, json.dumps(outcome)))
            self._db.execute("INSERT OR REPLACE INTO fingerprints VALUES (?, ?, ?)",
                             (fp, description, time.time()))

    def touch(self, fp: str, description: str) -> None:
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO fingerprints VALUES (?, ?, ?)",
                             (fp, description, time.time()))

    def _pragma(self, name: str) -> int:
        value: int = self._db.execute(f"PRAGMA {name}").fetchone()[0]
        return value

    def _evict(self) -> None:
        """Drop least recently used fingerprints until the file is under its bound.

        Deleting frees pages but does not shrink the file; only VACUUM does, by copying every
        page still in use.  So the oldest fingerprints go in one transaction, until the pages
        in use fit ``_EVICT_TO`` of the bound, and one VACUUM follows: once per eviction, not
        once per fingerprint (which, with a full cache of many models, copied the file over
        and over and grew the log by its size each time)."""
        page_size = self._pragma("page_size")
        if self._pragma("page_count") * page_size <= self.max_bytes:
            return
        with self._transaction():
            while ((self._pragma("page_count") - self._pragma("freelist_count")) * page_size
                   > self.max_bytes * _EVICT_TO):
                oldest = self._db.execute(
                    "SELECT fingerprint FROM fingerprints ORDER BY last_used LIMIT 1").fetchone()
                if oldest is None:
                    break
                self._db.execute("DELETE FROM predictions WHERE fingerprint=?", oldest)
                self._db.execute("DELETE FROM outcomes WHERE fingerprint=?", oldest)
                self._db.execute("DELETE FROM fingerprints WHERE fingerprint=?", oldest)
        self._db.execute("VACUUM")
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        # BEGIN IMMEDIATE takes the write lock up front, so two workers never deadlock
        # upgrading read locks; the connection's timeout makes the other one wait.
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def close(self) -> None:
        self._db.close()
