"""What results.json's gated records share, written once: the sections they go to and the
head every record of a CheckList test starts with.

A leaf module: the item kinds (which write the records), the comparison statistics and the
report (which read them, without importing pytest or any kind) all import it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from nlp_gate.config.specs import ModelSpec
    from nlp_gate.suites.catalog import TestInfo


@dataclass(frozen=True)
class Section:
    key: str  # results.json key of its records
    items: str  # what the verdict line calls its items


CHECKLIST = Section("records", "CheckList")  # released and native CheckList tests
ATTACKS = Section("attacks", "attack")
ACCURACY = Section("accuracy", "accuracy")
COMPARISONS = Section("comparisons", "comparison")
SEARCHES = Section("searches", "search")
# Every section of gated records, in the order the release verdict line names them.
GATED = (CHECKLIST, ATTACKS, ACCURACY, COMPARISONS, SEARCHES)

# A gate of 100 (percent, or percentage points for a comparison's tolerance) can never be
# missed: thresholds.yaml writes it where a model fails (nearly) every case, to record the
# item's figures without gating on them.
RECORDED_GATE = 100.0

# An item's status as the reports and JUnit XML (``nlp_gate.status``) name it.
ItemStatus = Literal["passed", "failed", "recorded", "skipped", "errored"]


def recorded(section: str, record: Mapping[str, Any]) -> bool:
    """Whether ``record`` passed a gate it could not miss: "recorded, not gated".

    A CheckList fail-rate gate of 100, a comparison tolerance of 100 points (the fail rate
    cannot rise more), an attack whose only gate is an attack success rate of 100.  Not
    accuracy (a floor of 100 is the strictest gate) nor searches (no gate value)."""
    if record.get("passed") is not True:
        return False
    if section == CHECKLIST.key:
        return _at_least(record.get("threshold"), RECORDED_GATE)
    if section == COMPARISONS.key:
        return _at_least(record.get("tolerance"), RECORDED_GATE)
    if section == ATTACKS.key:
        gates = record.get("threshold") or {}
        return set(gates) == {"max_attack_success_rate"} and _at_least(
            gates["max_attack_success_rate"], RECORDED_GATE
        )
    return False


def status(section: str, record: Mapping[str, Any]) -> ItemStatus | None:
    """The status a gated record gives its item; None when it judged nothing (a skipped
    attack or comparison): the item's pytest outcome says what happened."""
    passed = record.get("passed")
    if passed is None:
        return None
    if not passed:
        return "failed"
    return "recorded" if recorded(section, record) else "passed"


def _at_least(value: Any, limit: float) -> bool:
    return isinstance(value, int | float) and value >= limit


@dataclass(frozen=True)
class RecordHead:
    """The fields a record of a CheckList test on a dataset starts with (the CheckList,
    native, comparison and search items' records): one column set for every table."""

    suite: str
    task: str
    capability: str
    test: str
    type: str
    dataset: str


@dataclass(frozen=True)
class ModelRecordHead(RecordHead):
    """``RecordHead`` and the one model it ran on."""

    model: str
    model_id: str


def head(info: TestInfo, spec: ModelSpec) -> dict[str, Any]:
    """``RecordHead``'s fields for ``info`` on ``spec``'s dataset."""
    return dict(
        suite=info.suite,
        task=spec.task.name,
        capability=info.capability,
        test=info.name,
        type=info.type,
        dataset=spec.dataset,
    )


def model_head(info: TestInfo, spec: ModelSpec) -> dict[str, Any]:
    """``ModelRecordHead``'s fields for ``info`` on ``spec``."""
    return {**head(info, spec), "model": spec.name, "model_id": spec.source}
