"""Calibrate a thresholds.yaml profile on a baseline run: ``nlp-gate-calibrate`` (or
``python -m nlp_gate.calibrate``).

    nlp-gate-calibrate reports/results.json [--reseed RESULTS]... [--profile NAME]
                       [--thresholds thresholds.yaml] [--margin 5] [--comparison-margin 10]
                       [--accuracy-margin 5]

The rules are in ``rules.py``; ``profile_values`` says which keys of the profile they set, and
``write_profile`` sets them in a thresholds file, leaving the rest of it (other profiles,
sections and keys, comments) as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nlp_gate.calibrate.rules import (
    Calibration,
    CalibrationError,
    Margins,
    calibrate,
    read_run,
    run_warnings,
    summary_lines,
)
from nlp_gate.calibrate.yaml_text import YamlTextError, set_values
from nlp_gate.config import read_yaml
from nlp_gate.config.thresholds import ThresholdsError, is_number

__all__ = [
    "Calibration",
    "CalibrationError",
    "Margins",
    "calibrate",
    "profile_document",
    "profile_values",
    "read_run",
    "run_warnings",
    "summary_lines",
    "write_profile",
]

Values = list[tuple[tuple[str, ...], Any]]


def profile_values(calibration: Calibration, existing: Mapping[str, Any]) -> Values:
    """The (key path, value) pairs the calibration sets in a thresholds file whose profile is
    ``existing`` (``{}`` when new).  What it measured is replaced whole, per key: each suite's
    ``checklist.tests``, ``comparison.tolerance.capabilities``, each dataset's
    ``accuracy.datasets`` entry, ``calibrated_on``.  The comparison's ``baseline``,
    ``candidate`` and ``alpha`` are written only where the profile has none.  Everything else
    (defaults, overrides, attack gates, other suites' tests) stays as set."""
    base = ("profiles", calibration.profile)
    values: Values = [
        ((*base, "checklist", "tests", suite), gates)
        for suite, gates in calibration.checklist.items()
    ]
    comparison = calibration.comparison
    if comparison is not None:
        present = existing.get("comparison") or {}
        values += [
            ((*base, "comparison", key), value)
            for key, value in (
                ("baseline", comparison.baseline),
                ("candidate", comparison.candidate),
                ("alpha", comparison.alpha),
            )
            if key not in present
        ]
        tolerance = present.get("tolerance")
        if is_number(tolerance):  # one number for every capability: it becomes the default
            values.append(
                (
                    (*base, "comparison", "tolerance"),
                    {"default": tolerance, "capabilities": comparison.tolerances},
                )
            )
        else:
            values.append(
                ((*base, "comparison", "tolerance", "capabilities"), comparison.tolerances)
            )
    values += [
        ((*base, "accuracy", "datasets", dataset), floor)
        for dataset, floor in calibration.accuracy.items()
    ]
    if calibration.calibrated_on:
        values.append(((*base, "calibrated_on"), calibration.calibrated_on))
    return values


def profile_document(calibration: Calibration) -> str:
    """A thresholds file holding the calibrated profile alone."""
    return set_values("", profile_values(calibration, {}))


def write_profile(calibration: Calibration, path: Path) -> None:
    """Set the calibrated gates in the thresholds file ``path`` (created when absent)."""
    text, existing = "", None  # a new file
    if path.exists():
        try:  # the plugin's own reading: one line naming the file, line and column
            existing = read_yaml(path, "thresholds file", ThresholdsError)
        except ThresholdsError as exc:
            raise CalibrationError(str(exc)) from None
        text = path.read_text()
    profiles = existing.get("profiles") if isinstance(existing, dict) else None
    profile = (profiles or {}).get(calibration.profile) if isinstance(profiles, dict) else None
    try:
        updated = set_values(text, profile_values(calibration, profile or {}))
    except YamlTextError as exc:
        raise CalibrationError(
            f"{path}: cannot set the gates of profile {calibration.profile!r}: {exc}"
        ) from None
    partial = path.with_name(path.name + ".partial")  # never half a thresholds file
    partial.write_text(updated)
    partial.replace(path)
