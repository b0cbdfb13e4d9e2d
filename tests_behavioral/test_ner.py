"""NER: named entities -- people, places, numbers -- matter exactly when they carry meaning.

* sentiment: who a review is about, where it happened and how many people came do not
  change its polarity, so swapping a name, city, country or number is an invariance.
* paraphrase: two questions about different people or places are not duplicates, while
  renaming the person or place consistently in both questions keeps the prediction.
* entailment: a hypothesis about another person, city or number than the premise's is not
  entailed; restating the premise's fact about the same entity is; and renaming an entity
  consistently in premise and hypothesis keeps the prediction.

Entities come from CheckList's lexicons (``first_name``, ``last_name``, ``city``,
``country``); each template keeps its filled slots in ``meta``, so the swap replaces the
known value -- no named-entity recogniser is needed.
"""

from __future__ import annotations

from functools import cache

from nlp_gate.native import INV, MFT, SearchSpace, behavioral_test, editor
from nlp_gate.native_tests import lexicons  # also registers the shared lexicons
from nlp_gate.native_tests.cases import filled, swapped
from nlp_gate.native_tests.lexicons import ENTAILMENT, NOT_DUPLICATE, NOT_ENTAILMENT


# Lists drawn from CheckList's lexicons, made when a test is built (reading the lexicons
# loads CheckList, which collecting this module must not).
@cache
def city_names() -> tuple[str, ...]:
    """CheckList's cities without its few counties ("Honolulu County")."""
    return tuple(c for c in editor.lexicons.city if not c.endswith("County"))


@cache
def country_names() -> tuple[str, ...]:
    """Countries that read well after "in"/"to" without an article ("the United States"
    would not)."""
    return tuple(
        c
        for c in editor.lexicons.country[:70]
        if not c.startswith(("the ", "United "))
        and c not in ("Philippines", "Ivory Coast", "Congo")
    )


@cache
def speaker_names() -> tuple[str, ...]:
    """The first 100 of CheckList's first names, in its own order: the slice that the
    speaker test samples from and its search space searches."""
    return tuple(editor.lexicons.first_name[:100])


NUMBERS: tuple[str, ...] = tuple(str(n) for n in range(2, 21))
AGES: tuple[str, ...] = tuple(str(n) for n in range(18, 80))
HOURS: tuple[str, ...] = tuple(str(n) for n in range(1, 13))
PLACES: tuple[str, ...] = (
    "restaurant",
    "museum",
    "hotel",
    "park",
    "university",
    "bookstore",
    "coffee shop",
    "hospital",
    "neighborhood",
    "gym",
)


# --- sentiment ----------------------------------------------------------------------------


@behavioral_test(capability="NER", type="inv", task="sentiment")
def test_sentiment_person_name_does_not_matter():
    """Replacing the first name of the person in a review keeps the prediction."""
    templates = [
        "{first_name} {last_name} thought the {thing} was {pos_adj}.",
        "{first_name} {last_name} thought the {thing} was {neg_adj}.",
        "I went with {first_name} and we both found the {thing} {pos_adj}.",
        "I went with {first_name} and we both found the {thing} {neg_adj}.",
        "According to {first_name}, the {thing} is {intensifier} {pos_adj}.",
        "According to {first_name}, the {thing} is {intensifier} {neg_adj}.",
    ]
    return INV(swapped(templates, "first_name", tuple(editor.lexicons.first_name), 12))


SPEAKER = "{first_name} said the {thing} was {pos_adj}."


def speaker_slots() -> dict[str, tuple[str, ...]]:
    """The speaker test's lexicons, read when a search runs (not at collection)."""
    return {
        "first_name": speaker_names(),
        "thing": lexicons.WORDS["thing"],
        "pos_adj": lexicons.WORDS["pos_adj"],
    }


@behavioral_test(
    capability="NER",
    type="inv",
    task="sentiment",
    search=SearchSpace(SPEAKER, speaker_slots, perturb="first_name"),
)
def test_sentiment_speaker_name_does_not_matter():
    """Who praised it does not change the praise: swapping the speaker's first name keeps
    the prediction.  The fixed sample is small (20 cases, two swaps each); its search
    (``-m search``) covers every name of the slice."""
    return INV(swapped([SPEAKER], "first_name", speaker_names(), 20, k=2))


@behavioral_test(capability="NER", type="inv", task="sentiment")
def test_sentiment_location_does_not_matter():
    """Replacing the city or country a review mentions keeps the prediction."""
    cities = [
        "We stayed at {a:pos_adj} hotel in {city}.",
        "We stayed at {a:neg_adj} hotel in {city}.",
        "The {thing} we tried in {city} was {intensifier} {pos_adj}.",
        "The {thing} we tried in {city} was {intensifier} {neg_adj}.",
    ]
    countries = [
        "I saw the {thing} during a trip to {country} and it was {pos_adj}.",
        "I saw the {thing} during a trip to {country} and it was {neg_adj}.",
    ]
    return INV(
        swapped(cities, "city", city_names(), 12, city=list(city_names()))
        + swapped(countries, "country", country_names(), 12, country=list(country_names()))
    )


@behavioral_test(capability="NER", type="inv", task="sentiment")
def test_sentiment_number_does_not_matter():
    """Changing an incidental number (group size, count of visits) keeps the prediction."""
    templates = [
        "We were a group of {n} and the {thing} was {pos_adj}.",
        "We were a group of {n} and the {thing} was {neg_adj}.",
        "I have been to this {place} {n} times and it is always {pos_adj}.",
        "I have been to this {place} {n} times and it is always {neg_adj}.",
    ]
    return INV(swapped(templates, "n", NUMBERS, 15, n=list(NUMBERS), place=list(PLACES)))


# --- paraphrase ---------------------------------------------------------------------------


@behavioral_test(capability="NER", type="mft", task="paraphrase")
def test_paraphrase_different_person_not_duplicate():
    """The same question asked about two different people is not a duplicate."""
    templates = [
        ("Where was {first_name} {last_name} born?", "Where was {first_name1} {last_name} born?"),
        ("How old is {first_name} {last_name}?", "How old is {first_name1} {last_name}?"),
        (
            "Is {first_name} {last_name} a good {profession}?",
            "Is {first_name1} {last_name} a good {profession}?",
        ),
        (
            "How can I become friends with {first_name}?",
            "How can I become friends with {first_name1}?",
        ),
        (
            "What did {first_name} {last_name} study in college?",
            "What did {first_name} {last_name1} study in college?",
        ),
    ]
    return MFT(filled(templates, 14), labels=NOT_DUPLICATE)


@behavioral_test(capability="NER", type="mft", task="paraphrase")
def test_paraphrase_different_location_not_duplicate():
    """The same question asked about two different cities or countries is not a duplicate."""
    templates = [
        ("What is the best {place} in {city}?", "What is the best {place} in {city1}?"),
        ("Is it expensive to live in {city}?", "Is it expensive to live in {city1}?"),
        ("How do I get a job in {city}?", "How do I get a job in {city1}?"),
        ("What should I see on a trip to {country}?", "What should I see on a trip to {country1}?"),
        ("Is {country} a safe country to visit?", "Is {country1} a safe country to visit?"),
    ]
    return MFT(
        filled(
            templates,
            14,
            city=list(city_names()),
            place=list(PLACES),
            country=list(country_names()),
        ),
        labels=NOT_DUPLICATE,
    )


@behavioral_test(capability="NER", type="inv", task="paraphrase")
def test_paraphrase_consistent_entity_change_keeps_prediction():
    """Renaming the person or city consistently in both questions keeps the prediction,
    duplicate or not."""
    people = [
        (
            "Where was {first_name} {last_name} born?",
            "What is the birthplace of {first_name} {last_name}?",
        ),
        (
            "How can I become friends with {first_name}?",
            "How do I become friends with {first_name}?",
        ),
        ("How old is {first_name} {last_name}?", "Where does {first_name} {last_name} live?"),
    ]
    places = [
        ("What is the best {place} in {city}?", "Which {place} in {city} is the best?"),
        ("Is it expensive to live in {city}?", "Is {city} a safe place to live?"),
        ("How do I get a job in {city}?", "How can I find a job in {city}?"),
    ]
    return INV(
        swapped(people, "first_name", tuple(editor.lexicons.first_name), 12, k=2)
        + swapped(
            places, "city", city_names(), 12, k=2, city=list(city_names()), place=list(PLACES)
        )
    )


# --- entailment ---------------------------------------------------------------------------


@behavioral_test(capability="NER", type="mft", task="entailment")
def test_entailment_other_entity_not_entailed():
    """A hypothesis about another person, city or number than the premise's is not
    entailed."""
    templates = [
        (
            "{first_name} {last_name} is {a:profession} who lives in {city}.",
            "{first_name1} {last_name} is {a:profession}.",
        ),
        (
            "{first_name} {last_name} is {a:profession} who lives in {city}.",
            "{first_name} {last_name} lives in {city1}.",
        ),
        (
            "{first_name} moved to {city} to work as {a:profession}.",
            "{first_name} moved to {city1}.",
        ),
        (
            "{first_name} {last_name}, who is {age} years old, works as {a:profession}.",
            "{first_name} {last_name} is {age1} years old.",
        ),
        (
            "The meeting with {first_name} started at {hour} o'clock.",
            "The meeting with {first_name} started at {hour1} o'clock.",
        ),
    ]
    return MFT(
        filled(templates, 12, city=list(city_names()), age=list(AGES), hour=list(HOURS)),
        labels=NOT_ENTAILMENT,
    )


@behavioral_test(capability="NER", type="mft", task="entailment")
def test_entailment_same_entity_entailed():
    """Restating a fact of the premise about the same person, city or number is entailed."""
    templates = [
        (
            "{first_name} {last_name} is {a:profession} who lives in {city}.",
            "{first_name} {last_name} is {a:profession}.",
        ),
        (
            "{first_name} {last_name} is {a:profession} who lives in {city}.",
            "{first_name} {last_name} lives in {city}.",
        ),
        (
            "{first_name} moved to {city} to work as {a:profession}.",
            "{first_name} moved to {city}.",
        ),
        (
            "{first_name} {last_name}, who is {age} years old, works as {a:profession}.",
            "{first_name} {last_name} is {age} years old.",
        ),
        (
            "The meeting with {first_name} started at {hour} o'clock.",
            "The meeting started at {hour} o'clock.",
        ),
    ]
    return MFT(
        filled(templates, 12, city=list(city_names()), age=list(AGES), hour=list(HOURS)),
        labels=ENTAILMENT,
    )


@behavioral_test(capability="NER", type="inv", task="entailment")
def test_entailment_consistent_name_change_keeps_prediction():
    """Renaming the person consistently in premise and hypothesis keeps the prediction,
    entailed or not."""
    templates = [
        (
            "{first_name} {last_name} is {a:profession} who lives in {city}.",
            "{first_name} {last_name} lives in {city}.",
        ),
        (
            "{first_name} {last_name} is {a:profession} who lives in {city}.",
            "{first_name} {last_name} was born in {city}.",
        ),
        (
            "{first_name} {last_name} wrote a book about {country}.",
            "{first_name} {last_name} wrote a book.",
        ),
        (
            "{first_name} {last_name} wrote a book about {country}.",
            "{first_name} {last_name} lives in {country}.",
        ),
    ]
    return INV(
        swapped(
            templates,
            "first_name",
            tuple(editor.lexicons.first_name),
            15,
            k=2,
            city=list(city_names()),
            country=list(country_names()),
        )
    )
