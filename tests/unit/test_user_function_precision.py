"""The user's numbers, unchanged (issue #28, point 5).

Its fast tests; the slow ones, and the story, in
``tests/integration/test_user_function_precision.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nlp_gate.engine.keys import input_key
from nlp_gate.engine.prediction_cache import PredictionCache


def test_the_cache_returns_float64_rows_bit_for_bit(tmp_path: Path) -> None:
    cache = PredictionCache(tmp_path / "cache.sqlite")
    rows = [
        (input_key("edge"), np.array([1 / 3, 2 / 3])),
        (input_key("checkpoint"), np.array([0.25, 0.75], dtype=np.float32)),
    ]
    cache.put("fp", "model", rows)
    got = cache.get("fp", [k for k, _ in rows], 2)
    cache.close()
    for key, row in rows:
        assert got[key].dtype == row.dtype and got[key].tobytes() == row.tobytes()
