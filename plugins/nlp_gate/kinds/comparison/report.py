"""The report of comparison records (results.json ``comparisons``): the candidate-vs-baseline
table, each record's candidate fail rate against its tolerance, the Benjamini-Hochberg family
judged again over every shard when shards merge, and the job summary's table of the
comparisons the candidate lost (significantly worse, within its tolerance or not)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nlp_gate.kinds.comparison.stats import rejudge
from nlp_gate.kinds.report_part import (
    NOT_RUN,
    RECORDED_GATE,
    Cell,
    Column,
    Figures,
    Put,
    Record,
    ReportPart,
    SummaryTable,
    Table,
    at_least,
    number,
    one_decimal,
    pct,
)
from nlp_gate.results.records import Section


def _signed(value: float | None) -> str:
    return NOT_RUN if value is None else f"{value:+.1f}"


def comparison_table(records: list[Record]) -> Table | None:
    if not records:
        return None
    rows = [
        [
            Cell(r["suite"]),
            Cell(r["capability"]),
            Cell(r["test"]),
            Cell(r["dataset"]),
            Cell(f"{r['candidate']} vs {r['baseline']}"),
            Cell(pct(r.get("baseline_fail_rate"))),
            Cell(pct(r.get("candidate_fail_rate"))),
            Cell(_signed(r.get("delta"))),
            Cell(
                NOT_RUN
                if r.get("ci_low") is None or r.get("ci_high") is None
                else f"[{r['ci_low']:+.1f}, {r['ci_high']:+.1f}]"
            ),
            Cell(NOT_RUN if r.get("p_adjusted") is None else f"{r['p_adjusted']:.3g}"),
            Cell(str(r.get("verdict", NOT_RUN)), bold=r.get("passed") is False),
        ]
        for r in records
    ]
    return Table(
        name="comparison",
        title="Candidate vs baseline on identical test cases",
        columns=[
            Column("suite", "Suite", stub=True),
            Column("capability", "Capability", stub=True),
            Column("test", "Test", stub=True),
            Column("dataset", "Dataset", stub=True),
            Column("models", "Candidate vs baseline", stub=True),
            Column("baseline_fail_rate", "Baseline fail %"),
            Column("candidate_fail_rate", "Candidate fail %"),
            Column("delta", "Δ fail rate (pp)"),
            Column("ci", "95% CI (pp)"),
            Column("p_adjusted", "p (BH-adjusted)"),
            Column("verdict", "Verdict", stub=True),
        ],
        rows=rows,
        notes=[
            "Δ = candidate − baseline fail rate in percentage points (positive: candidate "
            "worse); verdicts that fail the gate in bold."
        ],
    )


class ComparisonReport(ReportPart):
    section = Section("comparisons", "comparison")
    verdict_order = 3
    table_order = 3
    in_missed_table = False  # its losses have a table of their own
    recorded_note = "a comparison: the candidate's fail rate"

    def tables(self, results: Record) -> list[Table]:
        table = comparison_table(self.records(results))
        return [] if table is None else [table]

    def figures(self, record: Record) -> Figures:
        """``fail_rate`` is the candidate's and ``gate`` the tolerance on ``delta``
        (percentage points over the nearest clean model), which fails only where
        significant too."""
        dataset = record.get("dataset")
        return Figures(
            f"{record.get('suite')}/{record.get('test')}",
            f"{dataset}/{record.get('candidate')}",
            str(record.get("capability")),
            record.get("candidate_fail_rate"),
            record.get("tolerance"),
            {
                "baseline": f"{dataset}/{record.get('baseline')}",
                "delta": record.get("excess"),
                "p_adjusted": record.get("p_adjusted"),
                "alpha": record.get("alpha"),
            },
        )

    def recorded(self, record: Mapping[str, Any]) -> bool:
        """A tolerance of 100 points (the fail rate cannot rise more)."""
        return record.get("passed") is True and at_least(record.get("tolerance"), RECORDED_GATE)

    def merged(self, rows: list[Record]) -> list[Record]:
        """A shard adjusted over its own comparisons only: one family over all of them."""
        return rejudge(sorted(rows, key=lambda row: row["position"]))

    def metrics(self, records: list[Record], put: Put) -> None:
        for r in records:
            pair = f"{r['candidate']} vs {r['baseline']}"
            put(r.get("delta"), "delta", r["dataset"], pair, r["suite"], r["test"])

    def summary_tables(self, records: list[Record]) -> list[SummaryTable]:
        """Comparisons whose candidate is significantly worse than the baseline."""
        rows = []
        for record in records:
            if not str(record.get("verdict", "")).startswith("worse"):
                continue
            f = self.figures(record)
            rows.append(
                [
                    f.item,
                    f"{f.model} vs {f.extra['baseline'].rpartition('/')[2]}",
                    f.capability,
                    f"{one_decimal(record.get('delta'), signed=True)} "
                    f"[{one_decimal(record.get('ci_low'), signed=True)}, "
                    f"{one_decimal(record.get('ci_high'), signed=True)}]",
                    number(record.get("p_adjusted")),
                    one_decimal(f.gate),
                    "missed" if record.get("passed") is False else "within tolerance",
                ]
            )
        return [
            SummaryTable(
                "Comparison losses (candidate significantly worse)",
                [
                    "test",
                    "candidate vs baseline",
                    "capability",
                    "Δ pp [95% CI]",
                    "p adj.",
                    "tol. pp",
                    "gate",
                ],
                rows,
            )
        ]


REPORT = ComparisonReport()
