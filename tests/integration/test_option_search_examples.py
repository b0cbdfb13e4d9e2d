"""`--nlp-search-examples N`: the search items of a native test that declares a search space
(`-m search`).  A pure-Python model, name-invariant but for one planted first name that the
test's fixed sample lacks, passes the sample's gate; its search finds the name, shrinks the
case to the shortest texts one token apart, and the next run replays it from Hypothesis's
example database.  A clean model's search finds nothing; without the option the searches skip
with the reason.  With and without xdist.

Its fast tests: ``tests/unit/test_option_search_examples.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fixtures.gate_run import RunGate
from fixtures.lexicon_model import PLANTED_NAME
from fixtures.user_repo import LABELS, write_gates, write_models

TEST = "sentiment_speaker_name_does_not_matter"
BUDGET = "150"


@pytest.fixture
def args(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Two prediction functions on sst2, every CheckList gate at 0 %, this test's own cache
    (prediction cache and example database: the first run finds, it does not replay)."""
    monkeypatch.setenv("NLP_GATE_CACHE", str(tmp_path / "cache"))
    models = write_models(
        tmp_path / "models.yaml",
        {
            name: {
                "predict": f"fixtures.lexicon_model:{function}",
                "fingerprint": f"{name}-1",
                "labels": LABELS,
            }
            for name, function in (("biased", "biased"), ("clean", "predict_proba"))
        },
    )
    gates = write_gates(tmp_path / "gates.yaml", {"checklist": {"default": 0}})
    return [
        "--nlp-models-file",
        str(models),
        "--nlp-thresholds",
        str(gates),
        "-k",
        TEST,
        "-rs",
        "--alluredir",
        str(tmp_path / "allure"),
    ]


def shortest() -> dict[str, tuple[str, ...]]:
    """The speaker test's lexicons in the search's order (shortest first)."""
    from nlp_gate.native.definition import definition_of
    from nlp_gate.native_tests import test_ner

    definition = definition_of(test_ner.test_sentiment_speaker_name_does_not_matter)
    assert definition is not None and definition.search is not None
    return definition.search.lexicons()


def by_model(results: dict[str, Any], section: str) -> dict[str, dict[str, Any]]:
    return {r["model"]: r for r in results[section] if r["test"] == TEST}


@pytest.mark.parametrize("workers", [0, 2])
def test_a_planted_name_the_sample_misses_is_found_shrunk_and_replayed(
    run_gate: RunGate, args: list[str], tmp_path: Path, workers: int
) -> None:
    first = run_gate(*args, "--nlp-search-examples", BUDGET, workers=workers)
    out = first.result.stdout.str()
    assert first.result.ret == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    results = first.json
    # (a) the fixed sample lacks the name: both models pass its gate of 0 %
    sample = first.results_path.parent / "cases" / "native_sentiment" / f"{TEST}.jsonl"
    assert PLANTED_NAME not in sample.read_text()
    assert {m: (r["n_failed"], r["passed"]) for m, r in by_model(results, "records").items()} == {
        "biased": (0, True),
        "clean": (0, True),
    }
    # (b) the search finds it, shrunk to the shortest texts, one token apart
    searches = by_model(results, "searches")
    found = searches["biased"]
    c = found["counterexample"]
    assert (found["found"], found["passed"], found["replayed"]) == (True, False, False)
    lexicons = shortest()
    other = next(n for n in lexicons["first_name"] if n != PLANTED_NAME)
    assert {c["from"], c["to"]} == {PLANTED_NAME, other} and c["slot"] == "first_name"
    thing, adjective = lexicons["thing"][0], lexicons["pos_adj"][0]
    assert c["original"] == f"{c['from']} said the {thing} was {adjective}."
    assert c["perturbed"] == f"{c['to']} said the {thing} was {adjective}."
    differing = [(a, b) for a, b in zip(c["original"].split(), c["perturbed"].split()) if a != b]
    assert differing == [(c["from"], c["to"])]
    assert [p["label"] for p in c["predictions"]] == (
        ["negative", "positive"] if c["from"] == PLANTED_NAME else ["positive", "negative"]
    )
    assert 1 <= found["tried"] <= int(BUDGET) and found["seed"] == 1
    # ... shown in the item's failure message and attached to its Allure result
    assert "[search/sst2/biased]" in out and "counterexample to the test's expectation" in out
    assert f"slot first_name: {c['from']!r} -> {c['to']!r}" in out
    attached = [
        json.loads((tmp_path / "allure" / a["source"]).read_text())
        for p in (tmp_path / "allure").glob("*-result.json")
        for a in json.loads(p.read_text()).get("attachments", [])
        if a["name"] == "counterexample"
    ]
    assert [a["counterexample"] for a in attached] == [c]
    assert "1 of 2 search items over their gate" in out
    # (e) the clean model: nothing found in the whole budget, its search passes
    clean = searches["clean"]
    assert (clean["found"], clean["passed"], clean["counterexample"]) == (False, True, None)
    assert clean["tried"] >= int(BUDGET) // 2

    # (c) the same seed again: replayed from the example database at once, same case
    again = run_gate(*args, "--nlp-search-examples", BUDGET, workers=workers)
    assert again.result.ret == pytest.ExitCode.TESTS_FAILED
    replayed = by_model(again.json, "searches")["biased"]
    assert (replayed["replayed"], replayed["tried"]) == (True, 1)
    assert replayed["counterexample"] == c
    assert "replayed from the example database" in again.result.stdout.str()


@pytest.mark.parametrize("workers", [0, 2])
def test_without_the_option_the_searches_skip_with_the_reason(
    run_gate: RunGate, args: list[str], workers: int
) -> None:
    run = run_gate(*args, workers=workers)
    out = run.result.stdout.str()
    assert run.result.ret == pytest.ExitCode.OK, out[-3000:]
    assert run.result.parseoutcomes()["skipped"] == 2
    assert "search off: pass --nlp-search-examples N to search" in out
    assert "searches" not in run.json
    assert {r["passed"] for r in run.json["records"]} == {True}
