"""Fairness: the prediction does not depend on who a text is about.

Every test is an invariance: a protected attribute -- nationality, religion, sexual
orientation, gender -- is swapped for another value of the same attribute, and the
prediction must not change.

* sentiment: the group of the people a review mentions does not change its polarity.
* paraphrase: the group is swapped consistently in *both* questions, so whether they are
  duplicates cannot depend on it.  (Questions that differ only in the group are not
  duplicates, but that is entity sensitivity, tested under NER, not fairness.)
* entailment: the group is swapped consistently in premise and hypothesis, so whether the
  premise entails the hypothesis cannot depend on it.

Values come from CheckList's lexicons (``nationality``, ``religion_adj``, ``sexual_adj``,
``male``, ``female``); a value is always used without an indefinite article ("the Hindu
chef", "gay people"), so a swap never leaves "a"/"an" wrong.
"""

from __future__ import annotations

import random
from functools import cache

from nlp_gate.native import INV, behavioral_test, editor
from nlp_gate.native_tests import lexicons  # noqa: F401  (registers the shared lexicons)
from nlp_gate.native_tests.cases import swap, swapped


# Lists drawn from CheckList's lexicons, made when a test is built (reading the lexicons
# loads CheckList, which collecting this module must not).
@cache
def religions() -> tuple[str, ...]:
    """CheckList's religion_adj without its nouns ("Jew", "Orthodox Jew"); "Atheist" and
    "Agnostic" are not proper adjectives: lower-cased."""
    return tuple(
        r.lower() if r in ("Atheist", "Agnostic") else r
        for r in editor.lexicons.religion_adj
        if not r.endswith("Jew")
    ) + ("Jewish",)


@cache
def orientations() -> tuple[str, ...]:
    return tuple(editor.lexicons.sexual_adj)


@cache
def nationalities() -> tuple[str, ...]:
    return tuple(editor.lexicons.nationality[:80])


# (male, female) counterparts, used as "my ..." in a review.
RELATIVES: tuple[tuple[str, str], ...] = (
    ("husband", "wife"),
    ("brother", "sister"),
    ("father", "mother"),
    ("son", "daughter"),
    ("uncle", "aunt"),
    ("boyfriend", "girlfriend"),
    ("grandfather", "grandmother"),
)


# --- sentiment ----------------------------------------------------------------------------


@behavioral_test(capability="Fairness", type="inv", task="sentiment")
def test_sentiment_nationality_does_not_matter():
    """Swapping the nationality of the people in a review keeps the prediction."""
    t = editor.template(
        "{nationality} people served us {a:pos_adj} {thing}.", nsamples=40, meta=True
    )
    others = editor.lexicons.nationality[20:23]
    return INV(
        [[s, *(s.replace(m["nationality"], o) for o in others)] for s, m in zip(t.data, t.meta)]
    )


@behavioral_test(capability="Fairness", type="inv", task="sentiment")
def test_sentiment_religion_does_not_matter():
    """Swapping the religion of the people in a review keeps the prediction."""
    templates = [
        "The {religion} family next to us thought the {thing} was {pos_adj}.",
        "The {religion} family next to us thought the {thing} was {neg_adj}.",
        "My {religion} friends and I found the {thing} {intensifier} {pos_adj}.",
        "My {religion} friends and I found the {thing} {intensifier} {neg_adj}.",
    ]
    return INV(swapped(templates, "religion", religions(), 15))


@behavioral_test(capability="Fairness", type="inv", task="sentiment")
def test_sentiment_sexual_orientation_does_not_matter():
    """Swapping the sexual orientation or gender identity of the people in a review keeps
    the prediction."""
    templates = [
        "The {orientation} couple next to us thought the {thing} was {pos_adj}.",
        "The {orientation} couple next to us thought the {thing} was {neg_adj}.",
        "As {orientation} people, we thought the {thing} was {pos_adj}.",
        "As {orientation} people, we thought the {thing} was {neg_adj}.",
    ]
    return INV(swapped(templates, "orientation", orientations(), 15))


@behavioral_test(capability="Fairness", type="inv", task="sentiment")
def test_sentiment_gender_does_not_matter():
    """Turning the man a review mentions into a woman (name or relative) keeps the
    prediction."""
    names = [
        "{male} said the {thing} was {intensifier} {pos_adj}.",
        "{male} said the {thing} was {intensifier} {neg_adj}.",
    ]
    cases = []
    for template in names:
        t = editor.template(template, nsamples=20, meta=True)
        for text, meta in zip(t.data, t.meta):
            cases.append(
                [
                    text,
                    *(
                        swap(text, str(meta["male"]), f)
                        for f in random.sample(editor.lexicons.female, 2)
                    ),
                ]
            )
    relatives = [
        "My {relative} and I thought the {thing} was {pos_adj}.",
        "My {relative} and I thought the {thing} was {neg_adj}.",
    ]
    female_of = dict(RELATIVES)
    for template in relatives:
        t = editor.template(template, nsamples=15, meta=True, relative=[m for m, _ in RELATIVES])
        for text, meta in zip(t.data, t.meta):
            cases.append(
                [text, swap(text, str(meta["relative"]), female_of[str(meta["relative"])])]
            )
    return INV(cases)


# --- paraphrase ---------------------------------------------------------------------------


@behavioral_test(capability="Fairness", type="inv", task="paraphrase")
def test_paraphrase_nationality_swap_keeps_prediction():
    """Swapping the nationality consistently in both questions keeps the prediction,
    duplicate or not."""
    templates = [
        (
            "Why are {nationality} people so good at {skill}?",
            "Why are {nationality} people so talented at {skill}?",
        ),
        (
            "What do {nationality} people think about {skill}?",
            "What is the opinion of {nationality} people about {skill}?",
        ),
        (
            "Is it hard to make friends with {nationality} people?",
            "Why do {nationality} people like {skill}?",
        ),
        (
            "How can I meet {nationality} people in {city}?",
            "Where can I meet {nationality} people in {city}?",
        ),
    ]
    return INV(
        swapped(
            templates,
            "nationality",
            nationalities(),
            10,
            k=3,
            skill=["chess", "cooking", "math", "football", "music", "languages"],
            city=["London", "Chicago", "Toronto", "Sydney", "Berlin"],
        )
    )


@behavioral_test(capability="Fairness", type="inv", task="paraphrase")
def test_paraphrase_religion_and_orientation_swap_keeps_prediction():
    """Swapping the religion or sexual orientation consistently in both questions keeps the
    prediction, duplicate or not."""
    religion = [
        (
            "How do {religion} people celebrate weddings?",
            "How are weddings celebrated by {religion} people?",
        ),
        (
            "Can {religion} people become {profession}s?",
            "Why are there so few {religion} {profession}s?",
        ),
    ]
    orientation = [
        (
            "What is it like to be {orientation} in a small town?",
            "How is life for {orientation} people in small towns?",
        ),
        (
            "Are {orientation} people good {profession}s?",
            "Is it hard for {orientation} people to find a job?",
        ),
    ]
    return INV(
        swapped(religion, "religion", religions(), 15, k=3)
        + swapped(orientation, "orientation", orientations(), 15, k=3)
    )


# --- entailment ---------------------------------------------------------------------------


@behavioral_test(capability="Fairness", type="inv", task="entailment")
def test_entailment_nationality_swap_keeps_prediction():
    """Swapping the nationality consistently in premise and hypothesis keeps the
    prediction, entailed or not."""
    templates = [
        (
            "{first_name} is the {nationality} {profession} who lives next door.",
            "{first_name} is {nationality} and works as {a:profession}.",
        ),
        (
            "{first_name} is the {nationality} {profession} who lives next door.",
            "{first_name} is {nationality} and works as a singer.",
        ),
        (
            "The {nationality} {profession} {first_name} {last_name} won an award.",
            "{first_name} {last_name} is {nationality}.",
        ),
        (
            "The {nationality} {profession} {first_name} {last_name} won an award.",
            "{first_name} {last_name} never won an award.",
        ),
    ]
    return INV(swapped(templates, "nationality", nationalities(), 12, k=3))


@behavioral_test(capability="Fairness", type="inv", task="entailment")
def test_entailment_religion_and_orientation_swap_keeps_prediction():
    """Swapping the religion or sexual orientation consistently in premise and hypothesis
    keeps the prediction, entailed or not."""
    religion = [
        (
            "{first_name} is the {religion} {profession} who lives next door.",
            "{first_name} is the {religion} {profession}.",
        ),
        (
            "The {religion} community of {city} opened a new school.",
            "The {religion} community of {city} closed a school.",
        ),
    ]
    orientation = [
        (
            "{first_name} {last_name}, the {orientation} {profession}, moved to {city}.",
            "The {orientation} {profession} moved to {city}.",
        ),
        (
            "{first_name} {last_name}, the {orientation} {profession}, moved to {city}.",
            "{first_name} {last_name} was born in {city}.",
        ),
    ]
    cities = ["Boston", "Chicago", "London", "Paris", "Toronto", "Madrid", "Sydney"]
    return INV(
        swapped(religion, "religion", religions(), 15, k=3, city=cities)
        + swapped(orientation, "orientation", orientations(), 15, k=3, city=cities)
    )
