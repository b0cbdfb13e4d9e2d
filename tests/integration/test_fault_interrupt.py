"""Faults lose nothing that finished.  An interrupted run: SIGTERM (a CI time-out) or SIGINT
(Ctrl-C) after the first items leaves a complete results.json marked ``"interrupted": true``
with those items' records, a non-zero exit, and a next run that reuses them and ends with the
same records as a run never interrupted (with and without xdist: records travel with each
item's report).  A signal to the whole process group: tests/integration/test_fault_signals.py; a
killed xdist worker: tests/integration/test_fault_worker_kill.py."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from fixtures.gate_run import REPO

pytestmark = pytest.mark.slow
SELECT = ("-m", "checklist and not native", "--nlp-sample", "20")


def _command(tmp: Path, name: str, workers: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        str(REPO / "tests_behavioral"),
        "--rootdir",
        str(REPO),
        "-c",
        str(REPO / "pyproject.toml"),
        "-p",
        "no:cacheprovider",
        "-v",
        "-n",
        str(workers),
        "--nlp-results",
        str(tmp / name / "results.json"),
        "--nlp-prediction-cache",
        str(tmp / "cache.sqlite"),
        *SELECT,
    ]


def _run_and_act(
    tmp: Path, name: str, workers: int, after: int, act: Callable[[subprocess.Popen[str]], object]
) -> tuple[int, str]:
    """Start a run, call ``act`` once ``after`` items have finished, return (exit, output)."""
    proc = subprocess.Popen(
        _command(tmp, name, workers),
        cwd=tmp,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert proc.stdout is not None
    lines, finished, acted = [], 0, False
    for line in proc.stdout:
        lines.append(line)
        finished += bool(re.search(r" (PASSED|FAILED|RECORDED)", line))
        if finished >= after and not acted:
            act(proc)
            acted = True
    proc.wait(timeout=300)
    assert acted, f"the run ended before {after} items finished"
    return proc.returncode, "".join(lines)


def _key(record: dict) -> tuple[str, ...]:
    return record["suite"], record["test"], record["dataset"], record["model"]


@pytest.mark.parametrize(
    ("workers", "sig"), [(0, signal.SIGTERM), (2, signal.SIGTERM), (0, signal.SIGINT)]
)
def test_interrupted_run_keeps_finished_items_and_the_next_run_completes_them(
    tmp_path: Path, workers: int, sig: signal.Signals
) -> None:
    code, out = _run_and_act(
        tmp_path, "interrupted", workers, 3, lambda proc: proc.send_signal(sig)
    )
    assert code == pytest.ExitCode.INTERRUPTED, out[-3000:]
    results = json.loads((tmp_path / "interrupted" / "results.json").read_text())
    assert results["interrupted"] is True
    kept = {_key(r): r for r in results["records"]}
    assert kept, out[-3000:]
    assert "run interrupted: only the items that finished are recorded" in out
    assert (tmp_path / "interrupted" / "tables").is_dir()  # reports for what finished

    full = subprocess.run(
        _command(tmp_path, "next", workers),
        cwd=tmp_path,
        text=True,
        capture_output=True,
        timeout=900,
    )
    assert full.returncode in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), full.stdout
    after = json.loads((tmp_path / "next" / "results.json").read_text())
    assert after["interrupted"] is False and len(after["records"]) > len(kept)
    assert all(kept[_key(r)] == r for r in after["records"] if _key(r) in kept)
    # Every item the interrupted run recorded is answered from its stored outcome, not run
    # again (items that finished after the signal, unrecorded, may add to the count).
    reused = re.search(r"(\d+) stored outcomes reused", full.stdout)
    assert reused and int(reused.group(1)) >= len(kept), full.stdout[-2000:]
