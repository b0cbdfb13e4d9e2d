"""What one gated record says in a line: the item, its model and capability, its fail rate and
gate.  JUnit XML's per-item properties (``nlp_gate.*``), the job summary's tables and
summary.html's list of recorded items all read them from here, so they name one item alike;
each kind's part says how its records read (``ReportPart.figures``).
"""

from __future__ import annotations

from typing import Any

from nlp_gate.kinds.report_part import Figures, number
from nlp_gate.report.parts import part_for

__all__ = ["Figures", "figures", "number"]


def figures(section: str, record: dict[str, Any]) -> Figures:
    """The figures of ``record`` of results.json section ``section``."""
    return part_for(section).figures(record)
