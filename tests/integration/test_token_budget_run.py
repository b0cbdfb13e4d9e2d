"""``--nlp-token-budget`` in a run (issue 60): the header and results.json say it and the
largest batches, the batches keep to it, and no item's counts move with it."""

from __future__ import annotations

from typing import Any

from fixtures.gate_run import RunGate


def _counts(json: dict[str, Any]) -> dict[tuple[str, ...], tuple[Any, ...]]:
    return {
        (r["suite"], r["test"], r["dataset"], r["model"]): (
            r["n_cases"],
            r["n_failed"],
            r["fail_rate"],
            r["passed"],
        )
        for r in json["records"]
    }


def test_a_token_budget_bounds_the_batches_and_moves_no_outcome(run_gate: RunGate) -> None:
    common = ("-m", "checklist", "-k", "/qqp/bert]", "--nlp-sample", "20")
    common += ("--nlp-prediction-cache", "off")
    default = run_gate(*common)
    bounded = run_gate(*common, "--nlp-batch-size", "64", "--nlp-token-budget", "300")
    for run in (default, bounded):
        assert run.result.ret in (0, 1), run.result.stdout.str()  # 1: a gate may fail
    bounded.result.stdout.fnmatch_lines(
        ["nlp-gate: profile=tiny * batch_size=64 token_budget=300*"]  # the header
    )
    assert "token_budget=" not in default.result.stdout.str()
    assert (default.json["run"]["token_budget"], bounded.json["run"]["token_budget"]) == (None, 300)
    (engine,) = bounded.json["engine"]
    assert engine["token_budget"] == 300
    assert 1 <= engine["largest_batch_rows"] <= 64
    # Only an input longer than the budget alone may exceed it: none is, at 64 tokens.
    assert 0 < engine["largest_batch_tokens"] <= 300
    (unbounded,) = default.json["engine"]
    assert unbounded["token_budget"] == 128 * 128  # the CPU's default: the rows bind first
    assert unbounded["largest_batch_tokens"] > 300
    bounded.result.stdout.fnmatch_lines(
        ["*cold predictions: qqp/bert: * inputs in *, batches of up to * rows, * padded tokens"]
    )
    assert _counts(bounded.json) == _counts(default.json)
