"""Logic: conjunction, contrast, symmetry, quantifiers and the other rules meaning follows.

* sentiment: "A but B" takes B's polarity; "both A and B" / "neither A nor B" combine the
  adjectives as logic says; the order of two conjuncts joined by "and" does not matter.
* paraphrase: being a duplicate is symmetric (swapping the questions keeps the prediction)
  and reflexive (a question duplicates itself); a comparison that is symmetric ("which is
  better, A or B?") survives swapping A and B, an asymmetric one ("is A better than B?") does
  not.
* entailment: symmetric relations ("A married B") entail their swap, asymmetric ones ("A is
  older than B") do not but entail their converse ("B is younger than A"); "all" entails
  "some" but not the reverse; "A and B" entails B, "A or B" does not.
"""

from __future__ import annotations

from nlp_gate.native import INV, MFT, Expect, behavioral_test, editor
from nlp_gate.native_tests import lexicons  # noqa: F401  (registers the shared lexicons)
from nlp_gate.native_tests.cases import article, tidy
from nlp_gate.native_tests.lexicons import (
    DUPLICATE,
    ENTAILMENT,
    NEGATIVE,
    NOT_DUPLICATE,
    NOT_ENTAILMENT,
    POSITIVE,
)

# Symmetric relations between two people (the swap is entailed).
SYMMETRIC: tuple[str, ...] = (
    "{a} married {b}.",
    "{a} is {b}'s cousin.",
    "{a} and {b} are neighbors.",
    "{a} met {b} in {city}.",
    "{a} shook hands with {b}.",
    "{a} is a colleague of {b}.",
    "{a} played chess against {b}.",
    "{a} is {b}'s sibling.",
)
_SYMMETRIC_SWAP: dict[str, str] = {
    "{a} and {b} are neighbors.": "{b} and {a} are neighbors.",
    "{a} met {b} in {city}.": "{b} met {a}.",
}
# Asymmetric relations: (premise, swapped -- not entailed, converse -- entailed).
ASYMMETRIC: tuple[tuple[str, str, str], ...] = (
    ("{a} is older than {b}.", "{b} is older than {a}.", "{b} is younger than {a}."),
    ("{a} is taller than {b}.", "{b} is taller than {a}.", "{b} is shorter than {a}."),
    ("{a} is {b}'s parent.", "{b} is {a}'s parent.", "{b} is {a}'s child."),
    (
        "{a} taught {b} to play chess.",
        "{b} taught {a} to play chess.",
        "{b} was taught to play chess by {a}.",
    ),
    ("{a} arrived before {b}.", "{b} arrived before {a}.", "{b} arrived after {a}."),
    ("{a} is {b}'s boss.", "{b} is {a}'s boss.", "{b} works for {a}."),
)
# Questions, some pairs duplicates and some not, for the symmetry and identity tests.
QUESTION_PAIRS: tuple[tuple[str, str], ...] = (
    ("How can I {activity}?", "How do I {activity}?"),
    ("How can I {activity}?", "Why can't I {activity}?"),
    ("How can I {activity} in {city}?", "How can I {activity}?"),
    ("Is {first_name} a good {profession}?", "Is {first_name} a bad {profession}?"),
    ("What is the best {thing} in {city}?", "Which {thing} in {city} is the best?"),
    ("Is it safe to live in {city}?", "Is {city} a safe place to live?"),
    ("Is {city} bigger than {country}?", "Is {city} in {country}?"),
)
WHEN: tuple[str, ...] = ("at first", "in the beginning", "for the first hour")


def _two_people(nsamples: int) -> list[dict[str, str]]:
    """Slot values {a}, {b} (two different first names) and {city}."""
    t = editor.template(
        "{first_name1} {first_name2} {city}", nsamples=nsamples, meta=True, remove_duplicates=True
    )
    return [
        {"a": m["first_name1"], "b": m["first_name2"], "city": m["city"]}
        for m in t.meta
        if m["first_name1"] != m["first_name2"]
    ]


# --- sentiment ------------------------------------------------------------------------------


@behavioral_test(capability="Logic", type="mft", task="sentiment")
def test_sentiment_contrast_after_but_decides():
    """In "The movie was great at first, but it ended up awful." the clause after "but"
    decides the polarity."""
    neg = editor.template(
        "The {thing} was {pos_adj} {when}, but it ended up {neg_adj}.",
        when=list(WHEN),
        nsamples=40,
        remove_duplicates=True,
    ).data
    pos = editor.template(
        "The {thing} was {neg_adj} {when}, but it ended up {pos_adj}.",
        when=list(WHEN),
        nsamples=40,
        remove_duplicates=True,
    ).data
    return MFT(neg + pos, labels=[NEGATIVE] * len(neg) + [POSITIVE] * len(pos))


@behavioral_test(capability="Logic", type="mft", task="sentiment")
def test_sentiment_both_and_neither_nor():
    """ "both great and lovely" is positive, "both awful and boring" negative, and "neither
    great nor lovely" negative."""
    data: list[str] = []
    labels: list[int] = []
    for template, label in (
        ("The {thing} was both {pos_adj1} and {pos_adj2}.", POSITIVE),
        ("The {thing} was both {neg_adj1} and {neg_adj2}.", NEGATIVE),
        ("The {thing} was neither {pos_adj1} nor {pos_adj2}.", NEGATIVE),
    ):
        t = editor.template(template, nsamples=40, meta=True, remove_duplicates=True)
        cases = [d for d, m in zip(t.data, t.meta) if len(set(m.values())) == len(m)]
        data += cases
        labels += [label] * len(cases)
    return MFT(data, labels=labels)


@behavioral_test(capability="Logic", type="inv", task="sentiment")
def test_sentiment_conjunct_order_does_not_matter():
    """Swapping two conjuncts joined by "and" ("great in some ways and boring in others" /
    "boring in some ways and great in others") keeps the prediction."""
    t = editor.template(
        "{pos_adj} {neg_adj} {thing}", nsamples=60, meta=True, remove_duplicates=True
    )
    return INV(
        [
            [
                f"The {m['thing']} was {m['pos_adj']} in some ways and {m['neg_adj']} in others.",
                f"The {m['thing']} was {m['neg_adj']} in some ways and {m['pos_adj']} in others.",
            ]
            for m in t.meta
        ],
        Expect.inv(tolerance=0.1),
    )


# --- paraphrase -----------------------------------------------------------------------------


def _questions(nsamples_per_pair: int) -> list[tuple[str, str]]:
    data: list[tuple[str, str]] = []
    for pair in QUESTION_PAIRS:
        data += editor.template(pair, nsamples=nsamples_per_pair, remove_duplicates=True).data
    return list(dict.fromkeys(data))  # a small lexicon ({activity}) repeats cases


@behavioral_test(capability="Logic", type="inv", task="paraphrase")
def test_paraphrase_symmetric_in_question_order():
    """Being duplicates is symmetric: swapping the two questions keeps the prediction."""
    return INV([[(q1, q2), (q2, q1)] for q1, q2 in _questions(14)])


@behavioral_test(capability="Logic", type="mft", task="paraphrase")
def test_paraphrase_question_duplicates_itself():
    """A question is a duplicate of itself."""
    return MFT(
        list(dict.fromkeys((q, q) for pair in _questions(10) for q in pair)), labels=DUPLICATE
    )


@behavioral_test(capability="Logic", type="mft", task="paraphrase")
def test_paraphrase_symmetric_vs_asymmetric_comparison():
    """ "Which is better, A or B?" and "Which is better, B or A?" are duplicates, "Is A better
    than B?" and "Is B better than A?" are not."""
    data: list[tuple[str, str]] = []
    labels: list[int] = []
    for template, label in (
        (
            (
                "Which is better, living in {city1} or living in {city2}?",
                "Which is better, living in {city2} or living in {city1}?",
            ),
            DUPLICATE,
        ),
        (
            (
                "What is the difference between {city1} and {city2}?",
                "What is the difference between {city2} and {city1}?",
            ),
            DUPLICATE,
        ),
        (
            (
                "Is living in {city1} better than living in {city2}?",
                "Is living in {city2} better than living in {city1}?",
            ),
            NOT_DUPLICATE,
        ),
        (("Is {city1} bigger than {city2}?", "Is {city2} bigger than {city1}?"), NOT_DUPLICATE),
    ):
        t = editor.template(template, nsamples=25, meta=True, remove_duplicates=True)
        cases = [d for d, m in zip(t.data, t.meta) if m["city1"] != m["city2"]]
        data += cases
        labels += [label] * len(cases)
    return MFT(data, labels=labels)


# --- entailment -----------------------------------------------------------------------------


@behavioral_test(capability="Logic", type="mft", task="entailment")
def test_entailment_symmetric_relation_swaps():
    """A symmetric relation entails its swap ("A married B." entails "B married A.")."""
    data = []
    for premise in SYMMETRIC:
        hypothesis = _SYMMETRIC_SWAP.get(
            premise, premise.replace("{a}", "{x}").replace("{b}", "{a}").replace("{x}", "{b}")
        )
        for slots in _two_people(12):
            data.append((tidy(premise.format(**slots)), tidy(hypothesis.format(**slots))))
    return MFT(data, labels=ENTAILMENT)


@behavioral_test(capability="Logic", type="mft", task="entailment")
def test_entailment_asymmetric_relation_swaps():
    """An asymmetric relation does not entail its swap ("A is older than B." / "B is older
    than A.") but entails its converse ("B is younger than A.")."""
    data: list[tuple[str, str]] = []
    labels: list[int] = []
    for premise, swapped, converse in ASYMMETRIC:
        for i, slots in enumerate(_two_people(16)):
            hypothesis, label = (converse, ENTAILMENT) if i % 2 else (swapped, NOT_ENTAILMENT)
            data.append((premise.format(**slots), hypothesis.format(**slots)))
            labels.append(label)
    return MFT(data, labels=labels)


@behavioral_test(capability="Logic", type="mft", task="entailment")
def test_entailment_quantifiers():
    """ "All the doctors in Boston went on strike." entails "Some doctors in Boston went on
    strike."; "Some ..." does not entail "All ...", and "No ..." does not entail "Some ..."."""
    data: list[tuple[str, str]] = []
    labels: list[int] = []
    events = [
        "went on strike",
        "voted for the plan",
        "signed the letter",
        "attended the meeting",
        "moved away",
    ]
    for template, label in (
        (
            ("All the {profession}s in {city} {event}.", "Some {profession}s in {city} {event}."),
            ENTAILMENT,
        ),
        (
            ("Every {profession} in {city} {event}.", "Some {profession}s in {city} {event}."),
            ENTAILMENT,
        ),
        (
            ("Some {profession}s in {city} {event}.", "All the {profession}s in {city} {event}."),
            NOT_ENTAILMENT,
        ),
        (
            (
                "None of the {profession}s in {city} {event}.",
                "Some {profession}s in {city} {event}.",
            ),
            NOT_ENTAILMENT,
        ),
    ):
        cases = editor.template(template, event=events, nsamples=30, remove_duplicates=True).data
        data += cases
        labels += [label] * len(cases)
    return MFT(data, labels=labels)


@behavioral_test(capability="Logic", type="mft", task="entailment")
def test_entailment_and_vs_or():
    """ "A is a doctor and a pilot." entails "A is a pilot."; "A is a doctor or a pilot." does
    not."""
    t = editor.template(
        "{first_name} {last_name} {profession1} {profession2}",
        nsamples=80,
        meta=True,
        remove_duplicates=True,
    )
    data: list[tuple[str, str]] = []
    labels: list[int] = []
    for m in t.meta:
        if m["profession1"] == m["profession2"]:
            continue
        name, job1, job2 = (
            f"{m['first_name']} {m['last_name']}",
            article(m["profession1"]),
            article(m["profession2"]),
        )
        conj, label = ("and", ENTAILMENT) if len(data) % 2 else ("or", NOT_ENTAILMENT)
        data.append((f"{name} is {job1} {conj} {job2}.", f"{name} is {job2}."))
        labels.append(label)
    return MFT(data, labels=labels)
