"""Vocabulary: the model knows the words that carry a task's meaning.

* sentiment -- positive and negative adjectives and verbs in short, otherwise neutral
  templates get the matching label, and an intensifier ("really good") does not lower the
  confidence in the predicted polarity (DIR: CheckList's intensifier test).
* paraphrase -- replacing one word of a question with a synonym keeps it a duplicate;
  replacing it with its antonym makes it a different question.
* entailment -- a hypothesis that restates a fact of the premise with a synonym is entailed,
  one that restates it with the antonym is not.

The intensifier idea is sentiment-only: paraphrase and entailment labels are discrete
relations between two texts, with no graded polarity an intensifier could strengthen.
"""

from __future__ import annotations

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

# --- sentiment -----------------------------------------------------------------------------

POSITIVE_TEMPLATES = (
    "The {thing} was {pos_adj}.",
    "What {a:pos_adj} {thing}.",
    "I {pos_verb_past} the {thing}.",
    "We {pos_verb} this {thing}.",
)
NEGATIVE_TEMPLATES = (
    "The {thing} was {neg_adj}.",
    "What {a:neg_adj} {thing}.",
    "I {neg_verb_past} the {thing}.",
    "We {neg_verb} this {thing}.",
)


@behavioral_test(capability="Vocabulary", type="mft", task="sentiment")
def test_sentiment_positive_words():
    """Short sentences built around a positive adjective or verb are predicted positive."""
    return MFT(filled(POSITIVE_TEMPLATES, 15), labels=POSITIVE)


@behavioral_test(capability="Vocabulary", type="mft", task="sentiment")
def test_sentiment_negative_words():
    """Short sentences built around a negative adjective or verb are predicted negative."""
    return MFT(filled(NEGATIVE_TEMPLATES, 15), labels=NEGATIVE)


@behavioral_test(capability="Vocabulary", type="dir", task="sentiment")
def test_sentiment_intensifier_keeps_confidence():
    """Adding an intensifier ("good" -> "really good") does not lower the confidence in the
    predicted polarity by more than 0.1."""
    data = []
    for slot in ("pos_adj", "neg_adj"):
        t = editor.template(
            "The {thing} was {" + slot + "}.", nsamples=30, meta=True, remove_duplicates=True
        )
        intensifiers = editor.lexicons.intensifier
        for i, (text, meta) in enumerate(zip(t.data, t.meta)):
            stronger = text.replace(
                f" was {meta[slot]}.", f" was {intensifiers[i % len(intensifiers)]} {meta[slot]}."
            )
            data.append([text, stronger])
    return DIR(data, Expect.monotonic(label=None, increasing=True, tolerance=0.1))


# --- paraphrase ----------------------------------------------------------------------------

# (question with a key word, the same question with a synonym, with its antonym)
QUESTION_WORDS = (
    (
        "What is the fastest way to {activity}?",
        "What is the quickest way to {activity}?",
        "What is the slowest way to {activity}?",
    ),
    ("Is it hard to {activity}?", "Is it difficult to {activity}?", "Is it easy to {activity}?"),
    (
        "What is the best way to {activity}?",
        "What is the ideal way to {activity}?",
        "What is the worst way to {activity}?",
    ),
    (
        "Why is it so hard to {activity}?",
        "Why is it so difficult to {activity}?",
        "Why is it so easy to {activity}?",
    ),
    (
        "Is it smart to {activity} at night?",
        "Is it wise to {activity} at night?",
        "Is it foolish to {activity} at night?",
    ),
    (
        "Is it common to {activity} alone?",
        "Is it usual to {activity} alone?",
        "Is it unusual to {activity} alone?",
    ),
    (
        "What is the cheapest way to {activity}?",
        "What is the least expensive way to {activity}?",
        "What is the most expensive way to {activity}?",
    ),
    ("How can I {activity} quickly?", "How can I {activity} fast?", "How can I {activity} slowly?"),
)


def _question_pairs(variant: int, per_template: int) -> list[tuple[str, str]]:
    pairs = []
    for i, forms in enumerate(QUESTION_WORDS):
        t = editor.template(
            (forms[0], forms[variant]), nsamples=per_template, remove_duplicates=True
        )
        # alternate which side carries the original word
        pairs += [p if (i + j) % 2 == 0 else (p[1], p[0]) for j, p in enumerate(t.data)]
    return pairs


@behavioral_test(capability="Vocabulary", type="mft", task="paraphrase")
def test_paraphrase_synonym_substitution():
    """Two questions that differ only in a word and its synonym ("hard"/"difficult") are
    duplicates."""
    return MFT(_question_pairs(1, 8), labels=DUPLICATE)


@behavioral_test(capability="Vocabulary", type="mft", task="paraphrase")
def test_paraphrase_antonym_substitution():
    """Two questions that differ only in a word and its antonym ("hard"/"easy") are not
    duplicates."""
    return MFT(_question_pairs(2, 8), labels=NOT_DUPLICATE)


# --- entailment ----------------------------------------------------------------------------

# (premise predicate, synonymous predicate, antonymous / contradicting predicate)
PREDICATES = (
    ("is rich", "is wealthy", "is poor"),
    ("is very smart", "is very intelligent", "is very stupid"),
    ("is sick", "is ill", "is healthy"),
    ("is famous", "is well known", "is unknown"),
    ("was scared", "was afraid", "was fearless"),
    ("is happy", "is glad", "is sad"),
    ("bought a car", "purchased a car", "sold a car"),
    ("started a company", "founded a company", "closed a company"),
    ("finished the report", "completed the report", "abandoned the report"),
    ("fixed the roof", "repaired the roof", "damaged the roof"),
    ("arrived early", "came early", "arrived late"),
    ("won the match", "was victorious in the match", "lost the match"),
)


def _predicate_pairs(variant: int, per_predicate: int) -> list[tuple[str, str]]:
    pairs = []
    for forms in PREDICATES:
        premise = "{first_name} {last_name}, {a:profession} from {city}, " + forms[0] + "."
        hypothesis = "{first_name} {last_name} " + forms[variant] + "."
        t = editor.template((premise, hypothesis), nsamples=per_predicate, remove_duplicates=True)
        pairs += t.data
    return pairs


@behavioral_test(capability="Vocabulary", type="mft", task="entailment")
def test_entailment_synonym_hypothesis():
    """A hypothesis restating a fact of the premise with a synonym ("bought" -> "purchased")
    is entailed."""
    return MFT(_predicate_pairs(1, 8), labels=ENTAILMENT)


@behavioral_test(capability="Vocabulary", type="mft", task="entailment")
def test_entailment_antonym_hypothesis():
    """A hypothesis restating a fact of the premise with its antonym ("rich" -> "poor") is
    not entailed."""
    return MFT(_predicate_pairs(2, 8), labels=NOT_ENTAILMENT)
