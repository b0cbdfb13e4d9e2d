"""--nlp-model TASK=SOURCE: the one-line start, no models file.  Labels come from the
checkpoint when its label names are the task's classes, from ``TASK[a,b]=`` otherwise (a
clear error asks for them); two models of one task are compared; a prediction function is a
source too."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fixtures.gate_run import RunGate

ARGS = ("-m", "fairness", "--nlp-sample", "10")


@pytest.mark.parametrize("workers", [0, 2])
def test_one_checkpoint_runs_every_fairness_item_without_a_models_file(
    run_gate: RunGate, zoo: Path, workers: int
) -> None:
    run = run_gate("--nlp-model", f"sentiment={zoo / 'sst2' / 'bert'}", *ARGS, workers=workers)
    out = run.result.stdout.str()
    assert run.result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), out[-3000:]
    results = run.json
    assert results["run"]["profile"] == "cli" and results["run"]["models"] == [
        {
            "dataset": "sentiment",
            "model": "bert",
            "model_id": str(zoo / "sst2" / "bert"),
            "revision": None,
            "labels": ["negative", "positive"],
            "location": str(zoo / "sst2" / "bert"),
        }
    ]
    suites = {r["suite"] for r in results["records"]}
    assert suites == {"sentiment", "native_sentiment"}  # released and native items
    assert {r["threshold"] for r in results["records"]} == {10.0}  # CLI_GATES' Fairness gate
    assert "comparisons" not in results  # one model: nothing to compare


def test_two_checkpoints_and_a_function_of_one_task_are_compared(
    run_gate: RunGate, zoo: Path
) -> None:
    run = run_gate(
        "--nlp-model",
        f"sentiment={zoo / 'sst2' / 'bert'}",
        "--nlp-model",
        "sentiment=fixtures.lexicon_model:predict_proba",
        *ARGS,
    )
    out = run.result.stdout.str()
    assert run.result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), out[-3000:]
    results = run.json
    assert {r["model"] for r in results["records"]} == {"bert", "predict_proba"}
    assert {(c["baseline"], c["candidate"]) for c in results["comparisons"]} == {
        ("bert", "predict_proba")
    }


def test_label_names_that_are_no_task_classes_ask_for_labels(
    run_gate: RunGate, tmp_path: Path, zoo: Path
) -> None:
    copy = tmp_path / "generic"
    shutil.copytree(zoo / "sst2" / "bert", copy)
    config = json.loads((copy / "config.json").read_text())
    config.update(id2label={"0": "LABEL_0", "1": "LABEL_1"}, label2id={"LABEL_0": 0, "LABEL_1": 1})
    (copy / "config.json").write_text(json.dumps(config))
    run = run_gate("--nlp-model", f"sentiment={copy}", *ARGS)
    err = run.result.stderr.str()
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR, err[-2000:]
    assert err.startswith(
        f"ERROR: --nlp-model 'sentiment={copy}': the checkpoint's label names "
        "(LABEL_0, LABEL_1) do not name the classes of task 'sentiment'"
    )
    assert f"--nlp-model 'sentiment[negative,positive]={copy}'" in err

    given = run_gate("--nlp-model", f"sentiment[negative,positive]={copy}", *ARGS)
    assert given.result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    assert {r["model"] for r in given.json["records"]} == {"generic"}


def test_an_unknown_task_lists_the_valid_ones(run_gate: RunGate, zoo: Path) -> None:
    run = run_gate("--nlp-model", f"sentimnt={zoo / 'sst2' / 'bert'}", *ARGS)
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "unknown task 'sentimnt'; valid tasks: sentiment, paraphrase, entailment"
        in run.result.stderr.str()
    )
