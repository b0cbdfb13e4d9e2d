"""Fail-rate gates: ``thresholds.yaml`` parsed once, validated, resolved into check objects.

Schema (percent fail rates, the unit CheckList and the seed report use)::

    profiles:
      <profile>:
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
from pathlib import Path
from typing import Any

import yaml

OVERRIDE_KEYS = ("suite", "test", "capability", "dataset", "model")
# Sections of a profile: "checklist" and "calibrated_on" are parsed here; the other item
# kinds parse their own section from ``Thresholds.section(name)``.
SECTIONS = ("checklist", "attacks", "accuracy", "comparison", "calibrated_on")


class ThresholdsError(ValueError):
    """An invalid thresholds file; the message lists the valid names."""


@dataclass(frozen=True)
class MaxFailRate:
    limit: float  # percent
    source: str  # which rule of thresholds.yaml set it, for the failure message

    def fails(self, fail_rate: float) -> str | None:
        if fail_rate > self.limit:
            return (f"fail rate {fail_rate:.1f}% exceeds the gate {self.limit:.1f}% "
                    f"(thresholds.yaml: {self.source})")
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
    """The valid names a thresholds file may mention, for validation."""

    tests: Mapping[str, Mapping[str, str]]  # suite -> test -> capability
    datasets: frozenset[str]
    models: frozenset[str]

    @property
    def capabilities(self) -> set[str]:
        return {c for tests in self.tests.values() for c in tests.values()}


class Thresholds:
    def __init__(self, path: Path, profile: str, sections: Mapping[str, Any]) -> None:
        self.path = path
        self.profile = profile
        self._sections = sections
        checklist = sections.get("checklist") or {}
        self._default = checklist.get("default")
        self._capabilities: Mapping[str, Any] = checklist.get("capabilities") or {}
        self._tests: Mapping[str, Mapping[str, Any]] = checklist.get("tests") or {}
        self._overrides: list[Mapping[str, Any]] = list(checklist.get("overrides") or [])

    @property
    def calibrated_on(self) -> Mapping[str, str]:
        """Zoo model path -> leading hex digits of the weights the gates were calibrated on."""
        return self._sections.get("calibrated_on") or {}

    def section(self, name: str) -> Mapping[str, Any]:
        """The raw body of a section (``{}`` when absent), for the item kinds that own it."""
        return self._sections.get(name) or {}

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
        problems += _unknown("capability", self._capabilities, universe.capabilities)
        problems += _unknown("suite", self._tests, universe.tests)
        for suite, tests in self._tests.items():
            if suite in universe.tests:
                problems += _unknown(f"{suite} test", tests, universe.tests[suite])
        for i, rule in enumerate(self._overrides):
            extra = set(rule) - set(OVERRIDE_KEYS) - {"max_fail_rate"}
            if extra or "max_fail_rate" not in rule:
                problems.append(f"overrides[{i}]: keys must be among {OVERRIDE_KEYS} plus "
                                f"max_fail_rate (required); got {sorted(rule)}")
            valid = {"suite": universe.tests, "capability": universe.capabilities,
                     "dataset": universe.datasets, "model": universe.models,
                     "test": {t for ts in universe.tests.values() for t in ts}}
            for k, names in valid.items():
                if k in rule:
                    problems += _unknown(f"overrides[{i}] {k}", [rule[k]], names)
        # Not checked against the profile's models: a models file may use a subset of the zoo.
        for name, digest in self.calibrated_on.items():
            if not (isinstance(digest, str) and len(digest) >= 8
                    and all(c in "0123456789abcdef" for c in digest)):
                problems.append(f"calibrated_on {name!r}: expected the leading hex digits (8 or "
                                f"more) of zoo.json's weights_sha256, got {digest!r}")
        for value in _all_rates(self):
            try:
                _rate(value)
            except ThresholdsError as exc:
                problems.append(str(exc))
        if problems:
            raise ThresholdsError(f"{self.path} (profile {self.profile!r}):\n  "
                                  + "\n  ".join(problems))


def load_thresholds(path: Path, profile: str) -> Thresholds:
    try:
        raw = yaml.safe_load(path.read_text()) or {}
    except FileNotFoundError:
        raise ThresholdsError(f"thresholds file not found: {path}") from None
    profiles = raw.get("profiles") or {}
    if profile not in profiles:
        raise ThresholdsError(
            f"{path} has no gates for profile {profile!r}; profiles with gates: "
            f"{', '.join(profiles) or 'none'}. Add a 'profiles: {profile}:' section."
        )
    body = profiles[profile] or {}
    unknown = set(body) - set(SECTIONS)
    if unknown:
        raise ThresholdsError(f"{path}: unknown section(s) {sorted(unknown)} in profile "
                              f"{profile!r}; valid: {', '.join(SECTIONS)}")
    return Thresholds(path, profile, body)


def _rate(value: Any) -> float:
    if isinstance(value, Mapping):
        value = value.get("max_fail_rate")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 100:
        raise ThresholdsError(f"a max fail rate must be a percentage in [0, 100], got {value!r}")
    return float(value)


def _all_rates(t: Thresholds) -> Iterable[Any]:
    if t._default is not None:
        yield t._default
    yield from t._capabilities.values()
    for tests in t._tests.values():
        yield from tests.values()
    for rule in t._overrides:
        if "max_fail_rate" in rule:
            yield rule["max_fail_rate"]


def _unknown(what: str, given: Iterable[str], valid: Iterable[str]) -> list[str]:
    valid = set(valid)
    return [f"unknown {what} {name!r}; valid: {', '.join(sorted(valid))}"
            for name in given if name not in valid]
