"""``reports/results.json``: run metadata plus one record per behavioral item.

Records are produced on whichever process ran the item; under xdist the workers hand them to
the controller through ``workeroutput`` and only the controller writes the file.  Records are
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

    def add(self, section: str, position: int, record: dict[str, Any]) -> None:
        self.sections.setdefault(section, []).append((position, record))

    def records(self, section: str = "records") -> list[dict[str, Any]]:
        return [r for _, r in sorted(self.sections.get(section, []), key=lambda pr: pr[0])]

    def to_wire(self) -> str:
        return json.dumps(self.sections)

    def merge_wire(self, text: str) -> None:
        for section, items in json.loads(text).items():
            for position, record in items:
                self.add(section, position, record)

    def write(self, path: Path, run: dict[str, Any]) -> None:
        checklist = self.records()
        body: dict[str, Any] = {
            "schema": SCHEMA_VERSION,
            "run": run,
            "summary": {
                "checklist_items": len(checklist),
                "passed": sum(bool(r["passed"]) for r in checklist),
                "failed": sum(not r["passed"] for r in checklist),
            },
            "records": checklist,
        }
        for section in sorted(set(self.sections) - {"records"}):
            body[section] = self.records(section)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(body, indent=2) + "\n")
        tmp.replace(path)  # a reader never sees half a file
