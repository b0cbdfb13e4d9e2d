"""What a kind gives the report: ``ReportPart``, and the ``Table`` its tables are made of.

A kind's records go to one results.json section (``ItemKind.records``); its ``ReportPart``
(``ItemKind.report``) is everything the report knows about that section: its tables (and
plots), each record's figures in a line, which records were "recorded, not gated", its run
gates and its words in the verdict line, how a merge of shards judges its records again, its
MLflow metrics and its job-summary tables.  Kinds that share a section share one part (the
released and native CheckList tests).

A part works from results.json alone, never from a live run: ``python -m nlp_gate.report``
and the merge of shards rebuild every report from the file.  The report package
(``nlp_gate.report``) iterates the registered kinds' parts and names no kind.

A ``Table`` is format-neutral: ``nlp_gate.report.formats`` writes the same one as Markdown,
CSV and HTML, so the formats cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from nlp_gate.results.records import ItemStatus, Section

NOT_RUN = "—"  # no record: the item was not selected, or it errored before its verdict
NOTHING_TESTED = "n/a"  # the item ran but every case was filtered out (fail_rate None)
MISSING_NOTE = (
    f"{NOT_RUN} no result: not selected in this run, or the item errored (see the "
    f"test report); {NOTHING_TESTED}: ran, but every test case was filtered out by "
    "its expectation."
)
# Under the terminal's compact tables: what their marks say ("*" marks a bold cell).
TERMINAL_LEGEND = (
    "* lower fail rate of a dataset's models (attacks: the more robust); "
    f"{NOT_RUN} no result (not selected, or errored); {NOTHING_TESTED} every case filtered "
    "out; † not in the seed's table"
)

# A gate of 100 (percent, or percentage points for a comparison's tolerance) can never be
# missed: thresholds.yaml writes it where a model fails (nearly) every case, to record the
# item's figures without gating on them.
RECORDED_GATE = 100.0

Record = dict[str, Any]
# (value, *metric name parts): how a part hands the MLflow log one metric.
Put = Callable[..., None]


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
    terminal: bool = False  # also shown, compact, in the end-of-run terminal summary


@dataclass(frozen=True)
class Figures:
    """What one gated record says in a line (JUnit XML's ``nlp_gate.*`` properties, the job
    summary, summary.html's recorded items)."""

    item: str  # what was tested: suite/test, a recipe, "accuracy"
    model: str  # dataset/model (a comparison: the candidate's)
    capability: str
    fail_rate: float | None  # percent
    gate: float | None  # percent (a comparison: points of delta)
    extra: dict[str, Any] = field(default_factory=dict)  # kind-specific further figures


@dataclass(frozen=True)
class SummaryTable:
    """A table of the CI job summary (Markdown; the report escapes the cells)."""

    title: str
    header: list[str]
    rows: list[list[str]]


def pct(value: float | None, missing: str = NOT_RUN) -> str:
    return missing if value is None else f"{value:.1f}"


def bold_extreme(values: list[float | None], better: Callable[[list[float]], float]) -> list[bool]:
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


def model_columns(records: list[Record], run: Record) -> list[tuple[str, str]]:
    """(dataset, model) columns: the run's models (profile order) for every dataset that has a
    record here; records of models not in the run's metadata come after them."""
    datasets = {r["dataset"] for r in records}
    declared = [
        (m["dataset"], m["model"]) for m in run.get("models", ()) if m["dataset"] in datasets
    ]
    return list(dict.fromkeys(declared + [(r["dataset"], r["model"]) for r in records]))


def number(value: Any) -> str:
    """A figure as the reports print it: six significant digits, no trailing zeros."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return f"{float(value):.6g}"


def one_decimal(value: Any, signed: bool = False) -> str:
    """A rate or a difference of rates with one decimal (the job summary's); ``—`` if none."""
    if not isinstance(value, int | float):
        return NOT_RUN
    return f"{value:+.1f}" if signed else f"{value:.1f}"


def at_least(value: Any, limit: float) -> bool:
    return isinstance(value, int | float) and value >= limit


class ReportPart:
    """The report of one results.json section, from its records alone.  The defaults suit a
    section of CheckList-test records that has nothing else to say."""

    section: ClassVar[Section]  # its results.json key and what the verdict calls its items
    verdict_order: ClassVar[int]  # where the verdict line (and the job summary) names it
    table_order: ClassVar[int] = 0  # where its tables stand among the report's
    # Said once under the job summary's "Gates missed" when one of its records is there.
    missed_note: ClassVar[str | None] = None
    # Whether its missed records go to the job summary's "Gates missed" table (a part with
    # tables of its own there says so in ``summary_tables``).
    in_missed_table: ClassVar[bool] = True
    # How summary.html's "recorded, not gated" list reads its fail rate, where it differs.
    recorded_note: ClassVar[str | None] = None

    @property
    def key(self) -> str:
        return self.section.key

    def records(self, results: Mapping[str, Any]) -> list[Record]:
        rows: list[Record] = results.get(self.key, [])
        return rows

    def tables(self, results: Record) -> list[Table]:
        """Its tables of ``results`` (none when its section is empty)."""
        return []

    def plots(self, results: Record, out_dir: Path, cache_dir: Path | None) -> list[Path]:
        """Its figures, drawn into ``out_dir`` (unchanged ones copied from ``cache_dir``)."""
        return []

    def figures(self, record: Record) -> Figures:
        """``record`` in a line: one rule for every kind but comparisons, the item passes
        when ``fail_rate <= gate``, both percent."""
        return Figures(
            f"{record.get('suite')}/{record.get('test')}",
            f"{record.get('dataset')}/{record.get('model')}",
            str(record.get("capability")),
            record.get("fail_rate"),
            record.get("threshold"),
        )

    def recorded(self, record: Mapping[str, Any]) -> bool:
        """Whether ``record`` passed a gate it could not miss: "recorded, not gated"."""
        return False

    def status(self, record: Mapping[str, Any]) -> ItemStatus | None:
        """The status a record gives its item; None when it judged nothing (a skipped
        attack or comparison): the item's pytest outcome says what happened."""
        passed = record.get("passed")
        if passed is None:
            return None
        if not passed:
            return "failed"
        return "recorded" if self.recorded(record) else "passed"

    def verdict_notes(self, results: Record) -> list[str]:
        """What the verdict line says of the section besides its counts."""
        return []

    def run_problems(self, results: Record) -> list[str]:
        """Run gates (over all its records) missed: each fails the release."""
        return []

    def merged(self, rows: list[Record]) -> list[Record]:
        """The records of every shard, in position order, judged again where a verdict
        spans the run."""
        return rows

    def metrics(self, records: list[Record], put: Put) -> None:
        """Its MLflow metrics: ``put(value, *name parts)``."""

    def summary_tables(self, records: list[Record]) -> list[SummaryTable]:
        """Its own tables in the CI job summary, after the gates missed."""
        return []

    def engine_summary(self, engine: list[Record]) -> str | None:
        """Its part of the terminal's prediction-engine line, from results.json ``engine``."""
        return None
