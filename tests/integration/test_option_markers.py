"""Capability markers select items: `-m fairness` runs only Fairness, with and without xdist."""

from __future__ import annotations

import pytest

from fixtures.gate_run import RunGate

MODELS_OF_TASK = {"sentiment": 6, "paraphrase": 4, "entailment": 2}  # tiny: datasets x 2


@pytest.mark.parametrize("workers", [0, 2])
def test_fairness_marker_runs_released_and_native_fairness_items(
    run_gate: RunGate, workers: int
) -> None:
    run = run_gate("-m", "fairness", "--nlp-sample", "20", workers=workers)
    records = run.records
    assert {r["capability"] for r in records} == {"Fairness"}, run.result.stdout.str()[-3000:]
    released = [r for r in records if r["suite"] == "sentiment"]
    assert len(released) == 4 * 3 * 2  # 4 released tests x 3 datasets x 2 models
    assert {(r["dataset"], r["model"]) for r in released} == {
        (d, m) for d in ("rotten_tomatoes", "yelp_polarity", "sst2") for m in ("bert", "albert")
    }
    native = [r for r in records if r["suite"] != "sentiment"]
    assert {(r["suite"], r["task"]) for r in native} == {(f"native_{t}", t) for t in MODELS_OF_TASK}
    for r in native:  # every field of a released record, plus task
        assert set(r) == set(released[0]) and r["task"]
    per_test: dict[tuple[str, str], int] = {}
    for r in native:
        per_test[r["suite"], r["test"]] = per_test.get((r["suite"], r["test"]), 0) + 1
    assert all(
        n == MODELS_OF_TASK[suite.removeprefix("native_")] for (suite, _), n in per_test.items()
    )
    outcomes = run.result.parseoutcomes()
    # + the albert-vs-bert comparison items (one per test and dataset), Fairness too
    assert len(run.json["comparisons"]) == len(records) // 2
    ran = sum(outcomes.get(k, 0) for k in ("passed", "recorded", "failed", "skipped"))
    assert ran == len(records) + len(run.json["comparisons"])


def test_unknown_marker_is_rejected(run_gate: RunGate) -> None:
    run = run_gate("-m", "fairness", "--nlp-sample", "1", "-k", "nothing-matches", workers=0)
    # a gate run that selects nothing to gate says so (not pytest's silent "no tests ran")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert "this run selects no nlp-gate item to gate" in run.result.stderr.str()
