"""A model's large cold pass is computed by one process; another that needs the same model
at the same time waits for its rows (issue 32: the comparison items' worker computed
mrpc/albert's 170,000 inputs again while the model's own worker was computing them)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from nlp_gate.config.profiles import cli_profile
from nlp_gate.engine import pass_lock
from nlp_gate.engine.function_model import FunctionClassifier
from nlp_gate.engine.prediction_cache import PredictionCache
from nlp_gate.engine.predictor import LoadOptions

SPEC = cli_profile(["sentiment=mymod:predict@v1"]).models[0]
TEXTS = [f"text number {i}" for i in range(1000)]  # more than a batch: a cold pass


def _rows(texts: list[str]) -> list[list[float]]:
    return [[len(t) % 7 / 10, 1 - len(t) % 7 / 10] for t in texts]


def _engine(cache: Path, predict=_rows) -> FunctionClassifier:  # type: ignore[no-untyped-def]  # a test helper taking callables
    return FunctionClassifier(SPEC, predict, LoadOptions(cache=cache), PredictionCache(cache))


def test_a_second_engine_waits_for_the_first_and_computes_nothing(tmp_path: Path) -> None:
    cache = tmp_path / "predictions.sqlite"
    started = threading.Event()
    engines: dict[str, FunctionClassifier] = {}
    answers: dict[str, np.ndarray] = {}

    def slow(texts: list[str]) -> list[list[float]]:
        started.set()
        time.sleep(0.05)  # a pass of 8 batches: long enough for the second engine to ask
        return _rows(texts)

    def run(name: str, predict) -> None:  # type: ignore[no-untyped-def]  # a test helper taking callables
        # Each thread its own engine and SQLite connection, as each xdist worker has.
        engines[name] = _engine(cache, predict)
        answers[name] = engines[name].predict_proba(TEXTS)

    first = threading.Thread(target=run, args=("first", slow))
    first.start()
    assert started.wait(10)
    second = threading.Thread(target=run, args=("second", _rows))
    second.start()
    first.join(30)
    second.join(30)
    assert engines["first"].forward_count == len(TEXTS)
    assert engines["second"].forward_count == 0  # before: 1000, the same pass twice
    assert engines["second"].cache_hits == len(TEXTS)
    assert np.array_equal(answers["second"], answers["first"])
    assert np.array_equal(answers["first"], np.array(_rows(TEXTS)))


def test_small_passes_and_engines_without_a_cache_never_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    real = pass_lock.computing

    def computing(path: Path, fingerprint: str):  # type: ignore[no-untyped-def]  # a test helper taking callables
        asked.append(fingerprint)
        return real(path, fingerprint)

    monkeypatch.setattr(pass_lock, "computing", computing)
    engine = _engine(tmp_path / "predictions.sqlite")
    small = engine.predict_proba(TEXTS[:10])  # an attack's queries: under a batch
    assert np.array_equal(small, np.array(_rows(TEXTS[:10])))
    uncached = FunctionClassifier(SPEC, _rows, LoadOptions(cache=None), None)
    assert uncached.predict_proba(TEXTS).shape == (len(TEXTS), 2)
    assert asked == []
    engine.predict_proba(TEXTS)  # the large pass does ask
    assert asked == [engine.fingerprint]


def test_a_lock_that_cannot_be_made_lets_the_process_compute(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")  # where the lock folder would go, a file: mkdir fails
    with pass_lock.computing(blocked / "predictions.sqlite", "f" * 64) as waited:
        assert waited is False
