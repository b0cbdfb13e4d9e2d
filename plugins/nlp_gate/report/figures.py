"""What one gated record says in a line: the item, its model and capability, its fail rate and
gate.  JUnit XML's per-item properties (``nlp_gate.*``), the job summary's tables and
summary.html's list of recorded items all read them from here, so they name one item alike.

One rule for every kind but comparisons: the item passes when ``fail_rate <= gate``, both
percent.  For accuracy that is the error rate (100 - accuracy) against 100 - ``min_accuracy``;
for an attack, the attack success rate against ``max_attack_success_rate``.  A comparison's
``fail_rate`` is the candidate's and its ``gate`` the tolerance on ``delta`` (percentage
points over the nearest clean model), which fails only where significant too.  A search has
no rate: it fails when it found a counterexample.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nlp_gate.records import ACCURACY, ATTACKS, COMPARISONS, SEARCHES


@dataclass(frozen=True)
class Figures:
    item: str  # what was tested: suite/test, a recipe, "accuracy"
    model: str  # dataset/model (a comparison: the candidate's)
    capability: str
    fail_rate: float | None  # percent
    gate: float | None  # percent (a comparison: points of delta)
    extra: dict[str, Any] = field(default_factory=dict)  # kind-specific further figures


def figures(section: str, record: dict[str, Any]) -> Figures:
    """The figures of ``record`` of results.json section ``section``."""
    model = f"{record.get('dataset')}/{record.get('model')}"
    if section == ACCURACY.key:
        accuracy, floor = record.get("accuracy"), record.get("threshold")
        return Figures(
            "accuracy",
            model,
            "accuracy",
            _complement(accuracy),
            _complement(floor),
            {"accuracy": accuracy, "min_accuracy": floor},
        )
    if section == ATTACKS.key:
        gates = record.get("threshold") or {}
        extra = {"recipe": record.get("recipe")}
        if "min_accuracy_under_attack" in gates:
            extra["accuracy_under_attack"] = record.get("accuracy_under_attack")
            extra["min_accuracy_under_attack"] = gates["min_accuracy_under_attack"]
        return Figures(
            str(record.get("recipe")),
            model,
            "adversarial",
            record.get("attack_success_rate"),
            gates.get("max_attack_success_rate"),
            extra,
        )
    item = f"{record.get('suite')}/{record.get('test')}"
    capability = str(record.get("capability"))
    if section == COMPARISONS.key:
        dataset = record.get("dataset")
        return Figures(
            item,
            f"{dataset}/{record.get('candidate')}",
            capability,
            record.get("candidate_fail_rate"),
            record.get("tolerance"),
            {
                "baseline": f"{dataset}/{record.get('baseline')}",
                "delta": record.get("excess"),
                "p_adjusted": record.get("p_adjusted"),
                "alpha": record.get("alpha"),
            },
        )
    if section == SEARCHES.key:
        found = record.get("found")
        return Figures(
            item, model, capability, None, None, {"counterexample": "found" if found else "none"}
        )
    return Figures(item, model, capability, record.get("fail_rate"), record.get("threshold"))


def number(value: Any) -> str:
    """A figure as the reports print it: six significant digits, no trailing zeros."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return f"{float(value):.6g}"


def _complement(percent: Any) -> float | None:
    return None if not isinstance(percent, int | float) else round(100.0 - percent, 4)
