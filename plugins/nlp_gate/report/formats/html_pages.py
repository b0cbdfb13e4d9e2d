"""HTML: one page per table (``tables/<name>.html``) and ``summary.html``, the verdict, why a
run has no results, the items without a verdict, the recorded items, every table, the
explained failing examples (``--nlp-explain``) and the plots.  The Allure summary shows the
same fragments (``outcome_html``, ``to_html``)."""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

from nlp_gate.kinds.report_part import Table, number
from nlp_gate.report.formats.base import ReportInput
from nlp_gate.report.parts import report_parts
from nlp_gate.report.render import display
from nlp_gate.results.explanations import STYLE as EXPLAINED_STYLE
from nlp_gate.results.explanations import explained_section


def to_html(table: Table) -> str:
    """A ``<table>`` fragment (the Allure summary puts several on one page)."""
    columns, rows = display(table)
    esc = html.escape
    grouped = any(c.group for c in columns)
    head: list[str] = []
    if grouped:
        # Dataset header spanning its model columns, as in the seed's tables.
        top: list[str] = []
        i = 0
        while i < len(columns):
            c = columns[i]
            if not c.group:
                top.append(f'<th rowspan="2">{esc(c.label)}</th>')
                i += 1
                continue
            span = 1
            while i + span < len(columns) and columns[i + span].group == c.group:
                span += 1
            top.append(f'<th colspan="{span}">{esc(c.group)}</th>')
            i += span
        head.append("<tr>" + "".join(top) + "</tr>")
        head.append(
            "<tr>" + "".join(f"<th>{esc(c.label)}</th>" for c in columns if c.group) + "</tr>"
        )
    else:
        head.append("<tr>" + "".join(f"<th>{esc(c.label)}</th>" for c in columns) + "</tr>")
    body = []
    for row in rows:
        cells = []
        for column, cell in zip(columns, row):
            text = f"<b>{esc(cell.shown)}</b>" if cell.bold else esc(cell.shown)
            cells.append(f'<td class="{"stub" if column.stub else "num"}">{text}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    notes = "".join(f'<p class="note">{esc(n)}</p>' for n in table.notes)
    return (
        f'<table class="nlp-gate" id="{esc(table.name)}"><caption>{esc(table.title)}'
        f"</caption><thead>{''.join(head)}</thead><tbody>{''.join(body)}</tbody></table>"
        f"{notes}\n"
    )


STYLE = (
    """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table.nlp-gate { border-collapse: collapse; margin: 1em 0 0.3em; font-size: 13px; }
table.nlp-gate caption { text-align: left; font-weight: bold; padding: 0.3em 0; }
table.nlp-gate th, table.nlp-gate td { border: 1px solid #bbb; padding: 2px 8px; }
table.nlp-gate th { background: #eef1f5; }
table.nlp-gate td.num { text-align: right; font-variant-numeric: tabular-nums; }
p.note { font-size: 12px; color: #555; margin: 0.1em 0; }
img.plot { max-width: 100%; border: 1px solid #ddd; margin: 0.5em 0; }
"""
    + EXPLAINED_STYLE
)


def html_page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>"
        f"<body><h1>{html.escape(title)}</h1>\n{body}</body></html>\n"
    )


def outcome_html(results: dict[str, Any]) -> str:
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
        part.figures(r)
        for part in report_parts()
        for r in part.records(results)
        if part.recorded(r)
    ]
    if not shown:
        return ""
    rows = "".join(
        f"<tr><td>{html.escape(f.item)}</td><td>{html.escape(f.model)}</td>"
        f"<td>{html.escape(f.capability)}</td><td>{number(f.fail_rate)}</td></tr>\n"
        for f in shown
    )
    # How a kind's recorded fail rate reads, where it is not the model's own.
    notes = [part.recorded_note for part in report_parts() if part.recorded_note]
    how = f" ({'; '.join(notes)})" if notes else ""
    return (
        f"<h2>Recorded, not gated ({len(shown)})</h2>\n"
        "<p>Their gate is 100: they pass whatever the model does, and their figures are "
        f"recorded{how}.</p>\n"
        "<table><tr><th>item</th><th>model</th><th>capability</th><th>fail rate %</th></tr>"
        f"\n{rows}</table>\n"
    )


def explained_html(results: dict[str, Any]) -> str:
    """The section of explained failing examples (``--nlp-explain``): the records of every
    kind that explains its items, part by part, each in results.json's order."""
    return explained_section([r for part in report_parts() for r in part.records(results)])


def img(path: Path, inline: bool) -> str:
    src = (
        "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()
        if inline
        else f"plots/{path.name}"
    )
    return f'<p><img class="plot" alt="{path.stem}" src="{src}"></p>\n'


class Html:
    table_files: tuple[str, ...] = ("*.html",)
    report_files: tuple[str, ...] = ("summary.html",)
    elsewhere = False

    def write(self, report: ReportInput) -> dict[str, Path]:
        for table in report.tables:
            page = html_page(table.title, to_html(table))
            (report.table_dir / f"{table.name}.html").write_text(page)
        body = (
            f"<p><b>{html.escape(report.verdict.line(), quote=False)}</b></p>\n"
            + outcome_html(report.results)
            + "".join(to_html(t) for t in report.tables)
            + explained_html(report.results)
        )
        summary = report.out_dir / "summary.html"
        summary.write_text(
            html_page("nlp-gate report", body + "".join(img(p, inline=False) for p in report.plots))
        )
        return {"summary": summary}
