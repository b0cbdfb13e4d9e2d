"""A hub id this machine cannot resolve is found out once, at once, with the one thing that
helps (issue 50, point 6).

Tried as a new user would with no hub access, ``--nlp-model sentiment[...]=<hub id>`` printed
five blocks of huggingface_hub's ``MaxRetryError ... Retrying in 8s [Retry k/5]`` per lookup
before its message, and without the labels that message asked for labels, which would not
help: the weights are just as unreachable.  Now the local Hugging Face cache is asked first,
``HF_HUB_OFFLINE`` is honoured, and the hub is asked once, without retries."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.function_repo import function_repo

HUB_ID = "textattack/bert-base-uncased-SST-2"


@pytest.mark.parametrize("offline", ["", "1"], ids=["no-hub", "HF_HUB_OFFLINE"])
@pytest.mark.parametrize("labels", ["", "[negative,positive]"], ids=["no-labels", "labels"])
def test_an_unresolvable_hub_id_stops_with_one_message(
    tmp_path: Path, offline: str, labels: str
) -> None:
    repo = function_repo(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "NLP_GATE_"))}
    env["HF_HOME"] = str(tmp_path / "hf")  # an empty Hugging Face cache
    if offline:
        env["HF_HUB_OFFLINE"] = offline
    else:  # no hub here: a name that resolves nowhere stands for it on a machine that has one
        env["HF_ENDPOINT"] = "http://hub.invalid"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--nlp-model",
            f"sentiment{labels}={HUB_ID}",
            "-m",
            "fairness",
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = run.stdout + run.stderr
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, out[-3000:]
    assert "Retry" not in out and "MaxRetryError" not in out, out[-3000:]
    assert "Traceback" not in out, out[-3000:]
    errors = [line for line in out.splitlines() if line.startswith("ERROR: ")]
    assert len(errors) == 1, out[-3000:]
    assert f"hf download {HUB_ID}" in out, out[-3000:]
    assert "give the labels" not in out, out[-3000:]  # labels would not help
    assert ("HF_HUB_OFFLINE" in out) == bool(offline), out[-3000:]
