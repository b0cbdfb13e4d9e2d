"""The parser of ``thresholds.yaml``'s ``checklist`` section: each item's fail-rate gate.

Schema (percent fail rates, the unit CheckList and the seed report use)::

    checklist:
      default: 40                       # max fail rate for every test
      capabilities: {Fairness: 20}      # per capability (both suites)
      tests:                            # per test, keyed by suite then test name
        sentiment: {"Typos": 10}
      overrides:                        # most specific: any of suite/test/capability
        - {dataset: sst2, model: albert, test: "Typos", max_fail_rate: 30}

Resolution: the last matching override, else the test's entry, else its capability's, else
the default.  A test without any threshold is not passed: its item fails and says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from nlp_gate.config.specs import Profile
from nlp_gate.config.thresholds import (
    ThresholdsError,
    is_percent,
    percent_problems,
    raise_problems,
    unknown_names,
)
from nlp_gate.kinds.checklist.marks import CAPABILITIES

OVERRIDE_KEYS = ("suite", "test", "capability", "dataset", "model")


@dataclass(frozen=True)
class MaxFailRate:
    limit: float  # percent
    source: str  # which rule of thresholds.yaml set it, for the failure message

    def fails(self, fail_rate: float) -> str | None:
        if fail_rate > self.limit:
            return (
                f"fail rate {fail_rate:.1f}% exceeds the gate {self.limit:.1f}% "
                f"(thresholds.yaml: {self.source})"
            )
        return None


@dataclass(frozen=True)
class GateKey:
    """What a gate is looked up by: one CheckList test on one model."""

    suite: str
    test: str
    capability: str
    dataset: str
    model: str


@dataclass(frozen=True)
class Universe:
    """The valid names a checklist section may mention, for validation."""

    tests: Mapping[str, Mapping[str, str]]  # suite -> test -> capability
    datasets: frozenset[str]
    models: frozenset[str]
    capabilities: frozenset[str]
    # Native tests are defined in test modules, known only once they are collected: at
    # start-up a suite (or an override's suite/test) outside ``tests`` may name one, and is
    # checked after collection (``NativeKind.validate_collected``).
    open: bool = False

    def known(self, what: str, name: Any) -> bool:
        names = {"suite": self.tests, "test": {t for ts in self.tests.values() for t in ts}}
        return not self.open or name in names[what]


class ChecklistGates:
    def __init__(self, section: Mapping[str, Any], where: str) -> None:
        self.where = where
        self._default = section.get("default")
        self._capabilities: Mapping[str, Any] = section.get("capabilities") or {}
        self._tests: Mapping[str, Mapping[str, Any]] = section.get("tests") or {}
        self._overrides: list[Mapping[str, Any]] = list(section.get("overrides") or [])

    def gate(self, key: GateKey) -> MaxFailRate | None:
        for i, rule in reversed(list(enumerate(self._overrides))):
            if all(rule.get(k) in (None, getattr(key, k)) for k in OVERRIDE_KEYS):
                return MaxFailRate(_rate(rule["max_fail_rate"]), f"overrides[{i}]")
        test_rule = self._tests.get(key.suite, {}).get(key.test)
        if test_rule is not None:
            return MaxFailRate(_rate(test_rule), f"tests.{key.suite}.{key.test!r}")
        cap_rule = self._capabilities.get(key.capability)
        if cap_rule is not None:
            return MaxFailRate(_rate(cap_rule), f"capabilities.{key.capability}")
        if self._default is not None:
            return MaxFailRate(_rate(self._default), "default")
        return None

    def validate(self, universe: Universe) -> None:
        """Raise on any name the run does not know; report every problem at once."""
        problems: list[str] = []
        problems += unknown_names("capability", self._capabilities, universe.capabilities)
        problems += unknown_names(
            "suite", [s for s in self._tests if universe.known("suite", s)], universe.tests
        )
        for suite, tests in self._tests.items():
            if suite in universe.tests:
                problems += unknown_names(f"{suite} test", tests, universe.tests[suite])
        for i, rule in enumerate(self._overrides):
            extra = set(rule) - set(OVERRIDE_KEYS) - {"max_fail_rate"}
            if extra or "max_fail_rate" not in rule:
                problems.append(
                    f"overrides[{i}]: keys must be among {OVERRIDE_KEYS} plus "
                    f"max_fail_rate (required); got {sorted(rule)}"
                )
            valid = {
                "suite": universe.tests,
                "capability": universe.capabilities,
                "dataset": universe.datasets,
                "model": universe.models,
                "test": {t for ts in universe.tests.values() for t in ts},
            }
            for k, names in valid.items():
                if k in rule and (k not in ("suite", "test") or universe.known(k, rule[k])):
                    problems += unknown_names(f"overrides[{i}] {k}", [rule[k]], names)
        for key, rate in self._rates():
            problems += percent_problems(f"checklist.{key} (a max fail rate)", [rate])
        raise_problems(self.where, problems)

    def _rates(self) -> Iterable[tuple[str, Any]]:
        """Every gate of the section with the key that sets it."""
        yield "default", self._default
        yield from ((f"capabilities.{c}", _unwrap(v)) for c, v in self._capabilities.items())
        for suite, tests in self._tests.items():
            yield from ((f"tests.{suite}.{t}", _unwrap(v)) for t, v in tests.items())
        yield from (
            (f"overrides[{i}].max_fail_rate", rule.get("max_fail_rate"))
            for i, rule in enumerate(self._overrides)
        )


def _unwrap(value: Any) -> Any:
    return value.get("max_fail_rate") if isinstance(value, Mapping) else value


def _rate(value: Any) -> float:
    value = _unwrap(value)
    if not is_percent(value):
        raise ThresholdsError(f"a max fail rate must be a percentage in [0, 100], got {value!r}")
    return float(value)


def universe(
    profile: Profile, tests: Mapping[str, Mapping[str, str]], open: bool = False
) -> Universe:
    """The names a ``checklist`` section may use: ``tests`` (suite -> test -> capability), the
    profile's datasets and models, every capability."""
    return Universe(
        tests=tests,
        datasets=frozenset(profile.datasets),
        models=frozenset(profile.model_names),
        capabilities=frozenset(CAPABILITIES),
        open=open,
    )
