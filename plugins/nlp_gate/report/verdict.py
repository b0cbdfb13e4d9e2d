"""The gate verdict as ``results.json`` records it: every gated record's ``passed`` flag, and
the run's own gates: how many attack items ran (``attacks.min_ran`` of thresholds.yaml,
recorded in the ``run`` block as ``attack_requirements``).

Items lost with a crashed xdist worker (results.json ``lost``) and items that ended without a
gate verdict (``errors``: an exception, a model refused at load) count as failed; a run refused
at start-up (``refused``) fails.  pytest's exit status covers what no record tells (an error
outside the gated items), so callers pass it along when they have it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nlp_gate.records import GATED

# results.json section -> what its records are, for the verdict line (the kinds' sections).
SECTIONS = {s.key: s.items for s in GATED}


@dataclass(frozen=True)
class ReleaseVerdict:
    counts: dict[str, tuple[int, int]]  # section -> (records, failed)
    exitstatus: int | None = None  # pytest's, when known
    attacks_ran: int = 0  # attack records with status "ran"
    problems: list[str] = field(default_factory=list)  # run gates missed
    lost: int = 0  # items whose worker died while running them
    # Items whose worker died but whose outcome came after all (xdist ran them again): in
    # their own section by that outcome; pytest's summary counts each crash as an error too.
    recovered: int = 0
    errored: int = 0  # items that ended without a gate verdict (results.json errors)
    no_results: str | None = None  # why the run has no gated record, when it has none

    @property
    def failed(self) -> int:
        return sum(f for _, f in self.counts.values()) + self.lost + self.errored

    @property
    def passed(self) -> bool:
        return self.failed == 0 and not self.problems and not self.exitstatus

    def line(self) -> str:
        parts = [
            f"{failed} of {n} {SECTIONS[s]} items over their gate"
            for s, (n, failed) in self.counts.items()
            if n
        ]
        attacks = self.counts.get("attacks", (0, 0))[0]
        if attacks:
            # A skipped attack passes no gate: say how many attacked anything at all.
            parts.append(f"{self.attacks_ran} of {attacks} attack items ran")
        if self.errored:
            parts.append(
                f"{self.errored} item{'s' * (self.errored > 1)} errored without a "
                "gate verdict (results.json errors), counted as failed"
            )
        if self.lost:
            parts.append(
                f"{self.lost} item{'s' * (self.lost > 1)} lost with a crashed "
                "worker, counted as failed"
            )
        if self.recovered:
            many = self.recovered > 1
            crashes = "the crashes as errors" if many else "the crash as an error"
            parts.append(
                f"{self.recovered} item{'s' * many} ran again after a worker crash, "
                f"counted once by {'their' if many else 'its'} outcome (pytest's "
                f"summary also counts {crashes})"
            )
        status = "PASSED" if self.passed else "FAILED"
        detail = "; ".join(parts + self.problems) or (
            f"no results in this run ({self.no_results})"
            if self.no_results
            else "no gated items ran"
        )
        if self.exitstatus and not self.failed and not self.problems:
            detail += f"; pytest exit status {self.exitstatus} (errors outside the gates)"
        return f"release gate {status}: {detail}"


def verdict(results: dict[str, Any], exitstatus: int | None = None) -> ReleaseVerdict:
    # passed None (a skipped attack, an ungated record) is not a gate failure.
    counts = {
        s: (len(results.get(s, [])), sum(r.get("passed") is False for r in results.get(s, [])))
        for s in SECTIONS
    }
    attacks = results.get("attacks", [])
    ran = sum(r.get("status") == "ran" for r in attacks)
    return ReleaseVerdict(
        counts,
        exitstatus,
        ran,
        _run_gate_problems(results, ran),
        len(results.get("lost", [])),
        len(results.get("recovered", [])),
        errored=len(results.get("errors", [])),
        no_results=results.get("no_results"),
    )


def _run_gate_problems(results: dict[str, Any], ran: int) -> list[str]:
    refused = results.get("refused")
    if refused:  # nothing ran: the start-up message is the whole story
        return [f"no results in this run (refused at start-up: {refused.splitlines()[0]})"]
    interrupted = (
        ["run interrupted: only the items that finished are recorded"]
        if results.get("interrupted")
        else []
    )
    return interrupted + _min_ran_problems(results, ran)


def _min_ran_problems(results: dict[str, Any], ran: int) -> list[str]:
    required = (results.get("run", {}).get("attack_requirements") or {}).get("min_ran")
    selected = len(results.get("attacks", []))
    if not required or not selected:
        return []
    needed = min(required, selected)  # a narrower selection must run all it selected
    if ran >= needed:
        return []
    return [
        (
            f"only {ran} attack items ran, {needed} required (thresholds.yaml "
            f"attacks.min_ran: {required}; the skipped items name what is missing)"
        )
    ]
