"""The user's numbers, unchanged (issue #28, point 5).

A function's float64 probabilities keep their precision through the memo, the prediction cache
and the expectation: for a model whose p(positive) sits exactly on CheckList's neutral-band
edges (1/3, 2/3), the plugin's fail counts equal CheckList's own ``run`` + ``get_stats`` on
the function's outputs, converted to three classes by the snippet CheckList's README gives for
binary sentiment models (copied below to the letter, not the project's code).  A float32 cast
moves 2/3 off the edge: a row CheckList reads as negative (no branch of its snippet takes
p == 2/3) became neutral.

Its fast tests: ``tests/unit/test_user_function_precision.py``."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fixtures.gate_run import REPO, RunGate
from fixtures.user_repo import LABELS, write_gates, write_models
from nlp_gate import suites as cr

# p(positive) exactly 2/3 with a positive word, exactly 1/3 with a negative one, else 1/2.
EDGE_FUNCTION = """
import re

POSITIVE = {"good", "great", "love", "like", "excellent", "nice", "amazing", "happy", "enjoy",
            "enjoyed", "fantastic", "best", "awesome", "beautiful", "brilliant", "wonderful",
            "adorable", "incredible", "sweet", "fun", "lovely", "exceptional"}
NEGATIVE = {"bad", "hate", "terrible", "awful", "boring", "worst", "poor", "horrible", "sad",
            "ugly", "dislike", "lame", "frustrating", "annoying", "disappointing", "hard",
            "difficult", "rough", "creepy", "weird", "average", "unhappy"}


def p_positive(text):
    words = re.findall(r"[a-z']+", text.lower())
    score = sum(w in POSITIVE for w in words) - sum(w in NEGATIVE for w in words)
    return 2 / 3 if score > 0 else 1 / 3 if score < 0 else 0.5


def predict(texts):
    return [[1 - p_positive(t), p_positive(t)] for t in texts]
"""
SAMPLE, SEED = 200, 1


def checklist_readme_pred_and_conf(pr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CheckList's README, "binary sentiment models": its conversion, line for line."""
    pp = np.zeros((pr.shape[0], 3))
    margin_neutral = 1 / 3.0
    mn = margin_neutral / 2.0
    neg = pr < 0.5 - mn
    pp[neg, 0] = 1 - pr[neg]
    pp[neg, 2] = pr[neg]
    pos = pr > 0.5 + mn
    pp[pos, 0] = 1 - pr[pos]
    pp[pos, 2] = pr[pos]
    neutral_pos = (pr >= 0.5) * (pr < 0.5 + mn)
    pp[neutral_pos, 1] = 1 - (1 / margin_neutral) * np.abs(pr[neutral_pos] - 0.5)
    pp[neutral_pos, 2] = 1 - pp[neutral_pos, 1]
    neutral_neg = (pr < 0.5) * (pr > 0.5 - mn)
    pp[neutral_neg, 1] = 1 - (1 / margin_neutral) * np.abs(pr[neutral_neg] - 0.5)
    pp[neutral_neg, 0] = 1 - pp[neutral_neg, 1]
    preds = np.argmax(pp, axis=1)
    return preds, pp


def _checklist_counts(tests: list[str], p_positive: Any) -> dict[str, tuple[int, float]]:
    """CheckList's own failures and fail rate per released sentiment test, on the function's
    float64 outputs through CheckList's README conversion."""
    suite = cr.load_suite("sentiment", cr.locate("sentiment", cr.default_search_dirs(REPO)))

    def predict(data: list[str]) -> tuple[np.ndarray, np.ndarray]:
        return checklist_readme_pred_and_conf(
            np.array([p_positive(t) for t in data], dtype=np.float64)
        )

    counts = {}
    for name in tests:
        test = suite.tests[name]
        test.run(predict, overwrite=True, verbose=False, n=SAMPLE, seed=SEED)
        stats = test.get_stats()
        counts[name] = (int(stats["fails"]), float(stats["fail_rate"]))
    return counts


def test_band_edge_probabilities_are_counted_as_checklist_counts_them(
    run_gate: RunGate, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "edgemod.py").write_text(EDGE_FUNCTION)
    models = write_models(
        tmp_path / "models.yaml",
        {"edge": {"predict": "edgemod:predict", "fingerprint": "edge-1", "labels": LABELS}},
    )
    gates = write_gates(tmp_path / "gates.yaml", {"checklist": {"default": 100}})
    cache = tmp_path / "cache.sqlite"
    args = [
        "--nlp-models-file",
        str(models),
        "--nlp-thresholds",
        str(gates),
        "--nlp-sample",
        str(SAMPLE),
        "--nlp-prediction-cache",
        str(cache),
        "-m",
        "sentiment and vocabulary and mft and not native",
    ]
    computed = run_gate(*args)
    out = computed.result.stdout.str()
    records = {r["test"]: (r["n_failed"], r["fail_rate"]) for r in computed.records}
    assert len(records) == 5, out[-3000:]

    monkeypatch.syspath_prepend(str(tmp_path))
    from edgemod import p_positive  # type: ignore[import-not-found]  # written by the test

    expected = _checklist_counts(list(records), p_positive)
    assert any(p_positive(t) == 2 / 3 for t in ("good", "a great day"))  # edges are hit
    assert records == expected

    # The same answers read back from the cache (its stored outcomes removed): still float64.
    db = sqlite3.connect(cache)
    db.execute("DELETE FROM outcomes")
    db.commit()
    db.close()
    cached = run_gate(*args)
    engine = cached.json["engine"][0]
    assert engine["forward_passes"] == 0 and engine["cache_hits"] > 0
    assert {r["test"]: (r["n_failed"], r["fail_rate"]) for r in cached.records} == expected
