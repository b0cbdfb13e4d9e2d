"""The CI job summary: Markdown appended to the file ``$GITHUB_STEP_SUMMARY`` names (GitHub
Actions shows it on the run's page; other CI systems can set the variable to any file).

The verdict line, then the gates missed, the kinds' own tables (``ReportPart.summary_tables``:
the comparisons the candidate lost), the items that ended without a verdict and the failures
outside the gates, each table cut at ``ROWS`` rows (the rest are in
results.json and summary.html).  Appended, never replaced: a job's other steps write there
too, and so does each run of a job that gates more than once.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from nlp_gate.kinds.report_part import one_decimal
from nlp_gate.report.parts import report_parts
from nlp_gate.report.verdict import ReleaseVerdict

VARIABLE = "GITHUB_STEP_SUMMARY"
ROWS = 50  # per table: a job summary is read at a glance (GitHub takes up to 1 MiB a step)
ICONS = {"passed": ":white_check_mark:", "failed": ":x:", "no_verdict": ":warning:"}


def step_summary_path() -> Path | None:
    """The file ``$GITHUB_STEP_SUMMARY`` names, when it is set and not empty."""
    value = os.environ.get(VARIABLE, "")
    return Path(value) if value else None


def append_step_summary(path: Path, results: dict[str, Any], gate: ReleaseVerdict) -> str | None:
    """Append the run's summary to ``path``; a message when it cannot be written."""
    try:
        with path.open("a", encoding="utf-8") as out:
            out.write(step_summary(results, gate))
    except OSError as exc:
        return f"nlp-gate: job summary not written: cannot append to {path} ({exc})"
    return None


def step_summary(results: dict[str, Any], gate: ReleaseVerdict) -> str:
    """The Markdown of one run's summary."""
    run = results.get("run") or {}
    lines = [
        f"## {ICONS[gate.status]} nlp-gate: release gate {gate.word}",
        "",
        _escape(gate.line()),
        "",
        f"profile `{run.get('profile')}`, gates: {_escape(str(run.get('gates')))}"
        + (f", shard {run['shard']}" if run.get("shard") else ""),
        "",
    ]
    lines += _missed(results)
    for part in report_parts():
        for table in part.summary_tables(part.records(results)):
            lines += _table(table.title, table.header, table.rows)
    lines += _table(
        "Items that errored without a gate verdict",
        ["item", "models", "when", "cause"],
        [
            [_code(e["item"]), ", ".join(e["models"]), e["when"], _first_line(e["message"])]
            for e in results.get("errors", [])
        ],
    )
    lines += _table(
        "Items lost with a crashed worker",
        ["item", "models", "cause"],
        [[_code(e["item"]), ", ".join(e["models"]), e["cause"]] for e in results.get("lost", [])],
    )
    lines += _table(
        "Failures outside the gates",
        ["item", "when", "cause"],
        [[_code(f["item"]), f["when"], f["message"]] for f in results.get("other_failures", [])],
    )
    return "\n".join(lines) + "\n"


def _missed(results: dict[str, Any]) -> list[str]:
    """The records over their gate, but those of kinds with tables of their own; a run gate
    too."""
    rows, notes = [], []
    for part in report_parts():
        if not part.in_missed_table:
            continue
        missed = [r for r in part.records(results) if r.get("passed") is False]
        for record in missed:
            f = part.figures(record)
            rows.append(
                [f.item, f.model, f.capability, one_decimal(f.fail_rate), one_decimal(f.gate)]
            )
        if missed and part.missed_note:
            notes.append(part.missed_note)
    lines = _table("Gates missed", ["item", "model", "capability", "fail rate %", "gate %"], rows)
    return lines + [line for note in notes for line in (note, "")]


def _table(title: str, header: list[str], rows: list[list[str]]) -> list[str]:
    if not rows:
        return []
    lines = [
        f"### {title} ({len(rows)})",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    lines += [
        "| " + " | ".join(cell if isinstance(cell, Code) else _escape(cell) for cell in row) + " |"
        for row in rows[:ROWS]
    ]
    if len(rows) > ROWS:
        lines += ["", f"*… and {len(rows) - ROWS} more: results.json, summary.html*"]
    return lines + [""]


class Code(str):
    """A cell shown as code (a node id): only its "|" escaped, its "_" and "*" kept."""


def _code(text: str) -> Code:
    return Code("`" + text.replace("`", "'").replace("|", r"\|") + "`")


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0]


def _escape(text: str) -> str:
    # "|" ends a table cell; "*" and "_" would start emphasis; a newline ends the row.
    return (
        text.replace("\\", "\\\\")
        .replace("|", r"\|")
        .replace("*", r"\*")
        .replace("_", r"\_")
        .replace("\n", " ")
    )
