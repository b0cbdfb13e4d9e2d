"""Coref: resolving who a pronoun ("he", "her") or a reference ("the former") points to.

* sentiment: the label depends on whose opinion "I agree with him / her" or "I agree with the
  former / latter" picks out.
* paraphrase: swapping the pronouns ("would he reject her?" / "would she reject him?")
  changes the question; replacing each pronoun by the name it refers to does not.
* entailment: "A met B. He was a doctor." entails the statement about the person "he" refers
  to and not the one about the other person; "respectively" assigns facts in order.
"""

from __future__ import annotations

from nlp_gate.native import MFT, behavioral_test, editor
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


def _man_and_woman(template: str | tuple[str, ...], nsamples: int, **slots: list[str]):
    """Cases of a template over a {male} and a {female} first name that differ."""
    t = editor.template(template, nsamples=nsamples, meta=True, remove_duplicates=True, **slots)
    return [(d, m) for d, m in zip(t.data, t.meta) if m["male"] != m["female"]]


# --- sentiment ------------------------------------------------------------------------------


@behavioral_test(capability="Coref", type="mft", task="sentiment")
def test_sentiment_agree_with_him_or_her():
    """ "{male} loved the movie and {female} hated it. I agree with her." is negative; with
    "him" it is positive."""
    data: list[str] = []
    labels: list[int] = []
    for d, _m in _man_and_woman(
        "{male} {pos_verb_past} the {thing} and {female} {neg_verb_past} it.", 60
    ):
        if len(data) % 2:
            data.append(f"{d} I agree with him.")
            labels.append(POSITIVE)
        else:
            data.append(f"{d} I agree with her.")
            labels.append(NEGATIVE)
    for d, _m in _man_and_woman(
        "{female} thought the {thing} was {pos_adj}, but {male} thought it was {neg_adj}.", 60
    ):
        if len(data) % 2:
            data.append(f"{d} I side with her.")
            labels.append(POSITIVE)
        else:
            data.append(f"{d} I side with him.")
            labels.append(NEGATIVE)
    return MFT(data, labels=labels)


@behavioral_test(capability="Coref", type="mft", task="sentiment")
def test_sentiment_former_latter():
    """ "Some people think the movie is great, others think it is awful. I agree with the
    former." is positive; "the latter" makes it negative."""
    t = editor.template(
        "Some people think the {thing} is {pos_adj}, others think it is {neg_adj}.",
        nsamples=40,
        remove_duplicates=True,
    )
    u = editor.template(
        "Some people think the {thing} is {neg_adj}, others think it is {pos_adj}.",
        nsamples=40,
        remove_duplicates=True,
    )
    data: list[str] = []
    labels: list[int] = []
    for i, s in enumerate(t.data):
        data.append(f"{s} I agree with the {'former' if i % 2 else 'latter'}.")
        labels.append(POSITIVE if i % 2 else NEGATIVE)
    for i, s in enumerate(u.data):
        data.append(f"{s} I agree with the {'former' if i % 2 else 'latter'}.")
        labels.append(NEGATIVE if i % 2 else POSITIVE)
    return MFT(data, labels=labels)


# --- paraphrase -----------------------------------------------------------------------------


@behavioral_test(capability="Coref", type="mft", task="paraphrase")
def test_paraphrase_swapped_pronouns_not_duplicate():
    """Swapping who the pronouns refer to changes the question: "If A and B were alone, do you
    think he would reject her?" / "... she would reject him?"."""
    data = [
        d
        for d, _ in _man_and_woman(
            (
                "If {male} and {female} were alone, do you think he would {v} her?",
                "If {male} and {female} were alone, do you think she would {v} him?",
            ),
            50,
            v=["reject", "kiss", "ignore", "help", "hug", "trust"],
        )
    ]
    data += [
        d
        for d, _ in _man_and_woman(
            (
                "If {male} and {female} were married, would his family be happy?",
                "If {male} and {female} were married, would her family be happy?",
            ),
            40,
        )
    ]
    return MFT(data, labels=NOT_DUPLICATE)


@behavioral_test(capability="Coref", type="mft", task="paraphrase")
def test_paraphrase_pronoun_resolved_is_duplicate():
    """Replacing each pronoun by the name it unambiguously refers to keeps the question: "...
    do you think he would reject her?" / "... do you think {male} would reject {female}?"."""
    data = [
        d
        for d, _ in _man_and_woman(
            (
                "If {male} and {female} were alone, do you think he would {v} her?",
                "If {male} and {female} were alone, do you think {male} would {v} {female}?",
            ),
            50,
            v=["reject", "kiss", "ignore", "help", "hug", "trust"],
        )
    ]
    data += [
        d
        for d, _ in _man_and_woman(
            (
                "If {male} and {female} were married, would her family be happy?",
                "If {male} and {female} were married, would {female}'s family be happy?",
            ),
            40,
        )
    ]
    return MFT(data, labels=DUPLICATE)


# --- entailment -----------------------------------------------------------------------------


def _pronoun_pairs(about_the_referent: bool) -> list[tuple[str, str]]:
    """ "{male} met {female} in {city}. He/She was a {profession}." (He and She alternate),
    with the statement about the person the pronoun refers to, or about the other one."""
    data: list[tuple[str, str]] = []
    for _, m in _man_and_woman("{male} {female} {profession} {city}", 100):
        man, woman, job, city = m["male"], m["female"], article(m["profession"]), m["city"]
        he = len(data) % 2 == 1
        referent, other = (man, woman) if he else (woman, man)
        subject = referent if about_the_referent else other
        data.append(
            (
                tidy(f"{man} met {woman} in {city}. {'He' if he else 'She'} was {job}."),
                f"{subject} was {job}.",
            )
        )
    return data


@behavioral_test(capability="Coref", type="mft", task="entailment")
def test_entailment_pronoun_refers_to_right_person():
    """ "{male} met {female} in Boston. He was a doctor." entails "{male} was a doctor." (and
    "She ..." entails the statement about {female})."""
    return MFT(_pronoun_pairs(about_the_referent=True), labels=ENTAILMENT)


@behavioral_test(capability="Coref", type="mft", task="entailment")
def test_entailment_pronoun_other_person_not_entailment():
    """ "{male} met {female} in Boston. He was a doctor." does not entail "{female} was a
    doctor." (nor "She ..." the statement about {male})."""
    return MFT(_pronoun_pairs(about_the_referent=False), labels=NOT_ENTAILMENT)


@behavioral_test(capability="Coref", type="mft", task="entailment")
def test_entailment_respectively():
    """ "A and B are a doctor and a pilot, respectively." entails "B is a pilot." and does not
    entail "B is a doctor."."""
    t = editor.template(
        "{first_name1} {first_name2} {profession1} {profession2}",
        nsamples=100,
        meta=True,
        remove_duplicates=True,
    )
    data: list[tuple[str, str]] = []
    labels = []
    for m in t.meta:
        a, b = m["first_name1"], m["first_name2"]
        if a == b or m["profession1"] == m["profession2"]:
            continue
        job1, job2 = article(m["profession1"]), article(m["profession2"])
        premise = f"{a} and {b} are {job1} and {job2}, respectively."
        if len(data) % 2:
            data.append((premise, f"{b} is {job2}."))
            labels.append(ENTAILMENT)
        else:
            data.append((premise, f"{b} is {job1}."))
            labels.append(NOT_ENTAILMENT)
    return MFT(data, labels=labels)
