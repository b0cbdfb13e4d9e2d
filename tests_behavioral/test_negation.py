"""Negation: a "not" (or "never", "can't", ...) flips or cancels the meaning it scopes over.

* sentiment: negating a positive statement makes it negative, also when the negation comes
  late ("..., but it was not"); negating a negative statement moves the prediction towards
  positive (binary sentiment has no neutral class, so "not bad" is a directional test rather
  than a positive label).
* paraphrase: a question and its negation ask different things (not duplicates), while two
  wordings of the same negated question are duplicates.
* entailment: a premise does not entail the negation of one of its facts (nor does a negated
  premise entail the fact), and a negation present on both sides, or a double negation,
  keeps the entailment.
"""

from __future__ import annotations

from nlp_gate.native import DIR, MFT, Expect, behavioral_test, editor
from nlp_gate.native_tests import lexicons  # noqa: F401  (registers the shared lexicons)
from nlp_gate.native_tests.cases import tidy
from nlp_gate.native_tests.lexicons import (
    DUPLICATE,
    ENTAILMENT,
    NEGATIVE,
    NOT_DUPLICATE,
    NOT_ENTAILMENT,
    POSITIVE,
)

# --- sentiment ------------------------------------------------------------------------------


@behavioral_test(capability="Negation", type="mft", task="sentiment")
def test_sentiment_negated_positive_is_negative():
    """A negated positive adjective or verb ("The movie was not great.") reads negative."""
    data: list[str] = []
    for template in (
        "The {thing} was not {pos_adj}.",
        "I did not {pos_verb} the {thing}.",
        "The {thing} is not {intensifier} {pos_adj}.",
        "I don't think the {thing} was {pos_adj}.",
    ):
        data += editor.template(template, nsamples=25, remove_duplicates=True).data
    return MFT(data, labels=NEGATIVE)


@behavioral_test(capability="Negation", type="dir", task="sentiment")
def test_sentiment_negated_negative_is_less_negative():
    """Negating a negative statement ("was bad" -> "was not bad") does not lower the
    positive confidence."""
    t = editor.template(
        ("The {thing} was {neg_adj}.", "The {thing} was not {neg_adj}."),
        nsamples=40,
        remove_duplicates=True,
    )
    t += editor.template(
        ("I {neg_verb} the {thing}.", "I don't {neg_verb} the {thing}."),
        nsamples=30,
        remove_duplicates=True,
    )
    # Expect.monotonic drops the cases it deems unable to fail; on a model that is very sure
    # "bad" is negative that is every case, so the comparison is written out instead.
    return DIR([list(pair) for pair in t.data], Expect.pairwise(_positive_not_lower))


def _positive_not_lower(orig_pred, pred, orig_conf, conf, labels=None, meta=None):
    """The positive confidence drops by at most 0.02."""
    return bool(conf[POSITIVE] >= orig_conf[POSITIVE] - 0.02)


@behavioral_test(capability="Negation", type="mft", task="sentiment")
def test_sentiment_negation_at_the_end():
    """A negation at the end of the sentence decides it: "I thought the movie would be
    great, but it was not." is negative, "... would be awful, but it was not." positive."""
    pos = editor.template(
        "I thought the {thing} would be {pos_adj}, but it was not.",
        nsamples=40,
        remove_duplicates=True,
    ).data
    neg = editor.template(
        "I thought the {thing} would be {neg_adj}, but it was not.",
        nsamples=40,
        remove_duplicates=True,
    ).data
    return MFT(pos + neg, labels=[NEGATIVE] * len(pos) + [POSITIVE] * len(neg))


# --- paraphrase -----------------------------------------------------------------------------


@behavioral_test(capability="Negation", type="mft", task="paraphrase")
def test_paraphrase_negated_question_is_not_duplicate():
    """A question and its negated form ("How can I X?" / "Why can't I X?") are not
    duplicates."""
    t = editor.template(("How can I {activity}?", "Why can't I {activity}?"), nsamples=10)
    t += editor.template(("Should I {activity}?", "Should I not {activity}?"), nsamples=10)
    t += editor.template(
        ("Is {first_name} a {profession}?", "Is {first_name} not a {profession}?"),
        nsamples=25,
        remove_duplicates=True,
    )
    t += editor.template(
        ("Is it safe to live in {city}?", "Is it not safe to live in {city}?"),
        nsamples=20,
        remove_duplicates=True,
    )
    t += editor.template(
        ("Did {first_name} like the {thing}?", "Did {first_name} not like the {thing}?"),
        nsamples=25,
        remove_duplicates=True,
    )
    return MFT(t.data, labels=NOT_DUPLICATE)


@behavioral_test(capability="Negation", type="mft", task="paraphrase")
def test_paraphrase_same_negation_reworded_is_duplicate():
    """Two wordings of the same negated question ("Why can't I X?" / "Why am I not able to
    X?") are duplicates."""
    t = editor.template(
        ("Why can't I {activity}?", "Why am I not able to {activity}?"), nsamples=10
    )
    t += editor.template(
        ("Is {first_name} not a {profession}?", "Isn't {first_name} a {profession}?"),
        nsamples=25,
        remove_duplicates=True,
    )
    t += editor.template(
        ("Why didn't {first_name} like the {thing}?", "Why did {first_name} not like the {thing}?"),
        nsamples=25,
        remove_duplicates=True,
    )
    t += editor.template(
        ("Is it not safe to live in {city}?", "Isn't it safe to live in {city}?"),
        nsamples=20,
        remove_duplicates=True,
    )
    return MFT(t.data, labels=DUPLICATE)


@behavioral_test(capability="Negation", type="dir", task="paraphrase")
def test_paraphrase_negating_one_side_lowers_duplicate():
    """Negating one question of a duplicate pair does not raise the duplicate confidence."""
    t = editor.template(
        ("How can I {activity}?", "How do I {activity}?", "How do I not {activity}?"), nsamples=10
    )
    t += editor.template(
        (
            "Is {first_name} a good {profession}?",
            "Is {first_name} a good {profession}?",
            "Is {first_name} not a good {profession}?",
        ),
        nsamples=30,
        remove_duplicates=True,
    )
    t += editor.template(
        ("Is {city} a safe city?", "Is {city} a safe city?", "Is {city} not a safe city?"),
        nsamples=20,
        remove_duplicates=True,
    )
    cases = [[(q1, q2), (q1, negated)] for q1, q2, negated in t.data]
    return DIR(cases, Expect.monotonic(label=DUPLICATE, increasing=False, tolerance=0.02))


# --- entailment -----------------------------------------------------------------------------


@behavioral_test(capability="Negation", type="mft", task="entailment")
def test_entailment_negated_fact_is_not_entailment():
    """A premise does not entail the negation of one of its facts, and a negated premise does
    not entail the fact itself."""
    t = editor.template(
        (
            "{first_name} {last_name} is {a:profession} who lives in {city}.",
            "{first_name} {last_name} is not {a:profession}.",
        ),
        nsamples=25,
        remove_duplicates=True,
    )
    t += editor.template(
        (
            "{first_name} {last_name} is {a:profession} who lives in {city}.",
            "{first_name} {last_name} does not live in {city}.",
        ),
        nsamples=25,
        remove_duplicates=True,
    )
    t += editor.template(
        (
            "{first_name} {last_name} is not {a:profession}.",
            "{first_name} {last_name} is {a:profession}.",
        ),
        nsamples=25,
        remove_duplicates=True,
    )
    t += editor.template(
        (
            "{first_name} {last_name} never visited {city}.",
            "{first_name} {last_name} visited {city}.",
        ),
        nsamples=25,
        remove_duplicates=True,
    )
    return MFT([(tidy(p), tidy(h)) for p, h in t.data], labels=NOT_ENTAILMENT)


@behavioral_test(capability="Negation", type="mft", task="entailment")
def test_entailment_negation_on_both_sides_keeps_entailment():
    """A negation on both sides, or a double negation in the hypothesis, keeps the
    entailment ("X never left Boston." entails "X did not leave Boston.")."""
    t = editor.template(
        (
            "{first_name} {last_name} never left {city}.",
            "{first_name} {last_name} did not leave {city}.",
        ),
        nsamples=25,
        remove_duplicates=True,
    )
    t += editor.template(
        (
            "{first_name} {last_name}, who is not {a:profession}, lives in {city}.",
            "{first_name} {last_name} is not {a:profession}.",
        ),
        nsamples=25,
        remove_duplicates=True,
    )
    t += editor.template(
        (
            "{first_name} {last_name} is {a:profession}.",
            "It is not true that {first_name} {last_name} is not {a:profession}.",
        ),
        nsamples=25,
        remove_duplicates=True,
    )
    t += editor.template(
        (
            "{first_name} {last_name} lives in {city}.",
            ("It is not the case that {first_name} {last_name} does not live in {city}."),
        ),
        nsamples=25,
        remove_duplicates=True,
    )
    return MFT([(tidy(p), tidy(h)) for p, h in t.data], labels=ENTAILMENT)
