"""``reports/results.json``: run metadata plus one record per behavioral item.

Records are produced on whichever process ran the item; under xdist each worker hands an
item's records to the controller with the item's teardown report (``user_properties``), so the
records of every finished item reach it even when the run is interrupted or the worker is
killed later; what is left at the end (engine statistics) goes through ``workeroutput``.
Only the controller writes the file, atomically.  Records are
sorted by their position in the parametrization, so ``-n 0`` and ``-n 2`` write the same list.

Every run that set out to run gated items writes it, even with no record to write: ``ran``
counts the gated records, ``errors`` lists the items that ended without a gate verdict (an
exception, a refused model) with their cause, and ``no_results`` says why a run has none
(``refused``: the start-up message of a run stopped before any item), so the previous run's
file never stands in for this run's.
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
# Sections that hold no gated item's record: what the run cost, the items that ended
# without a verdict (an error in the item, a worker that died under it), and the failures
# that were no gate's (a test that is not a gated item, a teardown error).
UNGATED = ("engine", "errors", "lost", "recovered", "other_failures")
PACKAGES = (
    "nlp-gate",
    "torch",
    "transformers",
    "tokenizers",
    "checklist-pattern",
    "textattack",
    "datasets",
    "numpy",
    "pytest",
    "pytest-xdist",
    "allure-pytest",
    "hypothesis",
    "onnxruntime",
)


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "absent"
    return versions


class ResultStore:
    """Records of this process, by section ("records" = CheckList items; other item kinds
    add their own section, e.g. "attacks"), each kept with its parametrization position."""

    def __init__(self) -> None:
        self.sections: dict[str, list[tuple[int, dict[str, Any]]]] = {}
        self._added: list[tuple[str, int, dict[str, Any]]] = []
        self._sent = 0  # how many of _added take_wire has handed on

    def add(self, section: str, position: int, record: dict[str, Any]) -> None:
        self.sections.setdefault(section, []).append((position, record))
        self._added.append((section, position, record))

    def take(self, section: str, match: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        """Remove the section's records that ``match`` and return them (the controller's
        ``lost`` entry of an item whose final record arrived after all); a section left
        empty is dropped, as if never added."""
        rows = self.sections.get(section, [])
        taken = [r for _, r in rows if match(r)]
        if taken:
            self.sections[section] = [(p, r) for p, r in rows if not match(r)]
            if not self.sections[section]:
                del self.sections[section]
        return taken

    def records(self, section: str = "records") -> list[dict[str, Any]]:
        return [r for _, r in sorted(self.sections.get(section, []), key=lambda pr: pr[0])]

    def positioned(self, section: str) -> list[dict[str, Any]]:
        """The section's records as written: each with its ``position`` (the merge of
        sharded runs puts them back in one order with it)."""
        return [
            {**r, "position": p}
            for p, r in sorted(self.sections.get(section, []), key=lambda pr: pr[0])
        ]

    def take_wire(self) -> str | None:
        """The records added since the last call, as text for the controller (None: none)."""
        new = self._added[self._sent :]
        self._sent = len(self._added)
        return json.dumps(new) if new else None

    def merge_wire(self, text: str) -> None:
        for section, position, record in json.loads(text):
            self.add(section, position, record)

    def has(self, section: str, position: int) -> bool:
        """Whether the item at ``position`` of ``section`` has its record (a gate verdict)."""
        return any(p == position for p, _ in self.sections.get(section, []))

    def get(self, section: str, position: int) -> dict[str, Any] | None:
        """The record of the item at ``position`` of ``section`` (its gate verdict), or None."""
        return next((r for p, r in self.sections.get(section, []) if p == position), None)

    def body(
        self,
        run: dict[str, Any],
        interrupted: bool = False,
        exitstatus: int | None = None,
        refused: str | None = None,
        collection_errors: int = 0,
    ) -> dict[str, Any]:
        """What results.json holds (``refused``: the start-up message of a refused run;
        ``collection_errors``: test modules that could not be collected, which stopped it)."""
        checklist = self.records()
        ran = sum(len(rows) for section, rows in self.sections.items() if section not in UNGATED)
        errors, lost = self.sections.get("errors", []), self.sections.get("lost", [])
        body: dict[str, Any] = {
            "schema": SCHEMA_VERSION,
            # Ctrl-C or SIGTERM: the records are those of the items that finished.
            "interrupted": interrupted,
            # pytest's, as the run ended: errors outside the gates (the merge keeps them).
            "exitstatus": exitstatus,
            "run": run,
            "refused": refused,
            "ran": ran,  # gated records of every kind
            "no_results": None
            if ran
            else no_results_reason(refused, interrupted, len(errors), len(lost), collection_errors),
            "summary": {
                "checklist_items": len(checklist),
                "passed": sum(bool(r["passed"]) for r in checklist),
                "failed": sum(not r["passed"] for r in checklist),
                "errored": len(errors),
                "lost": len(lost),
            },
            "records": self.positioned("records"),
        }
        for section in sorted(set(self.sections) - {"records"}):
            body[section] = self.positioned(section)
        return body


def no_results_reason(
    refused: str | None, interrupted: bool, errored: int, lost: int, collection_errors: int = 0
) -> str:
    """Why a run has no gated record, for results.json and the reports."""
    if refused is not None:
        return f"refused at start-up: {refused.splitlines()[0]}"
    if collection_errors:
        return f"{collection_errors} error(s) during collection (see pytest's ERRORs): no item ran"
    if errored or lost:
        return (
            f"every selected item errored ({errored} in results.json errors, {lost} lost "
            "with a crashed worker)"
        )
    if interrupted:
        return "interrupted before any item finished"
    return "no gated item finished"


def write_atomically(path: Path, text: str) -> None:
    """Write ``path`` through a temporary file beside it: a reader never sees half a file,
    and a write that fails (a full disk) leaves no temporary file behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        tmp.write_text(text)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
