"""Capability markers select items: `-m fairness` runs only Fairness, with and without xdist."""

from __future__ import annotations

import pytest

from fixtures.gate_run import RunGate


@pytest.mark.parametrize("workers", [0, 2])
def test_fairness_marker_runs_4_tests_x_3_datasets_x_2_models(run_gate: RunGate,
                                                              workers: int) -> None:
    run = run_gate("-m", "fairness", "--nlp-sample", "20", workers=workers)
    records = run.records
    assert len(records) == 4 * 3 * 2, run.result.stdout.str()[-3000:]
    assert {r["capability"] for r in records} == {"Fairness"}
    assert {(r["dataset"], r["model"]) for r in records} == {
        (d, m) for d in ("rotten_tomatoes", "yelp_polarity", "sst2") for m in ("bert", "albert")}
    outcomes = run.result.parseoutcomes()
    # + the albert-vs-bert comparison items, which carry the capability marker too
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 24 + 4 * 3
    assert len(run.json["comparisons"]) == 4 * 3


def test_unknown_marker_is_rejected(run_gate: RunGate) -> None:
    run = run_gate("-m", "fairness", "--nlp-sample", "1", "-k", "nothing-matches",
                   workers=0)
    assert run.result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
