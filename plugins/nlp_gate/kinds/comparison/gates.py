"""The comparison section of ``thresholds.yaml``, checked and read into a ``ComparisonConfig``.

Separate from the comparison kind (``nlp_gate.kinds.comparison``) because it is plain
validation: it needs neither pytest nor the run, only the section, the command line's two
names and the profile's model and capability names, and its tests call it on its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nlp_gate.config.thresholds import (
    is_number,
    percent_problems,
    raise_problems,
    unknown_names,
)
from nlp_gate.kinds.comparison.stats import ComparisonConfig

__all__ = ["DEFAULT_ALPHA", "SECTION_KEYS", "parse_config"]

SECTION_KEYS = ("baseline", "candidate", "reseeds", "alpha", "tolerance")
DEFAULT_ALPHA = 0.05


def parse_config(
    section: Mapping[str, Any],
    baseline: str | None,
    candidate: str | None,
    models: set[str],
    capabilities: set[str],
    where: str,
) -> ComparisonConfig | None:
    """The comparison section with the command line's names; None when nothing is declared."""
    problems = [
        f"unknown key {k!r} in the comparison section; valid: {', '.join(SECTION_KEYS)}"
        for k in section
        if k not in SECTION_KEYS
    ]
    baseline = baseline or section.get("baseline")
    candidate = candidate or section.get("candidate")
    if baseline is None and candidate is None and not problems:
        return None
    for role, name in (("baseline", baseline), ("candidate", candidate)):
        if name is None:
            problems.append(f"no {role} declared: pass --nlp-{role} or set comparison.{role}")
        elif name not in models:
            problems.append(f"unknown {role} model {name!r}; valid: {', '.join(sorted(models))}")
    reseeds = section.get("reseeds") or []
    if not isinstance(reseeds, list) or not all(isinstance(r, str) for r in reseeds):
        problems.append(f"comparison.reseeds must be a list of model names, got {reseeds!r}")
        reseeds = []
    problems += [
        f"unknown reseed model {r!r}; valid: {', '.join(sorted(models))}"
        for r in reseeds
        if r not in models
    ]
    problems += [
        f"comparison.reseeds names the {role} {r!r}: a reseed is another training of the baseline"
        for r in reseeds
        for role, name in (("baseline", baseline), ("candidate", candidate))
        if r == name
    ]
    alpha = section.get("alpha", DEFAULT_ALPHA)
    if not is_number(alpha) or not 0 < alpha < 1:
        problems.append(f"comparison.alpha must be in (0, 1), got {alpha!r}")
    tolerance = section.get("tolerance") or {}
    if is_number(tolerance):
        tolerance = {"default": tolerance}
    if not isinstance(tolerance, Mapping) or set(tolerance) - {"default", "capabilities"}:
        problems.append(
            "comparison.tolerance must be a number or a mapping with keys "
            f"default, capabilities; got {tolerance!r}"
        )
        tolerance = {}
    per_capability: Mapping[str, Any] = tolerance.get("capabilities") or {}
    problems += unknown_names("comparison.tolerance capability", per_capability, capabilities)
    default = tolerance.get("default", 0)
    problems += percent_problems(
        "a tolerance", [default, *per_capability.values()], unit="percentage points"
    )
    raise_problems(where, problems)
    return ComparisonConfig(
        str(baseline),
        str(candidate),
        float(alpha),
        float(default),
        {c: float(v) for c, v in per_capability.items()},
        tuple(reseeds),
    )
