"""A damaged, edited or full prediction cache never falsifies a verdict (issue #29, point 3).

Its fast tests; the slow ones, and the story, in ``tests/integration/test_fault_cache.py``."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from fixtures.cache_file import cache_sql
from nlp_gate.config.profiles import cli_profile
from nlp_gate.engine.function_model import FunctionClassifier
from nlp_gate.engine.prediction_cache import PredictionCache
from nlp_gate.engine.prediction_cache_db import PredictionCacheWarning
from nlp_gate.engine.predictor import LoadOptions

# -- the same faults on the engine directly -----------------------------------------------
SPEC = cli_profile(["sentiment=mymod:predict@v1"]).models[0]
TEXTS = [f"text number {i} " + "word " * 30 for i in range(400)]


def _predict(texts: list[str]) -> list[list[float]]:
    return [[len(t) % 7 / 10, 1 - len(t) % 7 / 10] for t in texts]


def _engine(cache: Path) -> FunctionClassifier:
    return FunctionClassifier(SPEC, _predict, LoadOptions(cache=cache), PredictionCache(cache))


def _cache_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, PredictionCacheWarning)]


def test_a_file_cut_to_half_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    first = _engine(path)
    truth = first.predict_proba(TEXTS)
    first.cache.close()  # type: ignore[union-attr]  # not None here (else the test fails)
    with path.open("r+b") as f:
        f.truncate(path.stat().st_size // 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        engine = _engine(path)
        assert np.array_equal(engine.predict_proba(TEXTS), truth)
        assert np.array_equal(engine.predict_proba(TEXTS[::-1]), truth[::-1])
    said = _cache_warnings(caught)
    assert len(said) == 1 and "is damaged" in said[0] and str(path) in said[0], said
    assert engine.forward_count == len(TEXTS)
    assert list(tmp_path.glob("cache.sqlite.corrupt-*"))


def test_a_full_disk_stops_the_cache_not_the_run(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    engine = _engine(path)
    cache = engine.cache
    assert cache is not None and cache._db is not None
    # No page more than the file has: the first put is "database or disk is full".
    pages = cache._db.execute("PRAGMA page_count").fetchone()[0]
    cache._db.execute(f"PRAGMA max_page_count={pages}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = engine.predict_proba(TEXTS[:200])
        second = engine.predict_proba(TEXTS)
    assert np.array_equal(second[:200], first)
    assert np.array_equal(second, np.array(_predict(TEXTS)))
    said = _cache_warnings(caught)
    assert len(said) == 1 and "database or disk is full" in said[0], said
    assert cache.broken and engine.forward_count == len(TEXTS)


def test_a_cache_of_the_old_layout_is_rebuilt_not_trusted(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    with cache_sql(path) as db:  # the layout before checksums (user_version 0)
        db.execute(
            "CREATE TABLE predictions (fingerprint TEXT NOT NULL, input TEXT NOT NULL, "
            "probs BLOB NOT NULL, PRIMARY KEY (fingerprint, input)) WITHOUT ROWID"
        )
        db.execute(
            "INSERT INTO predictions VALUES ('fp', '\"x\"', ?)",
            (np.array([0.5, 0.5], dtype=np.float32).tobytes(),),
        )
    cache = PredictionCache(path)
    assert cache.get("fp", ['"x"'], 2) == {}
    cache.put("fp", "model", [('"x"', np.array([0.25, 0.75]))])
    assert cache.get("fp", ['"x"'], 2)['"x"'].tolist() == [0.25, 0.75]
    cache.close()
