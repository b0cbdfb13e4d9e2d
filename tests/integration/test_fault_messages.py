"""The refusal messages say what is true and never advise running a payload (issue #29,
point 9): a pickle refused for holding more than tensors is reported without transformers'
``from_tf=True`` and torch's ``weights_only=False`` advice, and the truncation line names the
length inputs were cut at (64 for the tiny zoo), not the default a cache-answered process
kept.  (Naming --nlp-model, not the packaged models file:
tests/integration/test_fault_remote_code.py.)

Its fast tests: ``tests/unit/test_fault_messages.py``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from fixtures.gate_run import SHARED_SUITES

# torch is imported in a subprocess, as tests/integration/test_option_models_file.py does.
SAVE_HOSTILE = """
import os, sys, torch
from safetensors.torch import load_file
source, target, marker = sys.argv[1:4]
class Hostile:
    def __reduce__(self):
        return os.system, (f"touch {marker}",)
torch.save({**load_file(source), "payload": Hostile()}, target)
"""


def test_the_pickle_refusal_gives_no_advice_to_load_it_anyway(tmp_path: Path, zoo: Path) -> None:
    model, marker = tmp_path / "hostile", tmp_path / "payload-ran"
    shutil.copytree(zoo / "sst2" / "bert", model)
    subprocess.run(
        [
            sys.executable,
            "-c",
            SAVE_HOSTILE,
            str(model / "model.safetensors"),
            str(model / "pytorch_model.bin"),
            str(marker),
        ],
        check=True,
    )
    (model / "model.safetensors").unlink()
    run = subprocess.run(
        # --rootdir: else pytest roots a --pyargs run with no ini file at the common ancestor
        # of the cwd and the installed package (/tmp for a clone there), and reports go there.
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
            "--nlp-prediction-cache",
            "off",
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
    out = run.stdout + run.stderr
    assert not marker.exists()
    assert "model refused: cannot load" in out, out[-3000:]
    assert "re-save the model with save_pretrained() (safetensors)" in out
    assert "unsupported GLOBAL posix.system" in out  # what torch refused
    for advice in ("from_tf", "weights_only", "can still be loaded", "trust the source"):
        assert advice not in out, advice
