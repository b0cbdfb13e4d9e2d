"""Reviewable cases: a native test's generated cases as JSON lines, written and read back.

The first line is a header (suite, test, capability, type, task, seed, pairs); each further
line one test case: ``{"data": ..., "label": ..., "meta": ...}``.  A reviewer who finds a bad
perturbation edits the file, commits it and points the test's ``cases=`` at it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def _pairs(data: list[Any]) -> bool:
    """Whether the inputs are text pairs (tuples), which JSON turns into lists."""
    first = data[0] if data else None
    first = first[0] if isinstance(first, list) and first else first
    return isinstance(first, tuple)


class NativeTestError(Exception):
    """A native test declared or built wrongly; the message names the test and the fix.
    (Defined with the case files, whose errors are its first; ``definition`` re-exports it.)"""


def write_cases(path: Path, header: dict[str, Any], test: Any) -> None:
    """Write atomically: xdist workers building the same test write identical files."""
    labels = test.labels if isinstance(test.labels, list) else [test.labels] * len(test.data)
    meta = test.meta if isinstance(test.meta, list) else [None] * len(test.data)
    lines = [json.dumps({**header, "pairs": _pairs(test.data)})]
    lines += [
        json.dumps({"data": d, "label": _plain(lab), "meta": _plain(m)})
        for d, lab, m in zip(test.data, labels, meta)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        tmp.write_text("\n".join(lines) + "\n")
        tmp.replace(path)
    except OSError:
        tmp.unlink(missing_ok=True)  # a full disk: no half file left behind
        raise


def cases_folder(results: Path) -> Path:
    """Where a run writes its native tests' cases for review: beside its results.json."""
    return results.parent / "cases"


def unwritable_folder(folder: Path) -> str | None:
    """Why files cannot be written under ``folder`` (made if need be), else None; asked
    without making anything, so that a run with no native test leaves no empty folder."""
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{existing} is not writable"
    return None


def read_cases(path: Path) -> tuple[list[Any], Any, list[Any] | None]:
    """``(data, labels, meta)`` as CheckList's test objects hold them."""
    if not path.is_file():
        raise NativeTestError(
            f"case file {path} does not exist; a run writes one per native "
            "test under reports/cases/<suite>/ to start from"
        )
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if not lines or "test" not in lines[0]:
        raise NativeTestError(f"{path}: the first line must be the header a run writes")
    pairs = bool(lines[0].get("pairs"))
    rows = lines[1:]
    data = [_tuples(r["data"]) if pairs else r["data"] for r in rows]
    labels = [r.get("label") for r in rows]
    meta = [r.get("meta") for r in rows]
    return (
        data,
        None if all(x is None for x in labels) else labels,
        None if all(m is None for m in meta) else meta,
    )


def _tuples(case: Any) -> Any:
    """A pair ``[a, b]`` back to ``(a, b)``; a list of pairs to a list of tuples."""
    if case and isinstance(case[0], list):
        return [tuple(p) for p in case]
    return tuple(case)


def _plain(value: Any) -> Any:
    """NumPy scalars (CheckList's labels often are) as JSON numbers."""
    return value.item() if hasattr(value, "item") else value
