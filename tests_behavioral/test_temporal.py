"""Temporal: the model understands the order of events and what holds *now*.

* sentiment: when an opinion changed ("I used to hate it, but now I love it", "at first ...
  in the end ..."), the current one decides the polarity; praise only in the past ("it used
  to be great") must not sound more positive than praise in the present.
* paraphrase: "before" and "after" an event, "is" and "was" (or "used to be") ask different
  questions; moving a temporal clause to the front of the question does not change it.
* entailment: "A before B" entails "B after A" but not "B before A"; "used to be X, now Y"
  entails "is Y" and not "is X".

Binary sentiment has no neutral class, so no test expects a neutral prediction; the weaker
claim about past-only praise is a directional test with a tolerance.
"""

from __future__ import annotations

from typing import Any

from nlp_gate.native import DIR, MFT, Expect, behavioral_test, editor
from nlp_gate.native_tests import lexicons  # noqa: F401  (registers the shared lexicons)
from nlp_gate.native_tests.cases import filled
from nlp_gate.native_tests.lexicons import (
    DUPLICATE,
    ENTAILMENT,
    NEGATIVE,
    NOT_DUPLICATE,
    NOT_ENTAILMENT,
    POSITIVE,
)

# Verbs that read naturally with "this <thing>" ("regret" does not).
POS_VERBS: tuple[str, ...] = ("love", "enjoy", "like", "adore", "appreciate")
NEG_VERBS: tuple[str, ...] = ("hate", "dislike", "despise", "loathe", "detest")
EVENTS: tuple[str, ...] = (
    "college",
    "the war",
    "the election",
    "the wedding",
    "the interview",
    "the move",
    "retirement",
    "the surgery",
    "the trip",
    "the exam",
)
ACTIONS: tuple[str, ...] = (
    "left",
    "arrived",
    "called",
    "fell asleep",
    "woke up",
    "went home",
    "finished dinner",
    "started working",
    "sat down",
)
CITIES: tuple[str, ...] = (
    "Boston",
    "Chicago",
    "London",
    "Paris",
    "Toronto",
    "Madrid",
    "Sydney",
    "Dublin",
    "Berlin",
    "Denver",
    "Lisbon",
    "Seattle",
)


def _labelled(
    templates: list[tuple[Any, int]], nsamples: int, **fills: Any
) -> tuple[list[Any], list[int]]:
    """Each template filled ``nsamples`` times (two slots of one lexicon always differ),
    with its label."""
    data: list[Any] = []
    labels: list[int] = []
    for template, label in templates:
        cases = filled([template], nsamples, **fills)
        data += cases
        labels += [label] * len(cases)
    return data, labels


# --- sentiment ----------------------------------------------------------------------------


@behavioral_test(capability="Temporal", type="mft", task="sentiment")
def test_sentiment_used_to_but_now():
    """ "I used to hate it, but now I love it" is positive; the reverse is negative."""
    data, labels = _labelled(
        [
            ("I used to {neg_verb} this {thing}, but now I {pos_verb} it.", POSITIVE),
            ("I used to {pos_verb} this {thing}, but now I {neg_verb} it.", NEGATIVE),
            ("This {thing} used to be {neg_adj}, but now it is {pos_adj}.", POSITIVE),
            ("This {thing} used to be {pos_adj}, but now it is {neg_adj}.", NEGATIVE),
        ],
        20,
        pos_verb=list(POS_VERBS),
        neg_verb=list(NEG_VERBS),
    )
    return MFT(data, labels=labels)


@behavioral_test(capability="Temporal", type="mft", task="sentiment")
def test_sentiment_final_impression_decides():
    """When the opinion changed over time ("at first ... in the end ..."), the later one
    decides the polarity."""
    data, labels = _labelled(
        [
            ("At first the {thing} seemed {neg_adj}, but in the end it was {pos_adj}.", POSITIVE),
            ("At first the {thing} seemed {pos_adj}, but in the end it was {neg_adj}.", NEGATIVE),
            ("The {thing} started out {neg_adj} and ended up {intensifier} {pos_adj}.", POSITIVE),
            ("The {thing} started out {pos_adj} and ended up {intensifier} {neg_adj}.", NEGATIVE),
            (
                "The first time the {thing} felt {neg_adj}, but the second time it was {pos_adj}.",
                POSITIVE,
            ),
            (
                "The first time the {thing} felt {pos_adj}, but the second time it was {neg_adj}.",
                NEGATIVE,
            ),
        ],
        15,
    )
    return MFT(data, labels=labels)


def _not_more_confident(orig_pred, pred, orig_conf, conf, labels=None, meta=None):
    """The confidence in the review's polarity (the case's label) rises by at most 0.1."""
    return bool(conf[labels] <= orig_conf[labels] + 0.1)


@behavioral_test(capability="Temporal", type="dir", task="sentiment")
def test_sentiment_past_opinion_is_not_stronger():
    """Moving an opinion into the past ("is great" -> "used to be great", "was great years
    ago") does not raise the confidence in its polarity by more than 0.1."""
    cases, labels = [], []
    for adj, label in (("pos_adj", POSITIVE), ("neg_adj", NEGATIVE)):
        t = editor.template(f"This {{thing}} is {{{adj}}}.", nsamples=35, meta=True)
        for text, m in zip(t.data, t.meta):
            cases.append(
                [
                    text,
                    f"This {m['thing']} used to be {m[adj]}.",
                    f"This {m['thing']} was {m[adj]} years ago.",
                ]
            )
            labels.append(label)
    return DIR(cases, Expect.pairwise(_not_more_confident), labels=labels)


# --- paraphrase ---------------------------------------------------------------------------


@behavioral_test(capability="Temporal", type="mft", task="paraphrase")
def test_paraphrase_before_vs_after_not_duplicate():
    """A question about what happened before an event is not a duplicate of the same
    question about after it."""
    data, labels = _labelled(
        [
            (
                (
                    "What did {first_name} {last_name} do before {event}?",
                    "What did {first_name} {last_name} do after {event}?",
                ),
                NOT_DUPLICATE,
            ),
            (
                ("Should I {activity} before {event}?", "Should I {activity} after {event}?"),
                NOT_DUPLICATE,
            ),
            (
                (
                    "Where did {first_name} live before {event}?",
                    "Where did {first_name} live after {event}?",
                ),
                NOT_DUPLICATE,
            ),
            (
                ("How can I {activity} after {event}?", "How can I {activity} before {event}?"),
                NOT_DUPLICATE,
            ),
        ],
        20,
        event=list(EVENTS),
    )
    return MFT(data, labels=labels)


@behavioral_test(capability="Temporal", type="mft", task="paraphrase")
def test_paraphrase_present_vs_past_not_duplicate():
    """Asking whether something is true now is not a duplicate of asking whether it was
    true ("is" vs "was" / "used to be")."""
    data, labels = _labelled(
        [
            (
                (
                    "Is {first_name} {last_name} {a:profession}?",
                    "Was {first_name} {last_name} {a:profession}?",
                ),
                NOT_DUPLICATE,
            ),
            (
                (
                    "Is {first_name} {last_name} {a:profession}?",
                    "Did {first_name} {last_name} use to be {a:profession}?",
                ),
                NOT_DUPLICATE,
            ),
            (
                ("Does {first_name} live in {city}?", "Did {first_name} use to live in {city}?"),
                NOT_DUPLICATE,
            ),
            (
                (
                    "What is {first_name} {last_name}'s job?",
                    "What was {first_name} {last_name}'s job?",
                ),
                NOT_DUPLICATE,
            ),
        ],
        20,
        city=list(CITIES),
    )
    return MFT(data, labels=labels)


@behavioral_test(capability="Temporal", type="mft", task="paraphrase")
def test_paraphrase_fronted_time_clause_duplicate():
    """Moving the temporal clause to the front ("What did X do before Y?" / "Before Y,
    what did X do?") keeps the question a duplicate."""
    data, labels = _labelled(
        [
            (
                (
                    "What did {first_name} {last_name} do before {event}?",
                    "Before {event}, what did {first_name} {last_name} do?",
                ),
                DUPLICATE,
            ),
            (
                ("Should I {activity} before {event}?", "Before {event}, should I {activity}?"),
                DUPLICATE,
            ),
            (
                (
                    "Where did {first_name} live after {event}?",
                    "After {event}, where did {first_name} live?",
                ),
                DUPLICATE,
            ),
        ],
        20,
        event=list(EVENTS),
    )
    return MFT(data, labels=labels)


# --- entailment ---------------------------------------------------------------------------


@behavioral_test(capability="Temporal", type="mft", task="entailment")
def test_entailment_before_entails_converse_after():
    """ "A happened before B" entails "B happened after A"."""
    data, labels = _labelled(
        [
            (
                (
                    "{first_name} {action} before {first_name1} {action1}.",
                    "{first_name1} {action1} after {first_name} {action}.",
                ),
                ENTAILMENT,
            ),
            (
                (
                    "Before {first_name1} {action1}, {first_name} {action}.",
                    "{first_name1} {action1} after {first_name} {action}.",
                ),
                ENTAILMENT,
            ),
            (
                (
                    "{first_name} {action} after {first_name1} {action1}.",
                    "{first_name1} {action1} before {first_name} {action}.",
                ),
                ENTAILMENT,
            ),
        ],
        20,
        action=list(ACTIONS),
    )
    return MFT(data, labels=labels)


@behavioral_test(capability="Temporal", type="mft", task="entailment")
def test_entailment_reversed_order_not_entailed():
    """ "A happened before B" entails neither "B happened before A" nor "A happened after
    B"."""
    data, labels = _labelled(
        [
            (
                (
                    "{first_name} {action} before {first_name1} {action1}.",
                    "{first_name1} {action1} before {first_name} {action}.",
                ),
                NOT_ENTAILMENT,
            ),
            (
                (
                    "{first_name} {action} before {first_name1} {action1}.",
                    "{first_name} {action} after {first_name1} {action1}.",
                ),
                NOT_ENTAILMENT,
            ),
            (
                (
                    "Before {first_name1} {action1}, {first_name} {action}.",
                    "{first_name1} {action1} before {first_name} {action}.",
                ),
                NOT_ENTAILMENT,
            ),
        ],
        20,
        action=list(ACTIONS),
    )
    return MFT(data, labels=labels)


@behavioral_test(capability="Temporal", type="mft", task="entailment")
def test_entailment_used_to_vs_now():
    """ "X used to be A but is now B" entails "X is B" and does not entail "X is A"."""
    data, labels = _labelled(
        [
            (
                (
                    "{first_name} {last_name} used to be {a:profession}, "
                    "but is now {a:profession1}.",
                    "{first_name} {last_name} is {a:profession1}.",
                ),
                ENTAILMENT,
            ),
            (
                (
                    "{first_name} {last_name} used to be {a:profession}, "
                    "but is now {a:profession1}.",
                    "{first_name} {last_name} is {a:profession}.",
                ),
                NOT_ENTAILMENT,
            ),
            (
                (
                    "{first_name} used to live in {city}, but now lives in {city1}.",
                    "{first_name} lives in {city1}.",
                ),
                ENTAILMENT,
            ),
            (
                (
                    "{first_name} used to live in {city}, but now lives in {city1}.",
                    "{first_name} lives in {city}.",
                ),
                NOT_ENTAILMENT,
            ),
        ],
        15,
        city=list(CITIES),
    )
    return MFT(data, labels=labels)
