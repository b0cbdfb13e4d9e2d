"""Empty and very long input texts: a native test's cases and an attack's examples reach the
model as they are, an empty text as its special tokens alone and a text longer than the
model's maximum length cut to it; no item errors, and the run counts the cut inputs per model
(results.json ``engine`` ``truncated_inputs``, and a line of the terminal summary)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.gate_run import REPO
from fixtures.user_repo import user_repo
from nlp_gate.packaged import modules
from nlp_gate.pytest_plugin.plugin import RELEASED_ITEMS

LONG = "the food was great . " * 400  # 2,000 words: far over the zoo's 64 positions

EXTREMES = f'''
from nlp_gate.native import MFT, behavioral_test


@behavioral_test(capability="Robustness", type="mft", task="sentiment")
def test_extreme_lengths():
    """An empty review and a very long one are still classified."""
    return MFT(["", {LONG!r}, "great"], labels=1)
'''


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "NLP_GATE_CACHE"}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-n",
            "0",
            "--nlp-prediction-cache",
            "off",
            *args,
        ],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def _truncated(results: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in json.loads(results.read_text())["engine"]:
        counts[r["model"]] = counts.get(r["model"], 0) + r["truncated_inputs"]
    return counts


def test_a_native_test_with_empty_and_very_long_texts_runs_and_counts_the_cut(
    tmp_path: Path, zoo: Path
) -> None:
    models = {"bert": zoo / "sst2" / "bert", "albert": zoo / "sst2" / "albert"}
    repo = user_repo(tmp_path, models, {"checklist": {"default": 100}})
    (repo / "tests_behavioral" / "test_extremes.py").write_text(EXTREMES)
    run = _run(repo)
    assert run.returncode == pytest.ExitCode.OK, run.stdout[-3000:] + run.stderr[-2000:]
    results = repo / "reports" / "results.json"
    records = json.loads(results.read_text())["records"]
    assert sorted((r["model"], r["n_cases"]) for r in records) == [("albert", 3), ("bert", 3)]
    assert _truncated(results) == {"bert": 1, "albert": 1}
    line = next(x for x in run.stdout.splitlines() if x.startswith("inputs longer than"))
    assert line.startswith(
        "inputs longer than the model's maximum length, truncated to it "
        "(of those forwarded this run): "
    ), line
    assert "sst2/bert 1 (at 64 tokens)" in line and "sst2/albert 1 (at 64 tokens)" in line


def test_an_attack_over_empty_and_very_long_examples_runs_and_counts_the_cut(
    tmp_path: Path, zoo: Path
) -> None:
    data = tmp_path / "data" / "sst2"
    data.mkdir(parents=True)
    rows = [
        {"text": "", "label": 1},
        {"text": LONG, "label": 1},
        {"text": "a great film .", "label": 1},
        {"text": "an awful film .", "label": 0},
    ]
    (data / "heldout.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    results = tmp_path / "reports" / "results.json"
    run = _run(
        REPO,
        # The packaged module's file: tests_behavioral/'s in a checkout.
        f"{modules(RELEASED_ITEMS)[0]}::test_attack",
        "--rootdir",
        str(REPO),
        "-c",
        str(REPO / "pyproject.toml"),
        "-k",
        "deepwordbug and sst2",
        "--nlp-attack-dataset",
        "sst2",
        "--nlp-data-dir",
        str(tmp_path / "data"),
        "--nlp-attack-examples",
        "4",
        "--nlp-results",
        str(results),
    )
    assert run.returncode == pytest.ExitCode.OK, run.stdout[-3000:] + run.stderr[-2000:]
    attacks = json.loads(results.read_text())["attacks"]
    assert sorted((a["model"], a["status"]) for a in attacks) == [
        ("albert", "ran"),
        ("bert", "ran"),
    ]
    # The long example is cut once when it is predicted; when the model gets it right the
    # attack perturbs it too, and every perturbed copy is cut again (the zoo with the suites'
    # vocabulary reads it right: 500 each).  Either way each model counts its cuts.
    truncated = _truncated(results)
    assert set(truncated) == {"bert", "albert"} and min(truncated.values()) >= 1, truncated
