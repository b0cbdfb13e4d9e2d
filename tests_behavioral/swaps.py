"""Invariance cases from templates that know their own slots: fill a template, then swap the
value of one slot (a name, a city, a group) for others.  CheckList's ``Perturb.change_names``
and ``change_location`` do this on spaCy parses; a template knows the value it put in, so
no parser (and no hub model) is needed."""

from __future__ import annotations

import random
import re
from typing import Any

from nlp_gate.native import editor


def swap(item: Any, old: str, new: str) -> Any:
    """``old`` replaced by ``new`` as a whole word, in a text or in both texts of a pair."""
    if isinstance(item, tuple):
        return tuple(swap(text, old, new) for text in item)
    return re.sub(rf"(?<!\w){re.escape(old)}(?!\w)", new, item)


def swapped(templates: list[Any], slot: str, pool: tuple[str, ...], nsamples: int,
            k: int = 3, **fills: Any) -> list[list[Any]]:
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
