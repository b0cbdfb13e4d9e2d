"""The report's tables, built from ``results.json`` alone.

Each builder returns a ``Table`` (or None when its section is empty); ``render.py`` writes the
same ``Table`` as Markdown, CSV and HTML, so the three formats cannot disagree.  Because the
input is ``results.json`` (records sorted by parametrization position), ``-n 0`` and ``-n 2``
runs produce identical tables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nlp_gate.report.layout import SEED_TABLES, SEED_TITLES, ordered_rows

NOT_RUN = "—"  # no record: the item was not selected, or it errored before its verdict
NOTHING_TESTED = "n/a"  # the item ran but every case was filtered out (fail_rate None)
OMITTED_MARK = " †"
OMITTED_NOTE = "† not in the seed report's table (it omitted these tests); shown after its rows."
MISSING_NOTE = (
    f"{NOT_RUN} no result: not selected in this run, or the item errored (see the "
    f"test report); {NOTHING_TESTED}: ran, but every test case was filtered out by "
    "its expectation."
)

Record = dict[str, Any]


@dataclass(frozen=True)
class Column:
    key: str  # CSV header, unique in its table
    label: str  # header text under ``group`` (Markdown: "group label")
    group: str = ""  # e.g. the dataset a model column belongs to
    csv_only: bool = False  # machine-readable extras the display formats leave out
    stub: bool = False  # text (a row label, a name), left-aligned; otherwise a number


@dataclass(frozen=True)
class Cell:
    text: str
    bold: bool = False
    mark: str = ""  # a footnote mark the display formats append ("†"); CSV leaves it out

    @property
    def shown(self) -> str:
        return self.text + self.mark


@dataclass(frozen=True)
class Table:
    name: str  # file stem under reports/tables/
    title: str
    columns: list[Column]
    rows: list[list[Cell]]
    notes: list[str]


def pct(value: float | None, missing: str = NOT_RUN) -> str:
    return missing if value is None else f"{value:.1f}"


def _columns_for(records: list[Record], run: Record) -> list[tuple[str, str]]:
    """(dataset, model) columns: the run's models (profile order) for every dataset that has a
    record here; records of models not in the run's metadata come after them."""
    datasets = {r["dataset"] for r in records}
    declared = [
        (m["dataset"], m["model"]) for m in run.get("models", ()) if m["dataset"] in datasets
    ]
    return list(dict.fromkeys(declared + [(r["dataset"], r["model"]) for r in records]))


def _bold_extreme(values: list[float | None], better: Callable[[list[float]], float]) -> list[bool]:
    """Bold the single best shown value of a group; ties and lone values stay plain, as in the
    seed (compared at the displayed precision, so "3.8" is never bold next to "3.8")."""
    shown = [None if v is None else float(pct(v)) for v in values]
    present = [v for v in shown if v is not None]
    if len(present) < 2:
        return [False] * len(values)
    best = better(present)
    if present.count(best) > 1:
        return [False] * len(values)
    return [v == best for v in shown]


def checklist_table(suite: str, records: list[Record], run: Record) -> Table | None:
    records = [r for r in records if r["suite"] == suite]
    if not records:
        return None
    columns = _columns_for(records, run)
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
            bold += _bold_extreme([values[i] for i in group], min)
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
    )


def _substitutes(value: Any) -> str:
    """Whether an attack ran with local substitutes for the canonical recipe's resources."""
    if not value:
        return "no"
    if value is True:
        return "yes"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {v}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return str(value)


def attack_table(records: list[Record]) -> Table | None:
    if not records:
        return None
    groups: dict[tuple[str, str], list[int]] = {}
    for i, r in enumerate(records):
        groups.setdefault((r["recipe"], r["dataset"]), []).append(i)
    # More robust = lower success rate, higher accuracy under attack; bold it within a
    # recipe x dataset, like the fail-rate pairs of Tables 2-3.
    success_bold = [False] * len(records)
    accuracy_bold = [False] * len(records)
    for members in groups.values():
        for i, b in zip(
            members, _bold_extreme([records[i].get("attack_success_rate") for i in members], min)
        ):
            success_bold[i] = b
        for i, b in zip(
            members, _bold_extreme([records[i].get("accuracy_under_attack") for i in members], max)
        ):
            accuracy_bold[i] = b
    rows = [
        [
            Cell(r["recipe"]),
            Cell(r["dataset"]),
            Cell(r["model"]),
            Cell(str(r.get("status", "ran"))),
            Cell(_substitutes(r.get("substitutes"))),
            Cell(pct(r.get("attack_success_rate")), success_bold[i]),
            Cell(pct(r.get("accuracy_under_attack")), accuracy_bold[i]),
            Cell(pct(r.get("avg_perturbed_word_pct"))),
            Cell(pct(r.get("avg_queries"))),
            *(Cell(_count(r.get(k))) for k in ("successful", "failed", "skipped")),
            Cell(r.get("reason") or ""),
        ]
        for i, r in enumerate(records)
    ]
    return Table(
        name="attacks",
        title="Adversarial attacks (TextAttack recipes, seed §4.4)",
        columns=[
            Column("recipe", "Recipe", stub=True),
            Column("dataset", "Dataset", stub=True),
            Column("model", "Model", stub=True),
            Column("status", "Status", stub=True),
            Column("substitutes", "Substitutes", stub=True),
            Column("attack_success_rate", "Success rate %"),
            Column("accuracy_under_attack", "Accuracy under attack %"),
            Column("avg_perturbed_word_pct", "Perturbed words %"),
            Column("avg_queries", "Avg queries"),
            Column("successful", "Successful", csv_only=True),
            Column("failed", "Failed", csv_only=True),
            Column("skipped", "Skipped", csv_only=True),
            Column("reason", "Reason", csv_only=True, stub=True),
        ],
        rows=rows,
        notes=[
            "Per recipe and dataset, the lower success rate and the higher accuracy under "
            "attack in bold. Substitutes: local stand-ins for the recipe's canonical "
            "resources (not the canonical recipe when set). A skipped recipe's reason "
            "names the missing resource (attacks.csv, results.json).",
            MISSING_NOTE,
        ],
    )


def _count(value: int | None) -> str:
    return NOT_RUN if value is None else str(value)


def accuracy_table(records: list[Record], run: Record) -> Table | None:
    """Seed Table 1: datasets as columns, models as rows, the higher accuracy bold."""
    if not records:
        return None
    pairs = _columns_for(records, run)
    datasets = list(dict.fromkeys(d for d, _ in pairs))
    models = list(dict.fromkeys(m for _, m in pairs))
    by_cell = {(r["dataset"], r["model"]): r["accuracy"] for r in records}
    grid = [[by_cell.get((d, m)) for d in datasets] for m in models]
    bold_by_dataset = [
        _bold_extreme([grid[j][i] for j in range(len(models))], max) for i in range(len(datasets))
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
    )


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


def build_tables(results: Record) -> list[Table]:
    """Every table this results.json has data for, in report order."""
    run = results.get("run", {})
    records = results.get("records", [])
    suites = list(dict.fromkeys(r["suite"] for r in records))
    # Seed tables first in the seed's order, any other suite after them.
    suites.sort(key=lambda s: list(SEED_TABLES).index(s) if s in SEED_TABLES else len(SEED_TABLES))
    candidates = [
        accuracy_table(results.get("accuracy", []), run),
        *(checklist_table(s, records, run) for s in suites),
        attack_table(results.get("attacks", [])),
        comparison_table(results.get("comparisons", [])),
    ]
    return [t for t in candidates if t is not None]
