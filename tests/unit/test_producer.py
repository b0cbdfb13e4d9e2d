"""The batch producer (``engine/producer.py``): items in order from another thread, errors
raised in the caller, a caller that stops early stops the thread."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import pytest

from nlp_gate.engine import producer


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
