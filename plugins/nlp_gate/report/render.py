"""One ``Table``, three formats.  Markdown and HTML are for people (capability shown once per
group, the lower value bold); CSV is for tools (every label repeated, plain numbers, a missing
cell left empty or ``n/a``, never 0)."""

from __future__ import annotations

import csv
import html
import io

from nlp_gate.report.tables import NOT_RUN, Cell, Column, Table


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


def _md_escape(text: str) -> str:
    # "|" ends a cell; "*" would start emphasis ("paraphrases(q1) * paraphrases(q2)").
    return text.replace("|", r"\|").replace("*", r"\*")


def to_markdown(table: Table) -> str:
    columns, rows = display(table)
    header = [_md_escape(f"{c.group} {c.label}" if c.group else c.label) for c in columns]
    align = [":--" if c.stub else "--:" for c in columns]
    lines = [
        f"### {table.title}",
        "",
        "| " + " | ".join(header) + " |",
        "| " + " | ".join(align) + " |",
    ]
    for row in rows:
        texts = [_md_escape(c.shown) for c in row]
        texts = [f"**{t}**" if c.bold else t for t, c in zip(texts, row)]
        lines.append("| " + " | ".join(texts) + " |")
    lines += [""] + [f"*{note}*  " for note in table.notes]
    return "\n".join(lines) + "\n"


def to_csv(table: Table) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([c.key for c in table.columns])
    for row in table.rows:
        writer.writerow(["" if cell.text == NOT_RUN else cell.text for cell in row])
    return out.getvalue()


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


STYLE = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table.nlp-gate { border-collapse: collapse; margin: 1em 0 0.3em; font-size: 13px; }
table.nlp-gate caption { text-align: left; font-weight: bold; padding: 0.3em 0; }
table.nlp-gate th, table.nlp-gate td { border: 1px solid #bbb; padding: 2px 8px; }
table.nlp-gate th { background: #eef1f5; }
table.nlp-gate td.num { text-align: right; font-variant-numeric: tabular-nums; }
p.note { font-size: 12px; color: #555; margin: 0.1em 0; }
img.plot { max-width: 100%; border: 1px solid #ddd; margin: 0.5em 0; }
"""

# For the Allure description frame (narrow): smaller type, long test names wrap.
COMPACT_STYLE = """
table.nlp-gate { font-size: 12px; border-collapse: collapse; margin-top: 1em; }
table.nlp-gate caption { text-align: left; font-weight: bold; }
table.nlp-gate th, table.nlp-gate td { padding: 1px 6px; }
table.nlp-gate td.stub { max-width: 22em; white-space: normal; }
table.nlp-gate td.num { text-align: right; white-space: nowrap; }
p.note { font-size: 11px; margin: 0.1em 0; }
img.plot { max-width: 100%; }
"""


def html_page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>"
        f"<body><h1>{html.escape(title)}</h1>\n{body}</body></html>\n"
    )
