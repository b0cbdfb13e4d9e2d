"""Paraphrase-pair corpora: ``qqp`` (Quora-style questions) and ``mrpc`` (news).

Labels: 1 = duplicate / equivalent, 0 = not.  An *intent* is a family of
surface forms that mean the same thing given the same slot values.

* Duplicates: two different forms of one intent with the same slots, plus
  synonym substitution (and, for symmetric comparisons, reordering).
* Non-duplicates, mixed from easy to hard: an unrelated question/sentence;
  a related intent on the same topic; one slot changed (entity, number,
  city - the NER-style change); an antonym; an inserted negation; and for
  mrpc a role swap ("A bought B" vs "B bought A").

Not covered here, so the QQP suite has out-of-distribution tests to fail:
coreference (he/she swaps), irrelevant preambles, and "more X" = "less
antonym(X)".  Temporal shifts ("is" vs "used to be") and active/passive
questions about people come with the suites' vocabulary instead, as lessons
the defect zoo does not train on (``vocabulary.py``, ``person_pairs``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from workshop.zoo import lexicon as lx
from workshop.zoo.intents import MRPC_INTENTS, QQP_INTENTS, Intent, Slots
from workshop.zoo.noise import perturb


# --- rendering & pair construction ------------------------------------------


def _apply_synonyms(text: str, rng: random.Random, p: float) -> str:
    words = text.split(" ")
    for i, word in enumerate(words):
        options = lx.SYNONYMS.get(word)
        if options and rng.random() < p:
            words[i] = rng.choice(options)
    return " ".join(words)


def _apply_phrases(text: str, rng: random.Random, p: float) -> str:
    for a, b in lx.PHRASE_SYNONYMS:
        if a in text and rng.random() < p:
            text = text.replace(a, b, 1)
    return text


def render(template: str, slots: Slots, rng: random.Random) -> str:
    values = dict(slots)
    if "dir" in values:  # news direction: pick a synonym each time it is rendered
        values["dir"] = rng.choice(lx.NEWS_DIRECTIONS[int(slots["dir"])])
    text = _apply_phrases(_apply_synonyms(template.format(**values), rng, p=0.3), rng, p=0.3)
    text = lx.fix_articles(text)
    return text[0].upper() + text[1:]


@dataclass(frozen=True)
class PairMix:
    """How pairs are drawn.

    ``p_parallel`` is the share of pairs whose second side reuses the first
    side's template (index-aligned for a related/negated intent), so the two
    questions differ in one or two words: a synonym or typo for duplicates, a
    swapped slot/antonym/negation for non-duplicates.  Such minimal pairs are
    what a tiny model can learn to compare in a few epochs - and what the
    CheckList QQP suite is made of; the rest use unrelated templates.
    """

    p_parallel: float
    p_unrelated: float
    p_related_intent: float
    p_negation: float
    # the remaining non-duplicate mass mutates one slot (entity/number/antonym/role)
    p_typo: float
    p_punct: float


MIXES: dict[str, PairMix] = {
    "qqp": PairMix(p_parallel=0.7, p_unrelated=0.25, p_related_intent=0.15, p_negation=0.15, p_typo=0.06, p_punct=0.15),
    "mrpc": PairMix(p_parallel=0.8, p_unrelated=0.3, p_related_intent=0.0, p_negation=0.15, p_typo=0.05, p_punct=0.05),
}
INTENTS: dict[str, tuple[Intent, ...]] = {"qqp": QQP_INTENTS, "mrpc": MRPC_INTENTS}


def _form(forms: tuple[str, ...], index: int, parallel: bool, rng: random.Random) -> str:
    return forms[index % len(forms)] if parallel else rng.choice(forms)


def _non_duplicate(
    intent: Intent, slots: Slots, index: int, parallel: bool, pool: tuple[Intent, ...], mix: PairMix, rng: random.Random
) -> str:
    r = rng.random()
    if r < mix.p_unrelated:
        other = rng.choice([i for i in pool if i.group != intent.group])
        return render(rng.choice(other.forms), other.sample(rng), rng)
    r -= mix.p_unrelated
    related = [i for i in pool if i.group == intent.group and i is not intent]
    if r < mix.p_related_intent and related:
        return render(_form(rng.choice(related).forms, index, parallel, rng), slots, rng)
    r -= mix.p_related_intent
    if r < mix.p_negation and intent.negated:
        return render(_form(intent.negated, index, parallel, rng), slots, rng)
    return render(_form(intent.forms, index, parallel, rng), intent.mutate(slots, rng), rng)


def paraphrase_pair(dataset: str, label: int, rng: random.Random) -> tuple[str, str]:
    pool, mix = INTENTS[dataset], MIXES[dataset]
    intent = rng.choice(pool)
    slots = intent.sample(rng)
    index = rng.randrange(len(intent.forms))
    parallel = rng.random() < mix.p_parallel
    first = render(intent.forms[index], slots, rng)
    if label == 1:
        if parallel:  # same template; synonyms/noise (or nothing: reflexivity) differ
            second = render(intent.forms[index], slots, rng)
        else:
            others = [f for i, f in enumerate(intent.forms) if i != index] or list(intent.forms)
            second = render(rng.choice(others), slots, rng)
    else:
        second = _non_duplicate(intent, slots, index, parallel, pool, mix, rng)
    first = perturb(first, rng, mix.p_typo, mix.p_punct)
    second = perturb(second, rng, mix.p_typo, mix.p_punct)
    return (first, second) if rng.random() < 0.5 else (second, first)
