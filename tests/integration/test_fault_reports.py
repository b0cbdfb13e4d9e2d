"""A reports folder that cannot take the reports (a file where the folder should be, a full
disk): one message naming the path and the reason, the verdict line from the run's records,
no verdict (exit 3), no ``results.<pid>.tmp`` left and no earlier run's results.json standing
in, with ``-n 0`` and ``-n 2`` (before: a traceback from pytest_sessionfinish, no verdict line,
and on a full disk the temporary file left behind).

Root ignores file modes, so a read-only folder cannot be made here; a full disk is a small
tmpfs, mounted when this process may mount (else that test is skipped, saying why)."""

from __future__ import annotations

import errno
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.function_repo import function_repo, run_repo
from fixtures.gate_run import GateRun, RunGate
from fixtures.user_repo import LABELS, write_gates, write_models
from nlp_gate.report.verdict import NO_VERDICT

SELECT = ["-m", "fairness and not native", "--nlp-sample", "20", "--nlp-prediction-cache", "off"]


def _model(tmp: Path) -> list[str]:
    """A models file whose one sst2 model is the lexicon fixture's classifier."""
    models = write_models(
        tmp / "models.yaml",
        {
            "lexicon": {
                "predict": "fixtures.lexicon_model:predict_proba",
                "fingerprint": "1",
                "labels": LABELS,
            }
        },
    )
    gates = write_gates(tmp / "gates.yaml", {"checklist": {"default": 100}})
    return ["--nlp-models-file", str(models), "--nlp-thresholds", str(gates)]


def _reported(run: GateRun, path: Path, reason: str) -> str:
    out = run.result.stdout.str() + run.result.stderr.str()
    assert run.result.ret == NO_VERDICT, out[-3000:]  # no verdict: the evidence is missing
    assert "Traceback" not in out and "INTERNALERROR" not in out, out[-3000:]
    message = next(
        (line for line in out.splitlines() if line.startswith("nlp-gate: reports not written: ")),
        None,
    )
    assert message is not None, out[-3000:]
    assert str(path) in message and reason in message, message
    # The verdict of the run's 4 items (gates of 100: recorded), from memory: none, for want
    # of its record.
    verdict = next(line for line in out.splitlines() if line.startswith("release gate "))
    assert verdict.startswith(
        "release gate NO VERDICT: 4 CheckList items recorded, not gated (gate 100); "
        "results.json not written"
    ), verdict
    return out


@pytest.mark.parametrize("workers", [0, 2])
def test_a_file_where_the_reports_folder_should_be(
    run_gate: RunGate, tmp_path: Path, workers: int
) -> None:
    reports = tmp_path / "reports"
    reports.write_text("not a folder\n")
    run = run_gate(
        *_model(tmp_path), *SELECT, "--nlp-results", str(reports / "results.json"), workers=workers
    )
    _reported(run, reports / "results.json", "File exists")
    assert reports.read_text() == "not a folder\n"
    assert not list(tmp_path.rglob("*.tmp"))


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs (unmounted afterwards)."""
    where = tmp_path / "disk"
    where.mkdir()
    mount = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if mount.returncode:
        pytest.skip(
            f"cannot mount a tmpfs to fill (not root, or no CAP_SYS_ADMIN): {mount.stderr.strip()}"
        )
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True)


def _fill(folder: Path) -> None:
    """Take every free block of ``folder``'s file system."""
    with (folder / "filler").open("wb", buffering=0) as f:  # no buffer to flush at close
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC


@pytest.mark.parametrize("workers", [0, 2])
def test_a_full_disk_under_the_reports_folder(
    run_gate: RunGate, full_disk: Path, tmp_path: Path, workers: int
) -> None:
    model = _model(tmp_path)
    results = full_disk / "reports" / "results.json"
    earlier = run_gate(*model, *SELECT, "--nlp-results", str(results), workers=workers)
    assert earlier.result.ret == pytest.ExitCode.OK, earlier.result.stdout.str()[-3000:]
    assert results.is_file()
    _fill(full_disk)
    run = run_gate(*model, *SELECT, "--nlp-results", str(results), workers=workers)
    _reported(run, results, "No space left on device")
    assert not list(full_disk.rglob("*.tmp"))
    # The earlier run's results and summary never stand in for this run's.
    assert not results.exists() and not (results.parent / "summary.html").exists()


@pytest.mark.parametrize("workers", ["0", "2"])
def test_native_items_run_where_their_case_files_cannot_be_written(
    tmp_path: Path, workers: str
) -> None:
    # Issue 50, point 3: each native item wrote its cases under <reports>/cases and errored,
    # one by one, when that folder could not be made.  Now the items run on their cases in
    # memory, and the run says once, at its start, that the case files are not written.
    repo = function_repo(tmp_path)
    (repo / "run").write_text("not a folder\n")  # where run_repo puts results.json
    run = run_repo(repo, "-n", workers, "--nlp-model", "sentiment=mymod:predict")
    out = run.out
    assert "1 passed" in out and " error" not in out, out[-3000:]
    notes = [
        line for line in out.splitlines() if line.startswith("nlp-gate: case files not written: ")
    ]
    assert len(notes) == 1, out[-3000:]
    assert str(repo / "run" / "cases") in notes[0], notes
    assert "Traceback" not in out and "INTERNALERROR" not in out, out[-3000:]
