"""What ``--nlp-mlflow-log`` writes, from a results.json (``nlp_gate.report.mlflow_log``):
metric keys MLflow accepts, one per item even when two names sanitize alike; sources without
credentials; the versions to tag and their missed gates; the verdict word.  The writing
itself, against a real tracking server: tests/integration/test_option_mlflow_log.py."""

from __future__ import annotations

from typing import Any

import pytest

from nlp_gate.config.options import MlflowLog
from nlp_gate.report import RunEnd
from nlp_gate.report.mlflow_log import (
    _scrub,
    gated_versions,
    log_run,
    metric_key,
    metrics,
    params,
    run_verdict,
)

NASTY = [
    ("fail_rate", "sst2", "bert", "sentiment", "used to, but now (neg)"),
    ("fail_rate", "sst2", "..", "sentiment", "."),
    ("fail_rate", "sst2", "bert", "native_sentiment", "a/b//c é ?"),
    ("fail_rate", "sst2", "bert", "sentiment", "x" * 400),
]


@pytest.mark.parametrize("parts", NASTY)
def test_metric_keys_are_names_mlflow_accepts(parts: tuple[str, ...]) -> None:
    validation = pytest.importorskip("mlflow.utils.validation")
    key = metric_key(*parts)
    validation._validate_metric_name(key)  # raises MlflowException for a key it refuses
    validation._validate_param_name(key)
    assert len(key) <= 250
    assert key.startswith("fail_rate/sst2/")


def test_a_long_key_keeps_apart_from_another_that_differs_past_the_cut() -> None:
    assert metric_key("t", "x" * 300 + "a") != metric_key("t", "x" * 300 + "b")


def record(test: str, fail_rate: float | None, passed: bool | None, **kw: Any) -> dict[str, Any]:
    return {
        "dataset": "sentiment",
        "model": "bert",
        "suite": "sentiment",
        "capability": "Fairness",
        "test": test,
        "fail_rate": fail_rate,
        "passed": passed,
        **kw,
    }


def test_one_metric_per_item_and_per_capability_and_model() -> None:
    results = {
        "records": [
            record("protected: race?", 10.0, True),
            record("protected: race!", 30.0, False),  # the same key once sanitized
            record("all filtered", None, None),
            record("negated", 50.0, False, capability="Negation"),
        ]
    }
    got = metrics(results)
    assert got["fail_rate/sentiment/bert/sentiment/protected: race_"] == 10.0
    assert got["fail_rate/sentiment/bert/sentiment/protected: race__2"] == 30.0
    assert not any(k.endswith("all filtered") for k in got)  # no fail rate, no metric
    assert got["capability_fail_rate/sentiment/bert/Fairness"] == 20.0  # nulls left out
    assert got["capability_failed/sentiment/bert/Fairness"] == 1.0
    assert got["capability_failed/sentiment/bert/Negation"] == 1.0
    assert (got["gated_items"], got["failed_items"]) == (4.0, 2.0)


def test_sources_are_logged_without_user_info_or_query() -> None:
    results = {
        "run": {
            "models": [
                {
                    "dataset": "sst2",
                    "model": "served",
                    "model_id": "https://gate:tok@api.example.com/v1/predict?key=s3cret",
                },
                {"dataset": "sst2", "model": "local", "model_id": "/models/bert"},
            ]
        }
    }
    got = params(results)
    assert got["model/sst2/served"] == "https://api.example.com/v1/predict"
    assert got["model/sst2/local"] == "/models/bert"
    assert "s3cret" not in repr(got) and "tok" not in repr(got)


def test_each_registry_version_once_with_its_missed_gates() -> None:
    def model(name: str, registry: dict[str, Any] | None) -> dict[str, Any]:
        return {"dataset": "sentiment", "model": name, "registry": registry}

    v1 = {"name": "sst2-bert", "version": "1"}
    results = {
        "run": {
            "models": [
                model("sst2-bert-champion", v1),
                model("sst2-bert-1", v1),  # the same version, by number
                model("sst2-bert-2", {"name": "sst2-bert", "version": "2"}),
                model("run-1a2b3c4d-model", {"name": None, "version": None}),  # runs:/
                model("bert", None),
            ]
        },
        "records": [
            record("a", 50.0, False, model="sst2-bert-champion"),
            record("a", 50.0, False, model="sst2-bert-1"),
            record("b", 0.0, True, model="sst2-bert-2"),
        ],
        "comparisons": [
            {"dataset": "sentiment", "baseline": "sst2-bert-1", "candidate": "sst2-bert-2",
             "passed": False},
        ],
    }  # fmt: skip
    assert gated_versions(results) == {("sst2-bert", "1"): 2, ("sst2-bert", "2"): 1}


@pytest.mark.parametrize(
    ("results", "exitstatus", "word"),
    [
        ({"records": [record("a", 0.0, True)]}, 0, "passed"),
        ({"records": [record("a", 90.0, False)]}, 1, "failed"),
        ({"records": [record("a", 0.0, True)], "errors": [{"item": "x"}]}, 1, "no_verdict"),
        ({"records": [record("a", 0.0, True)]}, 3, "no_verdict"),
        ({"records": [record("a", 0.0, True)], "interrupted": True}, 2, "no_verdict"),
        ({"records": [], "verdict": "failed"}, 0, "failed"),  # results.json's own word wins
    ],
)
def test_the_verdict_word(results: dict[str, Any], exitstatus: int, word: str) -> None:
    assert run_verdict(results, exitstatus) == word


def test_messages_lose_the_tracking_uris_credentials() -> None:
    uri = "http://gate:s3cret@mlflow.example.com/x?token=abc"
    text = "API request to http://gate:s3cret@mlflow.example.com/x?token=abc/api failed"
    assert _scrub(text, uri) == "API request to http://mlflow.example.com/x/api failed"


def test_a_refused_or_interrupted_run_writes_nothing_back() -> None:
    settings = MlflowLog("http://127.0.0.1:1", "nlp-gate")  # never reached: nothing written
    refused = RunEnd({"refused": "bad option"})
    log_run(refused, settings, 4)
    assert refused.notes == []
    interrupted = RunEnd({"interrupted": True})
    log_run(interrupted, settings, 2)
    assert interrupted.notes == ["nlp-gate: MLflow write-back skipped: the run was interrupted"]
    off = RunEnd({})
    log_run(off, None, 0)
    assert off.notes == []
