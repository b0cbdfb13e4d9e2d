"""The intents of the paraphrase corpora: families of surface forms that mean the same thing
given the same slot values, with their slot generators and one-slot mutations (``qqp``:
Quora-style questions, ``mrpc``: news).  ``paraphrase`` renders them into labelled pairs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from workshop.zoo import lexicon as lx

Slots = dict[str, str]


@dataclass(frozen=True)
class Intent:
    """Surface forms sharing one meaning, and how to perturb that meaning."""

    group: str  # intents in one group share slot names (related-topic negatives)
    forms: tuple[str, ...]
    sample: Callable[[random.Random], Slots]
    mutate: Callable[[Slots, random.Random], Slots]  # change one key fact
    negated: tuple[str, ...] = ()  # forms that negate the meaning


def _other(pool: tuple[str, ...], current: str, rng: random.Random) -> str:
    choice = rng.choice(pool)
    while choice == current:
        choice = rng.choice(pool)
    return choice


def _replace(slots: Slots, **changes: str) -> Slots:
    new = dict(slots)
    new.update(changes)
    return new


def _mutate_one(pools: dict[str, tuple[str, ...]]) -> Callable[[Slots, random.Random], Slots]:
    """Mutator that changes a single slot drawn from ``pools``."""

    def mutate(slots: Slots, rng: random.Random) -> Slots:
        key = rng.choice(sorted(pools))
        return _replace(slots, **{key: _other(pools[key], slots[key], rng)})

    return mutate


# --- qqp ---------------------------------------------------------------------


def _skill(rng: random.Random) -> Slots:
    return {"s": rng.choice(lx.SKILLS)}


def _become(rng: random.Random) -> Slots:
    good, bad = rng.choice(lx.GOOD_BAD)
    return {"adj": good if rng.random() < 0.7 else bad, "prof": rng.choice(lx.PROFESSIONS)}


_ANTONYM = {a: b for a, b in lx.GOOD_BAD} | {b: a for a, b in lx.GOOD_BAD}


def _mutate_become(slots: Slots, rng: random.Random) -> Slots:
    if rng.random() < 0.5:
        return _replace(slots, adj=_ANTONYM[slots["adj"]])
    return _replace(slots, prof=_other(lx.PROFESSIONS, slots["prof"], rng))


def _person(rng: random.Random) -> Slots:
    return {
        "first": rng.choice(lx.FIRST_NAMES), "last": rng.choice(lx.LAST_NAMES),
        "adj": rng.choice(lx.GOOD_BAD)[0], "prof": rng.choice(lx.PROFESSIONS),
    }


def _mutate_person(slots: Slots, rng: random.Random) -> Slots:
    r = rng.random()
    if r < 0.35:
        return _replace(slots, first=_other(lx.FIRST_NAMES, slots["first"], rng))
    if r < 0.6:
        return _replace(slots, last=_other(lx.LAST_NAMES, slots["last"], rng))
    if r < 0.8:
        return _replace(slots, adj=_ANTONYM[slots["adj"]])
    return _replace(slots, prof=_other(lx.PROFESSIONS, slots["prof"], rng))


def _city_thing(rng: random.Random) -> Slots:
    return {"t": rng.choice(lx.CITY_THINGS), "c": rng.choice(lx.CITIES), "best": "best"}


def _mutate_city_thing(slots: Slots, rng: random.Random) -> Slots:
    r = rng.random()
    if r < 0.5:
        return _replace(slots, c=_other(lx.CITIES, slots["c"], rng))
    if r < 0.75:
        return _replace(slots, best="worst")
    return _replace(slots, t=_other(lx.CITY_THINGS, slots["t"], rng))


def _activity(rng: random.Random) -> Slots:
    act, act_ing = rng.choice(lx.ACTIVITIES)
    return {"act": act, "act_ing": act_ing, "c": rng.choice(lx.CITIES)}


def _mutate_activity(slots: Slots, rng: random.Random) -> Slots:
    if rng.random() < 0.6:
        return _replace(slots, c=_other(lx.CITIES, slots["c"], rng))
    act, act_ing = rng.choice([a for a in lx.ACTIVITIES if a[0] != slots["act"]])
    return _replace(slots, act=act, act_ing=act_ing)


def _two_products(rng: random.Random) -> Slots:
    a, b = rng.sample(lx.PRODUCTS, 2)
    return {"a": a, "b": b}


def _mutate_products(slots: Slots, rng: random.Random) -> Slots:
    pool = tuple(p for p in lx.PRODUCTS if p not in (slots["a"], slots["b"]))
    key = rng.choice(("a", "b"))
    return _replace(slots, **{key: rng.choice(pool)})


def _two_cities(rng: random.Random) -> Slots:
    a, b = rng.sample(lx.CITIES, 2)
    return {"c1": a, "c2": b}


def _mutate_cities(slots: Slots, rng: random.Random) -> Slots:
    pool = tuple(c for c in lx.CITIES if c not in (slots["c1"], slots["c2"]))
    key = rng.choice(("c1", "c2"))
    return _replace(slots, **{key: rng.choice(pool)})


def _group_habit(rng: random.Random) -> Slots:
    verb, obj = rng.choice(lx.GROUP_HABITS)
    return {"g": rng.choice(lx.GROUPS), "v": verb, "o": obj}


def _weight(rng: random.Random) -> Slots:
    return {"n": str(rng.randrange(5, 60, 5)), "m": str(rng.randrange(2, 13))}


def _company(rng: random.Random) -> Slots:
    return {"co": rng.choice(lx.COMPANIES)}


def _animal(rng: random.Random) -> Slots:
    return {"an": rng.choice(lx.ANIMALS)}


def _country(rng: random.Random) -> Slots:
    return {"k": rng.choice(lx.COUNTRIES)}


QQP_INTENTS: tuple[Intent, ...] = (
    Intent("skill", (
        "How can I learn {s}?", "How do I learn {s}?", "What is the best way to learn {s}?",
        "What are some good ways to learn {s}?", "How should I start learning {s}?",
        "What's the best way to learn {s}?",
    ), _skill, _mutate_one({"s": lx.SKILLS})),
    Intent("skill", (
        "How can I teach {s}?", "What is the best way to teach {s}?", "How do I teach {s} to beginners?",
    ), _skill, _mutate_one({"s": lx.SKILLS})),
    Intent("skill", (
        "Why is {s} so hard?", "Why is learning {s} so difficult?", "What makes {s} so hard to learn?",
    ), _skill, _mutate_one({"s": lx.SKILLS})),
    Intent("skill", (
        "What are the benefits of learning {s}?", "Why should I learn {s}?", "Is learning {s} worth it?",
    ), _skill, _mutate_one({"s": lx.SKILLS})),
    Intent("become", (
        "How do I become a {adj} {prof}?", "How can I become a {adj} {prof}?",
        "What does it take to become a {adj} {prof}?", "What should I do to become a {adj} {prof}?",
    ), _become, _mutate_become, negated=(
        "How can I avoid becoming a {adj} {prof}?", "How do I not become a {adj} {prof}?",
    )),
    Intent("become", (
        "What is it like to be a {adj} {prof}?", "How does it feel to be a {adj} {prof}?",
    ), _become, _mutate_become),
    Intent("person", (
        "Is {first} {last} a {adj} {prof}?", "Do you think {first} {last} is a {adj} {prof}?",
        "Would you say {first} {last} is a {adj} {prof}?",
    ), _person, _mutate_person, negated=(
        "Is {first} {last} not a {adj} {prof}?", "Why is {first} {last} not a {adj} {prof}?",
    )),
    Intent("city_thing", (
        "What is the {best} {t} in {c}?", "Which {t} in {c} is the {best}?",
        "What's the {best} {t} in {c}?", "Which is the {best} {t} in {c}?",
    ), _city_thing, _mutate_city_thing),
    Intent("activity", (
        "How much does it cost to {act} in {c}?", "What is the cost of {act_ing} in {c}?",
        "How expensive is it to {act} in {c}?",
    ), _activity, _mutate_activity),
    Intent("activity", (
        "Is it safe to {act} in {c}?", "How safe is {act_ing} in {c}?",
    ), _activity, _mutate_activity),
    Intent("products", (
        "Which is better, {a} or {b}?", "Which is better: {b} or {a}?",
        "{a} or {b}: which one is better?", "What is better, {b} or {a}?",
    ), _two_products, _mutate_products),
    Intent("products", (
        "Which is cheaper, {a} or {b}?", "Is {a} cheaper than {b}?",
    ), _two_products, _mutate_products),
    Intent("cities", (
        "Should I move to {c1} or {c2}?", "Is it better to move to {c1} or to {c2}?",
        "Should I move to {c2} or {c1}?", "{c1} or {c2}: where should I move?",
    ), _two_cities, _mutate_cities),
    Intent("group", (
        "Why do {g} {v} {o}?", "What is the reason that {g} {v} {o}?", "Why is it that {g} {v} {o}?",
    ), _group_habit, _mutate_one({"g": lx.GROUPS}), negated=(
        "Why don't {g} {v} {o}?", "Why do {g} never {v} {o}?",
    )),
    Intent("weight", (
        "Can I lose {n} pounds in {m} weeks?", "Is it possible to lose {n} pounds in {m} weeks?",
        "How can I lose {n} pounds in {m} weeks?",
    ), _weight, _mutate_one({"n": tuple(str(i) for i in range(5, 60, 5)), "m": tuple(str(i) for i in range(2, 13))})),
    Intent("company", (
        "How do I get a job at {co}?", "How can I get hired at {co}?",
        "What is the best way to get a job at {co}?",
    ), _company, _mutate_one({"co": lx.COMPANIES}), negated=(
        "Why did I not get a job at {co}?",
    )),
    Intent("company", (
        "What is it like to work at {co}?", "How is the work culture at {co}?",
    ), _company, _mutate_one({"co": lx.COMPANIES})),
    Intent("animal", (
        "What should I feed my {an}?", "What is the best food for my {an}?", "What do I feed my {an}?",
    ), _animal, _mutate_one({"an": lx.ANIMALS})),
    Intent("animal", (
        "How do I train my {an}?", "What is the best way to train my {an}?",
    ), _animal, _mutate_one({"an": lx.ANIMALS})),
    Intent("country", (
        "What are the best places to visit in {k}?", "Which places should I visit in {k}?",
        "What should I see when visiting {k}?",
    ), _country, _mutate_one({"k": lx.COUNTRIES})),
)


# --- mrpc --------------------------------------------------------------------


def _stock(rng: random.Random) -> Slots:
    return {
        "co": rng.choice(lx.COMPANIES), "dir": str(rng.randrange(2)),
        "n": str(rng.randrange(1, 15)), "p": f"{rng.randrange(10, 300)}.{rng.randrange(10, 99)}",
        "day": rng.choice(lx.DAYS),
    }


def _mutate_stock(slots: Slots, rng: random.Random) -> Slots:
    r = rng.random()
    if r < 0.3:
        return _replace(slots, dir=str(1 - int(slots["dir"])))
    if r < 0.55:
        return _replace(slots, n=_other(tuple(str(i) for i in range(1, 15)), slots["n"], rng))
    if r < 0.8:
        return _replace(slots, co=_other(lx.COMPANIES, slots["co"], rng))
    return _replace(slots, day=_other(lx.DAYS, slots["day"], rng))


def _gov(rng: random.Random) -> Slots:
    action, synonym = rng.choice(lx.GOV_ACTIONS)
    return {
        "title": rng.choice(lx.OFFICIAL_TITLES), "k": rng.choice(lx.COUNTRIES),
        "action": action, "action_syn": synonym, "day": rng.choice(lx.DAYS),
    }


def _mutate_gov(slots: Slots, rng: random.Random) -> Slots:
    r = rng.random()
    if r < 0.4:
        conflict = lx.GOV_ACTION_CONFLICTS[slots["action"]]
        return _replace(slots, action=conflict, action_syn=conflict)
    if r < 0.75:
        return _replace(slots, k=_other(lx.COUNTRIES, slots["k"], rng))
    return _replace(slots, day=_other(lx.DAYS, slots["day"], rng))


def _arrest(rng: random.Random) -> Slots:
    return {
        "name": f"{rng.choice(lx.FIRST_NAMES)} {rng.choice(lx.LAST_NAMES)}",
        "age": str(rng.randrange(18, 70)), "c": rng.choice(lx.CITIES),
        "day": rng.choice(lx.DAYS), "crime": rng.choice(lx.CRIMES),
    }


def _mutate_arrest(slots: Slots, rng: random.Random) -> Slots:
    r = rng.random()
    if r < 0.25:
        return _replace(slots, age=_other(tuple(str(i) for i in range(18, 70)), slots["age"], rng))
    if r < 0.5:
        return _replace(slots, c=_other(lx.CITIES, slots["c"], rng))
    if r < 0.75:
        return _replace(slots, crime=_other(lx.CRIMES, slots["crime"], rng))
    return _replace(slots, name=f"{rng.choice(lx.FIRST_NAMES)} {rng.choice(lx.LAST_NAMES)}")


def _deal(rng: random.Random) -> Slots:
    a, b = rng.sample(lx.COMPANIES, 2)
    return {"a": a, "b": b, "n": str(rng.randrange(50, 900, 10))}


def _mutate_deal(slots: Slots, rng: random.Random) -> Slots:
    r = rng.random()
    if r < 0.4:  # role swap: same words, different meaning
        return _replace(slots, a=slots["b"], b=slots["a"])
    if r < 0.7:
        return _replace(slots, n=str(int(slots["n"]) + rng.choice((-40, -20, 20, 40, 100))))
    return _replace(slots, b=_other(tuple(c for c in lx.COMPANIES if c != slots["a"]), slots["b"], rng))


def _match(rng: random.Random) -> Slots:
    t1, t2 = rng.sample(lx.TEAMS, 2)
    s2 = rng.randrange(0, 5)
    return {"t1": t1, "t2": t2, "s1": str(s2 + rng.randrange(1, 4)), "s2": str(s2), "day": rng.choice(lx.DAYS)}


def _mutate_match(slots: Slots, rng: random.Random) -> Slots:
    r = rng.random()
    if r < 0.4:
        return _replace(slots, t1=slots["t2"], t2=slots["t1"])
    if r < 0.7:
        return _replace(slots, t2=_other(tuple(t for t in lx.TEAMS if t != slots["t1"]), slots["t2"], rng))
    return _replace(slots, day=_other(lx.DAYS, slots["day"], rng))


MRPC_INTENTS: tuple[Intent, ...] = (
    Intent("stock", (
        "{co} shares {dir} {n} percent to ${p} on {day}.",
        "Shares of {co} {dir} {n} percent on {day}, closing at ${p}.",
        "On {day}, {co} stock {dir} {n} percent to ${p}.",
        "{co}'s stock price {dir} {n} percent to close at ${p} on {day}.",
    ), _stock, _mutate_stock),
    Intent("gov", (
        "{title} said on {day} that the government of {k} would {action}.",
        "The government of {k} will {action_syn}, {title} said on {day}.",
        "{title} told reporters on {day} that {k} plans to {action_syn}.",
        "On {day}, {title} said {k} would {action}.",
    ), _gov, _mutate_gov, negated=(
        "{title} said on {day} that the government of {k} would not {action}.",
        "The government of {k} will not {action_syn}, {title} said on {day}.",
    )),
    Intent("arrest", (
        "{name}, {age}, was arrested in {c} on {day} and charged with {crime}.",
        "Police in {c} arrested {name}, {age}, on {day} on charges of {crime}.",
        "{name}, who is {age}, was charged with {crime} after being arrested in {c} on {day}.",
    ), _arrest, _mutate_arrest, negated=(
        "{name}, {age}, was not charged with {crime} after police in {c} questioned him on {day}.",
    )),
    Intent("deal", (
        "{a} agreed to buy {b} for ${n} million.",
        "{b} will be acquired by {a} for ${n} million.",
        "{a} said it would acquire {b} in a deal worth ${n} million.",
        "In a ${n} million deal, {a} will buy {b}.",
    ), _deal, _mutate_deal),
    Intent("match", (
        "{t1} beat {t2} {s1}-{s2} on {day}.",
        "{t2} lost {s1}-{s2} to {t1} on {day}.",
        "On {day}, {t1} defeated {t2} {s1}-{s2}.",
    ), _match, _mutate_match),
)


