"""Robustness: the prediction survives changes to the surface form that keep the meaning.

Every task gets the same three invariances (INV), as in CheckList's Robustness rows:

* typos -- one or two swapped neighbouring characters (``Perturb.add_typos``); for the pair
  tasks on one side at a time;
* contractions -- contracting or expanding "is not" / "isn't", "I am" / "I'm", ...
  (``Perturb.contract`` and ``Perturb.expand_contractions``); for the pair tasks on one
  side or on both;
* irrelevant additions -- a URL, a handle or a neutral sentence added to a review; a URL or
  a courtesy phrase ("Thanks in advance.") added to one question; an unrelated sentence
  appended to an entailment premise (it adds a fact the hypothesis does not mention, so the
  relation cannot change).  The hypothesis is left alone: anything added to it would be a
  claim that the premise has to support.

Perturbation functions here work on strings only (no spaCy documents); ``Perturb`` comes
from ``nlp_gate.native``, which imports CheckList's offline (``offline_perturb``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nlp_gate.native import INV, Perturb, behavioral_test
from nlp_gate.native_tests import lexicons  # noqa: F401  (registers the shared lexicons)
from nlp_gate.native_tests.cases import filled
from nlp_gate.native_tests.lexicons import WORDS

URLS = (
    "https://t.co/4Xb9qLm2",
    "http://www.example.com/review",
    "www.bit.ly/3kd8Zq",
    "https://example.org/p/12345",
)
HANDLES = ("@pat_reviews", "@daily_eats", "@moviebuff88", "@citytraveler")
YEARS = tuple(str(y) for y in range(1985, 2021, 5))


def _pick(options: tuple[str, ...]) -> str:
    return options[np.random.randint(len(options))]


def _variants(pair: tuple[str, str], fn) -> list[tuple[str, str]]:
    """``fn`` applied to the first side, the second side and both, without no-op variants
    or repeats (order kept)."""
    a, b = pair
    out: list[tuple[str, str]] = []
    for candidate in ((fn(a), b), (a, fn(b)), (fn(a), fn(b))):
        if candidate != pair and candidate not in out:
            out.append(candidate)
    return out


def _changed(original: Any, variants: list[Any]) -> list[Any]:
    """The variants that differ from the original (a typo can swap two equal letters)."""
    return [v for v in variants if v != original]


def _contract_or_expand(text: str) -> str:
    expanded: str = Perturb.expand_contractions(text)
    contracted: str = Perturb.contract(text)
    return expanded if expanded != text else contracted


# --- sentiment -----------------------------------------------------------------------------

SENTIMENT_TEMPLATES = (
    "I {pos_verb_past} the {thing}, it was {intensifier} {pos_adj}.",
    "I {neg_verb_past} the {thing}, it was {intensifier} {neg_adj}.",
    "We went with {first_name} and the {thing} was {pos_adj}.",
    "We went with {first_name} and the {thing} was {neg_adj}.",
    "Overall the {thing} was {pos_adj}, I {pos_verb_past} everything about it.",
    "Overall the {thing} was {neg_adj}, I {neg_verb_past} everything about it.",
)
SENTIMENT_CONTRACTION_TEMPLATES = (
    "It is {a:pos_adj} {thing}.",
    "It's {a:neg_adj} {thing}.",
    "I am sure the {thing} is {pos_adj}.",
    "I'm sure the {thing} is {neg_adj}.",
    "They are right, the {thing} was {pos_adj}.",
    "They're right, the {thing} was {neg_adj}.",
    "There is no doubt the {thing} was {pos_adj}.",
    "There's no doubt the {thing} was {neg_adj}.",
    "I do not know anyone who {pos_verb_past} this {thing}; it is {neg_adj}.",
    "I don't know anyone who {neg_verb_past} this {thing}; it's {pos_adj}.",
)


@behavioral_test(capability="Robustness", type="inv", task="sentiment")
def test_sentiment_typos():
    """One or two swapped neighbouring characters do not change the prediction."""
    data = filled(SENTIMENT_TEMPLATES, 20)
    return INV(
        Perturb.perturb(
            data,
            lambda s: _changed(s, [Perturb.add_typos(s), Perturb.add_typos(s, typos=2)]),
            nsamples=100,
        ).data
    )


@behavioral_test(capability="Robustness", type="inv", task="sentiment")
def test_sentiment_contractions():
    """Contracting or expanding ("it is" / "it's") does not change the prediction."""
    data = filled(SENTIMENT_CONTRACTION_TEMPLATES, 10)
    return INV(Perturb.perturb(data, Perturb.contractions).data)


@behavioral_test(capability="Robustness", type="inv", task="sentiment")
def test_sentiment_irrelevant_additions():
    """Appending a URL or a neutral sentence, or prefixing a handle, does not change the
    prediction."""
    data = filled(SENTIMENT_TEMPLATES, 15)

    def add(s: str) -> list[str]:
        return [
            f"{s} {_pick(URLS)}",
            f"{_pick(HANDLES)} {s}",
            f"{s} {_pick(WORDS['neutral_phrase'])}",
        ]

    return INV(Perturb.perturb(data, add, nsamples=80).data)


# --- paraphrase ----------------------------------------------------------------------------

QUESTION_PAIRS = (
    # duplicates
    ("How can I {activity}?", "What is the best way to {activity}?"),
    ("Is it hard to {activity}?", "Is it difficult to {activity}?"),
    ("How do I become {a:profession}?", "What does it take to become {a:profession}?"),
    (
        "What is it like to work as {a:profession} in {city}?",
        "What is working as {a:profession} in {city} like?",
    ),
    # not duplicates
    ("How can I {activity}?", "Why do people {activity}?"),
    ("Is it hard to {activity}?", "Is it expensive to {activity}?"),
    ("How do I become {a:profession}?", "How much does {a:profession} earn?"),
    ("What is it like to work as {a:profession} in {city}?", "What is it like to live in {city}?"),
)
QUESTION_CONTRACTION_PAIRS = (
    ("What is the best way to {activity}?", "How can I {activity}?"),
    ("I am {a:profession}. How can I {activity}?", "What's the best way to {activity}?"),
    ("Why can't I {activity}?", "Why is it so hard to {activity}?"),
    ("Is it true that it is hard to {activity}?", "Why do people {activity}?"),
    ("What's it like to be {a:profession}?", "What is it like to be {a:profession}?"),
    ("I'm {a:profession} in {city}. Is it worth it?", "What is the best city to live in?"),
)
COURTESY = (
    "Thanks in advance.",
    "Any help is appreciated.",
    "Sorry for my English.",
    "Please answer.",
)


@behavioral_test(capability="Robustness", type="inv", task="paraphrase")
def test_paraphrase_typos():
    """A typo in either question does not change whether they are duplicates."""
    data = filled(QUESTION_PAIRS, 12)
    return INV(
        Perturb.perturb(
            data,
            lambda p: _changed(
                p, [(Perturb.add_typos(p[0]), p[1]), (p[0], Perturb.add_typos(p[1]))]
            ),
            nsamples=80,
        ).data
    )


@behavioral_test(capability="Robustness", type="inv", task="paraphrase")
def test_paraphrase_contractions():
    """Contracting or expanding ("What is" / "What's") in one or both questions does not
    change the prediction."""
    data = filled(QUESTION_CONTRACTION_PAIRS, 12)
    return INV(Perturb.perturb(data, lambda p: _variants(p, _contract_or_expand)).data)


@behavioral_test(capability="Robustness", type="inv", task="paraphrase")
def test_paraphrase_irrelevant_additions():
    """A URL or a courtesy phrase ("Thanks in advance.") added to one question does not
    change the prediction."""
    data = filled(QUESTION_PAIRS, 12)

    def add(p: tuple[str, str]) -> list[tuple[str, str]]:
        return [(f"{p[0]} {_pick(URLS)}", p[1]), (p[0], f"{p[1]} {_pick(COURTESY)}")]

    return INV(Perturb.perturb(data, add, nsamples=80).data)


# --- entailment ----------------------------------------------------------------------------

PREMISE = (
    "{first_name} {last_name}, {a:profession} from {city1}, opened a clinic in {city2} in {year}."
)
MOVE = (
    "After leaving {city1}, {first_name} {last_name} moved to {city2} and worked as {a:profession}."
)
ENTAILMENT_PAIRS = (
    (PREMISE, "{first_name} {last_name} is {a:profession}."),
    (PREMISE, "{first_name} {last_name} opened a clinic in {city2}."),
    (PREMISE, "{first_name} {last_name} never opened a clinic."),
    (PREMISE, "{first_name} {last_name} opened a clinic in {city1}."),
    (MOVE, "{first_name} {last_name} lived in {city2}."),
    (MOVE, "{first_name} {last_name} was born in {city2}."),
)
ENTAILMENT_CONTRACTION_PAIRS = (
    (
        "{male} {last_name} did not move to {city}; he is still {a:profession}.",
        "{male} {last_name} is {a:profession}.",
    ),
    (
        "{female} {last_name} is not {a:profession}; she is a student in {city}.",
        "{female} {last_name} is a student.",
    ),
    (
        "{first_name} {last_name} will not open a clinic in {city}.",
        "{first_name} {last_name} will open a clinic in {city}.",
    ),
    (
        "It is {first_name} {last_name} who founded the company in {city}.",
        "{first_name} {last_name} founded a company.",
    ),
    (
        "{first_name} {last_name} does not live in {city} anymore.",
        "{first_name} {last_name} has not lived in {city}.",
    ),
    (
        "{male} {last_name} said he is moving to {city} next year.",
        "{male} {last_name} isn't moving to {city}.",
    ),
)
IRRELEVANT_SENTENCES = (
    "The weather was mild that week.",
    "Traffic in the city was heavy.",
    "The local museum opens at nine.",
    "It was a long winter.",
    "The story was first reported by a local newspaper.",
)


@behavioral_test(capability="Robustness", type="inv", task="entailment")
def test_entailment_typos():
    """A typo in the premise or in the hypothesis does not change the prediction."""
    data = filled(ENTAILMENT_PAIRS, 15, year=YEARS)
    return INV(
        Perturb.perturb(
            data,
            lambda p: _changed(
                p, [(Perturb.add_typos(p[0]), p[1]), (p[0], Perturb.add_typos(p[1]))]
            ),
            nsamples=80,
        ).data
    )


@behavioral_test(capability="Robustness", type="inv", task="entailment")
def test_entailment_contractions():
    """Contracting or expanding ("did not" / "didn't") in the premise, the hypothesis or both
    does not change the prediction."""
    data = filled(ENTAILMENT_CONTRACTION_PAIRS, 12)
    return INV(Perturb.perturb(data, lambda p: _variants(p, _contract_or_expand)).data)


@behavioral_test(capability="Robustness", type="inv", task="entailment")
def test_entailment_irrelevant_sentence():
    """Appending an unrelated sentence to the premise does not change the prediction."""
    data = filled(ENTAILMENT_PAIRS, 15, year=YEARS)
    return INV(
        Perturb.perturb(
            data, lambda p: (f"{p[0]} {_pick(IRRELEVANT_SENTENCES)}", p[1]), nsamples=80
        ).data
    )
