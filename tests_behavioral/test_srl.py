"""SRL (semantic roles): who does what to whom, and whose opinion counts.

* sentiment: the author's own opinion decides the label, not an opinion the text attributes
  to someone else; a yes/no answer to the author's own question decides it too.
* paraphrase: the active and passive voice of one question are duplicates ("Did A hire B?" /
  "Was B hired by A?"), while swapping the agent and the patient is not ("Did A hire B?" /
  "Did B hire A?").
* entailment: an active sentence entails its passive (and back), a hypothesis with the agent
  and the patient swapped is not entailed.
"""

from __future__ import annotations

from nlp_gate.native import MFT, behavioral_test, editor
from nlp_gate.native_tests import lexicons  # noqa: F401  (registers the shared lexicons)
from nlp_gate.native_tests.lexicons import (
    DUPLICATE,
    ENTAILMENT,
    NEGATIVE,
    NOT_DUPLICATE,
    NOT_ENTAILMENT,
    POSITIVE,
)

# Transitive, non-symmetric verbs: (base form, past, past participle).
VERBS: tuple[tuple[str, str, str], ...] = (
    ("hire", "hired", "hired"),
    ("call", "called", "called"),
    ("help", "helped", "helped"),
    ("invite", "invited", "invited"),
    ("thank", "thanked", "thanked"),
    ("pay", "paid", "paid"),
    ("interview", "interviewed", "interviewed"),
    ("criticize", "criticized", "criticized"),
    ("praise", "praised", "praised"),
    ("warn", "warned", "warned"),
    ("teach", "taught", "taught"),
    ("beat", "beat", "beaten"),
)
_FORMS = {base: (past, participle) for base, past, participle in VERBS}


def _roles(nsamples: int) -> list[tuple[str, str, str, str, str, str]]:
    """(agent, patient, verb, past, past participle, city) with two different first names."""
    t = editor.template(
        "{first_name1} {v} {first_name2} in {city}",
        v=[base for base, _, _ in VERBS],
        nsamples=nsamples,
        meta=True,
        remove_duplicates=True,
    )
    return [
        (m["first_name1"], m["first_name2"], m["v"], *_FORMS[m["v"]], m["city"])
        for m in t.meta
        if m["first_name1"] != m["first_name2"]
    ]


# --- sentiment ------------------------------------------------------------------------------


@behavioral_test(capability="SRL", type="mft", task="sentiment")
def test_sentiment_author_opinion_beats_others():
    """The author's opinion decides: "Some people think the movie is bad, but I think it is
    great." is positive, "My friends loved the movie, but I hated it." negative."""
    pos = editor.template(
        "Some people think the {thing} is {neg_adj}, but I think it is {pos_adj}.",
        nsamples=25,
        remove_duplicates=True,
    ).data
    pos += editor.template(
        "My friends {neg_verb_past} the {thing}, but I {pos_verb_past} it.",
        nsamples=20,
        remove_duplicates=True,
    ).data
    neg = editor.template(
        "Some people think the {thing} is {pos_adj}, but I think it is {neg_adj}.",
        nsamples=25,
        remove_duplicates=True,
    ).data
    neg += editor.template(
        "My friends {pos_verb_past} the {thing}, but I {neg_verb_past} it.",
        nsamples=20,
        remove_duplicates=True,
    ).data
    return MFT(pos + neg, labels=[POSITIVE] * len(pos) + [NEGATIVE] * len(neg))


@behavioral_test(capability="SRL", type="mft", task="sentiment")
def test_sentiment_others_opinion_then_author():
    """Another person's opinion stated first does not decide: "{name} thought the movie was
    awful. I thought it was great." is positive, and the reverse negative."""
    pos = editor.template(
        "{first_name} thought the {thing} was {neg_adj}. I thought it was {pos_adj}.",
        nsamples=30,
        remove_duplicates=True,
    ).data
    neg = editor.template(
        "{first_name} thought the {thing} was {pos_adj}. I thought it was {neg_adj}.",
        nsamples=30,
        remove_duplicates=True,
    ).data
    return MFT(pos + neg, labels=[POSITIVE] * len(pos) + [NEGATIVE] * len(neg))


@behavioral_test(capability="SRL", type="mft", task="sentiment")
def test_sentiment_question_answered_by_author():
    """The answer to the author's own question decides: "Do I think the movie was great?
    No." is negative, "... awful? No." positive."""
    data: list[str] = []
    labels: list[int] = []
    for adj, answer, label in (
        ("pos_adj", "Yes", POSITIVE),
        ("pos_adj", "No", NEGATIVE),
        ("neg_adj", "Yes", NEGATIVE),
        ("neg_adj", "No", POSITIVE),
    ):
        cases = editor.template(
            f"Do I think the {{thing}} was {{{adj}}}? {answer}.",
            nsamples=15,
            remove_duplicates=True,
        ).data
        data += cases
        labels += [label] * len(cases)
    return MFT(data, labels=labels)


# --- paraphrase -----------------------------------------------------------------------------


@behavioral_test(capability="SRL", type="mft", task="paraphrase")
def test_paraphrase_active_passive_is_duplicate():
    """A question in the active and in the passive voice ("Did A hire B?" / "Was B hired by
    A?") is a duplicate."""
    data = []
    for a, b, verb, _past, participle, _city in _roles(60):
        data.append((f"Did {a} {verb} {b}?", f"Was {b} {participle} by {a}?"))
    for a, b, verb, _past, participle, _city in _roles(40):
        data.append((f"Why did {a} {verb} {b}?", f"Why was {b} {participle} by {a}?"))
    return MFT(data, labels=DUPLICATE)


@behavioral_test(capability="SRL", type="mft", task="paraphrase")
def test_paraphrase_swapped_roles_is_not_duplicate():
    """Swapping who does what ("Did A hire B?" / "Did B hire A?" or "Was A hired by B?") makes
    the questions different."""
    data = []
    for a, b, verb, _past, _participle, _city in _roles(50):
        data.append((f"Did {a} {verb} {b}?", f"Did {b} {verb} {a}?"))
    for a, b, verb, _past, participle, _city in _roles(50):
        data.append((f"Did {a} {verb} {b}?", f"Was {a} {participle} by {b}?"))
    return MFT(data, labels=NOT_DUPLICATE)


# --- entailment -----------------------------------------------------------------------------


@behavioral_test(capability="SRL", type="mft", task="entailment")
def test_entailment_active_passive_entails():
    """An active sentence entails its passive and a passive sentence its active ("A hired B in
    Boston." entails "B was hired by A.")."""
    data = []
    for a, b, _verb, past, participle, city in _roles(50):
        data.append((f"{a} {past} {b} in {city} last year.", f"{b} was {participle} by {a}."))
    for a, b, _verb, past, participle, city in _roles(50):
        data.append(
            (f"{b} was {participle} by {a} in {city}.".replace("..", "."), f"{a} {past} {b}.")
        )
    return MFT(data, labels=ENTAILMENT)


@behavioral_test(capability="SRL", type="mft", task="entailment")
def test_entailment_swapped_roles_not_entailment():
    """Swapping the agent and the patient breaks the entailment ("A hired B." does not entail
    "B hired A." nor "A was hired by B.")."""
    data = []
    for a, b, _verb, past, _participle, city in _roles(50):
        data.append((f"{a} {past} {b} in {city} last year.", f"{b} {past} {a}."))
    for a, b, _verb, past, participle, city in _roles(50):
        data.append((f"{a} {past} {b} in {city} last year.", f"{a} was {participle} by {b}."))
    return MFT(data, labels=NOT_ENTAILMENT)
