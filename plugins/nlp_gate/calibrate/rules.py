"""The calibration rules: a baseline run's results.json (and its reseeds') in, gates out.

Every gate is a regression gate: what the baseline showed, plus a margin, so that the same
model passes and a model that behaves worse misses (docs/reference/thresholds.md, "Calibrating
your own gates"):

* CheckList (released and native tests): per test, the highest fail rate any model of any
  given run showed (a test whose cases were all filtered out counts 0), plus ``margin``
  points, rounded up to a whole percent, at most 100.
* Comparison tolerances: per capability, the candidate's largest significant excess fail rate
  (Benjamini-Hochberg adjusted p <= alpha, delta > 0) plus ``margin`` points, rounded up to a
  multiple of 5, at most 100.
* Accuracy floors: per dataset, the lowest accuracy any of its models showed, minus
  ``margin`` points, rounded down to a whole percent, at least 0.
* ``calibrated_on``: for a run of the embedded zoo, the weights digests of that zoo.

These are the rules ``scripts/calibrate_tiny_gates.py`` applied to the tiny profile before
0.6.0, unchanged (the accuracy floor is new); the tiny profile's gates come out of them
(tests/unit/test_calibrate.py).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class CalibrationError(Exception):
    """A results.json that gates cannot be calibrated from; the message says why."""


@dataclass(frozen=True)
class Margins:
    """Percentage points between what the baseline showed and its gate."""

    checklist: float = 5.0
    comparison: float = 10.0
    accuracy: float = 5.0


@dataclass
class Comparison:
    baseline: str
    candidate: str
    alpha: float
    tolerances: dict[str, int]  # capability -> percentage points
    measured: dict[str, float]  # capability -> largest significant excess, before the margin


@dataclass
class Calibration:
    """The gates of one profile, and what the user should know about where they came from."""

    profile: str
    checklist: dict[str, dict[str, float]]  # suite -> test -> max fail rate
    comparison: Comparison | None = None
    accuracy: dict[str, int] = field(default_factory=dict)  # dataset -> floor
    calibrated_on: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def read_run(path: Path) -> dict[str, Any]:
    """A results.json, checked to be a whole run with records to calibrate on."""
    try:
        results = json.loads(path.read_text())
    except FileNotFoundError:
        raise CalibrationError(f"{path}: not found") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CalibrationError(f"{path}: not a results.json ({exc})") from None
    if not isinstance(results, dict) or results.get("schema") != 1:
        raise CalibrationError(f"{path}: not a results.json of schema 1")
    run = results.get("run") or {}
    problem = (
        f"the run was refused at start-up ({results['refused']})"
        if results.get("refused")
        else "the run was interrupted: its records are a part of its items"
        if results.get("interrupted")
        else f"a shard ({run['shard']}) of a run: merge the shards first "
        "(python -m nlp_gate.report merge)"
        if run.get("shard")
        else "no CheckList, comparison or accuracy record"
        if not any(results.get(kind) for kind in ("records", "comparisons", "accuracy"))
        else None
    )
    if problem:
        raise CalibrationError(f"{path}: cannot calibrate on it: {problem}")
    return results


def run_warnings(path: Path, results: Mapping[str, Any]) -> list[str]:
    """What makes gates calibrated on this run weaker than they look."""
    run = results["run"]
    warnings = []
    if run.get("sample") is not None:
        warnings.append(
            f"{path}: a sampled run (--nlp-sample {run['sample']}, --nlp-seed {run['seed']}): "
            "the gates hold for runs of the same sample and seed; calibrate on an unsampled "
            "run to gate every case"
        )
    if results.get("errors"):
        warnings.append(
            f"{path}: {len(results['errors'])} item(s) ended without a verdict (errors): "
            "their tests get no gate from this run"
        )
    return warnings


def calibrate(
    baseline: Mapping[str, Any],
    reseeds: Sequence[Mapping[str, Any]] = (),
    margins: Margins = Margins(),
    profile: str | None = None,
) -> Calibration:
    """The gates of ``profile`` (default: the baseline run's) from the runs' records."""
    runs = [baseline, *reseeds]
    return Calibration(
        profile=profile or baseline["run"]["profile"],
        checklist=checklist_gates(runs, margins.checklist),
        comparison=comparison_tolerances(runs, margins.comparison),
        accuracy=accuracy_floors(runs, margins.accuracy),
        calibrated_on=calibrated_on(baseline),
    )


def checklist_gates(
    runs: Sequence[Mapping[str, Any]], margin: float
) -> dict[str, dict[str, float]]:
    """Per suite and test: the highest fail rate + ``margin``, rounded up, at most 100."""
    worst: dict[str, dict[str, float]] = {}
    for results in runs:
        for r in results.get("records", []):
            rate = r["fail_rate"] if r["fail_rate"] is not None else 0.0
            suite = worst.setdefault(r["suite"], {})
            suite[r["test"]] = max(suite.get(r["test"], 0.0), rate)
    return {
        suite: {test: float(min(100, math.ceil(rate + margin))) for test, rate in tests.items()}
        for suite, tests in worst.items()
    }


def comparison_tolerances(runs: Sequence[Mapping[str, Any]], margin: float) -> Comparison | None:
    """Per capability: the largest significant excess + ``margin``, rounded up to 5, at most
    100 (capabilities with none keep the profile's ``default``)."""
    comparisons = [c for results in runs for c in results.get("comparisons", [])]
    if not comparisons:
        return None
    worst: dict[str, float] = {}
    for c in comparisons:
        if c["p_adjusted"] is not None and c["p_adjusted"] <= c["alpha"] and c["delta"] > 0:
            worst[c["capability"]] = max(worst.get(c["capability"], 0.0), c["delta"])
    first = comparisons[0]
    return Comparison(
        baseline=first["baseline"],
        candidate=first["candidate"],
        alpha=first["alpha"],
        tolerances={
            cap: min(100, 5 * math.ceil((delta + margin) / 5))
            for cap, delta in sorted(worst.items())
        },
        measured={cap: round(delta, 1) for cap, delta in sorted(worst.items())},
    )


def accuracy_floors(runs: Sequence[Mapping[str, Any]], margin: float) -> dict[str, int]:
    """Per dataset: the lowest accuracy - ``margin``, rounded down, at least 0."""
    lowest: dict[str, float] = {}
    for results in runs:
        for a in results.get("accuracy", []):
            if a.get("accuracy") is not None:
                lowest[a["dataset"]] = min(lowest.get(a["dataset"], 100.0), a["accuracy"])
    return {dataset: max(0, math.floor(acc - margin)) for dataset, acc in lowest.items()}


def calibrated_on(results: Mapping[str, Any]) -> dict[str, str]:
    """The weights the run's zoo models had (zoo.json's ``weights_sha256``, leading 16 hex
    digits, every model of the zoo); empty for a run without zoo models.

    Read from the zoo the models were loaded from, or where that is gone (a results.json read
    on another machine) from the embedded zoo: either only if its recipe hash is the run's."""
    models = [m for m in results["run"]["models"] if m["model_id"].startswith("zoo:")]
    if not models:
        return {}
    roots = {Path(m["location"]).parents[1] for m in models}
    if len(roots) != 1:
        raise CalibrationError(f"expected the run's zoo models in one zoo, found {sorted(roots)}")
    card_path = roots.pop() / "zoo.json"
    if not card_path.is_file():
        from nlp_gate.zoo.embedded import WEIGHTS  # no torch: paths and sha256 only

        card_path = WEIGHTS / "zoo" / "zoo.json"
    card = json.loads(card_path.read_text())
    if card["recipe_hash"] not in {m["revision"] for m in models}:
        raise CalibrationError(
            f"the zoo at {card_path.parent} is not the run's (its recipe hash differs): "
            "calibrate on a run of the zoo now in place"
        )
    return {m["path"]: m["weights_sha256"][:16] for m in card["models"]}


def summary_lines(calibration: Calibration) -> list[str]:
    """Per suite (and released and native suites together) the share of gates at 100 (a test
    some model fails nearly always: recorded, not gated), and the measured comparison excess."""

    def share(values: list[float]) -> str:
        at_100 = sum(v >= 100 for v in values)
        return f"{at_100} of {len(values)} ({100 * at_100 / max(len(values), 1):.0f}%)"

    gates = calibration.checklist
    lines = [
        f"gates at 100, {suite}: {share(list(tests.values()))}" for suite, tests in gates.items()
    ]
    for label, native in (("released", False), ("native", True)):
        values = [
            v
            for suite, tests in gates.items()
            if suite.startswith("native_") == native
            for v in tests.values()
        ]
        if values:
            lines.append(f"gates at 100, all {label} suites: {share(values)}")
    if calibration.comparison is not None:
        measured = ", ".join(f"{c} {d}" for c, d in calibration.comparison.measured.items())
        lines.append(
            f"comparison {calibration.comparison.candidate} vs {calibration.comparison.baseline}, "
            f"largest significant excess per capability (points): {measured or 'none'}"
        )
    return lines
