"""The report of accuracy records (results.json ``accuracy``): the seed's Table 1 (datasets as
columns, models as rows), each record's error rate against its floor, the MLflow metric."""

from __future__ import annotations

from typing import Any

from nlp_gate.kinds.report_part import (
    MISSING_NOTE,
    Cell,
    Column,
    Figures,
    Put,
    Record,
    ReportPart,
    Table,
    bold_extreme,
    model_columns,
    pct,
)
from nlp_gate.results.records import Section


def accuracy_table(records: list[Record], run: Record) -> Table | None:
    """Seed Table 1: datasets as columns, models as rows, the higher accuracy bold."""
    if not records:
        return None
    pairs = model_columns(records, run)
    datasets = list(dict.fromkeys(d for d, _ in pairs))
    models = list(dict.fromkeys(m for _, m in pairs))
    by_cell = {(r["dataset"], r["model"]): r["accuracy"] for r in records}
    grid = [[by_cell.get((d, m)) for d in datasets] for m in models]
    bold_by_dataset = [
        bold_extreme([grid[j][i] for j in range(len(models))], max) for i in range(len(datasets))
    ]
    rows = [
        [Cell(m), *(Cell(pct(grid[j][i]), bold_by_dataset[i][j]) for i in range(len(datasets)))]
        for j, m in enumerate(models)
    ]
    return Table(
        name="table1",
        title="Table 1: accuracy on each dataset's evaluation split (%)",
        columns=[Column("model", "Model", stub=True), *(Column(d, d) for d in datasets)],
        rows=rows,
        notes=[
            "Accuracy in % (higher is better); the higher of each dataset's models in bold. "
            "95% intervals are in results.json.",
            MISSING_NOTE,
        ],
        terminal=True,
    )


def _complement(percent: Any) -> float | None:
    return None if not isinstance(percent, int | float) else round(100.0 - percent, 4)


class AccuracyReport(ReportPart):
    """Not "recorded" at a gate of 100: a floor of 100 is the strictest gate."""

    section = Section("accuracy", "accuracy")
    verdict_order = 2
    table_order = 0
    missed_note = "*accuracy: fail rate = 100 − accuracy, gate = 100 − min\\_accuracy*"

    def tables(self, results: Record) -> list[Table]:
        table = accuracy_table(self.records(results), results.get("run", {}))
        return [] if table is None else [table]

    def figures(self, record: Record) -> Figures:
        """The error rate (100 - accuracy) against 100 - ``min_accuracy``."""
        accuracy, floor = record.get("accuracy"), record.get("threshold")
        return Figures(
            "accuracy",
            f"{record.get('dataset')}/{record.get('model')}",
            "accuracy",
            _complement(accuracy),
            _complement(floor),
            {"accuracy": accuracy, "min_accuracy": floor},
        )

    def metrics(self, records: list[Record], put: Put) -> None:
        for r in records:
            put(r.get("accuracy"), "accuracy", r["dataset"], r["model"])


REPORT = AccuracyReport()
