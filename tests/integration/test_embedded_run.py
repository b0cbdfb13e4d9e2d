"""A run on the embedded zoo whose shipped files are damaged stops at start with one message
(exit 4), with and without xdist; a run whose installed copy in the zoo folder was edited
since runs on a fresh copy of the shipped weights, never on the edited one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.gate_run import REPO
from nlp_gate.zoo import embedded

# The shipped files are package data: a run reads another copy of them only if the module is
# told so before pytest starts (and its xdist workers are not: the controller refuses first).
RUN = """
import sys
from pathlib import Path
from nlp_gate.zoo import embedded
embedded.WEIGHTS = Path(sys.argv[1])
import pytest
sys.exit(pytest.main(sys.argv[2:]))
"""


def _run(tmp_path: Path, weights: Path, zoo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["NLP_GATE_ZOO_DIR"] = str(zoo)
    return subprocess.run(
        [
            sys.executable,
            "-c",
            RUN,
            str(weights),
            "tests_behavioral",
            "-p",
            "no:cacheprovider",
            "-m",
            "fairness and checklist",
            "--nlp-sample=5",
            "-q",
            f"--nlp-results={tmp_path / 'results.json'}",
            *args,
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_damaged_shipped_file_stops_the_run_at_start(tmp_path: Path, workers: str) -> None:
    weights = tmp_path / "weights"
    shutil.copytree(embedded.WEIGHTS, weights)
    shipped = weights / "zoo" / "qqp" / "bert" / "model.safetensors"
    data = bytearray(shipped.read_bytes())
    data[len(data) // 2] ^= 0x40
    shipped.write_bytes(bytes(data))
    run = _run(tmp_path, weights, tmp_path / "zoo", "-n", workers)
    output = run.stdout + run.stderr
    assert run.returncode == 4, output[-3000:]
    assert output.count("damaged or edited") == 1, output[-3000:]
    assert "qqp/bert/model.safetensors has sha256" in output
    assert "Traceback" not in output
    assert not (tmp_path / "zoo").exists()  # nothing of it was put in place
    results = json.loads((tmp_path / "results.json").read_text())
    assert "damaged or edited" in results["refused"] and results["ran"] == 0


def test_an_edited_installed_copy_is_replaced_before_the_run(tmp_path: Path) -> None:
    zoo = tmp_path / "zoo"
    shutil.copytree(embedded.WEIGHTS / "zoo", zoo)
    installed = zoo / "sst2" / "bert" / "model.safetensors"
    installed.write_bytes(installed.read_bytes()[:-8] + b"\0" * 8)  # edited since installed
    run = _run(tmp_path, embedded.WEIGHTS, zoo, "-n", "0", "-k", "sst2/bert")
    assert run.returncode in (0, 1), run.stdout[-3000:] + run.stderr[-2000:]
    assert embedded.sha256(installed) == embedded.verified()["zoo/sst2/bert/model.safetensors"]
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["ran"] > 0 and {r["model"] for r in results["records"]} == {"bert"}
