"""Print a constraints file that holds every direct dependency at its declared lower bound.

pyproject.toml declares ranges (issue 31); CI tests the lower bounds by installing with this
file (``scripts/test_lowest.sh``), so a bound that is too low fails CI instead of a user.  Each
requirement of the core and of the extras named on the command line (default: all but ``all``)
becomes ``name==lower``; a requirement without a ``>=`` bound is left to pip.  Markers are
kept, so a bound that applies to some Pythons only stays so.  Only the direct dependencies
are held low: their own dependencies resolve as pip chooses (pip has no "lowest" mode; uv's
``--resolution lowest-direct`` does the same but would not see the CPU torch on disk).
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def lower_bounds(extras: list[str] | None = None) -> list[str]:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    optional: dict[str, list[str]] = project.get("optional-dependencies", {})
    names = extras if extras is not None else [e for e in optional if e != "all"]
    lines: dict[str, str] = {}
    for text in project["dependencies"] + [r for e in names for r in optional[e]]:
        req = Requirement(text)
        if req.name == project["name"]:  # an extra that includes another extra
            continue
        low = [s.version for s in req.specifier if s.operator == ">="]
        if not low:
            continue
        marker = f"; {req.marker}" if req.marker else ""
        lines[req.name] = f"{req.name}=={low[0]}{marker}"
    return [lines[name] for name in sorted(lines)]


if __name__ == "__main__":
    print("\n".join(lower_bounds(sys.argv[1:] or None)))
