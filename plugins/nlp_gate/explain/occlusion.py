"""Word occlusion through the engine: how much each word holds up a class's probability.

A thin loop rather than Captum's ``FeatureAblation``: that ablates tensor features of a torch
forward, but an occlusion here must work for every source a run can gate (prediction
functions, endpoints, pyfuncs), which take texts.  So each word is deleted from the text (with
one whitespace beside it), and every variant goes to ``Classifier.predict_proba`` in one call:
batched, answered by the engine's memo and persistent cache when it has seen them.  A word's
score toward class c: p_c(input) - p_c(input without the word).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nlp_gate.engine.predictor import Classifier
from nlp_gate.explain.words import Example, Span, without


def occlusion(
    classifier: Classifier, example: Example, words: Sequence[Span], classes: Sequence[int]
) -> list[np.ndarray]:
    """Per task class of ``classes``: each word's occlusion score (float64, unnormalised)."""
    variants = [example, *(without(example, span) for span in words)]
    # float64 whatever the engine's rows: a float32 checkpoint and a float64 function that
    # return the same probabilities give the same differences.
    rows = np.asarray(classifier.predict_proba(variants), dtype=np.float64)
    return [rows[0, c] - rows[1:, c] for c in classes]
