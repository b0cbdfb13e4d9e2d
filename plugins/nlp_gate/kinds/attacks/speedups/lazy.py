"""Filtering only the candidates a greedy search can still query.

TextAttack's ``BeamSearch`` (``GreedySearch`` is its beam of one) filters every candidate of a
step through the constraints, sorts the survivors by text and hands them to the goal
function, which queries the model with the first ``budget - queries so far`` of them and
ends the search there if that used the budget up.  CLARE's first step makes about 1,700
candidates, nearly all of which pass its sentence encoder, with at most 499 queries left,
and ends every example there (budget 500): over two thirds of the encoder's work, which
was most of the item's time, judged candidates that could not be queried.

``install`` gives such an attack a filter that judges the candidates in the order the
survivors would be sorted in, in chunks, until as many have passed as can be queried:
the goal function then receives the same first candidates and the search goes exactly as
before.  Only where that is sure:

* the search is a ``BeamSearch`` of width one (it takes one ``get_transformations`` call's
  survivors, in their order, straight to the goal function; a wider beam queries the
  concatenation of several calls);
* the goal function has a query budget (without one every survivor is queried), checked
  at each step: the ``Attacker`` sets it after the build;
* every constraint judges each candidate on its own against the original text, and gives
  the same answer in any company: the MiniLM sentence encoder, whose scores are those
  of embeddings made alone (``minilm.MiniLMSentenceEncoder._score_list``).  TextAttack's
  own encoders batch with padding, and
  some language-model constraints rank candidates against each other.

TextAttack's constraint cache (per step's current text, cleared per example) is used and
filled as ``Attack.filter_transformations`` does, for the candidates judged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MIN_CHUNK = 32  # candidates judged per round once most of what is needed has passed


def install(attack: Any) -> bool:
    """Give ``attack`` the lazy filter where it cannot change the attack; True if it did."""
    from textattack.search_methods import BeamSearch

    from nlp_gate.kinds.attacks.minilm import MiniLMSentenceEncoder

    if not (
        isinstance(attack.search_method, BeamSearch)
        and attack.search_method.beam_width == 1
        and attack.constraints
        and all(
            isinstance(c, MiniLMSentenceEncoder) and c.compare_against_original
            for c in attack.constraints
        )
    ):
        return False
    attack.filter_transformations = _lazy_filter(attack)
    return True


def _lazy_filter(attack: Any) -> Callable[..., list[Any]]:
    eager = type(attack).filter_transformations.__get__(attack)

    def filter_transformations(
        transformed_texts: list[Any], current_text: Any, original_text: Any = None
    ) -> list[Any]:
        goal = attack.goal_function  # its budget is the Attacker's, set after the build
        wanted = goal.query_budget - goal.num_queries
        if not 0 < wanted < float("inf"):  # every survivor is queried, or none: TextAttack's
            texts: list[Any] = eager(transformed_texts, current_text, original_text)
            return texts
        texts = [t for t in transformed_texts if t.text != current_text.text]
        cache = attack.constraints_cache
        verdict: dict[int, bool] = {}
        for i, text in enumerate(texts):  # promoted in the cache in this order, as TextAttack
            key = (current_text, text)
            if key in cache:
                cache[key] = cache[key]
                verdict[i] = bool(cache[key])
        # TextAttack's order of the survivors: a stable sort by text of the cached ones, then
        # the others, each in candidate order (every constraint here takes every candidate).
        order = sorted(range(len(texts)), key=lambda i: (texts[i].text, i not in verdict))
        passed: list[Any] = []
        at = 0
        while at < len(order) and len(passed) < wanted:
            chunk = order[at : at + max(wanted - len(passed), MIN_CHUNK)]
            at += len(chunk)
            judged = [texts[i] for i in chunk if i not in verdict]
            survivors = {
                id(t)
                for t in attack._filter_transformations_uncached(
                    judged, current_text, original_text=original_text
                )
            }
            passed += [
                texts[i]
                for i in chunk
                if (verdict[i] if i in verdict else id(texts[i]) in survivors)
            ]
        return passed

    return filter_transformations
