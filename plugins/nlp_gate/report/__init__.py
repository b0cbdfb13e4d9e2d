"""Reviewer reports from ``results.json``: the seed's Tables 1-3 and the attack table as
Markdown / CSV / HTML, plots, the Allure summary entry, and the terminal summary.

Everything is derived from ``results.json`` (position-sorted records), so the reports of a
``-n 0`` and a ``-n 2`` run are identical; ``python -m nlp_gate.report`` rebuilds them.
"""

from __future__ import annotations

import base64
import html
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nlp_gate.records import GATED, recorded
from nlp_gate.report.allure import write_allure_files
from nlp_gate.report.figures import figures, number
from nlp_gate.report.plots import write_plots
from nlp_gate.report.render import html_page, to_csv, to_html, to_markdown
from nlp_gate.report.tables import Table, build_tables
from nlp_gate.report.terminal import error_lines, summary_lines
from nlp_gate.report.verdict import ReleaseVerdict, exit_status, verdict, with_verdict
from nlp_gate.results import write_atomically

ALLURE_HTML = "allure-report/index.html"  # written by scripts/allure_html.sh


@dataclass
class Reports:
    results: dict[str, Any]
    tables: list[Table]
    plots: list[Path] = field(default_factory=list)
    where: dict[str, Path] = field(default_factory=dict)  # what -> path, for the terminal


TABLE_FILES = ("*.md", "*.csv", "*.html")
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
    paths = [results_path] * results_too + [out_dir / "summary.html"]
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


def _outcome_html(results: dict[str, Any]) -> str:
    """What summary.html says besides the tables: why the run has no results (it replaces
    the earlier run's tables, removed), and the items that ended without a verdict."""
    parts = []
    if results.get("no_results"):
        parts.append(
            f"<p>No results in this run: {html.escape(results['no_results'])}. "
            "The tables and plots of earlier runs were removed.</p>\n"
        )
    if results.get("refused"):
        parts.append(f"<pre>{html.escape(results['refused'])}</pre>\n")
    errors = results.get("errors", [])
    if errors:
        rows = "".join(
            f"<tr><td>{html.escape(e['item'])}</td>"
            f"<td>{html.escape(', '.join(e['models']))}</td>"
            f"<td>{html.escape(e['when'])}</td>"
            f"<td><pre>{html.escape(e['message'])}</pre></td></tr>\n"
            for e in errors
        )
        parts.append(
            f"<h2>Items that errored without a gate verdict ({len(errors)})</h2>\n"
            "<table><tr><th>item</th><th>models</th><th>when</th><th>cause</th></tr>"
            f"\n{rows}</table>\n"
        )
    others = results.get("other_failures", [])
    if others:
        rows = "".join(
            f"<tr><td>{html.escape(f['item'])}</td><td>{html.escape(f['when'])}</td>"
            f"<td><pre>{html.escape(f['message'])}</pre></td></tr>\n"
            for f in others
        )
        parts.append(
            f"<h2>Failures outside the gates ({len(others)})</h2>\n"
            "<table><tr><th>item</th><th>when</th><th>cause</th></tr>"
            f"\n{rows}</table>\n"
        )
    return "".join(parts) + _recorded_html(results)


def _recorded_html(results: dict[str, Any]) -> str:
    """The items recorded, not gated (a gate of 100): their figures, apart from the gated."""
    shown = [
        figures(section.key, r)
        for section in GATED
        for r in results.get(section.key, [])
        if recorded(section.key, r)
    ]
    if not shown:
        return ""
    rows = "".join(
        f"<tr><td>{html.escape(f.item)}</td><td>{html.escape(f.model)}</td>"
        f"<td>{html.escape(f.capability)}</td><td>{number(f.fail_rate)}</td></tr>\n"
        for f in shown
    )
    return (
        f"<h2>Recorded, not gated ({len(shown)})</h2>\n"
        "<p>Their gate is 100: they pass whatever the model does, and their figures are "
        "recorded (a comparison: the candidate's fail rate).</p>\n"
        "<table><tr><th>item</th><th>model</th><th>capability</th><th>fail rate %</th></tr>"
        f"\n{rows}</table>\n"
    )


def _img(path: Path, inline: bool) -> str:
    src = (
        "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()
        if inline
        else f"plots/{path.name}"
    )
    return f'<p><img class="plot" alt="{path.stem}" src="{src}"></p>\n'


def write_reports(
    results_path: Path,
    out_dir: Path | None = None,
    alluredir: Path | None = None,
    exitstatus: int | None = None,
    plot_cache: Path | None = None,
) -> Reports:
    """Write ``<out>/tables/*.{md,csv,html}``, ``<out>/plots/*.png`` and ``<out>/summary.html``
    (``out`` defaults to the folder of results.json); with ``alluredir``, also the Allure
    summary entry, ``environment.properties`` and ``categories.json`` there.  With
    ``plot_cache``, figures whose data did not change are copied from there, not drawn."""
    results = json.loads(results_path.read_text())
    out_dir = out_dir or results_path.parent
    tables = build_tables(results)
    reports = Reports(results, tables)
    table_dir, plot_dir = out_dir / "tables", out_dir / "plots"
    table_dir.mkdir(parents=True, exist_ok=True)
    plot_dir.mkdir(parents=True, exist_ok=True)
    _clear(table_dir, TABLE_FILES)
    _clear(plot_dir, PLOT_FILES)
    for table in tables:
        for suffix, text in (
            (".md", to_markdown(table)),
            (".csv", to_csv(table)),
            (".html", html_page(table.title, to_html(table))),
        ):
            (table_dir / f"{table.name}{suffix}").write_text(text)
    reports.plots = write_plots(results, plot_dir, plot_cache)
    gate = verdict(results, exitstatus)
    body = (
        f"<p><b>{html.escape(gate.line(), quote=False)}</b></p>\n"
        + _outcome_html(results)
        + "".join(to_html(t) for t in tables)
    )
    summary = out_dir / "summary.html"
    summary.write_text(
        html_page("nlp-gate report", body + "".join(_img(p, inline=False) for p in reports.plots))
    )
    if alluredir is not None:
        attachments = [(f"{t.name}.md", table_dir / f"{t.name}.md") for t in tables]
        attachments += [(p.stem, p) for p in reports.plots]
        inline = (
            _outcome_html(results)
            + "".join(to_html(t) for t in tables)
            + "".join(_img(p, True) for p in reports.plots)
        )
        write_allure_files(alluredir, results, gate, inline, attachments)
    reports.where = {
        "tables": table_dir,
        "plots": plot_dir,
        "summary": summary,
        "results": results_path,
    }
    if alluredir is not None:
        reports.where["allure results"] = alluredir
        reports.where["allure HTML (bash scripts/allure_html.sh)"] = out_dir / ALLURE_HTML
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
        try:
            write_atomically(results_path, json.dumps(results, indent=2) + "\n")
        except OSError:
            pass  # the message below names the place that takes no file
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
