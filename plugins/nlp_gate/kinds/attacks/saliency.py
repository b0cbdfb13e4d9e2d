"""The seed's question, measured: does a recipe perturb the words the model attributes most?

The reference study saw "a correlation between the attack targets chosen by TextAttack
recipes and the token gradient norm weights" without measuring it.  For each successful attack
of an item: the original input is explained toward the class the model predicted for it
(``nlp_gate.explain``: integrated gradients on a checkpoint, occlusion on any other source);
its perturbed words are the original's words that differ from the adversarial text
(``differing_words``, word proper only: punctuation is neither perturbed nor ranked); with k of
them among the original's n words, the top-k attributed words (highest signed score toward the
original prediction, earlier word first on a tie) are compared with them.

* per-word hit rate: perturbed words among the top k, over all perturbed words of the item's
  successful attacks (sum of hits / sum of k);
* all in the top k: the share of attacks whose k perturbed words are exactly the top k.

Beside each, what a uniformly random choice of k of the n words gives, exactly: the number of
hits is hypergeometric (k drawn from n, k of them "perturbed"), mean k*k/n, so the random hit
rate is sum(k*k/n) / sum(k); the random choice is exactly the perturbed set with probability
1 / C(n, k).  An attack that perturbed no original word (an insertion only) has no k and is
counted in ``no_original_word``.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from nlp_gate.config.specs import ModelSpec
from nlp_gate.engine.predictor import Classifier
from nlp_gate.explain import differing_words, explain_example, gradients_available
from nlp_gate.explain import words as segmentation

DECIMALS = 4


@dataclass(frozen=True)
class AttackOverlap:
    """One successful attack: k perturbed of n words, ``hits`` of them among the top k."""

    words: int  # n: the original's words proper
    perturbed: int  # k
    hits: int

    @property
    def random_hits(self) -> float:
        """Expected hits of k words drawn uniformly without replacement (hypergeometric)."""
        return self.perturbed * self.perturbed / self.words

    @property
    def random_all(self) -> float:
        """Probability that k random words are exactly the perturbed ones."""
        return 1 / math.comb(self.words, self.perturbed)


@dataclass(frozen=True)
class SaliencyOverlap:
    """``saliency_overlap`` of an attack record (results.json)."""

    method: str  # integrated_gradients | occlusion
    attacks: int  # successful attacks measured
    no_original_word: int  # successful attacks that perturbed no word of the original
    perturbed_words: int  # sum of k
    hits: int  # perturbed words among the top k
    hit_rate: float | None  # hits / perturbed_words, percent
    random_hit_rate: float | None  # its expectation for random words, percent
    all_in_top_k: float | None  # attacks whose perturbed words are the top k, percent
    random_all_in_top_k: float | None  # its expectation for random words, percent
    seconds: float = 0.0  # spent explaining (not in the record's wall_time_s)

    def as_record(self) -> dict[str, Any]:
        return asdict(self)


def overlap_of(
    classifier: Classifier,
    original: Any,
    perturbed: Any,
    predicted: int,
    reached: int,
    method: str | None = None,
) -> AttackOverlap | None:
    """The overlap of one successful attack (None: no word of the original perturbed)."""
    spans = segmentation.spans(original)
    candidates = [i for i, s in enumerate(spans) if s.is_word]
    changed = sorted(set(differing_words(perturbed, original)) & set(candidates))
    if not changed:
        return None
    explanation = explain_example(classifier, original, reached, predicted, method)
    top = explanation.toward_predicted.top(len(changed), candidates)
    return AttackOverlap(len(candidates), len(changed), len(set(top) & set(changed)))


def _percent(value: float) -> float:
    return round(100 * value, DECIMALS - 2)


def summarize(method: str, overlaps: Sequence[AttackOverlap | None]) -> SaliencyOverlap:
    measured = [o for o in overlaps if o is not None]
    k = sum(o.perturbed for o in measured)
    n = len(measured)
    return SaliencyOverlap(
        method=method,
        attacks=n,
        no_original_word=len(overlaps) - n,
        perturbed_words=k,
        hits=sum(o.hits for o in measured),
        hit_rate=_percent(sum(o.hits for o in measured) / k) if k else None,
        random_hit_rate=_percent(sum(o.random_hits for o in measured) / k) if k else None,
        all_in_top_k=_percent(sum(o.hits == o.perturbed for o in measured) / n) if n else None,
        random_all_in_top_k=_percent(sum(o.random_all for o in measured) / n) if n else None,
    )


def saliency_overlap(
    classifier: Classifier, spec: ModelSpec, examples: Sequence[dict[str, Any]]
) -> SaliencyOverlap:
    """The item's figure over its successful adversarial examples (``run._example``'s dicts:
    ``original``/``perturbed`` texts, ``original_label``/``perturbed_label`` class names)."""
    start = time.perf_counter()
    classes = list(spec.task.classes)
    method = "integrated_gradients" if gradients_available(classifier) else "occlusion"
    overlaps = [
        overlap_of(
            classifier,
            _input(e["original"]),
            _input(e["perturbed"]),
            classes.index(e["original_label"]),
            classes.index(e["perturbed_label"]),
            method,
        )
        for e in examples
    ]
    return dataclasses.replace(
        summarize(method, overlaps), seconds=round(time.perf_counter() - start, 3)
    )


def attack_record_field(
    explain: str, classifier: Classifier, spec: ModelSpec, examples: Sequence[dict[str, Any]]
) -> dict[str, Any] | None:
    """The attack record's ``saliency_overlap``: None with ``--nlp-explain off`` (the model is
    not asked anything more) or without a successful attack."""
    if explain == "off" or not examples:
        return None
    return saliency_overlap(classifier, spec, examples).as_record()


def _input(texts: Sequence[str]) -> str | tuple[str, str]:
    return texts[0] if len(texts) == 1 else (texts[0], texts[1])
