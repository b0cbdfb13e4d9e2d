"""Attack gates: the ``attacks`` section of ``thresholds.yaml``, parsed and validated.

Schema (percentages, the unit of TextAttack's summary)::

    profiles:
      <profile>:
        attacks:
          min_ran: 40        # at least 40 attack items must run (all, when fewer are selected)
          default: {max_attack_success_rate: 90}          # every recipe, every model
          models: {albert: {min_accuracy_under_attack: 10}}
          recipes: {textfooler: {max_attack_success_rate: 80}}
          overrides:                                     # most specific
            - {recipe: iga, dataset: rte, model: albert, max_attack_success_rate: 50}

Each metric resolves on its own, most specific first: the last matching override, the
recipe's entry, the model's entry, the default.  An item left without any gate fails and says
so.  Recipe names are those of the registry (``-offline`` variants are recipes of their own).

``min_ran`` is a gate on the run, not on an item: an attack item that skipped for a missing
resource passes no gate and fails none, so a release job that must know the attacks really
ran demands a count.  The verdict (``report/verdict.py``) checks it from ``results.json``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from nlp_gate.config.thresholds import percent_problems, raise_problems, unknown_names

# gate key -> (metric in the record, direction)
METRICS: dict[str, tuple[str, str]] = {
    "max_attack_success_rate": ("attack_success_rate", "max"),
    "min_accuracy_under_attack": ("accuracy_under_attack", "min"),
}
OVERRIDE_KEYS = ("recipe", "dataset", "model")
SECTION_KEYS = ("min_ran", "default", "models", "recipes", "overrides")


@dataclass(frozen=True)
class AttackGate:
    key: str  # a METRICS key
    limit: float  # percent
    source: str  # the rule of thresholds.yaml that set it

    @property
    def metric(self) -> str:
        return METRICS[self.key][0]

    def fails(self, metrics: Mapping[str, Any]) -> str | None:
        value = metrics.get(self.metric)
        if value is None:
            return None
        over = value > self.limit if METRICS[self.key][1] == "max" else value < self.limit
        if not over:
            return None
        relation = (
            "exceeds the maximum" if METRICS[self.key][1] == "max" else "is below the minimum"
        )
        return (
            f"{self.metric.replace('_', ' ')} {value:.1f}% {relation} {self.limit:.1f}% "
            f"(thresholds.yaml attacks: {self.source})"
        )


@dataclass(frozen=True)
class AttackKey:
    recipe: str
    dataset: str
    model: str


class AttackGates:
    def __init__(self, section: Mapping[str, Any], where: str) -> None:
        self.where = where
        self._default: Mapping[str, Any] = section.get("default") or {}
        self._models: Mapping[str, Mapping[str, Any]] = section.get("models") or {}
        self._recipes: Mapping[str, Mapping[str, Any]] = section.get("recipes") or {}
        self._overrides: list[Mapping[str, Any]] = list(section.get("overrides") or [])
        self.min_ran: Any = section.get("min_ran")
        self._unknown_sections = sorted(set(section) - set(SECTION_KEYS))

    def gates(self, key: AttackKey) -> list[AttackGate]:
        found: dict[str, AttackGate] = {}
        layers: list[tuple[str, Mapping[str, Any]]] = [
            ("default", self._default),
            (f"models.{key.model}", self._models.get(key.model) or {}),
            (f"recipes.{key.recipe}", self._recipes.get(key.recipe) or {}),
        ]
        layers += [
            (f"overrides[{i}]", rule)
            for i, rule in enumerate(self._overrides)
            if all(rule.get(k) in (None, getattr(key, k)) for k in OVERRIDE_KEYS)
        ]
        for source, rule in layers:  # later layers are more specific
            for metric in METRICS:
                if metric in rule:
                    found[metric] = AttackGate(metric, float(rule[metric]), source)
        return [found[m] for m in METRICS if m in found]

    def named_recipes(self) -> set[str]:
        """The recipe names the section itself uses (``recipes`` and ``overrides``)."""
        return set(self._recipes) | {
            str(rule["recipe"])
            for rule in self._overrides
            if isinstance(rule, Mapping) and "recipe" in rule
        }

    def validate(
        self, recipes: Iterable[str], datasets: Iterable[str], models: Iterable[str]
    ) -> None:
        """Raise on any unknown name or value; report every problem at once."""
        valid = {"recipe": set(recipes), "dataset": set(datasets), "model": set(models)}
        problems = (
            [
                f"unknown key(s) {self._unknown_sections} in attacks; valid: "
                f"{', '.join(SECTION_KEYS)}"
            ]
            if self._unknown_sections
            else []
        )
        if self.min_ran is not None and (
            isinstance(self.min_ran, bool) or not isinstance(self.min_ran, int) or self.min_ran < 0
        ):
            problems.append(
                f"attacks.min_ran: expected a whole number of attack items >= 0, "
                f"got {self.min_ran!r}"
            )
        rules: list[tuple[str, Any]] = [("default", self._default)]
        problems += _unknown("model", self._models, valid["model"])
        problems += _unknown("recipe", self._recipes, valid["recipe"])
        rules += [(f"models.{n}", v) for n, v in self._models.items()]
        rules += [(f"recipes.{n}", v) for n, v in self._recipes.items()]
        for i, rule in enumerate(self._overrides):
            rules.append((f"overrides[{i}]", rule))
            if isinstance(rule, Mapping):
                for k in OVERRIDE_KEYS:
                    if k in rule:
                        problems += _unknown(f"overrides[{i}] {k}", [rule[k]], valid[k])
        for where, rule in rules:
            problems += _check_rule(where, rule, allow=OVERRIDE_KEYS if "[" in where else ())
        raise_problems(self.where, problems)


def thresholds_record(gates: list[AttackGate]) -> dict[str, float] | None:
    return {g.key: g.limit for g in gates} or None


def _check_rule(where: str, rule: Any, allow: tuple[str, ...]) -> list[str]:
    if not isinstance(rule, Mapping):
        return [f"attacks.{where}: expected a mapping of {', '.join(METRICS)}, got {rule!r}"]
    problems = []
    extra = set(rule) - set(METRICS) - set(allow)
    if extra:
        problems.append(
            f"attacks.{where}: unknown key(s) {sorted(extra)}; valid: "
            f"{', '.join([*METRICS, *allow])}"
        )
    if allow and not set(rule) & set(METRICS):
        problems.append(f"attacks.{where}: names no gate ({', '.join(METRICS)})")
    for metric in sorted(set(rule) & set(METRICS)):
        problems += percent_problems(f"attacks.{where}.{metric}", [rule[metric]])
    return problems


def _unknown(what: str, given: Iterable[str], valid: Iterable[str]) -> list[str]:
    return [f"attacks: {problem}" for problem in unknown_names(what, given, valid)]
