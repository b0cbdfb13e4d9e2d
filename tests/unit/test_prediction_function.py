"""Any classifier: a models-file entry ``predict: module:function`` (here the pure-Python word
list classifier of ``fixtures/lexicon_model.py``, nothing to pin) beside a zoo checkpoint in
one profile gets CheckList, comparison and attack items, the prediction cache keyed by its
declared fingerprint, and one clear message when it returns something that is not class
probabilities.

Its fast tests; the slow ones, and the story, in
``tests/integration/test_prediction_function.py``."""

from __future__ import annotations

import pytest


def test_a_negative_probability_is_called_so() -> None:
    from nlp_gate.config.profiles import load_profile
    from nlp_gate.engine.function_model import PredictionError, validate_rows

    spec = load_profile("paper").get("sst2", "bert")
    with pytest.raises(
        PredictionError,
        match=r"a negative probability \(1 of 2; row 1 is "
        r"\[1.5, -0.5\]\)",
    ):
        validate_rows(spec, [[0.5, 0.5], [1.5, -0.5]], 2)
