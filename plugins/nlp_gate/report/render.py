"""A ``Table`` as people read it (the Markdown and HTML formats, the terminal): without the
CSV-only columns, each stub label shown once per group."""

from __future__ import annotations

from nlp_gate.kinds.report_part import Cell, Column, Table


def display(table: Table) -> tuple[list[Column], list[list[Cell]]]:
    """Columns and rows without the CSV-only extras; a stub label equal to the one above it is
    blanked (the seed prints each capability once)."""
    keep = [i for i, c in enumerate(table.columns) if not c.csv_only]
    columns = [table.columns[i] for i in keep]
    rows: list[list[Cell]] = []
    previous: list[Cell] | None = None
    for row in table.rows:
        shown = [row[i] for i in keep]
        if previous is not None and columns[0].stub and shown[0].text == previous[0].text:
            shown = [Cell(""), *shown[1:]]
        previous = [row[i] for i in keep]
        rows.append(shown)
    return columns, rows
