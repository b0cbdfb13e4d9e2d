"""Option values are validated like the gates are (issue #29, point 5): an out-of-range count
stops the run at once with one usage error (exit 4) naming the option and its range, before
any item is collected; ``--nlp-sample 0`` failed every item with a numpy traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # pytest runs in subprocesses
BAD = {  # option: (bad value, the range its message states)
    "--nlp-sample": (["0", "-1"], "must be an integer >= 1"),
    "--nlp-batch-size": (["0"], "must be an integer >= 1"),
    "--nlp-token-budget": (["0"], "must be an integer >= 1"),
    "--nlp-cache-max-mb": (
        ["-5", "0"],
        "must be an integer >= 1 (off: --nlp-prediction-cache off)",
    ),
    "--nlp-attack-examples": (["0"], "must be an integer >= 1"),
    "--nlp-attack-query-budget": (["-1"], "must be an integer >= 0 (0: unlimited)"),
    "--nlp-attack-batch-size": (["0"], "must be an integer >= 1"),
}


@pytest.mark.parametrize(
    ("option", "value"), [(o, v) for o, (values, _) in BAD.items() for v in values]
)
def test_an_out_of_range_option_is_a_usage_error(tmp_path: Path, option: str, value: str) -> None:
    (tmp_path / "test_nothing.py").write_text("def test_nothing():\n    pass\n")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            f"{option}={value}",
            str(tmp_path),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.stdout[-2000:]
    assert f"error: argument {option}: {BAD[option][1]}, got {value}" in run.stderr
    assert "Traceback" not in run.stderr and "passed" not in run.stdout


def test_in_range_values_run(tmp_path: Path) -> None:
    (tmp_path / "test_nothing.py").write_text("def test_nothing():\n    pass\n")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--nlp-sample",
            "1",
            "--nlp-batch-size",
            "1",
            "--nlp-cache-max-mb",
            "1",
            "--nlp-attack-query-budget",
            "0",
            str(tmp_path),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "1 passed" in run.stdout
