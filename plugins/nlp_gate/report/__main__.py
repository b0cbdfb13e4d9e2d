"""Rebuild every report from a results.json: ``python -m nlp_gate.report``.

    python -m nlp_gate.report [--results reports/results.json] [--out reports]
                             [--alluredir reports/allure-results]
    python -m nlp_gate.report strip-analytics reports/allure-report/index.html
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nlp_gate.report import terminal_lines, write_reports
from nlp_gate.report.allure import strip_analytics


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["strip-analytics"]:
        for name in argv[1:]:
            path = Path(name)
            page, removed = strip_analytics(path.read_text())
            path.write_text(page)
            print(f"{path}: removed {removed} third-party script tag(s)")
        return 0
    parser = argparse.ArgumentParser(prog="python -m nlp_gate.report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=Path, default=Path("reports/results.json"),
                        help="results.json of a run (default: reports/results.json here)")
    parser.add_argument("--out", type=Path, default=None,
                        help="report folder (default: the folder of --results)")
    parser.add_argument("--alluredir", type=Path, default=None,
                        help="also write the Allure summary entry, environment and categories")
    args = parser.parse_args(argv)
    if not args.results.exists():
        parser.error(f"{args.results} not found; run the gate first (bash scripts/gate.sh)")
    reports = write_reports(args.results, args.out, args.alluredir)
    print("\n".join(terminal_lines(reports)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
