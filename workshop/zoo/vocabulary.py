"""The suites' vocabulary in the training data, as a fine-tuned model would know it.

The generators draw people, places and nationalities from the zoo's own short lists and never
mention religions or sexual orientations (``zoo/lexicon.py``).  Trained on that alone, the
models met CheckList's names, groups and places as words they never saw, and failed the entity
and fairness tests at rates close to 100 %: a saturated model, which no gate can tell from a
defective one (40 of 171 tiny gates were at 100).  So every zoo model trains on the generated
split with the suites' own lexicons mixed in (CheckList's ``first_name``, ``last_name``,
``city``, ``country``, ``nationality``, ``religion_adj``, ``sexual_adj``), label-neutrally:

* entity substitution: in a share of the examples every zoo name, city, country and
  nationality is replaced, consistently within the example (both texts of a pair), by a
  CheckList value of the same type -- the label cannot change;
* sentiment: a neutral sentence about the people present (a religion, an orientation, a
  nationality, a name, a city), added to positive and negative reviews alike;
* sentiment: neutral sentences (who came, when, where; and what kind of thing it was:
  CheckList's airline nouns with its neutral adjectives, asserted or denied), each once with
  either label, so a text without sentiment gets p(positive) near 0.5 -- the neutral band
  of the 3-class suite;
* sentiment: short verdicts, an opinion word alone or nearly ("Simply awful."), so that a
  short text is not taken for a neutral one;
* paraphrase: questions about two people in an asymmetric relation, paired with the same
  question with the two swapped (not duplicates) or with the converse relation (duplicates),
  so that *who is whom* is learnt -- what the defect zoo's order-blind model then unlearns;
  and questions about one person, reworded (duplicates) or asked of another (not).

``training_split`` is what a model trains on; ``tokenizer_split`` what the tokenizer and the
base encoder learn from (the same without the named opinions, see there).  The defect zoo
(``zoo/defects``) trains on both without the ``lessons`` (the neutral sentences and the
questions about one person), as it did when its power was measured.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache

from workshop.zoo import lexicon as lx
from workshop.zoo.data import Example

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
        texts: tuple[str, ...] = e.text if isinstance(e.text, tuple) else (e.text,)
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


# Questions about one person, with a rewording: asked of two people they are not duplicates.
PERSON_QUESTIONS: tuple[tuple[str, str], ...] = (
    ("How old is {a}?", "What is the age of {a}?"),
    ("Where does {a} live?", "Where is the home of {a}?"),
    ("What does {a} do for a living?", "What is the job of {a}?"),
    ("Is {a} married?", "Does {a} have a spouse?"),
    ("Where was {a} born?", "What is the birthplace of {a}?"),
)

# Questions that differ in time or in who did what to whom: (question, same meaning, other
# meaning).  Verbs and professions of the zoo's own, not the native suites'.
CONTRASTED_QUESTIONS: tuple[tuple[str, str, str], ...] = (
    ("Is {a} a {job}?", "Does {a} work as a {job}?", "Did {a} use to be a {job}?"),
    ("Is {a} a {job}?", "Does {a} work as a {job}?", "Is {a} becoming a {job}?"),
    ("What did {a} do before the wedding?", "What was {a} doing before the wedding?",
     "What did {a} do after the wedding?"),
    ("Did {a} greet {b}?", "Was {b} greeted by {a}?", "Was {a} greeted by {b}?"),
    ("Did {a} visit {b}?", "Was {b} visited by {a}?", "Did {b} visit {a}?"),
)

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


PERSON_PAIRS = 900


@cache
def person_pairs() -> tuple[Example, ...]:
    """Questions about one person: reworded about the same person (duplicates), or asked of
    another person (not duplicates) -- who is asked about matters; and a third that differ
    in tense or roles from a question (not duplicates) or only in wording (duplicates)."""
    rng, s = random.Random("persons"), suite_lexicons()
    pairs = []
    for i in range(PERSON_PAIRS):
        a, b = (f"{first} {rng.choice(s.last_names)}" if rng.random() < 0.5 else first
                for first in rng.sample(s.first_names, 2))
        if i % 3 == 2:  # time and roles: the same words, another meaning
            question, same, other = rng.choice(CONTRASTED_QUESTIONS)
            job = rng.choice(lx.PROFESSIONS)
            second, label = (same, DUPLICATE) if rng.random() < 0.5 else (other, NOT_DUPLICATE)
            pairs.append(Example((question.format(a=a, b=b, job=job),
                                  second.format(a=a, b=b, job=job)), label))
            continue
        question, rewording = rng.choice(PERSON_QUESTIONS)
        if i % 2:
            pairs.append(Example((question.format(a=a), rewording.format(a=a)), DUPLICATE))
        else:
            other = rewording if rng.random() < 0.5 else question
            pairs.append(Example((question.format(a=a), other.format(a=b)), NOT_DUPLICATE))
    return tuple(pairs)


NEUTRAL_TEXTS = 600


def _styled(text: str, dataset: str) -> str:
    from workshop.zoo.sentiment import STYLES

    return text.lower().replace(".", " .") if STYLES[dataset].phrase_style else text


def neutral_examples(dataset: str) -> list[Example]:
    """Sentences that say nothing of the thing reviewed (who came, when, where, what was
    ordered), each once with either label: the model's p(positive) for such a text is learnt
    to be about 0.5, the neutral band CheckList's 3-class sentiment suite reads from a binary
    model (p in [1/3, 2/3])."""
    from workshop.zoo.sentiment import STYLES, neutral_context

    rng = random.Random(f"neutral/{dataset}")
    texts = []
    for _ in range(NEUTRAL_TEXTS):
        text = (people_sentence(rng) if rng.random() < 0.4
                else neutral_context(STYLES[dataset].domain, rng))
        texts.append(_styled(text, dataset))
    return [Example(t, label) for t in texts for label in (0, 1)]


# The sentiment suite's neutral vocabulary: CheckList's airline nouns and the adjectives and
# verbs its neutral tests describe them with ("neutral words in context", the "(neutral)"
# negations and Q & A).  Without them in the data, the tiny models read "The seat was
# Italian." as an opinion and failed those tests on 97-100 % of cases.
NEUTRAL_NOUNS = ("flight", "seat", "pilot", "staff", "service", "customer service", "aircraft",
                 "plane", "food", "cabin crew", "company", "airline", "crew")
NEUTRAL_ADJECTIVES = ("American", "international", "commercial", "British", "private",
                      "Italian", "Indian", "Australian", "Israeli")
NEUTRAL_DESCRIPTIONS = 300


def neutral_description(rng: random.Random) -> str:
    """A thing described, or not, by a word that is no opinion: asserted or denied, it says
    nothing of whether the thing was good."""
    noun, adj = rng.choice(NEUTRAL_NOUNS), rng.choice(NEUTRAL_ADJECTIVES)
    verb = rng.choice(("saw", "found", "booked", "took"))
    return lx.fix_articles(rng.choice((
        f"The {noun} was {adj}.", f"Our {noun} is {adj}.", f"It was a {adj} {noun}.",
        f"The {noun} was not {adj}.", f"Our {noun} isn't {adj}.", f"It wasn't a {adj} {noun}.",
        f"We {verb} the {noun}.", f"We never {verb} the {noun}.",
        f"I expected the {noun} to be {adj}, and it was.",
        f"I expected the {noun} to be {adj}, but it was not.",
        f"Was the {noun} {adj}? Yes.", f"Was the {noun} {adj}? No.")))


def description_examples(dataset: str) -> list[Example]:
    """Neutral descriptions, each once with either label (as ``neutral_examples``)."""
    rng = random.Random(f"descriptions/{dataset}")
    texts = [_styled(neutral_description(rng), dataset) for _ in range(NEUTRAL_DESCRIPTIONS)]
    return [Example(t, label) for t in texts for label in (0, 1)]


SHORT_VERDICTS = 300


def short_verdict(label: int, rng: random.Random) -> str:
    """An opinion word alone, or nearly: the neutral descriptions are short too, and without
    these the models learnt that a short text is neutral ("good" read as neutral)."""
    adjectives, verbs, past = ((lx.POS_ADJ_COMMON, lx.POS_VERB, lx.POS_VERB_PAST) if label
                               else (lx.NEG_ADJ_COMMON, lx.NEG_VERB, lx.NEG_VERB_PAST))
    adj = rng.choice(adjectives)
    return rng.choice((adj, f"{adj.capitalize()}.", f"Simply {adj}.", f"It was {adj}.",
                       rng.choice(verbs), f"I {past[rng.choice(verbs)]} it."))


def verdict_examples(dataset: str) -> list[Example]:
    """Short verdicts, half of either polarity, labelled by it."""
    rng = random.Random(f"verdicts/{dataset}")
    return [Example(_styled(short_verdict(i % 2, rng), dataset), i % 2)
            for i in range(SHORT_VERDICTS)]


def training_split(train_size: int | None, dataset: str, opinions: float = 0.25,
                   lessons: bool = True, fine_tuning: bool = True) -> list[Example]:
    """The generated split with the suites' vocabulary mixed in.  ``lessons``: with the
    neutral sentences (sentiment) and the questions about one person (paraphrase); the
    defect zoo trains without them (``defects/variants.py``, ``reference_data``).
    ``fine_tuning``: with the lessons only the classifiers learn from, not the tokenizer
    (the neutral descriptions and the short verdicts; see ``tokenizer_split``)."""
    from workshop.zoo.data import DATASETS, generate

    examples = with_suite_entities(generate(dataset, "train", train_size), dataset, 0.5)
    task = DATASETS[dataset].task
    if task == "sentiment":
        examples = with_people(examples, dataset, 0.35, opinions)
        if lessons:
            examples += neutral_examples(dataset)
        if lessons and fine_tuning:
            examples += description_examples(dataset) + verdict_examples(dataset)
    elif task == "paraphrase":
        examples += reference_role_pairs()
        if lessons:
            examples += person_pairs()
    random.Random(f"reference/{dataset}/order").shuffle(examples)
    return examples


def tokenizer_split(train_size: int | None, dataset: str, lessons: bool = True) -> list[Example]:
    """What the tokenizer and the base encoder learn from: the training split without the
    named opinions, the neutral descriptions and the short verdicts.  With the opinions in
    the tokenizer's corpus its vocabulary shifted and the pair models fine-tuned from the new
    base fell from 94-96 % held-out accuracy to 68-79 % (measured on the defect zoo, three
    builds); with the descriptions every model changed, rte/albert fell from 95.3 % to
    79.3 % and 21 tiny gates were at 100 (one build; 13 without).  The sentiment models,
    which train on all three, read them with the word pieces the rest of the corpus taught
    the tokenizer."""
    return training_split(train_size, dataset, opinions=0.0, lessons=lessons,
                          fine_tuning=False)
