"""Building test cases from CheckList templates, shared by the capability files.

``filled`` fills templates one at a time (a list passed to ``Editor.template`` would join
them into one multi-sentence case).  ``swapped`` makes invariance cases from templates that
know their own slots: fill a template, then swap the value of one slot (a name, a city, a
group) for others -- CheckList's ``Perturb.change_names`` and ``change_location`` do this on
spaCy parses; a template knows the value it put in, so no parser (and no hub model) is
needed.  ``article`` and ``tidy`` keep the filled texts grammatical."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from typing import Any

from nlp_gate.native import editor


def filled(templates: Iterable[Any], nsamples: int, **fills: Any) -> list[Any]:
    """Each template filled ``nsamples`` times (two slots of one lexicon, ``{x}`` and
    ``{x1}``, never get the same value), concatenated; tuple templates give pairs."""
    data: list[Any] = []
    for template in templates:
        data += editor.template(template, nsamples=nsamples, remove_duplicates=True, **fills).data
    return data


def article(noun: str) -> str:
    """The noun with its indefinite article ("a doctor", "an engineer")."""
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def tidy(text: str) -> str:
    """One final period where a slot already ends with one ("Washington, D.C.")."""
    return text.replace("..", ".")


def swap(item: Any, old: str, new: str) -> Any:
    """``old`` replaced by ``new`` as a whole word, in a text or in both texts of a pair."""
    if isinstance(item, tuple):
        return tuple(swap(text, old, new) for text in item)
    return re.sub(rf"(?<!\w){re.escape(old)}(?!\w)", new, item)


def swapped(
    templates: list[Any], slot: str, pool: tuple[str, ...], nsamples: int, k: int = 3, **fills: Any
) -> list[list[Any]]:
    """INV cases: each filled template, then ``k`` copies with its ``slot`` value replaced by
    other values drawn from ``pool`` (which also fills the slot unless ``fills`` does)."""
    fills.setdefault(slot, list(pool))
    cases = []
    for template in templates:
        t = editor.template(template, nsamples=nsamples, meta=True, **fills)
        for item, meta in zip(t.data, t.meta):
            current = str(meta[slot])
            others = random.sample([p for p in pool if p != current], k)
            cases.append([item, *(swap(item, current, o) for o in others)])
    return cases
