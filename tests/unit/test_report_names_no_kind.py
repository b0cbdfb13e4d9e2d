"""The report names no kind: every kind's tables, figures and part of the verdict come from its
``ReportPart`` (``ItemKind.report``), so a new kind reaches every report without an edit of
``nlp_gate.report``; and every format is registered in ``nlp_gate.report.formats.FORMATS``.

Read from the source (``ast``): the report's modules import no kind's module (only the
registry, ``nlp_gate.kinds``, and the interface, ``nlp_gate.kinds.report_part``), and neither
their code's string literals (docstrings aside: prose may give an example) nor their names
hold a kind's name, section, results.json key or what the verdict calls its items.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from nlp_gate.kinds import KINDS
from nlp_gate.report.formats import FORMATS

REPORT = Path(__file__).resolve().parents[2] / "plugins" / "nlp_gate" / "report"
ALLOWED_KIND_MODULES = {"nlp_gate.kinds", "nlp_gate.kinds.report_part"}
# The pytest run header names the CheckList *package*'s version (a dependency) and the native
# authoring API's cases folder: it reports the run's set-up, not a kind's records.
NOT_A_REPORT_OF_RECORDS = {"header.py"}


def kind_words() -> set[str]:
    """Each kind's name, thresholds section and what the verdict calls its items."""
    words = set()
    for kind in KINDS:
        for text in (kind.name, kind.section, kind.report.section.items):
            words |= {w for w in re.split(r"[^a-z0-9]+", text.lower()) if w}
    return words


def section_keys() -> set[str]:
    """Each kind's results.json key: named when a string is one ("records" is also a word)."""
    return {kind.records for kind in KINDS}


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of ``tree``'s module, classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def kind_names_in(path: Path, words: set[str], keys: set[str]) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    skip = docstrings(tree)
    problems = []
    for node in ast.walk(tree):
        texts: list[str] = []
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("nlp_gate.kinds"):
            # The registry only for its KINDS (not ``from nlp_gate.kinds import accuracy``).
            registry_only = node.module != "nlp_gate.kinds" or {a.name for a in node.names} == {
                "KINDS"
            }
            if node.module not in ALLOWED_KIND_MODULES or not registry_only:
                problems.append(f"line {node.lineno}: imports {node.module}")
        elif isinstance(node, ast.Import):
            problems += [
                f"line {node.lineno}: imports {a.name}"
                for a in node.names
                if a.name.startswith("nlp_gate.kinds") and a.name not in ALLOWED_KIND_MODULES
            ]
        elif (
            isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
        ):
            texts.append(node.value)
            if node.value in keys:
                problems.append(f"line {node.lineno}: {node.value!r} is a kind's section")
        elif isinstance(node, ast.Name):
            texts.append(node.id)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            texts.append(node.name)
        elif isinstance(node, ast.arg):
            texts.append(node.arg)
        for text in texts:
            named = {w for w in re.split(r"[^a-z0-9]+", text.lower()) if w} & words
            if named:
                problems.append(f"line {getattr(node, 'lineno', '?')}: {text!r} names {named}")
    return problems


MODULES = sorted(p for p in REPORT.rglob("*.py") if p.name not in NOT_A_REPORT_OF_RECORDS)


def test_the_words_are_the_kinds() -> None:
    """A guard on the rule itself: it knows the registered kinds' words."""
    assert {"checklist", "attacks", "attack", "comparison", "accuracy", "search"} <= kind_words()
    assert {"records", "comparisons", "searches"} <= section_keys()
    assert len(MODULES) > 10


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(REPORT)))
def test_no_report_module_names_a_kind(path: Path) -> None:
    assert kind_names_in(path, kind_words(), section_keys()) == []


def test_the_rule_catches_a_kind_named(tmp_path: Path) -> None:
    module = tmp_path / "leak.py"
    module.write_text(
        '"""Prose may say attacks."""\n'
        "from nlp_gate.kinds.accuracy.report import accuracy_table\n"
        'rows = accuracy_table(results.get("records", []))\n'
    )
    problems = kind_names_in(module, kind_words(), section_keys())
    assert len(problems) == 3, problems  # the import, a kind's name, a section's key


def test_every_format_declares_its_files() -> None:
    for writer in FORMATS:
        assert isinstance(writer.table_files, tuple) and isinstance(writer.report_files, tuple)
        assert isinstance(writer.elsewhere, bool)


def test_a_new_kind_reaches_every_report_through_its_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A toy kind registered with its part, and no other edit: its table is written in every
    format, its records counted in the verdict line and its run gate judged."""
    from nlp_gate.kinds.report_part import Cell, Column, Record, ReportPart, Table
    from nlp_gate.report import parts, write_reports
    from nlp_gate.report.verdict import verdict
    from nlp_gate.results.records import Section

    class ToyReport(ReportPart):
        section = Section("toys", "toy")
        verdict_order = 9
        table_order = 9

        def tables(self, results: Record) -> list[Table]:
            rows = [[Cell(r["name"]), Cell(str(r["score"]))] for r in self.records(results)]
            columns = [Column("name", "Name", stub=True), Column("score", "Score")]
            return [Table("toys", "Toys", columns, rows, [])] if rows else []

        def run_problems(self, results: Record) -> list[str]:
            return (
                ["no toy scored 3"] if all(r["score"] != 3 for r in self.records(results)) else []
            )

    class ToyKind:
        records = "toys"
        report = ToyReport()

    monkeypatch.setattr(parts, "KINDS", (*KINDS, ToyKind))
    parts.report_parts.cache_clear()
    try:
        results = {"schema": 1, "run": {}, "toys": [{"name": "a", "score": 2, "passed": False}]}
        path = tmp_path / "results.json"
        path.write_text(json.dumps(results))
        reports = write_reports(path)
        assert [t.name for t in reports.tables] == ["toys"]
        assert {p.name for p in (tmp_path / "tables").iterdir()} == {
            "toys.md",
            "toys.csv",
            "toys.html",
        }
        assert "Toys" in (tmp_path / "summary.html").read_text()
        assert verdict(results).line() == (
            "release gate FAILED: 1 of 1 toy items over their gate; no toy scored 3"
        )
    finally:
        parts.report_parts.cache_clear()
