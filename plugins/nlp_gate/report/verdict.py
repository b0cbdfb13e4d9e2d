"""The release verdict as ``results.json`` records it (its ``verdict`` field), one of three:

* ``passed``: every gate held, and nothing else went wrong;
* ``failed``: at least one gate was missed (a record's ``passed`` is false, or a run gate a
  kind's part judges over all its records: ``ReportPart.run_problems``), and nothing else
  went wrong;
* ``no_verdict``: something else went wrong, whatever the gates said: an item that ended
  without a gate verdict (``errors``: an exception, a model refused at load), one lost with a
  crashed xdist worker (``lost``, or ``recovered``: its worker died though xdist ran it again),
  a failure that was no gate's (``other_failures``: a test that is not a gated item, a
  teardown error), a run refused at start-up, interrupted, or whose files could not be
  written, or any exit status of pytest's but 0 and 1.

The run exits 1 for ``failed`` and 3 for ``no_verdict`` where pytest said 0 or 1
(``exit_status``; results.json ``exitstatus`` records what it exited with).  Records of a
gate that cannot be missed ("recorded, not gated": ``ReportPart.recorded``) pass, and the
verdict line counts them apart.  Each section's counts and words come from its kind's part
(``nlp_gate.report.parts``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from nlp_gate.report.parts import part_for, report_parts

Status = Literal["passed", "failed", "no_verdict"]
WORDS: dict[Status, str] = {"passed": "PASSED", "failed": "FAILED", "no_verdict": "NO VERDICT"}
# The exit status of a run without a verdict where pytest would say 0 or 1 (pytest's own
# INTERNAL_ERROR is 3 too: no verdict either).
NO_VERDICT = 3


@dataclass(frozen=True)
class ReleaseVerdict:
    counts: dict[str, tuple[int, int]]  # section -> (records, failed)
    exitstatus: int | None = None  # pytest's, when known
    # What the sections say besides their counts (e.g. how many of them ran).
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # run gates missed
    lost: int = 0  # items whose worker died while running them
    # Items whose worker died but whose outcome came after all (xdist ran them again): in
    # their own section by that outcome; pytest's summary counts each crash as an error too.
    recovered: int = 0
    errored: int = 0  # items that ended without a gate verdict (results.json errors)
    no_results: str | None = None  # why the run has no gated record, when it has none
    recorded: dict[str, int] = field(default_factory=dict)  # section -> recorded, not gated
    other_failures: int = 0  # failed reports that were no gate's (results.json other_failures)
    # What stopped the run short of a verdict: refused, interrupted, files not written.
    faults: list[str] = field(default_factory=list)

    @property
    def missed(self) -> int:
        """Gated records over their gate."""
        return sum(f for _, f in self.counts.values())

    @property
    def failed(self) -> int:
        """Items counted as failed: over their gate, errored or lost."""
        return self.missed + self.lost + self.errored

    @property
    def status(self) -> Status:
        went_wrong = (
            self.errored
            or self.lost
            or self.recovered
            or self.other_failures
            or self.faults
            or self.exitstatus not in (None, 0, 1)
        )
        if went_wrong:
            return "no_verdict"
        if self.missed or self.problems:
            return "failed"
        # Exit 1 with every gate held: a failure outside the gates the records do not name.
        return "no_verdict" if self.exitstatus else "passed"

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def word(self) -> str:
        """PASSED, FAILED or NO VERDICT."""
        return WORDS[self.status]

    def line(self) -> str:
        parts = []
        for s, (n, failed) in self.counts.items():
            recorded = self.recorded.get(s, 0)
            items = part_for(s).section.items
            if n - recorded:
                parts.append(f"{failed} of {n - recorded} {items} items over their gate")
            if recorded:
                parts.append(
                    f"{recorded} {items} item{'s' * (recorded > 1)} recorded, not gated (gate 100)"
                )
        parts += self.notes
        if self.errored:
            parts.append(
                f"{self.errored} item{'s' * (self.errored > 1)} errored without a "
                "gate verdict (results.json errors)"
            )
        if self.lost:
            parts.append(f"{self.lost} item{'s' * (self.lost > 1)} lost with a crashed worker")
        if self.recovered:
            many = self.recovered > 1
            crashes = "the crashes as errors" if many else "the crash as an error"
            parts.append(
                f"{self.recovered} item{'s' * many} ran again after a worker crash, "
                f"counted once by {'their' if many else 'its'} outcome (pytest's "
                f"summary also counts {crashes})"
            )
        if self.other_failures:
            parts.append(
                f"{self.other_failures} failure{'s' * (self.other_failures > 1)} outside the "
                "gates (results.json other_failures)"
            )
        detail = "; ".join(parts + self.problems + self.faults) or (
            f"no results in this run ({self.no_results})"
            if self.no_results
            else "no gated items ran"
        )
        if self.exitstatus and not (
            self.failed or self.problems or self.faults or self.other_failures
        ):
            detail += f"; pytest exit status {self.exitstatus} (errors outside the gates)"
        return f"release gate {self.word}: {detail}"


def verdict(results: dict[str, Any], exitstatus: int | None = None) -> ReleaseVerdict:
    """The verdict on ``results``; ``exitstatus`` (pytest's) defaults to the one it records."""
    if exitstatus is None:
        exitstatus = results.get("exitstatus")
    parts = report_parts()
    # passed None (a skipped attack, an ungated record) is not a gate failure.
    counts = {
        p.key: (len(rows), sum(r.get("passed") is False for r in rows))
        for p in parts
        for rows in [p.records(results)]
    }
    return ReleaseVerdict(
        counts,
        exitstatus,
        notes=[note for p in parts for note in p.verdict_notes(results)],
        problems=[problem for p in parts for problem in p.run_problems(results)],
        lost=len(results.get("lost", [])),
        recovered=len(results.get("recovered", [])),
        errored=len(results.get("errors", [])),
        no_results=results.get("no_results"),
        recorded={p.key: n for p in parts if (n := sum(map(p.recorded, p.records(results))))},
        other_failures=len(results.get("other_failures", [])),
        faults=_faults(results),
    )


def exit_status(pytest_status: int, status: Status) -> int:
    """The run's exit status: pytest's 2, 4, 5 (interrupted, refused, nothing collected) as
    they are; for its 0 and 1, the verdict's: 0 passed, 1 failed, 3 no verdict."""
    if pytest_status not in (0, 1):
        return pytest_status
    return {"passed": 0, "failed": 1, "no_verdict": NO_VERDICT}[status]


def with_verdict(results: dict[str, Any], exitstatus: int | None = None) -> dict[str, Any]:
    """``results`` with its ``verdict`` field (after ``schema``), as results.json writes it."""
    rest = {k: v for k, v in results.items() if k not in ("schema", "verdict")}
    status = verdict(rest, exitstatus).status
    return {"schema": results.get("schema"), "verdict": status, **rest}


def _faults(results: dict[str, Any]) -> list[str]:
    refused = results.get("refused")
    if refused:  # nothing ran: the start-up message is the whole story
        return [f"no results in this run (refused at start-up: {refused.splitlines()[0]})"]
    if results.get("interrupted"):
        return ["run interrupted: only the items that finished are recorded"]
    return []
