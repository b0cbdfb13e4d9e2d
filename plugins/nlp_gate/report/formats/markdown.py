"""Markdown: one ``tables/<name>.md`` per table, for people (capability shown once per group,
the lower value bold)."""

from __future__ import annotations

from pathlib import Path

from nlp_gate.kinds.report_part import Table
from nlp_gate.report.formats.base import ReportInput
from nlp_gate.report.render import display


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


class Markdown:
    table_files: tuple[str, ...] = ("*.md",)
    report_files: tuple[str, ...] = ()
    elsewhere = False

    def write(self, report: ReportInput) -> dict[str, Path]:
        for table in report.tables:
            (report.table_dir / f"{table.name}.md").write_text(to_markdown(table))
        return {}
