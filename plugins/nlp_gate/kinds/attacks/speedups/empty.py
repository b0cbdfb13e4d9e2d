"""Remembering, per example, which word of which text a genetic search cannot swap.

TextAttack's ``GeneticAlgorithm._perturb`` (Alzantot's and the faster variant's) draws a
word at random and asks ``get_transformations(text, original_text=...,
indices_to_modify=[idx])`` for its swaps; when none survives the constraints it draws again,
up to once per swappable word, and a member is perturbed again and again over the
generations.  ``indices_to_modify`` is a list, so the key of TextAttack's own transformation
cache is unhashable and never used: on alzantot-offline nearly all calls (12,396 of 13,332
over three RTE examples) repeat an earlier call that found no swap, and make the same
candidates and filter them again.

``install`` gives such a search a ``get_transformations`` that remembers the calls that
returned no candidate, keyed by TextAttack's own notion of the same call (its cache key: the
current ``AttackedText``, whose equality compares the text and its ``attack_attrs``, the
original text and the keyword arguments), and answers a repeat with an empty list without
asking again.  The search goes exactly as before, because:

* the answer is a function of that key: the transformation is a ``WordSwapEmbedding`` (the
  nearest neighbours of a word, no randomness), the pre-transformation constraints
  (``RepeatModification``, ``StopwordModification``, ``InputColumnModification``) read the
  current text's words, column labels and ``modified_indices``, and the constraints
  (``MaxWordsPerturbed``,
  ``WordEmbeddingDistance``) judge each candidate by its words, its ``attack_attrs`` and the
  original text, with deterministic answers; the search's random generator is not used
  inside ``get_transformations``;
* an empty answer is only counted by the search (``iterations += 1``): no candidate object
  of the skipped call could have been kept or queried;
* what the skipped call would have done besides is bookkeeping whose answers do not depend
  on it: it would have refreshed or added entries of TextAttack's LRU constraint cache and
  the distance's cache, whose evictions can only turn a later hit into a miss or back, and
  a miss recomputes the same deterministic verdict.

The memo is emptied whenever the attack clears its caches (after every example, as
TextAttack's constraint cache), so it never outlives the original text it was filled for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def install(attack: Any) -> bool:
    """Give ``attack``'s genetic search the memo of empty answers; True if it did."""
    from textattack.constraints.overlap import MaxWordsPerturbed
    from textattack.constraints.pre_transformation import (
        InputColumnModification,
        RepeatModification,
        StopwordModification,
    )
    from textattack.constraints.semantics import WordEmbeddingDistance
    from textattack.search_methods.genetic_algorithm import GeneticAlgorithm
    from textattack.transformations import WordSwapEmbedding

    if not (
        isinstance(attack.search_method, GeneticAlgorithm)
        and type(attack.transformation) is WordSwapEmbedding
        and all(
            type(c) in (RepeatModification, StopwordModification, InputColumnModification)
            for c in attack.pre_transformation_constraints
        )
        and all(type(c) in (MaxWordsPerturbed, WordEmbeddingDistance) for c in attack.constraints)
    ):
        return False
    empty: set[Any] = set()
    attack.search_method.get_transformations = _remembering(
        attack.search_method.get_transformations, empty
    )
    clear_cache = attack.clear_cache

    def clear_cache_and_memo(*args: Any, **kwargs: Any) -> None:
        empty.clear()
        clear_cache(*args, **kwargs)

    attack.clear_cache = clear_cache_and_memo
    return True


def _remembering(
    get_transformations: Callable[..., list[Any]], empty: set[Any]
) -> Callable[..., list[Any]]:
    def remembering(current_text: Any, original_text: Any = None, **kwargs: Any) -> list[Any]:
        key = (
            current_text,
            original_text,
            tuple(sorted((k, _hashable(v)) for k, v in kwargs.items())),
        )
        if key in empty:
            return []
        transformed = get_transformations(current_text, original_text=original_text, **kwargs)
        if not transformed:
            empty.add(key)
        return transformed

    return remembering


def _hashable(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return frozenset(value)
    return tuple(value) if isinstance(value, list) else value
