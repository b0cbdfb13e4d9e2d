"""``thresholds.yaml``: read once per run into its per-profile sections.

Schema::

    profiles:
      <profile>:
        <section>: ...          # one per item kind: checklist, accuracy, comparison, attacks
        calibrated_on: {...}    # zoo model path -> leading hex digits of its weights' sha256

Each item kind parses and validates its own section (``ItemKind.parse_gates``) with the
helpers below, so every section reports unknown names and bad percentages the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from nlp_gate.config import ConfigurationError, read_yaml

CALIBRATED_ON = "calibrated_on"


class ThresholdsError(ConfigurationError):
    """An invalid thresholds file; the message lists the valid names."""


class Thresholds:
    """One profile's sections of a thresholds file."""

    def __init__(self, path: Path, profile: str, sections: Mapping[str, Any]) -> None:
        self.path = path
        self.profile = profile
        self._sections = sections
        # The gates came from CLI_GATES, not from ``path`` (a --nlp-model run whose thresholds
        # file is absent or has no `cli` profile): the run header and results.json say so.
        self.builtin = False

    @property
    def where(self) -> str:
        """How messages name this file and profile."""
        return f"{self.path} (profile {self.profile!r})"

    @property
    def calibrated_on(self) -> Mapping[str, str]:
        """Zoo model path -> leading hex digits of the weights the gates were calibrated on."""
        return self._sections.get(CALIBRATED_ON) or {}

    def section(self, name: str) -> Mapping[str, Any]:
        """The raw body of a section (``{}`` when absent), for the item kind that owns it."""
        return self._sections.get(name) or {}


def load_thresholds(path: Path, profile: str, sections: Iterable[str]) -> Thresholds:
    """Read ``path``'s gates for ``profile``; ``sections``: the item kinds' section names."""
    return _profile_gates(
        path, read_yaml(path, "thresholds file", ThresholdsError) or {}, profile, sections
    )


def _profile_gates(path: Path, raw: Any, profile: str, sections: Iterable[str]) -> Thresholds:
    """``profile``'s gates of the thresholds file ``path`` that parsed to ``raw``."""
    if not isinstance(raw, dict):
        raise ThresholdsError(f"{path}: expected a mapping with a 'profiles' key")
    profiles = raw.get("profiles") or {}
    if profile not in profiles:
        raise ThresholdsError(
            f"{path} has no gates for profile {profile!r}; profiles with gates: "
            f"{', '.join(profiles) or 'none'}. Add a 'profiles: {profile}:' section."
        )
    body = profiles[profile] or {}
    valid = [*sections, CALIBRATED_ON]
    unknown = set(body) - set(valid)
    if unknown:
        raise ThresholdsError(
            f"{path}: unknown section(s) {sorted(unknown)} in profile "
            f"{profile!r}; valid: {', '.join(valid)}"
        )
    thresholds = Thresholds(path, profile, body)
    raise_problems(
        thresholds.where,
        [
            # Not checked against the profile's models: a models file may use a subset of the zoo.
            f"calibrated_on {name!r}: expected the leading hex digits (8 or more) of zoo.json's "
            f"weights_sha256, got {digest!r}"
            for name, digest in thresholds.calibrated_on.items()
            if not (
                isinstance(digest, str)
                and len(digest) >= 8
                and all(c in "0123456789abcdef" for c in digest)
            )
        ],
    )
    return thresholds


# -- helpers every section's parser uses ----------------------------------------------------
def is_percent(value: Any) -> bool:
    """A number in [0, 100] (percent or percentage points); booleans are not numbers here."""
    return is_number(value) and 0 <= value <= 100


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def percent_problems(what: str, values: Iterable[Any], unit: str = "a percentage") -> list[str]:
    """One message per value that is not in [0, 100] (``None``: not given, fine)."""
    return [
        f"{what} must be {unit} in [0, 100], got {v!r}"
        for v in values
        if v is not None and not is_percent(v)
    ]


def unknown_names(what: str, given: Iterable[Any], valid: Iterable[str]) -> list[str]:
    valid = set(valid)
    return [
        f"unknown {what} {name!r}; valid: {', '.join(sorted(valid))}"
        for name in given
        if name not in valid
    ]


def raise_problems(where: str, problems: list[str]) -> None:
    """Report every problem of a section at once, or nothing."""
    if problems:
        raise ThresholdsError(f"{where}:\n  " + "\n  ".join(problems))


# Gates of a --nlp-model run whose thresholds file has no `cli` profile: the packaged paper
# profile's release criteria for real checkpoints, without its dataset names.
CLI_GATES: dict[str, Any] = {
    "checklist": {
        "default": 30,
        "capabilities": {
            "Vocabulary": 30,
            "Taxonomy": 40,
            "Robustness": 15,
            "NER": 15,
            "Fairness": 10,
            "Temporal": 30,
            "Negation": 50,
            "Coref": 50,
            "SRL": 50,
            "Logic": 50,
        },
    },
    "accuracy": {"min_accuracy": 85},
    "comparison": {
        "alpha": 0.05,
        "tolerance": {"default": 2, "capabilities": {"Fairness": 0, "Robustness": 1}},
    },
    "attacks": {"default": {"max_attack_success_rate": 90}},
}


def cli_thresholds(
    path: Path, profile: str, pairs: list[tuple[str, str]], sections: Iterable[str]
) -> Thresholds:
    """The gates of a ``--nlp-model`` run: ``path``'s ``profile`` section when it has one, else
    ``CLI_GATES``; ``pairs``: (baseline, candidate) when two models share a task, compared."""
    raw = read_yaml(path, "thresholds file", ThresholdsError) if path.is_file() else {}
    if isinstance(raw, dict) and profile in (raw.get("profiles") or {}):
        return _profile_gates(path, raw, profile, sections)
    body = {name: dict(section) for name, section in CLI_GATES.items()}
    if pairs:
        body["comparison"].update(baseline=pairs[0][0], candidate=pairs[0][1])
    gates = Thresholds(path, profile, body)
    gates.builtin = True
    return gates
