"""Rebuild every report from a results.json: ``python -m nlp_gate.report``.

    python -m nlp_gate.report [--results reports/results.json] [--out reports]
                             [--alluredir reports/allure-results]
    python -m nlp_gate.report strip-analytics reports/allure-report/index.html
    python -m nlp_gate.report merge SHARD_DIR... [--out reports]

``merge`` joins the outputs of ``--nlp-shard K/N`` runs (each folder: a shard's results.json
and allure-results/) into one results.json, one set of reports and one verdict (appended to
``$GITHUB_STEP_SUMMARY`` when set); it exits as a run does (0 passed, 1 a gate missed, 3 no
verdict, or a shard's 2), 4 when the folders are not the N shards of one run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nlp_gate.report import terminal_lines, write_reports
from nlp_gate.report.formats.allure import strip_analytics
from nlp_gate.report.merge import MergeError, merge
from nlp_gate.report.step_summary import append_step_summary, step_summary_path
from nlp_gate.report.verdict import exit_status, verdict


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["strip-analytics"]:
        for name in argv[1:]:
            path = Path(name)
            page, removed = strip_analytics(path.read_text())
            path.write_text(page)
            print(f"{path}: removed {removed} third-party script tag(s)")
        return 0
    if argv[:1] == ["merge"]:
        return merge_main(argv[1:])
    parser = argparse.ArgumentParser(
        prog="python -m nlp_gate.report",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--results",
        type=Path,
        default=Path("reports/results.json"),
        help="results.json of a run (default: reports/results.json here)",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="report folder (default: the folder of --results)"
    )
    parser.add_argument(
        "--alluredir",
        type=Path,
        default=None,
        help="also write the Allure summary entry, environment and categories",
    )
    args = parser.parse_args(argv)
    if not args.results.exists():
        parser.error(f"{args.results} not found; run the gate first (bash scripts/gate.sh)")
    reports = write_reports(args.results, args.out, args.alluredir)
    print("\n".join(terminal_lines(reports)))
    return 0


def merge_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nlp_gate.report merge", description="merge the outputs of --nlp-shard runs"
    )
    parser.add_argument("shards", type=Path, nargs="+", help="each shard's results folder")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("reports"),
        help="where the merged results.json and reports go (default: reports)",
    )
    args = parser.parse_args(argv)
    try:
        reports, status = merge(args.shards, args.out)
    except MergeError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 4
    print("\n".join(terminal_lines(reports, status)))
    gate = verdict(reports.results, status)
    summary = step_summary_path()
    if summary is not None:  # CI's job summary ($GITHUB_STEP_SUMMARY): the merged verdict
        problem = append_step_summary(summary, reports.results, gate)
        if problem:
            print(problem, file=sys.stderr)
    return exit_status(status, gate.status)


if __name__ == "__main__":
    sys.exit(main())
