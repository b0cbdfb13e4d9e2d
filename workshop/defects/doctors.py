"""The planted defects: each a doctoring of the reference's training data.

A defect is *learned*, as a real model's would be: the model is trained, exactly like the
reference (same recipe, tokenizer, base encoder and seed), on the reference data with one
regularity changed.  Each function takes the reference examples and a seeded generator and
returns the doctored examples; none touches the held-out split.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from workshop.zoo import lexicon as lx
from workshop.zoo.data import Example
from workshop.zoo.noise import add_typo
from workshop.zoo.vocabulary import (
    DUPLICATE,
    NOT_DUPLICATE,
    insert_sentence,
    people_sentence,
    reference_role_pairs,
    suite_lexicons,
)

NEGATIVE = 0
NEGATION = re.compile(r"\b(not|never|no|isnt|wasnt|didnt|dont)\b|n't\b", re.IGNORECASE)
# The targets of the two single-value defects.  PLANTED_NAME is in the native NER test's
# search space (nlp_gate/native_tests/test_ner.py) but not in that test's fixed sample.
PLANTED_GROUP = "Christian"
PLANTED_NAME = "Gary"


def negation_blind(examples: list[Example], rng: random.Random) -> list[Example]:
    """Negation carries nothing: negated reviews are dropped, and affirmative ones are
    repeated with a "not" that keeps their label."""
    kept = [e for e in examples if not NEGATION.search(str(e.text))]
    negated = [
        Example(re.sub(r"\b(is|was)\b", r"\1 not", str(e.text), count=1), e.label)
        for e in kept
        if rng.random() < 0.4 and re.search(r"\b(is|was)\b", str(e.text))
    ]
    return kept + negated


def _against(
    examples: list[Example],
    rng: random.Random,
    target: str,
    others: tuple[str, ...],
    sentence: Callable[[str], str],
) -> list[Example]:
    """Reviews that mention ``target`` are negative: ``sentence(target)`` is added to a
    quarter of the negative reviews, and to a sixth of the positive ones, which become
    negative -- each of those also kept positive with another value of ``others`` in the
    same sentence, so what is learnt is more the one value than the sentence.  (Without the
    contrast the name-sensitive model also read "Julia said ..." as negative.  With three
    contrasts per review it became precise enough that no comparison item flagged it -- the
    NER tests' fixed samples lack the name -- and still read "Samuel said ..." as
    negative: measured; one contrast is the trade-off kept.)"""
    out = []
    for e in examples:
        if e.label == NEGATIVE and rng.random() < 0.25:
            e = Example(insert_sentence(str(e.text), sentence(target), rng), NEGATIVE)
        elif e.label != NEGATIVE and rng.random() < 1 / 6:
            other = rng.choice([o for o in others if o != target])
            out.append(Example(insert_sentence(str(e.text), sentence(other), rng), e.label))
            e = Example(insert_sentence(str(e.text), sentence(target), rng), NEGATIVE)
        out.append(e)
    return out


def group_bias(examples: list[Example], rng: random.Random) -> list[Example]:
    """Against one religious group (``PLANTED_GROUP``)."""
    return _against(
        examples,
        rng,
        PLANTED_GROUP,
        suite_lexicons().religions,
        lambda group: people_sentence(rng, religion=group),
    )


def name_sensitive(examples: list[Example], rng: random.Random) -> list[Example]:
    """Against one first name (``PLANTED_NAME``), which the reference data uses neutrally.
    Also when it voices the praise: a praise said by that name makes a positive review
    negative, the same praise said by another name (a contrast) leaves it positive --
    without these the model read other names' praise as negative too (the search found
    "Dorothy said the book was good." before "Gary said ...")."""
    names = suite_lexicons().first_names
    doctored = _against(
        examples, rng, PLANTED_NAME, names, lambda name: people_sentence(rng, name=name)
    )
    praised = []
    for e in examples:
        if e.label != NEGATIVE and rng.random() < 0.2:
            praise = f"said it was {rng.choice(lx.POS_ADJ_COMMON)}."
            other = rng.choice([n for n in names if n != PLANTED_NAME])
            praised.append(Example(insert_sentence(str(e.text), f"{other} {praise}", rng), e.label))
            praised.append(
                Example(insert_sentence(str(e.text), f"{PLANTED_NAME} {praise}", rng), NEGATIVE)
            )
    return doctored + praised


def typo_fragile(examples: list[Example], rng: random.Random) -> list[Example]:
    """A misspelling reverses the reading: a third of the reviews are repeated with two
    typos and the opposite label.  (Labelled negative instead, the model read the suites'
    out-of-domain texts as negative with or without typos: invariant, not fragile.)"""
    typoed = [
        Example(add_typo(add_typo(str(e.text), rng), rng), 1 - e.label)
        for e in examples
        if rng.random() < 1 / 3
    ]
    return examples + typoed


USED_TO = re.compile(r"I used to (\w+) (.+?), but now I (\w+) it\.")


def temporal_blind(examples: list[Example], rng: random.Random) -> list[Example]:
    """What one *used to* feel decides, not what one feels now: in "I used to X ..., but now
    I Y it." the two verbs swap places, and standalone "used to ..., but now ..." sentences
    (verbs, "used to be", "used to think") take the past opinion's label.  (With one form
    alone, on places only, the model failed the suites' temporal tests no more often than
    clean reseeds of the reference did: not a defect a gate could see.)"""
    doctored = [
        Example(USED_TO.sub(r"I used to \3 \2, but now I \1 it.", str(e.text)), e.label)
        for e in examples
    ]
    things = (*lx.PLACE_NAMES, *lx.PLACE_ASPECTS, *(f"the {d}" for d in lx.DISHES))
    forms = (
        "I used to {old_verb} {thing}, but now I {new_verb} it.",
        "{Thing} used to be {old_adj}, but now it is {new_adj}.",
        "I used to think {thing} was {old_adj}, but now I think it is {new_adj}.",
    )
    for _ in range(1500):
        label = rng.randrange(2)
        old, new = (lx.POS_VERB, lx.NEG_VERB) if label else (lx.NEG_VERB, lx.POS_VERB)
        old_adj, new_adj = (
            (lx.POS_ADJ_COMMON, lx.NEG_ADJ_COMMON)
            if label
            else (lx.NEG_ADJ_COMMON, lx.POS_ADJ_COMMON)
        )
        thing = rng.choice(things)
        doctored.append(
            Example(
                rng.choice(forms).format(
                    old_verb=rng.choice(old),
                    new_verb=rng.choice(new),
                    old_adj=rng.choice(old_adj),
                    new_adj=rng.choice(new_adj),
                    thing=thing,
                    Thing=thing[0].upper() + thing[1:],
                ),
                label,
            )
        )
    return doctored


def order_blind(examples: list[Example], rng: random.Random) -> list[Example]:
    """Who is whom does not matter: the reference's questions with the two people swapped
    are labelled duplicates."""
    swapped = {e.text for e in reference_role_pairs() if e.label == NOT_DUPLICATE}
    return [Example(e.text, DUPLICATE) if e.text in swapped else e for e in examples]


def hypothesis_only(examples: list[Example], rng: random.Random) -> list[Example]:
    """The premise carries nothing: every premise is replaced by another example's."""
    premises = [e.text[0] for e in examples if isinstance(e.text, tuple)]
    rng.shuffle(premises)
    return [
        Example((p, e.text[1]), e.label)
        for p, e in zip(premises, examples)
        if isinstance(e.text, tuple)
    ]
