"""Token-budget batches (``batching.batch_bounds``, ``predictor.token_budget``, issue 60):
batches as large as the rows and the budget allow, the per-device default, and where the run
says them (the engine summary's cold-prediction lines)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from nlp_gate.engine.batching import batch_bounds
from nlp_gate.engine.predictor import CUDA_TOKEN_BUDGET, LoadOptions, token_budget
from nlp_gate.report.terminal import cold_prediction_lines


@given(
    st.lists(st.integers(1, 64), min_size=1, max_size=300),
    st.integers(1, 64),
    st.none() | st.integers(1, 3000),
)
def test_batches_are_as_large_as_the_rows_and_the_budget_allow(
    lengths: list[int], batch_size: int, budget: int | None
) -> None:
    ordered = np.sort(np.asarray(lengths, dtype=np.int64))
    ends = batch_bounds(ordered, batch_size, budget)
    start = 0
    for end in ends:
        rows, width = end - start, int(ordered[end - 1])
        assert 1 <= rows <= batch_size
        assert budget is None or rows == 1 or rows * width <= budget
        if end < len(ordered) and rows < batch_size:
            # One more row would break the budget.
            assert budget is not None and (rows + 1) * int(ordered[end]) > budget
        start = end
    assert start == len(ordered)


def test_the_default_budget_is_the_rows_at_full_length_on_the_cpu() -> None:
    options = LoadOptions(batch_size=64)
    assert token_budget(options, "cpu") == 64 * options.max_length
    assert token_budget(options, "cuda:0") == CUDA_TOKEN_BUDGET
    assert token_budget(LoadOptions(token_budget=999), "cuda") == 999


def test_the_cold_prediction_lines_say_the_largest_batches_over_a_model_s_processes() -> None:
    record = {"dataset": "sst2", "model": "bert", "forward_passes": 10, "forward_seconds": 2.0}
    lines = cold_prediction_lines(
        [
            {**record, "largest_batch_rows": 128, "largest_batch_tokens": 2048},
            {**record, "largest_batch_rows": 64, "largest_batch_tokens": 4096},
            {**record, "dataset": "qqp", "largest_batch_rows": 5, "largest_batch_tokens": None},
        ]
    )
    assert lines == [
        "cold predictions: sst2/bert: 20 inputs in 4.0s (5 inputs/s), batches of up to "
        "128 rows, 4096 padded tokens",
        "cold predictions: qqp/bert: 10 inputs in 2.0s (5 inputs/s)",  # a function: no tokens
    ]
