"""What the engine holds per model for the whole run is small and answers as before: the memo
of probability rows (``engine.rows.RowMemo``, its row numbers shared by a process's models),
the packed tokens (``engine.batching``) and every item's outcome (``kinds.checklist.run``)."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import tracemalloc
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nlp_gate.engine.batching import encode, padded_batches
from nlp_gate.engine.encoded import Packer
from nlp_gate.engine.rows import InputIndex, RowMemo, release_freed_memory
from nlp_gate.kinds.checklist.run import ChecklistResult

KEYS = st.one_of(st.text(max_size=8), st.tuples(st.text(max_size=4), st.text(max_size=4)))


@given(
    st.lists(st.lists(KEYS, unique=True, max_size=700), max_size=6),
    st.sampled_from([np.float32, np.float64]),
)
def test_row_memo_answers_what_a_dict_of_rows_answers(puts: list[list[Any]], dtype: Any) -> None:
    """Rows put in batches of any size (an attack adds a few at a time, a suite's pass
    thousands: the table grows past its first 1,024 rows) come back by key, in the order
    asked, with repeats, in the memo's dtype."""
    memo, reference = RowMemo(3, dtype), {}
    rng = np.random.default_rng(0)
    for batch in puts:
        new = [k for k in batch if k not in memo]
        rows = rng.random((len(new), 3))
        memo.put(new, rows)
        reference.update(zip(new, rows.astype(dtype)))
    assert len(memo) == len(reference)
    asked = list(reference)[::-1] + list(reference)[:3]
    got = memo.rows(asked)
    assert got.dtype == dtype and got.shape == (len(asked), 3)
    for key, row in zip(asked, got):
        assert key in memo
        assert row.tolist() == reference[key].tolist()
    assert memo.rows([]).shape == (0, 3)
    release_freed_memory()  # never fails, on any C library
    assert memo.rows(asked).tolist() == got.tolist()


@given(st.lists(st.lists(KEYS, unique=True, max_size=300), min_size=1, max_size=6))
def test_models_sharing_an_index_answer_as_if_each_had_its_own(puts: list[list[Any]]) -> None:
    """Two models' memos over one ``InputIndex``, each putting its own rows for keys the
    other may or may not hold, in any order: each answers its own rows, and holds only the
    keys it put."""
    index = InputIndex()
    memos = [RowMemo(2, np.float32, index), RowMemo(2, np.float32, index)]
    reference: list[dict[Any, list[float]]] = [{}, {}]
    rng = np.random.default_rng(1)
    for step, batch in enumerate(puts):
        which = step % 2
        memo, ref = memos[which], reference[which]
        new = [k for k in batch if k not in memo]
        rows = rng.random((len(new), 2)).astype(np.float32)
        memo.put(new, rows)
        ref.update(zip(new, rows.tolist()))
    for memo, ref, other in zip(memos, reference, reference[::-1]):
        assert len(memo) == len(ref)
        assert all(k in memo for k in ref)
        assert not any(k in memo for k in other if k not in ref)
        if ref:
            assert memo.rows(list(ref)).tolist() == list(ref.values())
        # What the engine asks of a test's inputs: those without a row, in order, repeats
        # kept; the other model's keys and keys nobody numbered yet alike.
        asked = [*other, *ref, "never put", *other]
        assert memo.missing(asked) == [k for k in asked if k not in memo]
    assert len(index) == len(set(reference[0]) | set(reference[1]))


def test_a_second_model_of_the_same_inputs_adds_its_rows_not_another_dict() -> None:
    """The models of a suite are asked the same inputs: after the first model's memo, each
    further one over the shared index costs its table (8 bytes a row here, with room to
    grow), not a dict entry and an int object per input (~75 bytes)."""
    keys = [f"input {i}" for i in range(50_000)]
    rows = np.ones((len(keys), 2), dtype=np.float32)
    index = InputIndex()
    RowMemo(2, np.float32, index).put(keys, rows)
    tracemalloc.start()
    try:
        second = RowMemo(2, np.float32, index)
        second.put(keys, rows)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held / len(keys) < 20, f"{held / len(keys):.1f} bytes an input"
    assert second.rows(keys[:3]).tolist() == [[1.0, 1.0]] * 3


def test_an_outcome_of_every_case_is_held_as_a_range_and_stored_as_before() -> None:
    """An unsampled test's outcome keeps its case numbers as a range (a run holds every
    item's outcome), is stored in the prediction cache as the list it always was, and comes
    back from there as a range again; a sample's numbers stay a list."""
    every = ChecklistResult(3, 1, 33.3, [], range(3), [True, False, None])
    stored = json.loads(json.dumps(every.stored()))
    assert stored["case_index"] == [0, 1, 2]
    back = ChecklistResult.from_stored(stored)
    assert back.case_index == range(3) and back == every
    sampled = ChecklistResult.from_stored({**stored, "case_index": [0, 2, 5]})
    assert sampled.case_index == [0, 2, 5]


@given(st.lists(st.lists(st.integers(0, 70_000), max_size=40), max_size=12), st.integers(1, 64))
def test_packed_tokens_equal_their_chunks_joined_in_the_smallest_type(
    chunks: list[list[int]], bound: int
) -> None:
    """Chunks appended into one array (allocated for a bound the chunks may exceed, widened
    when a chunk holds a larger id) read back as the chunks joined, in the smallest unsigned
    type holding every value."""
    packer = Packer(bound)
    for chunk in chunks:
        packer.append(np.asarray(chunk, dtype=np.int32))
    joined = [v for chunk in chunks for v in chunk]
    got = packer.array()
    assert got.tolist() == joined
    assert got.dtype == (np.min_scalar_type(max(joined)) if joined else np.uint8)


class WordIds:
    """A slow tokenizer: one id per word (ids given by a table), [CLS]=1 ... [SEP]=2."""

    model_input_names = ["input_ids", "token_type_ids", "attention_mask"]
    padding_side = "right"
    pad_token_type_id = 0

    def __init__(self, ids: dict[str, int], pad_token_id: int) -> None:
        self.ids, self.pad_token_id = ids, pad_token_id

    def __call__(
        self, texts: list[str], truncation: bool = False, max_length: int | None = None
    ) -> dict[str, list[list[int]]]:
        rows = [[1, *(self.ids[w] for w in text.split()), 2] for text in texts]
        if max_length:
            rows = [r[:max_length] for r in rows]
        return {"input_ids": rows, "token_type_ids": [[0] * len(r) for r in rows]}


def test_tokens_are_packed_small_and_padded_with_an_id_that_does_not_fit_them() -> None:
    """A pass's tokens are held in the smallest unsigned type (a suite's pass, and the
    encodings kept for the next model, are a quarter of int32's size or less), and padding
    still uses the tokenizer's pad id when that id is wider than the tokens."""
    small = WordIds({"good": 7, "movie": 9, "bad": 11}, pad_token_id=300)
    texts = ["good movie", "bad", "good bad movie good"]
    enc = encode(small, texts, max_length=16)
    assert enc.flat["input_ids"].dtype == np.uint8
    assert enc.flat["token_type_ids"].dtype == np.uint8
    batches = list(padded_batches(small, texts, 16, 8, enc))
    assert len(batches) == 1
    idx, batch = batches[0]
    by_input = dict(zip(idx.tolist(), batch["input_ids"].tolist()))
    assert by_input == {
        0: [1, 7, 9, 2, 300, 300],
        1: [1, 11, 2, 300, 300, 300],
        2: [1, 7, 11, 9, 7, 2],
    }
    assert batch["input_ids"].dtype == np.int64
    assert batch["attention_mask"].tolist() == (batch["input_ids"] != 300).astype(int).tolist()
    wide = encode(WordIds({"good": 70_000}, pad_token_id=0), ["good"], max_length=16)
    assert wide.flat["input_ids"].dtype == np.uint32
    assert wide.flat["input_ids"].tolist() == [1, 70_000, 2]


# A child process: glibc's threshold is process-wide, and this one's must stay as it was.
# It frees a 16 MiB block (which raises glibc's own threshold to 16 MiB), then allocates 5 MiB
# and prints whether that block got pages of its own (mallinfo2's count of mapped blocks).
_MAPPED_AFTER = """
import ctypes, sys
from nlp_gate.engine.rows import map_large_allocations

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2
if sys.argv[1] == "call":
    map_large_allocations()
big = bytearray(16 * 2**20)
del big
before = libc.mallinfo2().hblks
block = bytearray(5 * 2**20)
print(libc.mallinfo2().hblks - before)
"""


def _has_mallinfo2() -> bool:
    try:
        return hasattr(ctypes.CDLL(None), "mallinfo2")  # glibc 2.33 and later
    except OSError:
        return False


@pytest.mark.skipif(not _has_mallinfo2(), reason="glibc's mallinfo2 counts the mapped blocks")
@pytest.mark.parametrize(
    ("call", "env", "mapped"),
    [
        ("call", {}, "1"),
        ("none", {}, "0"),  # glibc's own rising threshold: what the call is for
        ("call", {"MALLOC_MMAP_THRESHOLD_": str(16 * 2**20)}, "0"),  # the user's choice stands
    ],
)
def test_large_allocations_get_pages_of_their_own_unless_the_user_chose(
    call: str, env: dict[str, str], mapped: str
) -> None:
    """After ``map_large_allocations`` a 5 MiB block is mapped on its own (so freeing it
    hands it back at once), even after a larger block was freed; the process's own
    ``MALLOC_MMAP_THRESHOLD_`` is left in force."""
    environ = {
        k: v
        for k, v in os.environ.items()
        if k != "MALLOC_MMAP_THRESHOLD_" and k != "GLIBC_TUNABLES"
    }
    done = subprocess.run(
        [sys.executable, "-c", _MAPPED_AFTER, call],
        env={**environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == mapped
