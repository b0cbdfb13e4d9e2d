"""The report's tables, built from ``results.json`` alone: each kind's (its ``ReportPart``'s
``tables``), in report order.

``nlp_gate.report.formats`` writes the same ``Table`` as Markdown, CSV and HTML, so the
formats cannot disagree.  Because the input is ``results.json`` (records sorted by
parametrization position), ``-n 0`` and ``-n 2`` runs produce identical tables.
"""

from __future__ import annotations

from typing import Any

from nlp_gate.kinds.report_part import Table
from nlp_gate.report.parts import report_parts


def build_tables(results: dict[str, Any]) -> list[Table]:
    """Every table this results.json has data for, in report order."""
    parts = sorted(report_parts(), key=lambda part: part.table_order)
    return [table for part in parts for table in part.tables(results)]
