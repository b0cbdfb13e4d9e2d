"""Regenerate the `tiny` profile's CheckList gates from a full run's results.json.

The tiny zoo's gates are regression gates: for each test, the highest fail rate any tiny
model showed (full run, no sampling) plus a margin, rounded up to a whole percent.  Prints
the YAML `tests:` block to paste under `profiles.tiny.checklist` in thresholds.yaml.

    .venv/bin/python -m pytest tests_behavioral -m checklist -n 2 --nlp-results /tmp/full.json
    .venv/bin/python scripts/calibrate_tiny_gates.py /tmp/full.json
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict
from pathlib import Path

import yaml


def calibrate(results: dict, margin: float) -> dict[str, dict[str, float]]:
    if results["run"]["profile"] != "tiny" or results["run"]["sample"] is not None:
        raise SystemExit("calibrate from a full (unsampled) run of the tiny profile")
    worst: dict[str, dict[str, float]] = defaultdict(dict)
    for r in results["records"]:
        rate = r["fail_rate"] if r["fail_rate"] is not None else 0.0
        suite = worst[r["suite"]]
        suite[r["test"]] = max(suite.get(r["test"], 0.0), rate)
    return {suite: {test: float(min(100, math.ceil(rate + margin))) for test, rate in tests.items()}
            for suite, tests in worst.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--margin", type=float, default=5.0, help="percentage points")
    args = parser.parse_args()
    gates = calibrate(json.loads(args.results.read_text()), args.margin)
    print(yaml.safe_dump({"tests": gates}, sort_keys=False, allow_unicode=True, width=120))


if __name__ == "__main__":
    main()
