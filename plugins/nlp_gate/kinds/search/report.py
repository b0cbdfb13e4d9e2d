"""The report of search records (results.json ``searches``): no table and no rate; a search
fails when it found a counterexample, and says so in its figures and MLflow metric."""

from __future__ import annotations

from nlp_gate.kinds.report_part import Figures, Put, Record, ReportPart
from nlp_gate.results.records import Section


class SearchReport(ReportPart):
    """Never "recorded": a search has no gate value."""

    section = Section("searches", "search")
    verdict_order = 4

    def figures(self, record: Record) -> Figures:
        found = record.get("found")
        return Figures(
            f"{record.get('suite')}/{record.get('test')}",
            f"{record.get('dataset')}/{record.get('model')}",
            str(record.get("capability")),
            None,
            None,
            {"counterexample": "found" if found else "none"},
        )

    def metrics(self, records: list[Record], put: Put) -> None:
        for r in records:
            put(
                r.get("found"),
                "counterexample_found",
                r["dataset"],
                r["model"],
                r["suite"],
                r["test"],
            )


REPORT = SearchReport()
