"""The built zoo's card (``zoo.json``) and its drift from the zoo the gates were calibrated on.

What the run's header says of the zoo (its recipe hash, the models whose weights differ from
``calibrated_on``) and the note a drifted model's gate miss gets.  Separate from the run
(``nlp_gate.run``): it only reads the run's options, profile and gates, which
``ZooRun`` names, so the run holds one ``ZooDrift`` and hands the kinds its ``drift_note``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from nlp_gate.config.options import Options
    from nlp_gate.config.specs import ModelSpec, Profile
    from nlp_gate.config.thresholds import Thresholds

__all__ = ["ZooDrift", "ZooRun"]


class ZooRun(Protocol):
    """What of the run the zoo's drift reads (``Run`` is one)."""

    @property
    def options(self) -> Options: ...

    @property
    def profile(self) -> Profile: ...

    @property
    def thresholds(self) -> Thresholds: ...


class ZooDrift:
    """The run's zoo card, read once it exists, and the zoo models it shows drifted."""

    def __init__(self, run: ZooRun) -> None:
        self.run = run
        self._zoo_card: dict[str, Any] | None = None

    def zoo_card(self) -> dict[str, Any] | None:
        """The zoo's ``zoo.json``, read once it exists (the header may come before the build)."""
        if self._zoo_card is None:
            path = self.run.options.zoo_dir / "zoo.json"
            self._zoo_card = json.loads(path.read_text()) if path.is_file() else None
        return self._zoo_card

    def zoo_drift(self) -> dict[str, str]:
        """Zoo models whose built weights are not those the gates were calibrated on.

        The zoo is bit-reproducible only under the CPU numerics its recipe pins; a build
        elsewhere (another CPU architecture) may train other weights.  Naming that next to a
        gate miss tells the user the miss may come from the build, not from a regression.
        Model key -> explanation; empty before the zoo is built or without ``calibrated_on``.
        """
        calibrated = self.run.thresholds.calibrated_on
        card = self.zoo_card() if calibrated else None
        if card is None:
            return {}
        built = {m["path"]: m["weights_sha256"] for m in card["models"]}
        drift: dict[str, str] = {}
        for spec in self.run.profile.models:
            path = spec.source.removeprefix("zoo:")
            want, got = calibrated.get(path), built.get(path)
            if spec.is_zoo and want and got and not got.startswith(want):
                drift[spec.key] = (
                    f"zoo model {path} has weights {got[:12]}, but "
                    f"{self.run.options.thresholds.name} was calibrated on {want}"
                )
        return drift

    def drift_note(self, spec: ModelSpec) -> str:
        """What to append to a gate miss of a drifted zoo model (empty otherwise)."""
        drift = self.zoo_drift().get(spec.key)
        return (
            f"\nnote: {drift}: this zoo was built with other numerics "
            "(docs/measurements/calibration.md); the miss may come from the build"
            if drift
            else ""
        )
