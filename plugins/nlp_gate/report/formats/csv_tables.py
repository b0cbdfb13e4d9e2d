"""CSV: one ``tables/<name>.csv`` per table, for tools (every label repeated, plain numbers, a
missing cell left empty or ``n/a``, never 0; the CSV-only columns too)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from nlp_gate.kinds.report_part import NOT_RUN, Table
from nlp_gate.report.formats.base import ReportInput


def to_csv(table: Table) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([c.key for c in table.columns])
    for row in table.rows:
        writer.writerow(["" if cell.text == NOT_RUN else cell.text for cell in row])
    return out.getvalue()


class Csv:
    table_files: tuple[str, ...] = ("*.csv",)
    report_files: tuple[str, ...] = ()
    elsewhere = False

    def write(self, report: ReportInput) -> dict[str, Path]:
        for table in report.tables:
            (report.table_dir / f"{table.name}.csv").write_text(to_csv(table))
        return {}
