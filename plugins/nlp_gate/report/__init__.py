"""Reviewer reports from ``results.json``: each kind's tables and plots (its ``ReportPart``,
``nlp_gate.report.parts``) written by each report format (``nlp_gate.report.formats``:
Markdown, CSV, HTML and summary.html, the Allure summary entry), and the terminal summary.

Everything is derived from ``results.json`` (position-sorted records), so the reports of a
``-n 0`` and a ``-n 2`` run are identical; ``python -m nlp_gate.report`` rebuilds them.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nlp_gate.kinds.report_part import Table
from nlp_gate.report.formats import FORMATS, ReportInput
from nlp_gate.report.parts import report_parts
from nlp_gate.report.tables import build_tables
from nlp_gate.report.terminal import error_lines, summary_lines
from nlp_gate.report.verdict import ReleaseVerdict, exit_status, verdict, with_verdict
from nlp_gate.results import write_atomically


@dataclass
class Reports:
    results: dict[str, Any]
    tables: list[Table]
    plots: list[Path] = field(default_factory=list)
    where: dict[str, Path] = field(default_factory=dict)  # what -> path, for the terminal


TABLE_FILES = tuple(pattern for f in FORMATS for pattern in f.table_files)
REPORT_FILES = tuple(name for f in FORMATS for name in f.report_files)
PLOT_FILES = ("*.png",)


def _clear(directory: Path, patterns: tuple[str, ...]) -> None:
    """Remove this module's outputs of an earlier run, so no stale table3.md outlives a run
    that had no QQP items."""
    for pattern in patterns:
        for path in directory.glob(pattern):
            path.unlink()


def remove_reports(results_path: Path, results_too: bool = True) -> list[Path]:
    """Remove the results.json (``results_too``), tables, plots and summary of an earlier run
    (a run that could not write its own must not leave another's under its name); returns
    what could not be removed.  Allure results are allure-pytest's, one file per item: left."""
    out_dir = results_path.parent
    paths = [results_path] * results_too + [out_dir / name for name in REPORT_FILES]
    for directory, patterns in ((out_dir / "tables", TABLE_FILES), (out_dir / "plots", PLOT_FILES)):
        if directory.is_dir():
            paths += [p for pattern in patterns for p in directory.glob(pattern)]
    left = []
    for path in paths:
        try:
            path.unlink(missing_ok=True)
        except OSError:
            if path.exists():  # not a path under a file, say: a file that stays
                left.append(path)
    return left


def write_reports(
    results_path: Path,
    out_dir: Path | None = None,
    alluredir: Path | None = None,
    exitstatus: int | None = None,
    plot_cache: Path | None = None,
) -> Reports:
    """Write the kinds' plots (``<out>/plots/*.png``) and every format's files: the tables as
    ``<out>/tables/*.{md,csv,html}``, ``<out>/summary.html`` (``out`` defaults to the folder
    of results.json); with ``alluredir``, also the Allure summary entry,
    ``environment.properties`` and ``categories.json`` there.  With ``plot_cache``, figures
    whose data did not change are copied from there, not drawn."""
    results = json.loads(results_path.read_text())
    out_dir = out_dir or results_path.parent
    tables = build_tables(results)
    reports = Reports(results, tables)
    table_dir, plot_dir = out_dir / "tables", out_dir / "plots"
    table_dir.mkdir(parents=True, exist_ok=True)
    plot_dir.mkdir(parents=True, exist_ok=True)
    _clear(table_dir, TABLE_FILES)
    _clear(plot_dir, PLOT_FILES)
    reports.plots = [
        p for part in report_parts() for p in part.plots(results, plot_dir, plot_cache)
    ]
    report = ReportInput(
        results, tables, reports.plots, verdict(results, exitstatus), out_dir, alluredir
    )
    reports.where = {"tables": table_dir, "plots": plot_dir}
    elsewhere: dict[str, Path] = {}
    for writer in FORMATS:
        (elsewhere if writer.elsewhere else reports.where).update(writer.write(report))
    reports.where["results"] = results_path
    reports.where.update(elsewhere)
    return reports


@dataclass
class RunEnd:
    """What the end of a run wrote: its results (in memory, whatever happened to the file),
    the reports, or what could not be written and why."""

    results: dict[str, Any]
    reports: Reports | None = None
    unwritten: str | None = None  # "results.json" or "reports"
    message: str | None = None  # the path that could not be written, and why
    # Said after the verdict line: the MLflow run written back, a job summary not written.
    notes: list[str] = field(default_factory=list)

    def verdict(self, exitstatus: int | None = None) -> ReleaseVerdict:
        gate = verdict(self.results, exitstatus)
        if self.unwritten is None:
            return gate
        # The gate's evidence is missing: no release may pass on it.
        return replace(gate, faults=[*gate.faults, f"{self.unwritten} not written"])

    def lines(self, exitstatus: int | None = None) -> list[str]:
        """The terminal summary: the reports' own, or the verdict from memory and why the
        files are missing."""
        if self.reports is not None:
            return terminal_lines(self.reports, exitstatus) + self.notes
        return [
            *error_lines(self.results.get("errors", [])),
            self.verdict(exitstatus).line(),
            *([self.message] if self.message else []),
            *self.notes,
        ]


def write_run(
    results_path: Path,
    results: dict[str, Any],
    alluredir: Path | None = None,
    exitstatus: int | None = None,
    plot_cache: Path | None = None,
) -> RunEnd:
    """Write a run's results.json and its reports.  A place that cannot take them (a file
    where the folder should be, a read-only or full disk) ends as one message naming the path
    and the reason, not a traceback; the earlier run's files there are removed where they
    can be, so they never stand in for this run's.  results.json gets its ``verdict`` here."""
    results = with_verdict(results, exitstatus)
    try:
        write_atomically(results_path, json.dumps(results, indent=2) + "\n")
    except OSError as exc:
        return _unwritten(results, "results.json", results_path, exc, remove_reports(results_path))
    try:
        reports = write_reports(
            results_path, alluredir=alluredir, exitstatus=exitstatus, plot_cache=plot_cache
        )
    except OSError as exc:
        left = remove_reports(results_path, results_too=False)
        # The run ends without a verdict (its reports are missing): results.json says so
        # too where it still can be written.
        results = {
            **results,
            "verdict": "no_verdict",
            "exitstatus": exit_status(int(results.get("exitstatus") or 0), "no_verdict"),
        }
        with contextlib.suppress(OSError):  # the message below names the place that takes none
            write_atomically(results_path, json.dumps(results, indent=2) + "\n")
        return _unwritten(results, "reports", results_path, exc, left)
    return RunEnd(results, reports)


def _unwritten(
    results: dict[str, Any], what: str, results_path: Path, exc: OSError, left: list[Path]
) -> RunEnd:
    where = results_path if what == "results.json" else f"the reports beside {results_path}"
    stale = (
        f"; {len(left)} file(s) of an earlier run could not be removed either "
        f"(first: {left[0]}): they are not this run's"
        if left
        else ""
    )
    return RunEnd(
        results,
        None,
        what,
        f"nlp-gate: reports not written: cannot write {where} "
        f"({exc}); the verdict above is from this run's records in memory{stale}",
    )


def terminal_lines(reports: Reports, exitstatus: int | None = None) -> list[str]:
    return summary_lines(
        reports.tables,
        verdict(reports.results, exitstatus),
        reports.where,
        reports.results.get("engine", []),
        reports.results.get("errors", []),
    )
