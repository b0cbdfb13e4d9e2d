"""The user's numbers, unchanged (issue #28, point 5).

A function's float64 probabilities keep their precision through the memo, the prediction cache
and the expectation: for a model whose p(positive) sits exactly on CheckList's neutral-band
edges (1/3, 2/3), the plugin's fail counts equal CheckList's own ``run`` + ``get_stats`` on
the function's outputs, converted to three classes by the snippet CheckList's README gives for
binary sentiment models (copied below to the letter, not the project's code).  A float32 cast
moves 2/3 off the edge: a row CheckList reads as negative (no branch of its snippet takes
p == 2/3) became neutral.

Its slow tests: ``tests/integration/test_user_function_precision.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nlp_gate.engine.keys import input_key
from nlp_gate.engine.prediction_cache import PredictionCache


def test_the_cache_returns_float64_rows_bit_for_bit(tmp_path: Path) -> None:
    cache = PredictionCache(tmp_path / "cache.sqlite")
    rows = [(input_key("edge"), np.array([1 / 3, 2 / 3])),
            (input_key("checkpoint"), np.array([0.25, 0.75], dtype=np.float32))]
    cache.put("fp", "model", rows)
    got = cache.get("fp", [k for k, _ in rows], 2)
    cache.close()
    for key, row in rows:
        assert got[key].dtype == row.dtype and got[key].tobytes() == row.tobytes()
