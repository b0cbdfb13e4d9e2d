"""Any classifier: a models-file entry ``predict: module:function`` (here the pure-Python word
list classifier of ``fixtures/lexicon_model.py``, nothing to pin) beside a zoo checkpoint in
one profile gets CheckList, comparison and attack items, the prediction cache keyed by its
declared fingerprint, and one clear message when it returns something that is not class
probabilities.

Its fast tests: ``tests/unit/test_prediction_function.py``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fixtures.gate_run import RunGate
from fixtures.user_repo import LABELS, write_gates, write_models

FUNCTION = "fixtures.lexicon_model:{}"


def _files(tmp: Path, function: str = "predict_proba", **entry: object) -> list[str]:
    lexicon = {
        "predict": FUNCTION.format(function),
        "fingerprint": "lexicon-1",
        "labels": LABELS,
        **entry,
    }
    models = write_models(
        tmp / "models.yaml", {"bert": {"zoo": "sst2/bert", "labels": LABELS}, "lexicon": lexicon}
    )
    gates = write_gates(
        tmp / "gates.yaml",
        {
            "checklist": {"default": 100},
            "comparison": {"baseline": "bert", "candidate": "lexicon"},
            "attacks": {"default": {"max_attack_success_rate": 100}},
        },
    )
    return ["--nlp-models-file", str(models), "--nlp-thresholds", str(gates)]


def _hub_split(tmp: Path, zoo: Path) -> list[str]:
    """The zoo's sst2 examples where --nlp-data-dir looks for them: a zoo model's held-out
    split, and (GLUE's columns) the hub split a prediction function's attack reads, since a
    function is no zoo model."""
    rows = [json.loads(line) for line in (zoo / "sst2" / "heldout.jsonl").open()][:20]
    folder = tmp / "data" / "sst2"
    folder.mkdir(parents=True)
    (folder / "heldout.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "validation.jsonl").write_text(
        "".join(json.dumps({"sentence": r["text"], "label": r["label"]}) + "\n" for r in rows)
    )
    return ["--nlp-data-dir", str(tmp / "data")]


@pytest.mark.parametrize("workers", [0, 2])
def test_a_function_and_a_checkpoint_get_checklist_comparison_and_attack_items(
    run_gate: RunGate, tmp_path: Path, zoo: Path, workers: int
) -> None:
    args = [
        *_files(tmp_path),
        *_hub_split(tmp_path, zoo),
        "--nlp-attack-dataset",
        "sst2",
        "--nlp-attack-examples",
        "4",
        "--nlp-sample",
        "10",
        "-m",
        "fairness and not native or adversarial",
        "-k",
        "not adversarial or (deepwordbug and not offline)",
    ]
    run = run_gate(*args, workers=workers)
    out = run.result.stdout.str()
    assert run.result.ret == pytest.ExitCode.OK, out[-3000:]
    results = run.json
    assert {(r["model"], r["model_id"]) for r in results["records"]} == {
        ("bert", "zoo:sst2/bert"),
        ("lexicon", "predict:" + FUNCTION.format("predict_proba")),
    }
    assert len(results["records"]) == 8 and len(results["comparisons"]) == 4
    assert {(a["model"], a["status"]) for a in results["attacks"]} == {
        ("bert", "ran"),
        ("lexicon", "ran"),
    }
    engine = {r["model"]: r for r in results["engine"] if r["model"] == "lexicon"}
    assert engine["lexicon"]["device"] == "python"

    again = run_gate(*args, "-m", "fairness and not native", workers=workers)
    passes = re.search(r"CheckList items (\d+) forward passes", again.result.stdout.str())
    assert passes and passes.group(1) == "0"  # the function's answers came from the cache


@pytest.mark.parametrize(
    ("function", "message"),
    [
        (
            "wrong_shape",
            "returned shape (2,) for 2 inputs; expected (2, 2): one row per input, "
            "one probability per label ['negative', 'positive'] (labels, not "
            "probabilities?) (on a probe batch [",
        ),
        ("logits", "returned rows that are not probabilities (2 of 2; row 0 sums to 3)"),
    ],
)
def test_a_function_returning_no_probabilities_is_refused_at_start(
    run_gate: RunGate, tmp_path: Path, function: str, message: str
) -> None:
    """Called once on a probe batch at start-up: one message and exit 4, no item runs."""
    run = run_gate(
        *_files(tmp_path, function),
        "-m",
        "fairness and not native",
        "--nlp-sample",
        "10",
        "--nlp-batch-size",
        "10",
        "--nlp-prediction-cache",
        str(tmp_path / "cache.sqlite"),
    )
    err = run.result.stderr.str()
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR, err[-3000:]
    assert f"sst2-lexicon (predict:fixtures.lexicon_model:{function}) {message}" in err, err
    assert "Traceback" not in err + run.result.stdout.str()


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"fingerprint": ""}, "'fingerprint' is empty"),
        (
            {"predict": "fixtures.nowhere:predict"},
            "sst2-lexicon (predict:fixtures.nowhere:predict): "
            "cannot import fixtures.nowhere:predict",
        ),
        ({"predict": "not a function"}, "predict 'not a function' must be 'module:function'"),
    ],
)
def test_a_bad_function_entry_stops_the_run_at_start(
    run_gate: RunGate, tmp_path: Path, entry: dict, message: str
) -> None:
    run = run_gate(*_files(tmp_path, **entry), "-m", "fairness and not native")
    err = run.result.stderr.str()
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR, err[-2000:]
    assert message in err and "Traceback" not in err
