"""Taxonomy: the model understands synonymy and the is-a hierarchy between words.

* sentiment -- the polarity of a review is about its opinion words, not about which member
  of a category is reviewed: swapping a noun for its hypernym ("the pasta" -> "the food"),
  or an opinion adjective for a synonym ("awful" -> "dreadful"), keeps the prediction (INV).
* paraphrase -- a question about a specific thing and the same question about its general
  category ("cook pasta" / "cook") ask different things; the same question with a synonymous
  noun ("car" / "automobile") asks the same thing.
* entailment -- a statement about a hyponym entails the statement about its hypernym
  ("owns a dog" => "owns an animal"); the converse does not hold.

Sentiment has no MFT here: swapping category words is label-preserving by construction, so
the behavior is tested as invariance (binary sentiment has no neutral class to expect).
"""

from __future__ import annotations

from nlp_gate.native import INV, MFT, behavioral_test, editor
from nlp_gate.native_tests import lexicons  # noqa: F401  (registers the shared lexicons)
from nlp_gate.native_tests.lexicons import (
    DUPLICATE,
    ENTAILMENT,
    NOT_DUPLICATE,
    NOT_ENTAILMENT,
)

# --- sentiment -----------------------------------------------------------------------------

# (specific noun, its hypernym), both used after "the"
NOUN_HYPERNYMS = (
    ("pasta", "food"),
    ("steak", "meat"),
    ("thriller", "movie"),
    ("novel", "book"),
    ("waiter", "staff"),
    ("suite", "room"),
    ("sedan", "car"),
    ("latte", "coffee"),
    ("sitcom", "show"),
    ("laptop", "computer"),
    ("cheesecake", "dessert"),
    ("paperback", "book"),
)
# adjective -> a synonym with the same polarity
ADJECTIVE_SYNONYMS = (
    ("excellent", "superb"),
    ("wonderful", "marvelous"),
    ("great", "terrific"),
    ("amazing", "astonishing"),
    ("enjoyable", "pleasurable"),
    ("lovely", "charming"),
    ("terrible", "atrocious"),
    ("awful", "dreadful"),
    ("boring", "dull"),
    ("annoying", "irritating"),
    ("horrible", "horrendous"),
    ("bad", "poor"),
)


@behavioral_test(capability="Taxonomy", type="inv", task="sentiment")
def test_sentiment_hypernym_swap():
    """Replacing the reviewed noun with its hypernym ("the pasta" -> "the food") keeps the
    prediction."""
    data = []
    templates = (
        "The {noun} was {a}.",
        "I thought the {noun} was {intensifier} {a}.",
        "Honestly, the {noun} was {a}.",
    )
    for specific, general in NOUN_HYPERNYMS:
        for slot in ("pos_adj", "neg_adj"):
            for template in templates[:2] if slot == "pos_adj" else templates[1:]:
                t = editor.template(
                    template.replace("{a}", "{" + slot + "}"),
                    noun=specific,
                    nsamples=2,
                    remove_duplicates=True,
                )
                data += [[s, s.replace(f"{specific} was", f"{general} was")] for s in t.data]
    return INV(data)


@behavioral_test(capability="Taxonomy", type="inv", task="sentiment")
def test_sentiment_adjective_synonym_swap():
    """Replacing the opinion adjective with a synonym ("awful" -> "dreadful") keeps the
    prediction."""
    data = []
    templates = (
        "The {thing} was {adj}.",
        "It was {an} {adj} {thing}.",
        "Everyone agreed the {thing} was {intensifier} {adj}.",
    )
    for adjective, synonym in ADJECTIVE_SYNONYMS:
        for template in templates:
            article = "an" if adjective[0] in "aeiou" else "a"
            t = editor.template(
                template.replace("{an}", article), adj=adjective, nsamples=3, remove_duplicates=True
            )
            for s in t.data:
                swapped = s.replace(f" {adjective}", f" {synonym}")
                if article != ("an" if synonym[0] in "aeiou" else "a"):
                    swapped = swapped.replace(
                        f"{article} {synonym}", f"{'a' if article == 'an' else 'an'} {synonym}"
                    )
                data.append([s, swapped])
    return INV(data)


# --- paraphrase ----------------------------------------------------------------------------

# (specific activity, the more general activity) after "learn to"
SPECIFIC_GENERAL = (
    ("cook pasta", "cook"),
    ("play the guitar", "play an instrument"),
    ("speak Spanish", "speak a foreign language"),
    ("drive a truck", "drive"),
    ("bake bread", "bake"),
    ("play chess", "play board games"),
    ("paint portraits", "paint"),
    ("program in Python", "program"),
    ("swim butterfly", "swim"),
    ("dance salsa", "dance"),
)
QUESTION_FRAMES = (
    "How can I learn to {x}?",
    "What is the best way to learn to {x}?",
    "Is it hard to learn to {x}?",
    "How long does it take to learn to {x}?",
    "Where can I learn to {x} for free?",
)
# (noun, a synonymous noun) after an adjective, so articles do not change
NOUN_SYNONYMS = (
    ("car", "automobile"),
    ("movie", "film"),
    ("couch", "sofa"),
    ("bike", "bicycle"),
    ("lawyer", "attorney"),
    ("doctor", "physician"),
    ("TV", "television"),
    ("cell phone", "mobile phone"),
    ("backpack", "rucksack"),
    ("flat", "apartment"),
)
NOUN_FRAMES = (
    "How do I choose a good {x}?",
    "What should I look for in a used {x}?",
    "Where can I find a reliable {x}?",
    "How much does a new {x} cost?",
    "Is it worth paying more for a good {x}?",
)


@behavioral_test(capability="Taxonomy", type="mft", task="paraphrase")
def test_paraphrase_specific_vs_general():
    """A question about a specific activity and the same question about its more general
    category ("learn to cook pasta" / "learn to cook") are not duplicates."""
    pairs = []
    for i, (specific, general) in enumerate(SPECIFIC_GENERAL):
        for j, frame in enumerate(QUESTION_FRAMES):
            pair = (frame.format(x=specific), frame.format(x=general))
            pairs.append(pair if (i + j) % 2 == 0 else pair[::-1])
    return MFT(pairs, labels=NOT_DUPLICATE)


@behavioral_test(capability="Taxonomy", type="mft", task="paraphrase")
def test_paraphrase_synonymous_noun():
    """The same question asked with a synonymous noun ("car" / "automobile") is a
    duplicate."""
    pairs = []
    for i, (noun, synonym) in enumerate(NOUN_SYNONYMS):
        for j, frame in enumerate(NOUN_FRAMES):
            pair = (frame.format(x=noun), frame.format(x=synonym))
            pairs.append(pair if (i + j) % 2 == 0 else pair[::-1])
    return MFT(pairs, labels=DUPLICATE)


# --- entailment ----------------------------------------------------------------------------

# (hyponym, hypernym), with their articles
HYPONYMS = (
    ("a dog", "an animal"),
    ("a parrot", "a bird"),
    ("a violin", "a musical instrument"),
    ("a hammer", "a tool"),
    ("a sedan", "a car"),
    ("a novel", "a book"),
    ("a rose", "a flower"),
    ("an apartment", "a home"),
    ("a laptop", "a computer"),
    ("an oak", "a tree"),
    ("a sweater", "a piece of clothing"),
    ("a motorcycle", "a vehicle"),
)
ENTAILMENT_FRAMES = (
    ("{first_name} {last_name} bought %s in {city}.", "{first_name} {last_name} bought %s."),
    ("{first_name} owns %s and lives in {city}.", "{first_name} owns %s."),
    (
        "Last year, {first_name} {last_name} sold %s to {a:profession}.",
        "{first_name} {last_name} sold %s.",
    ),
)


def _hyponym_pairs(hypernym_in_premise: bool) -> list[tuple[str, str]]:
    pairs = []
    for specific, general in HYPONYMS:
        premise_noun, hypothesis_noun = (
            (general, specific) if hypernym_in_premise else (specific, general)
        )
        for premise, hypothesis in ENTAILMENT_FRAMES:
            t = editor.template(
                (premise % premise_noun, hypothesis % hypothesis_noun),
                nsamples=3,
                remove_duplicates=True,
            )
            pairs += t.data
    return pairs


@behavioral_test(capability="Taxonomy", type="mft", task="entailment")
def test_entailment_hyponym_entails_hypernym():
    """A statement about a specific thing entails the same statement about its category
    ("owns a dog" => "owns an animal")."""
    return MFT(_hyponym_pairs(hypernym_in_premise=False), labels=ENTAILMENT)


@behavioral_test(capability="Taxonomy", type="mft", task="entailment")
def test_entailment_hypernym_not_entails_hyponym():
    """A statement about a category does not entail the same statement about a specific
    member ("owns an animal" does not entail "owns a dog")."""
    return MFT(_hyponym_pairs(hypernym_in_premise=True), labels=NOT_ENTAILMENT)
