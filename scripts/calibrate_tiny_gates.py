"""Regenerate the `tiny` profile's CheckList gates from a full run's results.json.

The tiny zoo's gates are regression gates: for each test, the highest fail rate any tiny
model showed (full run, no sampling) plus a margin, rounded up to a whole percent.  Prints
the YAML `tests:` block to paste under `profiles.tiny.checklist` in thresholds.yaml, and the
`calibrated_on:` block (the zoo's weights digests, from the zoo.json beside the run's models)
to paste under `profiles.tiny`, and the comparison tolerances (``comparison_tolerances``, from
the run's comparison items: hence ``regression`` in the selection).

    .venv/bin/python -m pytest tests_behavioral -m "checklist or native or regression" -n 2 --nlp-results=/tmp/full.json
    .venv/bin/python scripts/calibrate_tiny_gates.py /tmp/full.json

Released (``sentiment``, ``qqp``) and native (``native_<task>``) suites alike; it also prints,
per suite, how many of its gates are 100 (recorded, but no gate).
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
    return {
        suite: {test: float(min(100, math.ceil(rate + margin))) for test, rate in tests.items()}
        for suite, tests in worst.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--margin", type=float, default=5.0, help="percentage points")
    args = parser.parse_args()
    results = json.loads(args.results.read_text())
    gates = calibrate(results, args.margin)
    print(yaml.safe_dump({"tests": gates}, sort_keys=False, allow_unicode=True, width=120))
    print(yaml.safe_dump({"calibrated_on": calibrated_on(results)}, sort_keys=False))
    print(yaml.safe_dump({"tolerance": comparison_tolerances(results)}, sort_keys=False, width=120))
    for line in no_gate_lines(gates):
        print(line)


def comparison_tolerances(results: dict, margin: float = 10.0) -> dict[str, object]:
    """The comparison tolerances: per capability, the candidate's largest significant excess
    fail rate (Benjamini-Hochberg-adjusted p <= alpha) plus ``margin`` points, rounded up to 5,
    at most 100 (``default`` stays as set: it covers capabilities where none was significant)."""
    worst: dict[str, float] = defaultdict(float)
    for c in results.get("comparisons", []):
        if c["p_adjusted"] is not None and c["p_adjusted"] <= c["alpha"] and c["delta"] > 0:
            worst[c["capability"]] = max(worst[c["capability"]], c["delta"])
    rounded = {
        cap: float(min(100, 5 * math.ceil((delta + margin) / 5)))
        for cap, delta in sorted(worst.items())
    }
    return {
        "capabilities": rounded,
        "measured": {cap: round(delta, 1) for cap, delta in sorted(worst.items())},
    }


def no_gate_lines(gates: dict[str, dict[str, float]]) -> list[str]:
    """Per suite, and for released and native suites together: the share of gates at 100."""

    def share(values: list[float]) -> str:
        at_100 = sum(v >= 100 for v in values)
        return f"{at_100} of {len(values)} ({100 * at_100 / max(len(values), 1):.0f}%)"

    lines = [
        f"# gates at 100, {suite}: {share(list(tests.values()))}" for suite, tests in gates.items()
    ]
    for label, native in (("released", False), ("native", True)):
        values = [
            v
            for suite, tests in gates.items()
            if suite.startswith("native_") == native
            for v in tests.values()
        ]
        lines.append(f"# gates at 100, all {label} suites: {share(values)}")
    return lines


def calibrated_on(results: dict) -> dict[str, str]:
    """The weights the run's zoo models had: the zoo.json of the zoo they were loaded from."""
    roots = {
        Path(m["location"]).parents[1]
        for m in results["run"]["models"]
        if m["model_id"].startswith("zoo:")
    }
    if len(roots) != 1:
        raise SystemExit(f"expected the run's zoo models in one zoo, found {sorted(roots)}")
    card = json.loads((roots.pop() / "zoo.json").read_text())
    if card["recipe_hash"] not in {m["revision"] for m in results["run"]["models"]}:
        raise SystemExit("the zoo was rebuilt since this run (recipe hash differs)")
    return {m["path"]: m["weights_sha256"][:16] for m in card["models"]}


if __name__ == "__main__":
    main()
