"""A checkpoint that asks for its own code anywhere is refused at start-up (issue #29, point 8),
as ``auto_map`` in config.json already was: ``auto_map`` in tokenizer_config.json, and a
``model_type`` transformers does not know.  Before, no code ran but every item failed with a
transformers traceback advising ``trust_remote_code=True``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fixtures.gate_run import SHARED_SUITES


def _edit(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


FAULTS = {
    "tokenizer auto_map": (
        "tokenizer_config.json",
        lambda c: c.update(auto_map={"AutoTokenizer": ["tok.MyTokenizer", None]}),
        "tokenizer_config.json maps its tokenizer to code shipped with the checkpoint "
        "(auto_map: AutoTokenizer); nlp-gate never runs a checkpoint's own code "
        "(trust_remote_code=False)",
    ),
    "unknown model_type": (
        "config.json",
        lambda c: c.update(model_type="mystery-bert"),
        "config.json names model_type 'mystery-bert', which transformers ",
    ),
    "config auto_map": (  # as before, but naming what the user gave, not the packaged file
        "config.json",
        lambda c: c.update(auto_map={"AutoModelForSequenceClassification": "m.M"}),
        "(auto_map: AutoModelForSequenceClassification); nlp-gate never runs a checkpoint's "
        "own code",
    ),
}


@pytest.mark.parametrize("fault", FAULTS)
def test_a_checkpoint_asking_for_its_own_code_is_refused_at_start_up(
    tmp_path: Path, zoo: Path, fault: str
) -> None:
    file, change, message = FAULTS[fault]
    model = tmp_path / "mine"
    shutil.copytree(zoo / "sst2" / "bert", model)
    _edit(model / file, change)
    run = subprocess.run(
        # --rootdir: with --pyargs and no ini file pytest roots the run at the common ancestor
        # of the cwd and the installed package (/tmp for a clone there), where the refused
        # run's reports would go.
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            "--pyargs",
            "nlp_gate.released",
            "-m",
            "fairness",
            "--nlp-sample",
            "2",
            "--nlp-suite-dir",
            str(SHARED_SUITES),
            "--nlp-model",
            f"sentiment[negative,positive]={model}",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.stdout[-3000:]
    assert "ERROR: 1 model(s) given with --nlp-model cannot be tested:" in run.stderr
    assert message in run.stderr
    assert "models.yaml" not in run.stderr  # no models file was given
    assert "Traceback" not in run.stdout + run.stderr and "failed" not in run.stdout
    refused = json.loads((tmp_path / "reports" / "results.json").read_text())["refused"]
    assert message in refused  # the refused run's own results.json, in its rootdir
