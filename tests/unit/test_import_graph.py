"""The package's import graph: no cycle among ``nlp_gate``'s modules, and item kinds that
depend only on the shared interface (issue #30).

The graph is read from the source (``ast``), not from ``sys.modules``: every ``import`` and
``from ... import`` of ``plugins/nlp_gate``, absolute or relative, *wherever it stands* --
module level, inside a function, under ``if TYPE_CHECKING``.  A deferred import that closes a
loop (written inside a function so that the loop does not fail at import time) is still a
loop a reader has to hold in their head, so it counts.

An edge goes to the module a statement names: ``from a.b import c`` is an edge to ``a.b.c``
when that is a module, else to ``a.b`` (whose name ``c`` is).  The enclosing packages that Python
imports
on the way (``a``) are not edges: a package's ``__init__`` is a module of its own, reached
only where a statement names it (the semantics of import-linter and pydeps).

Item kinds (``KIND_MODULES``) may import the shared interface of ``nlp_gate.kinds`` (``base``,
``context``, the CheckList harness in ``kinds/checklist/`` beside the ``checklist`` kind's
``kind.py``) and anything outside ``kinds``, but neither ``nlp_gate.run`` nor another
kind: they reach the run and each other through their ``KindContext``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "plugins" / "nlp_gate"

# Each kind: the module prefixes that are that kind's own.  The rest of ``nlp_gate.kinds`` is
# shared by every kind: ``base`` (the interface), ``context`` (what a kind sees of the run),
# ``report_part`` (what a kind gives the report), ``checklist.{run,gates,marks,
# items}`` (running a CheckList test on a model, for the four kinds that do),
# ``checklist.{report,layout,plots}`` (the report of the section the checklist and native
# kinds share) and ``nlp_gate.kinds`` itself (the registry, which imports every
# kind).
KIND_MODULES = {
    "accuracy": ("nlp_gate.kinds.accuracy",),
    "attacks": ("nlp_gate.kinds.attacks",),
    "checklist": ("nlp_gate.kinds.checklist.kind",),
    "comparison": ("nlp_gate.kinds.comparison",),
    "native": ("nlp_gate.kinds.native",),
    "search": ("nlp_gate.kinds.search",),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported(name: str, path: Path) -> Iterator[str]:
    """The ``nlp_gate`` modules ``name`` (at ``path``) imports, anywhere in its body."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, one level up per extra dot
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            # ``from a import b``: the module ``a.b`` where there is one, else ``a``'s name b.
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                for alias in node.names
            ]
        else:
            continue
        yield from (t for t in targets if t in MODULES)


GRAPH = {name: sorted(set(imported(name, path)) - {name}) for name, path in MODULES.items()}


def cycles() -> list[list[str]]:
    """The graph's strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in GRAPH[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in GRAPH:
        if node not in index:
            visit(node)
    return found


def kind_of(module: str) -> str | None:
    for kind, prefixes in KIND_MODULES.items():
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return kind
    return None


def test_the_graph_is_read() -> None:
    """A guard on the walk itself: it sees the registry importing the kinds."""
    assert "nlp_gate.kinds.comparison.kind" in GRAPH["nlp_gate.kinds"]
    assert "nlp_gate.kinds" in GRAPH["nlp_gate.run"]


def test_no_import_cycle() -> None:
    assert cycles() == []


def test_kinds_import_neither_the_run_nor_each_other() -> None:
    problems = []
    for module, targets in GRAPH.items():
        if not module.startswith("nlp_gate.kinds.") or module == "nlp_gate.kinds":
            continue
        mine = kind_of(module)
        for target in targets:
            if target == "nlp_gate.run" or target == "nlp_gate.kinds":
                problems.append(f"{module} imports {target}")
            elif kind_of(target) not in (None, mine):
                problems.append(
                    f"{module} ({mine or 'shared'}) imports {target} (kind {kind_of(target)})"
                )
    assert problems == []


def test_every_kind_is_known_here() -> None:
    """A kind added to the registry is listed above, so the rule covers it."""
    registered = {t for t in GRAPH["nlp_gate.kinds"] if t.startswith("nlp_gate.kinds.")}
    assert {kind_of(t) for t in registered} - {None} == set(KIND_MODULES)


def test_every_kind_records_into_a_section_the_verdict_counts() -> None:
    """The release verdict counts the sections of the kinds' report parts: a kind whose
    records went to another section than its part's would never fail the gate."""
    from nlp_gate.kinds import KINDS
    from nlp_gate.report.parts import report_parts

    assert all(k.records == k.report.key for k in KINDS)
    assert {k.records for k in KINDS} == {p.key for p in report_parts()}


# Where pytest may be imported: its glue, the item kinds (which build pytest's parameters and
# marks) and the shipped test modules (tests_behavioral/'s, copied into the wheel).
PYTEST_USERS = (
    "nlp_gate.pytest_plugin",
    "nlp_gate.kinds",
    "nlp_gate.native_tests",
    "nlp_gate.released",
)


def test_only_the_glue_and_the_kinds_import_pytest() -> None:
    """The rest of the package (the run's state, engine, zoo, reports, statistics) is
    pytest-free: no module of it names pytest in an import, anywhere in its source."""
    importers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(("nlp_gate", *path.relative_to(PACKAGE).with_suffix("").parts))
        module = module.removesuffix(".__init__")
        if any(module == p or module.startswith(p + ".") for p in PYTEST_USERS):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(n.split(".")[0] in ("pytest", "_pytest") for n in names):
                importers.append(module)
    assert importers == []
