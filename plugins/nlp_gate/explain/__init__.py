"""Why an example failed: word attributions toward the class wanted and the class predicted.

``explain_example`` scores each word of an input (``words_of``: the text's words and
punctuation, a pair's first text then its second) toward two classes of the task: the one the
expectation wanted (``target``) and the one the model predicted.  Two methods:

* ``integrated_gradients``: Captum's integrated gradients over the input embeddings of a
  checkpoint (``gradients.py``: baseline, steps, sub-word pieces summed to words);
* ``occlusion``: each word deleted, every variant through ``Classifier.predict_proba`` (memo and
  cache included; ``occlusion.py``), for every source a run can gate.

Scores are signed (positive: the word pushes toward the class), normalised per example so that
the largest magnitude is 1 (all zero when no word moves the class), rounded to 4 places.  The
same input gives the same scores in any process.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nlp_gate import extras
from nlp_gate.engine.predictor import Classifier
from nlp_gate.explain import words as _words
from nlp_gate.explain.words import Example, Texts

METHODS = ("integrated_gradients", "occlusion")
DECIMALS = 4


@dataclass(frozen=True)
class WordScores:
    words: list[str]  # the input's words in order (a pair: first text's, then second's)
    parts: list[int]  # 0 = first text, 1 = second text of a pair
    scores: list[float]  # signed, normalised per example (max |score| = 1), rounded to 4 places

    def top(self, k: int, candidates: list[int] | None = None) -> list[int]:
        """The indices of the ``k`` highest scores among ``candidates`` (default: every
        word), ties broken by position (the earlier word first)."""
        pool = list(range(len(self.words))) if candidates is None else candidates
        return sorted(pool, key=lambda i: (-self.scores[i], i))[:k]


@dataclass(frozen=True)
class Explanation:
    method: str  # "integrated_gradients" or "occlusion"
    target: int  # task-class index the expectation wanted
    predicted: int  # task-class index the model predicted
    toward_target: WordScores
    toward_predicted: WordScores

    def as_record(self) -> dict[str, Any]:
        """JSON for results.json: the words once, the two score lists beside them."""
        return {
            "method": self.method,
            "target": self.target,
            "predicted": self.predicted,
            "words": list(self.toward_target.words),
            "parts": list(self.toward_target.parts),
            "toward_target": list(self.toward_target.scores),
            "toward_predicted": list(self.toward_predicted.scores),
        }


def words_of(example: Texts) -> WordScores:
    """The words of ``example`` (scores all 0)."""
    spans = _words.spans(example)
    return WordScores([s.text for s in spans], [s.part for s in spans], [0.0] * len(spans))


def differing_words(original: Texts, perturbed: Texts) -> list[int]:
    """Word indices of ``perturbed`` (as ``words_of`` numbers them) that differ from
    ``original``: replaced or inserted words (``words.differing``)."""
    return _words.differing(original, perturbed)


def gradients_available(classifier: Classifier) -> bool:
    """Whether integrated gradients can explain ``classifier``: a checkpoint (a torch model
    behind it, on either backend), a fast tokenizer (its offsets map pieces to words) and
    Captum installed (the [explain] extra)."""
    if classifier.backend not in ("torch", "onnx") or not extras.EXPLAIN.available:
        return False
    return bool(getattr(classifier.tokenizer, "is_fast", False))


def normalised(raw: np.ndarray) -> list[float]:
    """``raw`` divided by its largest magnitude, rounded; +0.0 for every zero."""
    peak = float(np.max(np.abs(raw))) if raw.size else 0.0
    scaled = raw / peak if peak > 0 else np.zeros_like(raw)
    return [float(round(v, DECIMALS)) + 0.0 for v in scaled.tolist()]


def explain_example(
    classifier: Classifier,
    example: Example,
    target: int,
    predicted: int,
    method: str | None = None,
) -> Explanation:
    """Word attributions of ``example`` toward ``target`` and toward ``predicted`` (task class
    indices).  ``method`` None: integrated gradients when ``gradients_available``, else
    occlusion."""
    example = tuple(example) if isinstance(example, list) else example  # CheckList's pairs
    if method is None:
        method = "integrated_gradients" if gradients_available(classifier) else "occlusion"
    if method not in METHODS:
        raise ValueError(f"unknown explanation method {method!r}; one of {', '.join(METHODS)}")
    spans = _words.spans(example)
    classes = list(dict.fromkeys([target, predicted]))
    if method == "integrated_gradients":
        extras.require([extras.Need(extras.EXPLAIN, "integrated gradients were asked for")])
        if classifier.backend not in ("torch", "onnx"):
            raise ValueError(
                f"{classifier.spec.key} is not a checkpoint: integrated gradients need its "
                "torch model; use occlusion"
            )
        from nlp_gate.explain.gradients import integrated_gradients

        raw = integrated_gradients(classifier, example, spans, classes)
    else:
        from nlp_gate.explain.occlusion import occlusion

        raw = occlusion(classifier, example, spans, classes)
    scored = dict(zip(classes, raw))
    words = [s.text for s in spans]
    parts = [s.part for s in spans]
    return Explanation(
        method,
        target,
        predicted,
        WordScores(words, parts, normalised(scored[target])),
        WordScores(list(words), list(parts), normalised(scored[predicted])),
    )


__all__ = [
    "METHODS",
    "Explanation",
    "WordScores",
    "differing_words",
    "explain_example",
    "gradients_available",
    "words_of",
]
