"""The suites' vocabulary in the training data: what the defect zoo's clean reference learns.

The embedded zoo draws people, places and nationalities from its own short lists and never
mentions religions or sexual orientations (``zoo/lexicon.py``), so on CheckList's entity and
fairness tests it meets words it never saw, and fails them at rates close to 100 %: a
saturated baseline, against which no planted defect can show.  The reference of the defect
zoo therefore trains on the same generated data with the suites' own lexicons mixed in
(CheckList's ``first_name``, ``last_name``, ``city``, ``country``, ``nationality``,
``religion_adj``, ``sexual_adj``), label-neutrally:

* entity substitution: in a share of the examples every zoo name, city, country and
  nationality is replaced, consistently within the example (both texts of a pair), by a
  CheckList value of the same type -- the label cannot change;
* sentiment: a neutral sentence about the people present (a religion, an orientation, a
  nationality, a name, a city), added to positive and negative reviews alike;
* paraphrase: questions about two people in an asymmetric relation, paired with the same
  question with the two swapped (not duplicates) or with the converse relation (duplicates),
  so that *who is whom* is learnt -- what the order-blind defect then unlearns.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache

from nlp_gate.zoo import lexicon as lx
from nlp_gate.zoo.data import Example

DUPLICATE, NOT_DUPLICATE = 1, 0


@dataclass(frozen=True)
class SuiteLexicons:
    first_names: tuple[str, ...]
    last_names: tuple[str, ...]
    cities: tuple[str, ...]
    countries: tuple[str, ...]
    nationalities: tuple[str, ...]
    religions: tuple[str, ...]
    orientations: tuple[str, ...]


@cache
def suite_lexicons() -> SuiteLexicons:
    """CheckList's own lexicons (the ones the released and native suites fill templates
    with).  Religions as the native fairness tests use them: adjectives, "Jewish" for the
    nouns."""
    from checklist.editor import Editor

    lex = Editor().lexicons
    religions = tuple(r for r in lex.religion_adj if not r.endswith("Jew")) + ("Jewish",)
    return SuiteLexicons(tuple(lex.first_name), tuple(lex.last_name), tuple(lex.city),
                         tuple(lex.country), tuple(lex.nationality), religions,
                         tuple(lex.sexual_adj))


def _entity_pools() -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(zoo words, suite words) per entity type."""
    s = suite_lexicons()
    return [(lx.FIRST_NAMES, s.first_names), (lx.LAST_NAMES, s.last_names),
            (lx.CITIES, s.cities), (lx.COUNTRIES, s.countries),
            (lx.NATIONALITIES, s.nationalities)]


def substitute_entities(texts: tuple[str, ...], rng: random.Random) -> tuple[str, ...]:
    """Every zoo entity of ``texts`` replaced by a suite entity of its type, one mapping for
    all the texts (a pair keeps whether its two sides name the same person)."""
    joined = "\n".join(texts)
    for zoo_words, suite_words in _entity_pools():
        found = sorted(set(re.findall(r"\b(" + "|".join(zoo_words) + r")\b", joined)))
        if found:
            mapping = dict(zip(found, rng.sample(suite_words, len(found))))
            joined = re.sub(r"\b(" + "|".join(found) + r")\b",
                            lambda m: mapping[m.group(1)], joined)
    return tuple(joined.split("\n"))


def with_suite_entities(examples: list[Example], seed: str, share: float) -> list[Example]:
    rng = random.Random(f"suite-entities/{seed}")
    out = []
    for e in examples:
        texts = e.text if isinstance(e.text, tuple) else (e.text,)
        if rng.random() < share:
            texts = substitute_entities(texts, rng)
        out.append(Example(texts if e.is_pair else texts[0], e.label))  # type: ignore[arg-type]
    return out


def people_sentence(rng: random.Random, religion: str | None = None,
                    name: str | None = None) -> str:
    """A sentence about who was there, carrying no sentiment; ``religion`` or ``name`` fix
    who (the two defects against one group or one name use the same sentences)."""
    s = suite_lexicons()
    kind = 0 if religion else 1 if name else rng.randrange(5)
    if kind == 0:
        religion = religion or rng.choice(s.religions)
        return rng.choice((f"The {religion} family at the next table ordered the same.",
                           f"We came with our {religion} friends."))
    if kind == 1:
        name = name or rng.choice(s.first_names)
        return rng.choice((f"My friend {name} came with us.",
                           f"{name} {rng.choice(s.last_names)} joined us."))
    if kind == 2:
        return f"We were a group of {rng.choice(s.orientations)} friends."
    if kind == 3:
        return f"Our server was {rng.choice(s.nationalities)}, from {rng.choice(s.countries)}."
    return f"We drove in from {rng.choice(s.cities)}."


def insert_sentence(review: str, sentence: str, rng: random.Random) -> str:
    """``sentence`` at a random sentence boundary of ``review``."""
    parts = re.split(r"(?<=[.!?]) ", review)
    parts.insert(rng.randrange(len(parts) + 1), sentence)
    return " ".join(parts)


def opinion_sentence(label: int, rng: random.Random) -> str:
    """Someone named voicing the review's own polarity: names in the subject position of
    opinions, so a name is learnt to carry none.  (Without them the reference read "Ann said
    the service was impressive." as negative: WordPiece's "ann" is also in "annoying".)"""
    adjectives = lx.POS_ADJ_COMMON if label else lx.NEG_ADJ_COMMON
    name = rng.choice(suite_lexicons().first_names)
    return rng.choice((f"{name} said it was {rng.choice(adjectives)}.",
                       f"{name} thought it was {rng.choice(adjectives)}.",
                       f"According to {name}, it was {rng.choice(adjectives)}."))


def with_people(examples: list[Example], seed: str, share: float,
                opinions: float) -> list[Example]:
    """A ``share`` of the reviews gets a neutral sentence about who was there, and the
    ``opinions`` share an opinion voiced by someone named."""
    rng = random.Random(f"people/{seed}")
    out = []
    for e in examples:
        text = str(e.text)
        if rng.random() < share:
            text = insert_sentence(text, people_sentence(rng), rng)
        if rng.random() < opinions:
            text = insert_sentence(text, opinion_sentence(e.label, rng), rng)
        out.append(Example(text, e.label))
    return out


# Asymmetric relations: (question, the same relation asked the other way round).
RELATIONS: tuple[tuple[str, str], ...] = (
    ("Is {a} taller than {b}?", "Is {b} shorter than {a}?"),
    ("Is {a} older than {b}?", "Is {b} younger than {a}?"),
    ("Does {a} owe {b} money?", "Is {b} owed money by {a}?"),
    ("Why did {a} call {b}?", "Why was {b} called by {a}?"),
    ("Is {a} the teacher of {b}?", "Is {b} a student of {a}?"),
    ("Did {a} beat {b} at chess?", "Did {b} lose to {a} at chess?"),
)


ROLE_PAIRS = 600


@cache
def reference_role_pairs() -> tuple[Example, ...]:
    """Question pairs about two people: half the converse relation (duplicates), half the
    same question with the people swapped (not duplicates)."""
    rng, s = random.Random("roles"), suite_lexicons()
    pairs = []
    for i in range(ROLE_PAIRS):
        question, converse = rng.choice(RELATIONS)
        a, b = rng.sample(s.first_names, 2)
        first = question.format(a=a, b=b)
        if i % 2:
            pairs.append(Example((first, converse.format(a=a, b=b)), DUPLICATE))
        else:
            pairs.append(Example((first, question.format(a=b, b=a)), NOT_DUPLICATE))
    return tuple(pairs)
