"""RTE-style premise/hypothesis pairs (GLUE order: 0 = entailment, 1 = not).

A premise states several facts at once; an entailed hypothesis restates one
of them (sometimes in the passive voice), a non-entailed hypothesis either
contradicts one fact (other city/year/profession, negation) or adds a fact
the premise does not support.
"""

from __future__ import annotations

import random
from typing import Callable

from workshop.zoo import lexicon as lx
from workshop.zoo.noise import perturb

ENTAILMENT, NOT_ENTAILMENT = 0, 1

Hypotheses = tuple[list[str], list[str]]  # (entailed, not entailed)


def _name(rng: random.Random) -> str:
    return f"{rng.choice(lx.FIRST_NAMES)} {rng.choice(lx.LAST_NAMES)}"


def _other(pool: tuple[str, ...], current: str, rng: random.Random) -> str:
    choice = rng.choice(pool)
    while choice == current:
        choice = rng.choice(pool)
    return choice


def _biography(rng: random.Random) -> tuple[str, Hypotheses]:
    name, nat, prof = _name(rng), rng.choice(lx.NATIONALITIES), rng.choice(lx.PROFESSIONS)
    verb, obj = rng.choice(lx.ACHIEVEMENTS)
    city, year = rng.choice(lx.CITIES), rng.choice(lx.YEARS)
    premise = rng.choice((
        f"{name}, a {nat} {prof}, {verb} {obj} in {city} in {year}.",
        f"In {year}, the {nat} {prof} {name} {verb} {obj} in {city}.",
        f"{name} {verb} {obj} in {city} in {year}; {name.split()[0]} works as a {prof}.",
    ))
    other_verb, other_obj = rng.choice([a for a in lx.ACHIEVEMENTS if a[0] != verb])
    entailed = [
        f"{name} is a {prof}.",
        f"{name} {verb} {obj}.",
        f"{obj[0].upper() + obj[1:]} {lx.PASSIVE_OF[verb]} by {name}.",
        f"{name} {verb} {obj} in {city}.",
        f"{name} is {nat}.",
    ]
    not_entailed = [
        f"{name} is a {_other(lx.PROFESSIONS, prof, rng)}.",
        f"{name} {verb} {obj} in {_other(lx.CITIES, city, rng)}.",
        f"{name} {verb} {obj} in {_other(tuple(str(y) for y in lx.YEARS), str(year), rng)}.",
        f"{name} never {verb} {obj}.",
        f"{name} {other_verb} {other_obj}.",
        f"{_name(rng)} {verb} {obj} in {city}.",
        f"{name} {verb} {obj} with {rng.choice(lx.FIRST_NAMES)}.",
        f"{name} is {_other(lx.NATIONALITIES, nat, rng)}.",
    ]
    return premise, (entailed, not_entailed)


def _company(rng: random.Random) -> tuple[str, Hypotheses]:
    co, city = rng.choice(lx.COMPANIES), rng.choice(lx.CITIES)
    action = rng.choice(lx.COMPANY_PLANS)
    year = rng.choice(("next year", "in the spring", "by the end of the year"))
    premise = rng.choice((
        f"{co}, which is based in {city}, announced on {rng.choice(lx.DAYS)} that it will {action} {year}.",
        f"The {city}-based company {co} said it plans to {action} {year}.",
    ))
    entailed = [f"{co} is based in {city}.", f"{co} plans to {action}.", f"{co} will {action}."]
    not_entailed = [
        f"{co} is based in {_other(lx.CITIES, city, rng)}.",
        f"{co} has already decided not to {action}.",
        f"{co} will not {action}.",
        f"{_other(lx.COMPANIES, co, rng)} will {action}.",
        f"{co} was sold to {_other(lx.COMPANIES, co, rng)}.",
    ]
    return premise, (entailed, not_entailed)


def _disaster(rng: random.Random) -> tuple[str, Hypotheses]:
    org, n, city = rng.choice(lx.ORGS), rng.randrange(2, 90), rng.choice(lx.CITIES)
    disaster = rng.choice(lx.DISASTERS)
    premise = rng.choice((
        f"{org[0].upper() + org[1:]} reported that {n} people were injured in the {disaster} in {city}.",
        f"At least {n} people were injured when a {disaster} hit {city}, according to {org}.",
    ))
    entailed = [
        f"{n} people were injured in {city}.",
        f"A {disaster} hit {city}.",
        f"People were injured in a {disaster}.",
    ]
    not_entailed = [
        f"{n + rng.randrange(5, 40)} people were killed in {city}.",
        f"No one was injured in the {disaster}.",
        f"A {disaster} hit {_other(lx.CITIES, city, rng)}.",
        f"A {_other(lx.DISASTERS, disaster, rng)} hit {city}.",
        f"The {disaster} in {city} was caused by {rng.choice(lx.COMPANIES)}.",
    ]
    return premise, (entailed, not_entailed)


def _move(rng: random.Random) -> tuple[str, Hypotheses]:
    name, c1, c2 = _name(rng), *rng.sample(lx.CITIES, 2)
    prof = rng.choice(lx.PROFESSIONS)
    first = name.split()[0]
    premise = f"After leaving {c1}, {name} moved to {c2}, where {first} worked as a {prof} for {rng.randrange(2, 30)} years."
    entailed = [f"{name} lived in {c2}.", f"{name} worked as a {prof}.", f"{name} left {c1}."]
    not_entailed = [
        f"{name} was born in {c2}.",
        f"{name} worked as a {prof} in {c1}.",
        f"{name} never left {c1}.",
        f"{name} worked as a {_other(lx.PROFESSIONS, prof, rng)}.",
        f"{name} moved to {_other(tuple(c for c in lx.CITIES if c != c1), c2, rng)}.",
    ]
    return premise, (entailed, not_entailed)


SCENARIOS: tuple[Callable[[random.Random], tuple[str, Hypotheses]], ...] = (
    _biography, _company, _disaster, _move,
)


def entailment_pair(label: int, rng: random.Random) -> tuple[str, str]:
    premise, (entailed, not_entailed) = rng.choice(SCENARIOS)(rng)
    hypothesis = rng.choice(entailed if label == ENTAILMENT else not_entailed)
    premise, hypothesis = lx.fix_articles(premise), lx.fix_articles(hypothesis)
    return perturb(premise, rng, 0.04, 0.0), perturb(hypothesis, rng, 0.04, 0.1)
