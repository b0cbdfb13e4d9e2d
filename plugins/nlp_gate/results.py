"""``reports/results.json``: run metadata plus one record per behavioral item.

Records are produced on whichever process ran the item; under xdist each worker hands an
item's records to the controller with the item's teardown report (``user_properties``), so the
records of every finished item reach it even when the run is interrupted or the worker is
killed later; what is left at the end (engine statistics) goes through ``workeroutput``.
Only the controller writes the file, atomically.  Records are
sorted by their position in the parametrization, so ``-n 0`` and ``-n 2`` write the same list.
"""

from __future__ import annotations

import json
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
PACKAGES = ("torch", "transformers", "tokenizers", "checklist-pattern", "textattack", "datasets",
            "numpy", "pytest", "pytest-xdist", "allure-pytest", "hypothesis")


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

    def records(self, section: str = "records") -> list[dict[str, Any]]:
        return [r for _, r in sorted(self.sections.get(section, []), key=lambda pr: pr[0])]

    def positioned(self, section: str) -> list[dict[str, Any]]:
        """The section's records as written: each with its ``position`` (the merge of
        sharded runs puts them back in one order with it)."""
        return [{**r, "position": p}
                for p, r in sorted(self.sections.get(section, []), key=lambda pr: pr[0])]

    def take_wire(self) -> str | None:
        """The records added since the last call, as text for the controller (None: none)."""
        new = self._added[self._sent:]
        self._sent = len(self._added)
        return json.dumps(new) if new else None

    def merge_wire(self, text: str) -> None:
        for section, position, record in json.loads(text):
            self.add(section, position, record)

    def write(self, path: Path, run: dict[str, Any], interrupted: bool = False,
              exitstatus: int | None = None) -> None:
        checklist = self.records()
        body: dict[str, Any] = {
            "schema": SCHEMA_VERSION,
            # Ctrl-C or SIGTERM: the records are those of the items that finished.
            "interrupted": interrupted,
            # pytest's, as the run ended: errors outside the gates (the merge keeps them).
            "exitstatus": exitstatus,
            "run": run,
            "summary": {
                "checklist_items": len(checklist),
                "passed": sum(bool(r["passed"]) for r in checklist),
                "failed": sum(not r["passed"] for r in checklist),
            },
            "records": self.positioned("records"),
        }
        for section in sorted(set(self.sections) - {"records"}):
            body[section] = self.positioned(section)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(body, indent=2) + "\n")
        tmp.replace(path)  # a reader never sees half a file
