"""The registered kinds' report parts (``ItemKind.report``): one per results.json section of
gated records, in the order the verdict line names them.  The report reaches every kind's
tables, figures and verdict through here and names none of them."""

from __future__ import annotations

from functools import cache

from nlp_gate.kinds import KINDS
from nlp_gate.kinds.report_part import ReportPart


@cache
def report_parts() -> tuple[ReportPart, ...]:
    """Each section's part once (kinds sharing a section share it), in verdict order."""
    parts = {kind.report.key: kind.report for kind in KINDS}
    return tuple(sorted(parts.values(), key=lambda part: part.verdict_order))


def part_for(section: str) -> ReportPart:
    """The part of results.json section ``section``."""
    for part in report_parts():
        if part.key == section:
            return part
    raise KeyError(f"no kind records results.json section {section!r}")
