"""Faults lose nothing that finished.  An interrupted run: SIGTERM (a CI time-out) or SIGINT
(Ctrl-C) after the first items leaves a complete results.json marked ``"interrupted": true``
with those items' records, a non-zero exit, and a next run that reuses them and ends with the
same records as a run never interrupted (with and without xdist: records travel with each
item's report).  A killed xdist worker loses only the item it was running."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from fixtures.gate_run import REPO

pytestmark = pytest.mark.slow
SELECT = ("-m", "checklist and not native", "--nlp-sample", "20")


def _command(tmp: Path, name: str, workers: int) -> list[str]:
    return [sys.executable, "-m", "pytest", str(REPO / "tests_behavioral"), "--rootdir",
            str(REPO), "-c", str(REPO / "pyproject.toml"), "-p", "no:cacheprovider", "-v",
            "-n", str(workers), "--nlp-results", str(tmp / name / "results.json"),
            "--nlp-prediction-cache", str(tmp / "cache.sqlite"), *SELECT]


def _run_and_act(tmp: Path, name: str, workers: int, after: int,
                 act: Callable[[subprocess.Popen[str]], object]) -> tuple[int, str]:
    """Start a run, call ``act`` once ``after`` items have finished, return (exit, output)."""
    proc = subprocess.Popen(_command(tmp, name, workers), cwd=tmp, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    lines, finished, acted = [], 0, False
    for line in proc.stdout:
        lines.append(line)
        finished += bool(re.search(r" (PASSED|FAILED)", line))
        if finished >= after and not acted:
            act(proc)
            acted = True
    proc.wait(timeout=300)
    assert acted, f"the run ended before {after} items finished"
    return proc.returncode, "".join(lines)


def _key(record: dict) -> tuple[str, ...]:
    return record["suite"], record["test"], record["dataset"], record["model"]


@pytest.mark.parametrize(("workers", "sig"), [(0, signal.SIGTERM), (2, signal.SIGTERM),
                                              (0, signal.SIGINT)])
def test_interrupted_run_keeps_finished_items_and_the_next_run_completes_them(
        tmp_path: Path, workers: int, sig: signal.Signals) -> None:
    code, out = _run_and_act(tmp_path, "interrupted", workers, 3,
                             lambda proc: proc.send_signal(sig))
    assert code == pytest.ExitCode.INTERRUPTED, out[-3000:]
    results = json.loads((tmp_path / "interrupted" / "results.json").read_text())
    assert results["interrupted"] is True
    kept = {_key(r): r for r in results["records"]}
    assert kept, out[-3000:]
    assert "run interrupted: only the items that finished are recorded" in out
    assert (tmp_path / "interrupted" / "tables").is_dir()  # reports for what finished

    start = time.perf_counter()
    full = subprocess.run(_command(tmp_path, "next", workers), cwd=tmp_path, text=True,
                          capture_output=True, timeout=900)
    assert full.returncode in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), full.stdout
    after = json.loads((tmp_path / "next" / "results.json").read_text())
    assert after["interrupted"] is False and len(after["records"]) > len(kept)
    assert all(kept[_key(r)] == r for r in after["records"] if _key(r) in kept)
    reused = re.search(r"(\d+) stored outcomes reused", full.stdout)
    assert reused and int(reused.group(1)) >= 1, full.stdout[-2000:]
    assert time.perf_counter() - start < 900


def _children(pid: int) -> list[int]:
    """Direct child processes of ``pid`` (xdist's workers of a controller)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def test_killed_worker_is_a_reported_failure_and_the_other_records_are_kept(
        tmp_path: Path) -> None:
    """SIGKILL one xdist worker (as the OOM killer would) after items finished: the item it
    was running is reported as an error naming its model and the cause, and is counted as
    failed by the verdict (results.json ``lost``); every
    record that finished before (streamed) and after (the replacement worker) is written;
    the run exits non-zero."""
    code, out = _run_and_act(tmp_path, "killed", 2, 20,
                             lambda proc: os.kill(_children(proc.pid)[0], signal.SIGKILL))
    assert code == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    # xdist's message is printed in the error section and, on a wide terminal, again in the
    # short summary: one lost item per distinct node id.
    crashed = list(dict.fromkeys(
        re.findall(r"worker '(gw\d)' crashed while running '([^']+)'", out)))
    assert crashed, out[-3000:]
    results = json.loads((tmp_path / "killed" / "results.json").read_text())
    assert results["interrupted"] is False
    # Reported as an error of the run that names the lost item's model, and in the verdict.
    lost = results["lost"]
    assert [x["item"] for x in lost] == [item for _, item in crashed]
    for x in lost:
        model = re.search(r"/(\w+/\w+)\]", x["item"]).group(1)  # ...[suite/test/sst2/bert]
        assert x["models"] == [model]
        assert f"nlp-gate: item lost, model {model}: its worker process died" in out
    assert re.search(rf"^ERROR .*{re.escape(crashed[0][1])}", out, re.M), out[-3000:]
    assert (f"{len(lost)} item{'s' * (len(lost) > 1)} lost with a crashed worker, counted "
            "as failed") in out
    assert "release gate FAILED" in out
    recorded = {f"{r['dataset']}/{r['model']}" for r in results["records"]}
    assert len(recorded) >= 2  # the killed worker's models and the other worker's
    total = int(re.search(r"workers \[(\d+) items\]", out).group(1))
    # Every item has its record except the ones that crashed (xdist does not re-run those).
    assert len(results["records"]) >= total - len(crashed)
