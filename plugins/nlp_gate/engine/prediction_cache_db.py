"""The SQLite file beneath ``prediction_cache``: layout, connecting, and telling damage apart.

Split out of ``prediction_cache`` so the class there holds only the cache's reads and writes.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
import time
import warnings
from pathlib import Path

import numpy as np

# ``PRAGMA user_version`` of the current layout; a file of another one is emptied and rebuilt
# (2: rows carry their dtype and a checksum).
_SCHEMA_VERSION = 2
_TABLES = {
    "predictions": """CREATE TABLE predictions (
        fingerprint TEXT NOT NULL,
        input TEXT NOT NULL,
        probs BLOB NOT NULL,
        dtype TEXT NOT NULL,  -- numpy dtype of probs: float64 rows of a function stay float64
        checksum BLOB NOT NULL,
        PRIMARY KEY (fingerprint, input)
    ) WITHOUT ROWID""",
    "outcomes": """CREATE TABLE outcomes (
        fingerprint TEXT NOT NULL,
        key TEXT NOT NULL,
        outcome TEXT NOT NULL,
        checksum BLOB NOT NULL,
        PRIMARY KEY (fingerprint, key)
    ) WITHOUT ROWID""",
    "fingerprints": """CREATE TABLE fingerprints (
        fingerprint TEXT PRIMARY KEY,
        description TEXT NOT NULL,
        last_used REAL NOT NULL
    )""",
}
_DTYPES = {"f4": np.float32, "f8": np.float64}  # what a row's dtype column may name
_CHUNK = 500  # SQLite limits the number of bound parameters per statement
# Eviction frees down to this share of the bound, so that the one VACUUM it costs (a copy of
# the whole file) comes once per tenth of the bound written, not after every put.
_EVICT_TO = 0.9
_WAL_LIMIT = 64 << 20  # what a checkpointed write-ahead log is truncated to
_TIMEOUT_S = 60.0  # how long a worker waits for another one's write lock


class PredictionCacheWarning(UserWarning):
    """The prediction cache could not be used as it was (damaged, edited, full); the run's
    numbers are unaffected: what it could not answer was computed."""


# What this process already said, per cache file and fault: each is said once per run.
_SAID: set[tuple[str, str]] = set()


def _say_once(path: Path, fault: str, message: str) -> None:
    if (str(path), fault) not in _SAID:
        _SAID.add((str(path), fault))
        warnings.warn(message, PredictionCacheWarning, stacklevel=3)


def _checksum(*parts: str | bytes) -> bytes:
    """blake2b of the parts, each length-prefixed (no two splits of one byte string agree)."""
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little") + data)
    return h.digest()


def _moved(to: Path | None) -> str:
    return f"moved to {to}" if to else "moved aside by another process"


def _is_damage(exc: sqlite3.Error) -> bool:
    """Whether SQLite says the file's content is broken (not busy, full or unwritable)."""
    text = str(exc).lower()
    return any(s in text for s in ("malformed", "not a database", "decode", "corrupt"))


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


def _ensure_schema(db: sqlite3.Connection) -> None:
    """Create the tables, or rebuild a file of an older layout (its rows have no checksum and
    cannot be verified: they are dropped, not trusted).  In one write transaction, so two
    workers opening an old file rebuild it once."""
    if db.execute("PRAGMA user_version").fetchone()[0] == _SCHEMA_VERSION:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] != _SCHEMA_VERSION:
            for name, create in _TABLES.items():
                db.execute(f"DROP TABLE IF EXISTS {name}")
                db.execute(create)
            db.execute(f"PRAGMA user_version={_SCHEMA_VERSION}")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=_TIMEOUT_S, isolation_level=None)
    try:
        _enable_wal(db)
        db.execute("PRAGMA synchronous=NORMAL")
        # Without a limit the log keeps the size of the largest transaction it ever held: a
        # VACUUM of a 2 GiB cache left a 2 GiB log beside it.
        db.execute(f"PRAGMA journal_size_limit={_WAL_LIMIT}")
        _ensure_schema(db)
    except BaseException:
        db.close()
        raise
    return db
