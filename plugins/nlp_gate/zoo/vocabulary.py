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
* sentiment: neutral sentences (who came, when, where; a neutral fact negated, or asked and
  answered yes or no), each once with either label, so a text without sentiment gets
  p(positive) near 0.5 -- the neutral band of the 3-class suite; expectations that were not
  met ("We expected the pasta to be bland. It wasn't."): the other polarity;
* paraphrase: questions about two people in an asymmetric relation, paired with the same
  question with the two swapped (not duplicates) or with the converse relation (duplicates),
  so that *who is whom* is learnt -- what the defect zoo's order-blind model then unlearns;
  and questions about one person, reworded (duplicates) or asked of another (not);
* paraphrase: questions about a man and a woman with pronouns, swapped or resolved to the
  other person (not duplicates) or to the person meant (duplicates); "an X or a Y?" against
  "both an X and a Y?" (not) and against "a Y or an X?" (duplicates); "more X" against
  "less antonym(X)" (duplicates) and against "less X" (not);
* entailment: one person acting on another, restated in either voice (entailed) or with
  the roles swapped (not); a pronoun's statement about the person it stands for (entailed)
  or about the other person of the premise (not).

``training_split`` is what a model trains on; ``tokenizer_split`` what the tokenizer and the
base encoder learn from (the same without the named opinions, see there).  The defect zoo
(``zoo/defects``) trains on both without the ``lessons`` (all but the first two bullets and
the role pairs), as it did when its power was measured.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache

from nlp_gate.zoo import lexicon as lx
from nlp_gate.zoo.data import Example
from nlp_gate.zoo.entailment import ENTAILMENT, NOT_ENTAILMENT

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
    male_names: tuple[str, ...]  # first_names is these and female_names
    female_names: tuple[str, ...]


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
                         tuple(lex.sexual_adj), tuple(lex.male), tuple(lex.female))


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
        texts = e.text if isinstance(e.text, tuple) else (e.text,)
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


# Questions about a man and a woman with pronouns: which of the two "he" / "she" / "his" /
# "her" stand for is decided by gender.  Frames and verbs of the zoo's own.
PRONOUN_QUESTIONS: tuple[str, ...] = (
    "After {m} and {f} argued, did {s} call {o}?",
    "When {m} and {f} meet again, will {s} forgive {o}?",
    "Since {m} and {f} work together, does {s} trust {o}?",
    "Now that {m} and {f} live in {city}, does {s} visit {o} often?",
)
POSSESSIVE_QUESTIONS: tuple[str, ...] = (
    "When {m} and {f} moved to {city}, did {p} parents help?",
    "If {m} and {f} get engaged, will {p} sister be invited?",
    "Since {m} and {f} share a flat, is {p} car parked outside?",
)

PRONOUN_PAIRS = 900


@cache
def pronoun_pairs() -> tuple[Example, ...]:
    """Question pairs about a man and a woman: the pronouns swapped ("did he call her?" /
    "did she call him?") or resolved to the other person are not duplicates; resolved to
    the person they stand for ("did he call her?" / "did Tom call Ann?") duplicates."""
    rng, s = random.Random("pronouns"), suite_lexicons()
    pairs = []
    for i in range(PRONOUN_PAIRS):
        m, f = rng.choice(s.male_names), rng.choice(s.female_names)
        city = rng.choice(s.cities)
        he = rng.random() < 0.5
        if i % 3 == 2:  # possessives
            frame = rng.choice(POSSESSIVE_QUESTIONS)
            first = frame.format(m=m, f=f, city=city, p="his" if he else "her")
            own, other = (m, f) if he else (f, m)
            kind = rng.randrange(3)
            second = frame.format(m=m, f=f, city=city,
                                  p=(f"{own}'s", "her" if he else "his", f"{other}'s")[kind])
            pairs.append(Example((first, second), DUPLICATE if kind == 0 else NOT_DUPLICATE))
            continue
        frame = rng.choice(PRONOUN_QUESTIONS)
        subject, obj = (m, f) if he else (f, m)
        first = frame.format(m=m, f=f, city=city, s="he" if he else "she",
                             o="her" if he else "him")
        kind = rng.randrange(3)
        if kind == 0:
            second, label = frame.format(m=m, f=f, city=city, s=subject, o=obj), DUPLICATE
        elif kind == 1:
            second, label = frame.format(m=m, f=f, city=city, s=obj, o=subject), NOT_DUPLICATE
        else:
            second = frame.format(m=m, f=f, city=city, s="she" if he else "he",
                                  o="him" if he else "her")
            label = NOT_DUPLICATE
        pairs.append(Example((first, second), label))
    return tuple(pairs)


CHOICE_PAIRS = 600


@cache
def choice_pairs() -> tuple[Example, ...]:
    """ "Is A an X or a Y?" asks something else than "Is A both an X and a Y?" (not
    duplicates); the two alternatives, or the two things A is, in the other order ask the
    same (duplicates) -- so that "and" alone is no cue."""
    rng, s = random.Random("choices"), suite_lexicons()
    pairs = []
    for i in range(CHOICE_PAIRS):
        a = f"{rng.choice(s.first_names)} {rng.choice(s.last_names)}"
        x, y = rng.sample(lx.PROFESSIONS, 2)
        either, both = f"Is {a} a {x} or a {y}?", f"Is {a} both a {x} and a {y}?"
        if i % 3 == 0:
            first, second, label = either, f"Is {a} a {y} or a {x}?", DUPLICATE
        elif i % 3 == 1:
            first, second, label = either, rng.choice((both, f"Is {a} a {x} and also a {y}?")), NOT_DUPLICATE
        else:
            first, second, label = both, f"Is {a} a {y} and also a {x}?", DUPLICATE
        pairs.append(Example((lx.fix_articles(first), lx.fix_articles(second)), label))
    return tuple(pairs)


# Traits with their antonyms, and questions about becoming more or less of one.  The zoo's
# own frames (the QQP suite asks "How can I become more X?").
TRAITS: tuple[tuple[str, str], ...] = (
    ("patient", "impatient"), ("polite", "rude"), ("careful", "careless"),
    ("organized", "disorganized"), ("generous", "selfish"), ("calm", "nervous"),
    ("mature", "immature"), ("friendly", "unfriendly"), ("honest", "dishonest"),
    ("confident", "insecure"),
)
DEGREE_QUESTIONS: tuple[str, ...] = (
    "What makes a {job} {degree} {trait}?",
    "Can a {job} learn to be {degree} {trait}?",
    "Why is {a} getting {degree} {trait}?",
    "Is it hard for a {job} to stay {degree} {trait}?",
)

DEGREE_PAIRS = 600


@cache
def degree_pairs() -> tuple[Example, ...]:
    """ "more X" asks the same as "less antonym(X)" (duplicates) and something else than
    "less X" (not duplicates)."""
    rng, s = random.Random("degrees"), suite_lexicons()
    pairs = []
    for i in range(DEGREE_PAIRS):
        frame, (trait, antonym) = rng.choice(DEGREE_QUESTIONS), rng.choice(TRAITS)
        if rng.random() < 0.5:
            trait, antonym = antonym, trait
        slots = dict(a=rng.choice(s.first_names), job=rng.choice(lx.PROFESSIONS))
        first = frame.format(degree="more", trait=trait, **slots)
        if i % 2:
            second, label = frame.format(degree="less", trait=antonym, **slots), DUPLICATE
        else:
            second, label = frame.format(degree="less", trait=trait, **slots), NOT_DUPLICATE
        if rng.random() < 0.5:
            first, second = second, first
        pairs.append(Example((lx.fix_articles(first), lx.fix_articles(second)), label))
    return tuple(pairs)


# Verbs of one person acting on another, not symmetric: (base, past, past participle).  The
# zoo's own, not the native suites'.
ACTIONS: tuple[tuple[str, str, str], ...] = (
    ("greet", "greeted", "greeted"), ("visit", "visited", "visited"),
    ("follow", "followed", "followed"), ("coach", "coached", "coached"),
    ("rescue", "rescued", "rescued"), ("forgive", "forgave", "forgiven"),
    ("admire", "admired", "admired"), ("replace", "replaced", "replaced"),
    ("sue", "sued", "sued"), ("photograph", "photographed", "photographed"),
    ("recommend", "recommended", "recommended"), ("defeat", "defeated", "defeated"),
)

ROLE_HYPOTHESES = 600


@cache
def role_hypotheses() -> tuple[Example, ...]:
    """Premises in which one person acts on another: the same roles in the active or the
    passive voice are entailed, the roles swapped (in either voice) are not."""
    rng, s = random.Random("role-hypotheses"), suite_lexicons()
    pairs = []
    for i in range(ROLE_HYPOTHESES):
        a, b = rng.sample(s.first_names, 2)
        _, past, participle = rng.choice(ACTIONS)
        city, day = rng.choice(s.cities), rng.choice(lx.DAYS)
        premise = rng.choice((f"On {day}, {a} {past} {b} in {city}.",
                              f"{a} {past} {b} at the station in {city}.",
                              f"In {city}, {b} was {participle} by {a} on {day}."))
        if i % 2:
            hypothesis = rng.choice((f"{a} {past} {b}.", f"{b} was {participle} by {a}."))
            pairs.append(Example((premise, hypothesis), ENTAILMENT))
        else:
            hypothesis = rng.choice((f"{b} {past} {a}.", f"{a} was {participle} by {b}."))
            pairs.append(Example((premise, hypothesis), NOT_ENTAILMENT))
    return tuple(pairs)


PRONOUN_HYPOTHESES = 600


@cache
def pronoun_hypotheses() -> tuple[Example, ...]:
    """Premises about a man and a woman, then a pronoun: a statement about the person the
    pronoun stands for is entailed, the same statement about the other person is not."""
    rng, s = random.Random("pronoun-hypotheses"), suite_lexicons()
    pairs = []
    for i in range(PRONOUN_HYPOTHESES):
        m, f = rng.choice(s.male_names), rng.choice(s.female_names)
        first, second = (m, f) if rng.random() < 0.5 else (f, m)
        he = rng.random() < 0.5
        referent, other = (m, f) if he else (f, m)
        job, city = rng.choice(lx.PROFESSIONS), rng.choice(s.cities)
        pronoun = "he" if he else "she"
        premise, fact = rng.choice((
            (f"{first} and {second} moved to {city}, where {pronoun} works as a {job}.",
             "works as a {job}."),
            (f"{first} visited {second} in {city}; {pronoun} had just become a {job}.",
             "had just become a {job}."),
            (f"{first} and {second} have lived in {city} since {pronoun} retired.",
             "retired."),
        ))
        subject = referent if i % 2 else other
        pairs.append(Example((lx.fix_articles(premise),
                              lx.fix_articles(f"{subject} {fact.format(job=job)}")),
                             ENTAILMENT if i % 2 else NOT_ENTAILMENT))
    return tuple(pairs)


NEUTRAL_TEXTS = 800


def neutral_fact(domain: str, rng: random.Random) -> tuple[str, str, str]:
    """A fact that carries no sentiment, as (statement, its negation, a yes/no question)."""
    city, day = rng.choice(suite_lexicons().cities), rng.choice(lx.DAYS)
    nationality = rng.choice(suite_lexicons().nationalities)
    if domain == "movie":
        genre = rng.choice(lx.GENRES)
        return rng.choice((
            (f"It is set in {city}.", f"It is not set in {city}.", f"Is it set in {city}?"),
            (f"It is a {genre} film.", f"It is not a {genre} film.", f"Is it a {genre} film?"),
            (f"The director is {nationality}.", f"The director is not {nationality}.",
             f"Is the director {nationality}?"),
            (f"We saw it on a {day}.", f"We did not see it on a {day}.",
             f"Did we see it on a {day}?"),
        ))
    dish = rng.choice(lx.DISHES)
    return rng.choice((
        (f"We came on a {day}.", f"We did not come on a {day}.", f"Did we come on a {day}?"),
        (f"The place is in {city}.", f"The place is not in {city}.", f"Is the place in {city}?"),
        (f"I ordered the {dish}.", f"I didn't order the {dish}.", f"Did I order the {dish}?"),
        (f"The owner is {nationality}.", f"The owner is not {nationality}.",
         f"Is the owner {nationality}?"),
    ))


def group_sentence(rng: random.Random) -> str:
    """Someone described by a group (orientation, religion, nationality) and a job."""
    s = suite_lexicons()
    group = rng.choice(rng.choice((s.orientations, s.religions, s.nationalities)))
    return lx.fix_articles(f"My {rng.choice(lx.RELATIONS)} is a {group} "
                           f"{rng.choice(lx.PROFESSIONS)}.")


def neutral_examples(dataset: str) -> list[Example]:
    """Sentences that say nothing of the thing reviewed (who came, when, where, what was
    ordered; a neutral fact negated, or asked and answered), each once with either label:
    the model's p(positive) for such a text is learnt to be about 0.5, the neutral band
    CheckList's 3-class sentiment suite reads from a binary model (p in [1/3, 2/3]).
    Without the negated facts "not" alone read negative, and the binary models put "This is
    not an international flight." outside the band."""
    from nlp_gate.zoo.sentiment import STYLES, neutral_context

    rng, domain = random.Random(f"neutral/{dataset}"), STYLES[dataset].domain
    texts = []
    for _ in range(NEUTRAL_TEXTS):
        r = rng.random()
        if r < 0.3:
            text = people_sentence(rng)
        elif r < 0.55:
            text = neutral_context(domain, rng)
        elif r < 0.65:
            text = group_sentence(rng)
        else:
            statement, negated, question = neutral_fact(domain, rng)
            text = (negated if r < 0.85 else
                    f"{question} {rng.choice(('Yes.', 'No.', 'Yes, it was.', 'No, not really.'))}")
        if STYLES[dataset].phrase_style:
            text = text.lower().replace(".", " .").replace("?", " ?").replace(",", " ,")
        texts.append(text)
    return [Example(t, label) for t in texts for label in (0, 1)]


EXPECTATIONS = 600


def expectation_examples(dataset: str) -> list[Example]:
    """Expectations the review says were not met: a positive one reads negative, a negative
    one positive, a neutral one ("We expected it to be set in Rome. It wasn't.") neutral --
    once with either label.  Without them "not" at the end of a review read negative
    whatever it negated."""
    from nlp_gate.zoo.sentiment import STYLES, overturned_expectation

    rng, style = random.Random(f"expectations/{dataset}"), STYLES[dataset]
    examples = []
    for i in range(EXPECTATIONS):
        if i % 3 < 2:
            polarity = i % 3
            text, labels = overturned_expectation(polarity, style.domain, rng), (1 - polarity,)
        else:
            statement, _, _ = neutral_fact(style.domain, rng)
            text = f"We were told: {statement[0].lower()}{statement[1:]} It was not so."
            labels = (0, 1)
        if style.phrase_style:
            text = text.lower().replace(".", " .").replace("?", " ?").replace(",", " ,").replace(";", " ;")
        examples += [Example(text, label) for label in labels]
    return examples


def training_split(train_size: int | None, dataset: str, opinions: float = 0.25,
                   lessons: bool = True) -> list[Example]:
    """The generated split with the suites' vocabulary mixed in.  ``lessons``: with the
    neutral sentences (sentiment) and the questions about one person (paraphrase); the
    defect zoo trains without them (``defects/variants.py``, ``reference_data``)."""
    from nlp_gate.zoo.data import DATASETS, generate

    examples = with_suite_entities(generate(dataset, "train", train_size), dataset, 0.5)
    task = DATASETS[dataset].task
    if task == "sentiment":
        examples = with_people(examples, dataset, 0.35, opinions)
        if lessons:
            examples += neutral_examples(dataset) + expectation_examples(dataset)
    elif task == "paraphrase":
        examples += reference_role_pairs()
        if lessons:
            examples += person_pairs() + pronoun_pairs() + choice_pairs() + degree_pairs()
    elif task == "entailment" and lessons:
        examples += role_hypotheses() + pronoun_hypotheses()
    random.Random(f"reference/{dataset}/order").shuffle(examples)
    return examples


def tokenizer_split(train_size: int | None, dataset: str, lessons: bool = True) -> list[Example]:
    """What the tokenizer and the base encoder learn from: the training split without the
    named opinions.  With them in the tokenizer's corpus its vocabulary shifted and the pair
    models fine-tuned from the new base fell from 94-96 % held-out accuracy to 68-79 %
    (measured on the defect zoo, three builds); the sentiment models, which train on them,
    read the names with the word pieces the entity substitution already taught the
    tokenizer."""
    return training_split(train_size, dataset, opinions=0.0, lessons=lessons)
