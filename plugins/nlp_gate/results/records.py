"""What results.json's gated records share, written once: what a section is, the statuses a
record gives its item, and the head every record of a CheckList test starts with.

A leaf module: the item kinds (which write the records and judge them for the report), the
comparison statistics and the report all import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from nlp_gate.config.specs import ModelSpec
    from nlp_gate.suites.catalog import TestInfo


@dataclass(frozen=True)
class Section:
    """A results.json section of gated records; each kind's report part names its own
    (``nlp_gate.kinds.report_part.ReportPart.section``)."""

    key: str  # results.json key of its records
    items: str  # what the verdict line calls its items


# An item's status as the reports and JUnit XML (``nlp_gate.status``) name it.
ItemStatus = Literal["passed", "failed", "recorded", "skipped", "errored"]


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
