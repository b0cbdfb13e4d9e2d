"""The batch producer (``engine/producer.py``) and token-budget batches
(``batching.batch_bounds``): items in order, errors raised in the caller, a caller that stops
early stops the thread; batches as large as the rows and the budget allow."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nlp_gate.engine import producer
from nlp_gate.engine.batching import batch_bounds
from nlp_gate.engine.predictor import CUDA_TOKEN_BUDGET, LoadOptions, token_budget


def _threads() -> set[str]:
    return {t.name for t in threading.enumerate()}


def test_items_come_in_order_from_another_thread() -> None:
    made_in: list[str] = []

    def source() -> Iterator[int]:
        for i in range(50):
            made_in.append(threading.current_thread().name)
            yield i

    assert list(producer.produced(source, ahead=3)) == list(range(50))
    assert set(made_in) == {"nlp-gate batch producer"}
    assert "nlp-gate batch producer" not in _threads()


def test_an_error_of_the_producer_is_raised_in_the_caller_after_the_items_before_it() -> None:
    def source() -> Iterator[int]:
        yield 1
        yield 2
        raise ValueError("tokenizer broke")

    got: list[int] = []
    with pytest.raises(ValueError, match="tokenizer broke"):
        for item in producer.produced(source):
            got.append(item)
    assert got == [1, 2]
    assert "nlp-gate batch producer" not in _threads()


def test_a_caller_that_stops_early_stops_the_producer() -> None:
    made: list[int] = []

    def source() -> Iterator[int]:
        for i in range(10_000):
            made.append(i)
            yield i

    stream = producer.produced(source, ahead=2)
    with pytest.raises(KeyboardInterrupt), contextlib.closing(stream):
        for item in stream:
            if item == 3:
                raise KeyboardInterrupt  # as Ctrl-C in the forward pass
    assert "nlp-gate batch producer" not in _threads()  # joined, not left running
    assert len(made) <= 3 + 1 + 2 + 1  # at most the queue's bound beyond what was taken


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
