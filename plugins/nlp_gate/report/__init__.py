"""Reviewer reports from ``results.json``: the seed's Tables 1-3 and the attack table as
Markdown / CSV / HTML, plots, the Allure summary entry, and the terminal summary.

Everything is derived from ``results.json`` (position-sorted records), so the reports of a
``-n 0`` and a ``-n 2`` run are identical; ``python -m nlp_gate.report`` rebuilds them.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlp_gate.report.allure import write_allure_files
from nlp_gate.report.plots import write_plots
from nlp_gate.report.render import html_page, to_csv, to_html, to_markdown
from nlp_gate.report.tables import Table, build_tables
from nlp_gate.report.terminal import summary_lines
from nlp_gate.report.verdict import verdict

ALLURE_HTML = "allure-report/index.html"  # written by scripts/allure_html.sh


@dataclass
class Reports:
    results: dict[str, Any]
    tables: list[Table]
    plots: list[Path] = field(default_factory=list)
    where: dict[str, Path] = field(default_factory=dict)  # what -> path, for the terminal


def _clear(directory: Path, patterns: tuple[str, ...]) -> None:
    """Remove this module's outputs of an earlier run, so no stale table3.md outlives a run
    that had no QQP items."""
    for pattern in patterns:
        for path in directory.glob(pattern):
            path.unlink()


def _img(path: Path, inline: bool) -> str:
    src = ("data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()
           if inline else f"plots/{path.name}")
    return f'<p><img class="plot" alt="{path.stem}" src="{src}"></p>\n'


def write_reports(results_path: Path, out_dir: Path | None = None,
                  alluredir: Path | None = None, exitstatus: int | None = None,
                  plot_cache: Path | None = None) -> Reports:
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
    _clear(table_dir, ("*.md", "*.csv", "*.html"))
    _clear(plot_dir, ("*.png",))
    for table in tables:
        for suffix, text in ((".md", to_markdown(table)), (".csv", to_csv(table)),
                             (".html", html_page(table.title, to_html(table)))):
            (table_dir / f"{table.name}{suffix}").write_text(text)
    reports.plots = write_plots(results, plot_dir, plot_cache)
    gate = verdict(results, exitstatus)
    body = f"<p><b>{gate.line()}</b></p>\n" + "".join(to_html(t) for t in tables)
    summary = out_dir / "summary.html"
    summary.write_text(html_page("nlp-gate report",
                                 body + "".join(_img(p, inline=False) for p in reports.plots)))
    if alluredir is not None:
        attachments = [(f"{t.name}.md", table_dir / f"{t.name}.md") for t in tables]
        attachments += [(p.stem, p) for p in reports.plots]
        inline = "".join(to_html(t) for t in tables) + "".join(_img(p, True) for p in reports.plots)
        write_allure_files(alluredir, results, gate, inline, attachments)
    reports.where = {"tables": table_dir, "plots": plot_dir, "summary": summary,
                     "results": results_path}
    if alluredir is not None:
        reports.where["allure results"] = alluredir
        reports.where["allure HTML (bash scripts/allure_html.sh)"] = out_dir / ALLURE_HTML
    return reports


def terminal_lines(reports: Reports, exitstatus: int | None = None) -> list[str]:
    return summary_lines(reports.tables, verdict(reports.results, exitstatus), reports.where,
                         reports.results.get("engine", []))
