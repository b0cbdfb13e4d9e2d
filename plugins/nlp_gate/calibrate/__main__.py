"""``nlp-gate-calibrate`` / ``python -m nlp_gate.calibrate``: a thresholds.yaml profile from a
baseline run's results.json.

Exit status: 0 the gates were written (or printed); 2 a usage error; 4 a results.json or
thresholds file they cannot be calibrated from or written to, with one ERROR line saying why.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nlp_gate.calibrate import (
    CalibrationError,
    Margins,
    calibrate,
    profile_document,
    read_run,
    run_warnings,
    summary_lines,
    write_profile,
)

DESCRIPTION = """\
Write a thresholds.yaml profile from a baseline run's results.json: regression gates that the
baseline passes and a model that behaves worse misses.  Per CheckList test (released and
native): the highest fail rate any model of the runs showed + --margin points, rounded up, at
most 100 (100: recorded, not gated).  Per capability of a comparison: the candidate's largest
significant excess + --comparison-margin, rounded up to 5.  Per dataset of the accuracy items:
the lowest accuracy - --accuracy-margin, rounded down.  A run of the embedded zoo also records
the weights it was calibrated on (calibrated_on).  Sections the runs have no records of are
left as they are."""


def percentage_points(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of points, got {text!r}") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"must be in [0, 100], got {value:g}")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="nlp-gate-calibrate", description=DESCRIPTION)
    p.add_argument("results", type=Path, help="the baseline run's results.json")
    p.add_argument(
        "--reseed",
        type=Path,
        action="append",
        default=[],
        metavar="RESULTS",
        help="the results.json of a run of a clean retraining of the baseline (or of the "
        "baseline under another --nlp-seed); its fail rates count as the baseline's "
        "(repeatable)",
    )
    p.add_argument(
        "--profile",
        help="the profile to write (default: the baseline run's: its models file's profile, "
        "or cli for a --nlp-model run)",
    )
    p.add_argument(
        "--thresholds",
        type=Path,
        metavar="PATH",
        help="set the gates in this thresholds file (created if absent), keeping its other "
        "profiles, sections and comments; default: print a thresholds file with the profile "
        "alone",
    )
    p.add_argument(
        "--margin",
        type=percentage_points,
        metavar="POINTS",
        default=Margins.checklist,
        help="CheckList: points above the highest fail rate (default: %(default)g)",
    )
    p.add_argument(
        "--comparison-margin",
        type=percentage_points,
        metavar="POINTS",
        default=Margins.comparison,
        help="comparison: points above the largest significant excess (default: %(default)g)",
    )
    p.add_argument(
        "--accuracy-margin",
        type=percentage_points,
        metavar="POINTS",
        default=Margins.accuracy,
        help="accuracy: points below the lowest accuracy (default: %(default)g)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        baseline = read_run(args.results)
        reseeds = [read_run(path) for path in args.reseed]
        margins = Margins(args.margin, args.comparison_margin, args.accuracy_margin)
        calibration = calibrate(baseline, reseeds, margins, args.profile)
        if args.thresholds is None:
            print(profile_document(calibration), end="")
        else:
            write_profile(calibration, args.thresholds)
    except CalibrationError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 4
    notes = [
        *(
            w
            for path, run in [(args.results, baseline), *zip(args.reseed, reseeds)]
            for w in run_warnings(path, run)
        ),
        *summary_lines(calibration),
    ]
    if args.thresholds is not None:
        gates = sum(len(tests) for tests in calibration.checklist.values())
        notes.insert(
            0,
            f"profile {calibration.profile!r} of {args.thresholds}: {gates} CheckList gate(s)"
            f"{', comparison tolerances' if calibration.comparison else ''}"
            f"{', accuracy floors' if calibration.accuracy else ''}"
            f"{', calibrated_on' if calibration.calibrated_on else ''} written",
        )
    for line in notes:  # stdout may be the thresholds file itself
        print(f"nlp-gate-calibrate: {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
