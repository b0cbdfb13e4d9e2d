"""The word-embedding distance before the sentence encoder, where the order cannot matter.

A2T (``A2TYoo2021``) lists its sentence encoder (SBERT; offline, MiniLM over the whole
text) before ``WordEmbeddingDistance(min_cos_sim=0.8)``, and TextAttack filters the
candidates through the constraints in that order: every candidate is embedded, and then
nearly all of them fail the embedding distance, a table lookup.  The a2t-offline items
made about one model query per example and spent most of their time in the encoder.

``install`` gives such an attack a ``_filter_transformations_uncached`` that asks the
embedding distances first and the encoder only about the candidates left.  The survivors
and their order are those TextAttack gets, because:

* every constraint judges each candidate on its own against the same reference text: a
  ``WordEmbeddingDistance`` reads the two texts' words and the candidate's
  ``newly_modified_indices``, which the encoder does not touch, and the MiniLM encoder's
  score of a candidate is that of embeddings made alone, in any company
  (``minilm.MiniLMSentenceEncoder._score_list``), so it does not depend on which
  candidates it is scored with;
* each constraint keeps the candidates it passes in their order, and moves those it is not
  compatible with to the end: the shortcut is taken only where every constraint is
  compatible with every candidate's transformation, so the survivors are those passing
  all constraints, in candidate order, whatever the order of the constraints.

The constraint cache gets the same entries, in the same order (every candidate False, then
the survivors True).  The encoder sets ``similarity_score`` only on the candidates it
scores, the survivors among them with the same value; the others are rejected either way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def install(attack: Any) -> bool:
    """Reorder ``attack``'s filtering where that cannot change it; True if it did."""
    from textattack.constraints.semantics import WordEmbeddingDistance

    from nlp_gate.kinds.attacks.minilm import MiniLMSentenceEncoder

    constraints = list(attack.constraints)
    if not all(isinstance(c, (WordEmbeddingDistance, MiniLMSentenceEncoder)) for c in constraints):
        return False
    cheap = [c for c in constraints if isinstance(c, WordEmbeddingDistance)]
    encoders = [c for c in constraints if isinstance(c, MiniLMSentenceEncoder)]
    if cheap + encoders == constraints:  # already in that order
        return False
    attack._filter_transformations_uncached = _reordered(attack, cheap + encoders)
    return True


def _reordered(attack: Any, order: list[Any]) -> Callable[..., list[Any]]:
    eager = type(attack)._filter_transformations_uncached.__get__(attack)

    def filter_uncached(
        transformed_texts: list[Any], current_text: Any, original_text: Any = None
    ) -> list[Any]:
        transformations = {
            id(t): t
            for t in (text.attack_attrs.get("last_transformation") for text in transformed_texts)
        }
        if (
            None in transformations.values()
            or (not original_text and any(c.compare_against_original for c in order))
            or not all(c.check_compatibility(t) for c in order for t in transformations.values())
        ):
            texts: list[Any] = eager(transformed_texts, current_text, original_text=original_text)
            return texts
        filtered = transformed_texts[:]
        for constraint in order:
            if not filtered:
                break
            reference = original_text if constraint.compare_against_original else current_text
            filtered = constraint.call_many(filtered, reference)
        # As TextAttack's: every candidate False, then the survivors True.
        for text in transformed_texts:
            attack.constraints_cache[(current_text, text)] = False
        for text in filtered:
            attack.constraints_cache[(current_text, text)] = True
        return filtered

    return filter_uncached
