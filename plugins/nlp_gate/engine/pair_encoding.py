"""Tokenizing a pass of pairs one distinct text at a time (``encode_pairs``).

A suite's pairs share their texts, and a fast tokenizer's backend tokenizes the two texts of
a pair independently before it truncates and joins them; so each distinct text is tokenized
once and the pairs are cut and joined here, with numpy, by the backend's own rule and
template (``PairTemplate``).  ``batching.encode`` takes this path for passes of at least
``PAIRS_FROM`` pairs whose backend joins them by a ``TemplateProcessing`` template.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

from nlp_gate.engine.encoded import ENCODE_CHUNK, TRIM_EVERY, Encoded, Packer
from nlp_gate.engine.rows import release_freed_memory


@dataclass(frozen=True)
class PairTemplate:
    """How a fast tokenizer's backend joins a pair: its ``TemplateProcessing`` pair template
    (``pieces``: a special token's ids, or the index 0/1 of the pair's text, each with its
    token type), its truncation to ``max_length`` (longest first, no stride, ``left`` or
    not), and ``added``, the special tokens it adds."""

    pieces: tuple[tuple[tuple[int, ...] | int, int], ...]
    added: int
    max_length: int
    left: bool

    @classmethod
    def of(cls, backend: Any) -> PairTemplate | None:
        """The backend's template, or None where its pairs are joined otherwise (another
        post-processor, another truncation strategy, a stride, no room for a text)."""
        truncation = backend.truncation
        processor = json.loads(backend.to_str()).get("post_processor") or {}
        if (
            truncation is None
            or truncation["strategy"] != "longest_first"
            or truncation["stride"] != 0
            or processor.get("type") != "TemplateProcessing"
        ):
            return None
        specials = processor["special_tokens"]
        pieces: list[tuple[tuple[int, ...] | int, int]] = []
        for piece in processor["pair"]:
            if "SpecialToken" in piece:
                token = piece["SpecialToken"]
                pieces.append((tuple(specials[token["id"]]["ids"]), token["type_id"]))
            else:
                sequence = piece["Sequence"]
                pieces.append(({"A": 0, "B": 1}[sequence["id"]], sequence["type_id"]))
        if sorted(p for p, _ in pieces if isinstance(p, int)) != [0, 1]:
            return None
        added = sum(len(p) for p, _ in pieces if isinstance(p, tuple))
        if truncation["max_length"] <= added:
            return None  # the backend keeps no text at all then: left to it
        return cls(
            tuple(pieces), added, truncation["max_length"], truncation["direction"] == "left"
        )

    def kept(self, n1: np.ndarray, n2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """How many tokens of each text of the pairs survive truncation: the tokenizers
        library's longest-first rule for a pair (``truncate_encodings``), vectorized."""
        room = self.max_length - self.added
        short = np.minimum(n1, n2)
        cap_short = short
        cap_long = np.where(short > room, short, np.maximum(short, room - short))
        both = cap_short + cap_long > room  # both texts cut: room shared, the odd token last
        cap_short = np.where(both, room // 2, cap_short)
        cap_long = np.where(both, room // 2 + room % 2, cap_long)
        swap = n1 > n2
        k1 = np.minimum(n1, np.where(swap, cap_long, cap_short))
        k2 = np.minimum(n2, np.where(swap, cap_short, cap_long))
        cut = n1 + n2 > room
        return np.where(cut, k1, n1), np.where(cut, k2, n2)


# Pairs joined per slice: bounds the index arrays one join holds at once.
PAIR_SLICE = 16_384
# Fewer pairs go to the backend as they are: copying it and reading its template take a few
# milliseconds, more than tokenizing their repeated texts once saves (an attack's queries).
PAIRS_FROM = 1024


def encode_pairs(
    tokenizer: Any,
    inputs: Sequence[tuple[str, str]],
    names: list[str],
    backend: Any,
    template: PairTemplate,
) -> Encoded:
    """``encode`` of pairs, each distinct text tokenized once.

    A suite's pairs share their texts (a QQP suite's 167,357 pairs hold 166,697 distinct
    texts, not 334,714), and the backend tokenizes the two texts of a pair independently
    before it truncates and joins them: so each distinct text is tokenized alone, without
    special tokens or truncation, and the pairs are cut (``PairTemplate.kept``) and joined
    (its pieces) here with numpy.  Half the tokenizer's time of a QQP pass; the result equals
    the backend's own pair encoding (tests/integration/test_engine_properties.py).
    """
    number: dict[str, int] = {}
    # setdefault's default is len(number) read before the call: the next free number.
    first = np.fromiter(
        (number.setdefault(a, len(number)) for a, _ in inputs), dtype=np.int64, count=len(inputs)
    )
    second = np.fromiter(
        (number.setdefault(b, len(number)) for _, b in inputs), dtype=np.int64, count=len(inputs)
    )
    texts = list(number)
    del number
    from tokenizers import Tokenizer

    # The same backend, untruncated: a text's whole tokens, cut here once paired.
    whole = Tokenizer.from_str(backend.to_str())
    whole.no_truncation()
    whole.encode_special_tokens = backend.encode_special_tokens
    text_lengths: list[np.ndarray] = []
    text_ids = Packer(len(texts) * template.max_length)
    for start in range(0, len(texts), ENCODE_CHUNK):
        chunk = texts[start : start + ENCODE_CHUNK]
        ids = [e.ids for e in whole.encode_batch_fast(chunk, add_special_tokens=False)]
        n = np.fromiter(map(len, ids), dtype=np.int64, count=len(chunk))
        text_lengths.append(n)
        text_ids.append(np.fromiter(chain.from_iterable(ids), dtype=np.int32, count=int(n.sum())))
        if start // ENCODE_CHUNK % TRIM_EVERY == TRIM_EVERY - 1:
            release_freed_memory()
    tokens = text_ids.array()
    n_text = np.concatenate(text_lengths) if text_lengths else np.zeros(0, dtype=np.int64)
    text_start = np.cumsum(n_text) - n_text
    packed = {k: Packer(len(inputs) * template.max_length) for k in names}
    lengths: list[np.ndarray] = []
    truncated = 0
    for start in range(0, len(inputs), PAIR_SLICE):
        a, b = first[start : start + PAIR_SLICE], second[start : start + PAIR_SLICE]
        n1, n2 = n_text[a], n_text[b]
        k1, k2 = template.kept(n1, n2)
        truncated += int(np.count_nonzero((k1 < n1) | (k2 < n2)))
        # Where each kept text starts in ``tokens``: its head, or (left) its tail.
        src = (
            (text_start[a] + n1 - k1, text_start[b] + n2 - k2)
            if template.left
            else (text_start[a], text_start[b])
        )
        kept = (k1, k2)
        total = k1 + k2 + template.added
        end = np.cumsum(total)
        offset = end - total  # where the pair's piece under way starts in the joined array
        out = {k: np.empty(int(end[-1]), dtype=np.int32) for k in names}
        for piece, type_id in template.pieces:
            if isinstance(piece, tuple):
                where = (offset[:, None] + np.arange(len(piece))).ravel()
                values: Any = np.tile(np.asarray(piece, dtype=np.int32), len(total))
                offset = offset + len(piece)
            else:
                count = kept[piece]
                ramp = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
                where = np.repeat(offset, count) + ramp
                values = tokens[np.repeat(src[piece], count) + ramp]
                offset = offset + count
            if "input_ids" in out:
                out["input_ids"][where] = values
            if "token_type_ids" in out:
                out["token_type_ids"][where] = type_id
        lengths.append(total)
        for k in names:
            packed[k].append(out[k])
    flat = {k: packed[k].array() for k in names}
    if "attention_mask" in tokenizer.model_input_names:
        flat["attention_mask"] = np.ones(0, dtype=np.int32)
    length = np.concatenate(lengths)
    return Encoded(length, np.cumsum(length) - length, flat, truncated)
