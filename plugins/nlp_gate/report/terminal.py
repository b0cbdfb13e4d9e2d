"""The end-of-run terminal summary: the tables a kind marks for it (``Table.terminal``), compact,
the prediction engine's figures, the verdict, and where the reports are.  Plain text (``*``
marks the bold cells of the files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nlp_gate.kinds.report_part import TERMINAL_LEGEND, Cell, Table
from nlp_gate.report.parts import report_parts
from nlp_gate.report.render import display
from nlp_gate.report.verdict import ReleaseVerdict

LABEL_WIDTH = 44  # long QQP test names are cut; the files have them whole


def _cut(cell: Cell, width: int) -> str:
    """Shorten a label to ``width``, keeping its footnote mark."""
    room = width - len(cell.mark)
    return (cell.text if len(cell.text) <= room else cell.text[: room - 1] + "…") + cell.mark


def table_lines(table: Table) -> list[str]:
    columns, rows = display(table)
    texts = [
        [
            _cut(c, LABEL_WIDTH) if col.stub else c.shown + ("*" if c.bold else " ")
            for col, c in zip(columns, row)
        ]
        for row in rows
    ]
    widths = [max([len(col.label)] + [len(r[i]) for r in texts]) for i, col in enumerate(columns)]
    # Group header (datasets) over their model columns; stub columns get no group.
    groups: list[str] = []
    i = 0
    while i < len(columns):
        span = 1
        while (
            i + span < len(columns)
            and columns[i].group
            and columns[i + span].group == columns[i].group
        ):
            span += 1
        width = sum(widths[i : i + span]) + 2 * (span - 1)
        groups.append(columns[i].group.center(width) if columns[i].group else " " * width)
        i += span

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if col.stub else c.rjust(w) for c, w, col in zip(cells, widths, columns)
        ).rstrip()

    out = [table.title]
    if any(c.group for c in columns):
        out.append("  ".join(groups).rstrip())
    out.append(line([c.label for c in columns]))
    out += [line(r) for r in texts]
    return out


def engine_lines(engine: list[dict[str, Any]]) -> list[str]:
    """Model calls this run cost: a re-run of unchanged models should cost none (the cache)."""
    if not engine:
        return []

    def total(field: str) -> int:
        return sum(int(r.get(field, 0)) for r in engine)

    models = len({(r["dataset"], r["model"]) for r in engine})
    kinds = [line for part in report_parts() if (line := part.engine_summary(engine))]
    counts = "prediction engine: " + "; ".join(
        [
            *kinds,
            f"all items {total('forward_passes')} forward passes, {total('cache_hits')} "
            f"cache hits ({models} models)",
        ]
    )
    return [
        counts,
        *cold_prediction_lines(engine),
        *truncation_lines(engine),
        *run_only_lines(engine),
    ]


def cold_prediction_lines(engine: list[dict[str, Any]]) -> list[str]:
    """What each model's cold predictions (inputs no cache held) cost this run, over all its
    processes: the stage a first item spends its time in."""
    spent: dict[str, tuple[int, float]] = {}
    largest: dict[str, tuple[int, int]] = {}  # rows, padded tokens (over its processes)
    for r in engine:
        if r.get("forward_seconds") is None:
            continue  # results of a version that did not time them
        name = f"{r['dataset']}/{r['model']}"
        inputs, seconds = spent.get(name, (0, 0.0))
        spent[name] = (inputs + int(r["forward_passes"]), seconds + float(r["forward_seconds"]))
        if r.get("largest_batch_tokens"):  # a checkpoint that forwarded (0.6 on)
            rows, tokens = largest.get(name, (0, 0))
            largest[name] = (
                max(rows, int(r["largest_batch_rows"])),
                max(tokens, int(r["largest_batch_tokens"])),
            )
    return [
        f"cold predictions: {name}: {inputs} inputs in {seconds:.1f}s"
        + (f" ({inputs / seconds:.0f} inputs/s)" if seconds > 0 else "")
        + (
            f", batches of up to {largest[name][0]} rows, {largest[name][1]} padded tokens"
            if name in largest
            else ""
        )
        for name, (inputs, seconds) in spent.items()
        if inputs
    ]


def run_only_lines(engine: list[dict[str, Any]]) -> list[str]:
    """Function models whose answers this run could not store: no declared fingerprint."""
    shown = dict.fromkeys(
        f"{r['dataset']}/{r['model']} ({str(r.get('model_id', '')).removeprefix('predict:')})"
        for r in engine
        if r.get("fingerprint_source") == "none"
    )
    return [
        f"nlp-gate: {name} has no declared fingerprint: predictions memoised for this run "
        "only; declare one (models file fingerprint:, or --nlp-model ...@v3) to reuse them"
        for name in shown
    ]


def truncation_lines(engine: list[dict[str, Any]]) -> list[str]:
    """Inputs the engine cut to a model's maximum length (a model sees only their start)."""
    cut: dict[str, int] = {}
    limit: dict[str, int] = {}
    for r in engine:
        name = f"{r['dataset']}/{r['model']}"
        cut[name] = cut.get(name, 0) + int(r.get("truncated_inputs", 0))
        if r.get("truncated_inputs"):  # a process that forwarded: its length is the model's
            # (one answered from the cache never narrowed the default to the position table)
            limit[name] = int(r.get("max_length", 0))
    shown = [f"{name} {n} (at {limit[name]} tokens)" for name, n in cut.items() if n]
    if not shown:
        return []
    return [
        "inputs longer than the model's maximum length, truncated to it (of those "
        "forwarded this run): " + ", ".join(shown)
    ]


def error_lines(errors: list[dict[str, Any]]) -> list[str]:
    """The items that ended without a gate verdict, one line per model and cause (pytest's
    own summary lists each item)."""
    causes: dict[tuple[str, str], int] = {}
    for e in errors:
        key = (
            ", ".join(e["models"]) or "(no model)",
            (e["message"].strip().splitlines() or [""])[0],
        )
        causes[key] = causes.get(key, 0) + 1
    return [
        f"errored without a gate verdict: {n} item{'s' * (n > 1)} of {models}: {cause}"
        for (models, cause), n in causes.items()
    ]


def summary_lines(
    tables: list[Table],
    verdict: ReleaseVerdict,
    where: dict[str, Path],
    engine: list[dict[str, Any]] | None = None,
    errors: list[dict[str, Any]] | None = None,
) -> list[str]:
    lines: list[str] = []
    for table in tables:
        if table.terminal:
            lines += table_lines(table) + [""]
    if lines:
        lines.append(TERMINAL_LEGEND)
    lines += engine_lines(engine or [])
    lines += error_lines(errors or [])
    lines.append(verdict.line())
    lines += [f"{name}: {path}" for name, path in where.items()]
    return lines
