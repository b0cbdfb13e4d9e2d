"""A killed xdist worker (SIGKILL to one worker process, as the out-of-memory killer sends)
counts each item once.  xdist reports the item the worker was running as an error; under
``--dist loadgroup`` (this project's default) it runs that item again, with the rest of the
model's items, on another worker, and the item is counted by that outcome (results.json
``recovered`` names it); under ``--dist load`` it does not, and the item is ``lost``.  Either
way results.json's records and lost items add up to the items of the run, and so does the
verdict line, and the run ends without a verdict (exit 3): a worker died."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest

from fixtures.slow_items import SlowRun
from nlp_gate.report.verdict import NO_VERDICT

pytestmark = pytest.mark.slow


def _key(record: dict) -> tuple[str, ...]:
    return record["suite"], record["test"], record["dataset"], record["model"]


@pytest.mark.parametrize("dist", ["loadgroup", "load"])
def test_a_killed_worker_counts_each_item_once(tmp_path: Path, dist: str) -> None:
    run = SlowRun(tmp_path, 2, "--dist", dist)
    out = run.act_after(3, lambda: os.kill(run.item_process(), signal.SIGKILL))
    # The crash is an error of the run (no verdict) whatever became of its item.
    assert run.proc.returncode == NO_VERDICT, out[-3000:]
    crashed = set(re.findall(r"worker '(?:gw\d+)' crashed while running '([^']+)'", out))
    assert len(crashed) == 1, out[-3000:]
    item = crashed.pop()
    model = "sst2/lexicon"
    assert re.search(rf"^ERROR .*{re.escape(item)}", out, re.M), out[-3000:]
    assert f"nlp-gate: item lost, model {model}: its worker process died" in out

    results = run.json()
    assert results["interrupted"] is False
    records, lost = results["records"], results.get("lost", [])
    assert len({_key(r) for r in records}) == len(records)  # no item recorded twice
    total = int(re.search(r"workers \[(\d+) items\]", out).group(1))
    assert len(records) + len(lost) == total, (len(records), lost, total)
    n = len(records)  # SlowRun's gates are 100: recorded, not gated
    line = f"release gate NO VERDICT: {n} CheckList item{'s' * (n != 1)} recorded, not gated"
    line += " (gate 100)"
    if dist == "loadgroup":  # run again on the other worker: its record is its outcome
        assert not lost
        assert [(x["item"], x["models"]) for x in results["recovered"]] == [(item, [model])]
        assert (
            f"{line}; 1 item ran again after a worker crash, counted once by its outcome "
            "(pytest's summary also counts the crash as an error)" in out
        ), out[-3000:]
    else:  # not run again: lost
        assert [(x["item"], x["models"]) for x in lost] == [(item, [model])]
        assert "recovered" not in results
        assert f"{line}; 1 item lost with a crashed worker" in out, out[-3000:]
    assert results["verdict"] == "no_verdict" and results["exitstatus"] == NO_VERDICT
