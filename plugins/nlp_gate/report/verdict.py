"""The gate verdict as ``results.json`` records it: every gated record's ``passed`` flag.

Items that never produced a record (a model refused to load, a missing resource) are not in
here; pytest's exit status covers them, so callers pass it along when they have it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# results.json section -> what its records are, for the verdict line.
SECTIONS = {"records": "CheckList", "attacks": "attack", "accuracy": "accuracy",
            "comparisons": "comparison"}


@dataclass(frozen=True)
class ReleaseVerdict:
    counts: dict[str, tuple[int, int]]  # section -> (records, failed)
    exitstatus: int | None = None  # pytest's, when known

    @property
    def failed(self) -> int:
        return sum(f for _, f in self.counts.values())

    @property
    def passed(self) -> bool:
        return self.failed == 0 and not self.exitstatus

    def line(self) -> str:
        parts = [f"{failed} of {n} {SECTIONS[s]} items over their gate"
                 for s, (n, failed) in self.counts.items() if n]
        status = "PASSED" if self.passed else "FAILED"
        detail = "; ".join(parts) or "no gated items ran"
        if self.exitstatus and not self.failed:
            detail += f"; pytest exit status {self.exitstatus} (errors outside the gates)"
        return f"release gate {status}: {detail}"


def verdict(results: dict[str, Any], exitstatus: int | None = None) -> ReleaseVerdict:
    # passed None (a skipped attack, an ungated record) is not a gate failure.
    counts = {s: (len(results.get(s, [])),
                  sum(r.get("passed") is False for r in results.get(s, [])))
              for s in SECTIONS}
    return ReleaseVerdict(counts, exitstatus)
