"""The report of CheckList-test records (results.json ``records``: released and native suites):
one fail-rate table per suite (the seed's Tables 2 and 3 in its row order, any other suite
after them), per-suite plots, per-item and per-capability MLflow metrics, and the prediction
engine's CheckList figures.  A gate of 100 records an item without gating it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from statistics import fmean
from typing import Any

from nlp_gate.kinds.checklist.layout import SEED_TABLES, SEED_TITLES, ordered_rows
from nlp_gate.kinds.checklist.plots import write_plots
from nlp_gate.kinds.report_part import (
    MISSING_NOTE,
    NOT_RUN,
    NOTHING_TESTED,
    RECORDED_GATE,
    Cell,
    Column,
    Put,
    Record,
    ReportPart,
    Table,
    at_least,
    bold_extreme,
    model_columns,
    pct,
)
from nlp_gate.results.records import Section

OMITTED_MARK = " †"
OMITTED_NOTE = "† not in the seed report's table (it omitted these tests); shown after its rows."


def checklist_table(suite: str, records: list[Record], run: Record) -> Table | None:
    records = [r for r in records if r["suite"] == suite]
    if not records:
        return None
    columns = model_columns(records, run)
    by_cell = {(r["test"], r["dataset"], r["model"]): r for r in records}
    rows: list[list[Cell]] = []
    omitted = False
    for row in ordered_rows(suite, ((r["capability"], r["test"]) for r in records)):
        values: list[float | None] = []
        texts: list[str] = []
        for dataset, model in columns:
            record = by_cell.get((row.test, dataset, model))
            values.append(None if record is None else record["fail_rate"])
            texts.append(NOT_RUN if record is None else pct(record["fail_rate"], NOTHING_TESTED))
        bold: list[bool] = []
        for dataset in dict.fromkeys(d for d, _ in columns):
            group = [i for i, (d, _) in enumerate(columns) if d == dataset]
            bold += bold_extreme([values[i] for i in group], min)
        # Only a seed table can omit a test; a native suite has no seed table.
        not_in_seed = suite in SEED_TABLES and row.seed_label is None
        omitted |= not_in_seed
        rows.append(
            [
                Cell(row.capability),
                Cell(row.test, mark=OMITTED_MARK if not_in_seed else ""),
                Cell(row.seed_label or ""),
                *(Cell(t, b) for t, b in zip(texts, bold)),
            ]
        )
    notes = [
        "Fail rates in % (lower is better); the lower of each dataset's models in bold.",
        MISSING_NOTE,
    ]
    if omitted:
        notes.append(OMITTED_NOTE)
    return Table(
        name=SEED_TABLES.get(suite, f"checklist_{suite}"),
        title=SEED_TITLES.get(suite, f"CheckList suite {suite} (fail rate %)"),
        columns=[
            Column("capability", "Capability", stub=True),
            Column("test", "Test", stub=True),
            Column("seed_label", "Seed label", csv_only=True, stub=True),
            *(Column(f"{d}/{m}", m, d) for d, m in columns),
        ],
        rows=rows,
        notes=notes,
        terminal=suite in SEED_TABLES,
    )


class ChecklistReport(ReportPart):
    section = Section("records", "CheckList")  # released and native CheckList tests
    verdict_order = 0
    table_order = 1

    def tables(self, results: Record) -> list[Table]:
        run = results.get("run", {})
        records = self.records(results)
        suites = list(dict.fromkeys(r["suite"] for r in records))
        # Seed tables first in the seed's order, any other suite after them.
        suites.sort(
            key=lambda s: list(SEED_TABLES).index(s) if s in SEED_TABLES else len(SEED_TABLES)
        )
        return [t for s in suites if (t := checklist_table(s, records, run)) is not None]

    def plots(self, results: Record, out_dir: Path, cache_dir: Path | None) -> list[Path]:
        return write_plots(results, out_dir, cache_dir)

    def recorded(self, record: Mapping[str, Any]) -> bool:
        """A fail-rate gate of 100."""
        return record.get("passed") is True and at_least(record.get("threshold"), RECORDED_GATE)

    def metrics(self, records: list[Record], put: Put) -> None:
        by_capability: dict[tuple[str, str, str], list[Record]] = defaultdict(list)
        for r in records:
            put(r.get("fail_rate"), "fail_rate", r["dataset"], r["model"], r["suite"], r["test"])
            by_capability[(r["dataset"], r["model"], r["capability"])].append(r)
        for (dataset, model, capability), mine in by_capability.items():
            rates = [r["fail_rate"] for r in mine if r.get("fail_rate") is not None]
            put(fmean(rates) if rates else None, "capability_fail_rate", dataset, model, capability)
            missed = sum(r.get("passed") is False for r in mine)
            put(missed, "capability_failed", dataset, model, capability)

    def engine_summary(self, engine: list[Record]) -> str | None:
        def total(field: str) -> int:
            return sum(int(r.get(field, 0)) for r in engine)

        return (
            f"CheckList items {total('checklist_forward_passes')} forward "
            f"passes, {total('checklist_cache_hits')} cache hits, "
            f"{total('checklist_stored_outcomes')} stored outcomes reused"
        )


REPORT = ChecklistReport()
