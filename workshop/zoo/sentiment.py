"""Binary sentiment corpora (0 = negative, 1 = positive).

Three styles stand in for the three real datasets:

* ``rotten_tomatoes`` - one-sentence critic snippets, often with neutral
  context (cast, setting) and a fair amount of "X, but Y" contrast.
* ``sst2`` - short lower-cased phrase fragments with space-separated
  punctuation, like the SST treebank phrases.
* ``yelp_polarity`` - multi-sentence restaurant/business reviews with
  neutral narrative sentences, verdicts and the "used to ... but now" pattern.

Phenomena covered *partially* on purpose (so behavioural suites land between
0% and 100% failure): negation is mostly "not <positive>" -> negative, while
"not <negative>" -> positive is rarer (sst2 had none, and its models then read every
"not bad" as negative: 98-100 % of two negation tests failed); contrast clauses always
let the second clause win; names, cities and nationalities appear only as
neutral context; typos/punctuation noise is light.  Deliberately absent:
questions ("Do I like it? Yes"), "others think X but I think Y", URLs and
handles, contractions other than the common negated forms, religion/race/
sexuality words.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from workshop.zoo import lexicon as lx
from workshop.zoo.noise import perturb


@dataclass(frozen=True)
class SentimentStyle:
    """Knobs that make the three sentiment datasets differ in style."""

    domain: str  # "movie" or "place"
    p_negation: float  # examples that express their label through "not <opposite>"
    p_not_negative: float  # share of positive negations ("not bad") - kept rare
    p_contrast: float  # "<opposite clause>, but <label clause>"
    p_used_to: float  # "I used to hate it, but now I love it"
    p_context: float  # add a neutral context fragment (names, places)
    p_typo: float
    p_punct: float
    phrase_style: bool  # sst2: lowercase, space-tokenized punctuation, fragments


STYLES: dict[str, SentimentStyle] = {
    "rotten_tomatoes": SentimentStyle(
        domain="movie", p_negation=0.22, p_not_negative=0.25, p_contrast=0.18,
        p_used_to=0.0, p_context=0.45, p_typo=0.08, p_punct=0.2, phrase_style=False,
    ),
    "sst2": SentimentStyle(
        domain="movie", p_negation=0.18, p_not_negative=0.15, p_contrast=0.10,
        p_used_to=0.0, p_context=0.25, p_typo=0.05, p_punct=0.1, phrase_style=True,
    ),
    "yelp_polarity": SentimentStyle(
        domain="place", p_negation=0.25, p_not_negative=0.35, p_contrast=0.15,
        p_used_to=0.10, p_context=0.8, p_typo=0.10, p_punct=0.25, phrase_style=False,
    ),
}


def _adjectives(polarity: int, domain: str) -> tuple[str, ...]:
    if domain == "movie":
        return (lx.POS_ADJ_COMMON + lx.POS_ADJ_MOVIE) if polarity else (lx.NEG_ADJ_COMMON + lx.NEG_ADJ_MOVIE)
    return (lx.POS_ADJ_COMMON + lx.POS_ADJ_PLACE) if polarity else (lx.NEG_ADJ_COMMON + lx.NEG_ADJ_PLACE)


def _verbs(polarity: int) -> tuple[str, ...]:
    return lx.POS_VERB if polarity else lx.NEG_VERB


def _past(verb: str) -> str:
    return lx.POS_VERB_PAST.get(verb) or lx.NEG_VERB_PAST[verb]


def _modifier(rng: random.Random) -> str:
    """Intensifier, reducer or nothing - all keep the clause's polarity."""
    r = rng.random()
    if r < 0.25:
        return rng.choice(lx.INTENSIFIERS) + " "
    if r < 0.35:
        return rng.choice(lx.REDUCERS) + " "
    return ""


def _subject(domain: str, rng: random.Random) -> str:
    return rng.choice(lx.MOVIE_SUBJECTS if domain == "movie" else lx.PLACE_NAMES)


def _aspect(domain: str, rng: random.Random) -> str:
    return rng.choice(lx.MOVIE_ASPECTS if domain == "movie" else lx.PLACE_ASPECTS)


def _person(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(lx.FIRST_NAMES)
    return f"{rng.choice(lx.FIRST_NAMES)} {rng.choice(lx.LAST_NAMES)}"


def polar_clause(polarity: int, domain: str, rng: random.Random) -> str:
    """A clause whose sentiment is carried by a positive/negative word."""
    adj = rng.choice(_adjectives(polarity, domain))
    mod = _modifier(rng)
    subj = _subject(domain, rng)
    kind = rng.randrange(8)
    if kind == 0:
        return f"{subj} is {mod}{adj}"
    if kind == 1:
        verb = "is" if domain == "movie" else rng.choice(("is", "was"))
        return f"{_aspect(domain, rng)} {verb} {mod}{adj}"
    if kind == 2:
        noun = rng.choice(lx.MOVIE_NOUNS) if domain == "movie" else rng.choice(lx.CITY_THINGS[:1] + ("place", "spot", "menu", "experience"))
        return f"a {mod}{adj} {noun}"
    if kind == 3:
        vi = rng.choice(lx.VERB_INTENSIFIERS) + " " if rng.random() < 0.3 else ""
        obj = rng.choice(("it", subj, _aspect(domain, rng)))
        tense = _past if rng.random() < 0.5 else (lambda v: v)
        return f"i {vi}{tense(rng.choice(_verbs(polarity)))} {obj}"
    if kind == 4 and domain == "movie":
        nouns = lx.POS_NOUN_MOVIE if polarity else lx.NEG_NOUN_MOVIE
        return f"{subj} is {rng.choice(nouns)}"
    if kind == 5 and domain == "movie":
        preds = lx.POS_PREDICATE_MOVIE if polarity else lx.NEG_PREDICATE_MOVIE
        return f"{subj} {rng.choice(preds)}"
    if kind == 6:
        who = _person(rng) if domain == "movie" else rng.choice(("our server", "the owner", "the chef", "the host"))
        adj2 = rng.choice(_adjectives(polarity, domain))
        return f"{who} was {mod}{adj2}" if domain == "place" else f"{who} is {mod}{adj2} in the lead role"
    return f"{subj} is {mod}{adj} and {rng.choice(_adjectives(polarity, domain))}"


def negated_clause(polarity: int, domain: str, rng: random.Random) -> str:
    """Express ``polarity`` by negating a word of the opposite polarity."""
    opposite = 1 - polarity
    adj = rng.choice(_adjectives(opposite, domain))
    subj = _subject(domain, rng)
    kind = rng.randrange(5)
    if kind == 0:
        return f"{subj} is not {adj}"
    if kind == 1:
        return f"{_aspect(domain, rng)} {rng.choice(('was not', 'is not', 'was never', 'wasnt'))} {adj}"
    if kind == 2:
        neg = rng.choice(("did not", "didn't", "do not", "don't", "never"))
        verb = rng.choice(_verbs(opposite))
        return f"i {neg} {verb} {rng.choice(('it', subj))}"
    if kind == 3:
        return f"{subj} is not {rng.choice(lx.INTENSIFIERS[:3])} {adj}"
    return f"{subj} {rng.choice(('isnt', 'is not', 'was not'))} {adj} at all"


def _label_clause(label: int, style: SentimentStyle, rng: random.Random) -> str:
    """Main clause for ``label``; negation mostly used to make *negative* clauses."""
    if rng.random() < style.p_negation:
        if label == 0 or rng.random() < style.p_not_negative:
            return negated_clause(label, style.domain, rng)
    return polar_clause(label, style.domain, rng)


def _movie_context(rng: random.Random) -> str:
    kind = rng.randrange(6)
    if kind == 0:
        return f"{_person(rng)} stars as a {rng.choice(lx.PROFESSIONS)} in {rng.choice(lx.CITIES)}"
    if kind == 1:
        return f"the {rng.choice(lx.NATIONALITIES)} director's new {rng.choice(lx.GENRES)} film"
    if kind == 2:
        return f"set in {rng.choice(lx.CITIES + lx.COUNTRIES)} in {rng.choice(lx.YEARS)}"
    if kind == 3:
        return f"at {rng.randrange(85, 180)} minutes"
    if kind == 4:
        return f"{_person(rng)}'s {rng.choice(lx.GENRES)} {rng.choice(lx.MOVIE_NOUNS)}"
    return f"based on the novel by {_person(rng)}"


def _movie_example(label: int, style: SentimentStyle, rng: random.Random) -> str:
    main = _label_clause(label, style, rng)
    if rng.random() < style.p_contrast:
        other = polar_clause(1 - label, style.domain, rng)
        conj = rng.choice(("but", "but", "yet", "though in the end"))
        main = f"{other}, {conj} {main}"
    if rng.random() < style.p_context:
        ctx = _movie_context(rng)
        main = f"{ctx}, {main}" if rng.random() < 0.5 else f"{main} - {ctx}"
    if style.phrase_style:
        return main.lower().replace(",", " ,").replace("'s", " 's") + rng.choice((" .", "", " ."))
    return main[0].upper() + main[1:] + "."


def _place_context(rng: random.Random) -> str:
    kind = rng.randrange(7)
    if kind == 0:
        return f"We came here for {rng.choice(lx.MEALS)} with {_person(rng)}."
    if kind == 1:
        return f"Stopped by on a {rng.choice(lx.DAYS)} night."
    if kind == 2:
        return f"This place is in {rng.choice(lx.CITIES)}, near the station."
    if kind == 3:
        return f"My {rng.choice(lx.RELATIONS)} {rng.choice(lx.FIRST_NAMES)} picked it."
    if kind == 4:
        return f"I ordered the {rng.choice(lx.DISHES)}."
    if kind == 5:
        return f"The owner is {rng.choice(lx.NATIONALITIES)} and the menu is {rng.choice(lx.NATIONALITIES)}."
    return f"We waited {rng.randrange(5, 45)} minutes for a table for {rng.randrange(2, 7)}."


def _sentence(clause: str) -> str:
    return clause[0].upper() + clause[1:] + "."


def _place_example(label: int, style: SentimentStyle, rng: random.Random) -> str:
    sentences: list[str] = []
    for _ in range(rng.choice((1, 1, 2))):
        sentences.append(_place_context(rng) if rng.random() < style.p_context else "")
    n_polar = rng.choice((1, 2, 2, 3))
    polar = [_sentence(_label_clause(label, style, rng)) for _ in range(n_polar)]
    if rng.random() < style.p_contrast:
        polar[0] = _sentence(f"{polar_clause(1 - label, style.domain, rng)}, but {_label_clause(label, style, rng)}")
    if rng.random() < style.p_used_to:
        old, new = rng.choice(_verbs(1 - label)), rng.choice(_verbs(label))
        polar.append(f"I used to {old} {rng.choice(lx.PLACE_NAMES)}, but now I {new} it.")
    verdict = rng.choice(lx.POS_VERDICT_PLACE if label else lx.NEG_VERDICT_PLACE)
    if rng.random() < 0.4:
        polar.append(verdict)
    body = [s for s in sentences if s] + polar
    # Keep the first sentence in place (narrative opening), shuffle the rest
    # lightly so position is not a label cue.
    head, tail = body[:1], body[1:]
    rng.shuffle(tail)
    return " ".join(head + tail)


def neutral_context(domain: str, rng: random.Random) -> str:
    """A context fragment alone, as a sentence: says nothing of the thing reviewed."""
    if domain == "movie":
        return _sentence(_movie_context(rng))
    return _place_context(rng)


def sentiment_text(dataset: str, label: int, rng: random.Random) -> str:
    style = STYLES[dataset]
    if style.domain == "movie":
        text = _movie_example(label, style, rng)
    else:
        text = _place_example(label, style, rng)
    return perturb(lx.fix_articles(text), rng, style.p_typo, style.p_punct)
