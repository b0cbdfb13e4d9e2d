"""Tokenizing a pass's inputs once and cutting them into padded, length-sorted batches.

``Classifier._forward`` (engine/predictor.py) feeds the model from here.  A pass tokenizes
all of its inputs (chunk by chunk, into packed arrays of small unsigned ints), sorts them by
length and pads each batch with numpy; ``Encodings`` lets the next model with the same
tokenizer, in this process or another worker, reuse those tokens.  Every batch equals the
tokenizer's own ``padding=True`` encoding of its inputs
(tests/integration/test_engine_properties.py).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections import OrderedDict
from collections.abc import Hashable, Iterator, Sequence
from importlib.metadata import version
from itertools import chain
from pathlib import Path
from typing import Any, cast

import numpy as np

from nlp_gate.engine import pair_encoding
from nlp_gate.engine.encoded import ENCODE_CHUNK, TRIM_EVERY, Encoded, Packer
from nlp_gate.engine.file_cache import mark_used, publish
from nlp_gate.engine.rows import release_freed_memory


def encode(
    tokenizer: Any, inputs: Sequence[Hashable], max_length: int, backend: Any | None = None
) -> Encoded:
    """``inputs`` tokenized as ``tokenizer(inputs, truncation=True, max_length=max_length)``
    does (not padded), packed into small unsigned ints a chunk at a time; ``backend``: the
    tokenizer's ``_truncating_backend`` for ``max_length``, if already made."""
    backend = backend or _truncating_backend(tokenizer, max_length)
    names = [k for k in ("input_ids", "token_type_ids") if k in tokenizer.model_input_names]
    if (
        backend is not None
        and len(inputs) >= pair_encoding.PAIRS_FROM
        and all(type(x) is tuple for x in inputs)
    ):
        template = pair_encoding.PairTemplate.of(backend)
        if template is not None:
            return pair_encoding.encode_pairs(
                tokenizer, cast(Sequence[tuple[str, str]], inputs), names, backend, template
            )
    lengths: list[np.ndarray] = []
    packed = {k: Packer(len(inputs) * max_length) for k in names}
    truncated = 0
    for start in range(0, len(inputs), ENCODE_CHUNK):
        chunk = list(inputs[start : start + ENCODE_CHUNK])
        if backend is not None:
            encodings = backend.encode_batch_fast(chunk)  # ids without character offsets
            rows = {
                "input_ids": [e.ids for e in encodings],
                "token_type_ids": [e.type_ids for e in encodings],
            }
            truncated += sum(bool(e.overflowing) for e in encodings)  # the cut-off tokens
        else:
            rows = _slow_encode(tokenizer, chunk, max_length=max_length)
            full = _slow_encode(tokenizer, chunk)
            truncated += sum(len(a) != len(b) for a, b in zip(rows["input_ids"], full["input_ids"]))
        n = np.fromiter(map(len, rows["input_ids"]), dtype=np.int64, count=len(chunk))
        lengths.append(n)
        for k in names:
            packed[k].append(
                np.fromiter(chain.from_iterable(rows[k]), dtype=np.int32, count=int(n.sum()))
            )
        if start // ENCODE_CHUNK % TRIM_EVERY == TRIM_EVERY - 1:
            release_freed_memory()
    flat = {k: packed[k].array() for k in names}
    if "attention_mask" in tokenizer.model_input_names:
        # Unpadded, the attention mask is all ones: padding derives it (``padded_batches``).
        flat["attention_mask"] = np.ones(0, dtype=np.int32)
    length = np.concatenate(lengths)
    return Encoded(length, np.cumsum(length) - length, flat, truncated)


def _slow_encode(tokenizer: Any, chunk: list[Any], max_length: int | None = None) -> Any:
    """A slow tokenizer's encoding of ``chunk`` (texts or pairs), truncated to
    ``max_length`` when given."""
    cut = {"truncation": True, "max_length": max_length} if max_length else {}
    if isinstance(chunk[0], tuple):
        return tokenizer([x[0] for x in chunk], [x[1] for x in chunk], **cut)
    return tokenizer(chunk, **cut)


def _truncating_backend(tokenizer: Any, max_length: int) -> Any | None:
    """A copy of a fast tokenizer's Rust backend set up exactly as transformers sets up its
    own for ``truncation=True, max_length=max_length`` without padding (longest first, no
    stride, the tokenizer's truncation side), or None for a slow tokenizer.

    Calling it directly skips transformers' conversion of every encoding to a dict of Python
    lists, a third of the tokenization time of a suite's ~170k inputs.  The padded batches
    are checked against ``tokenizer(..., padding=True)`` in
    tests/integration/test_engine_properties.py.
    """
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        return None
    from tokenizers import Tokenizer

    own = Tokenizer.from_str(backend.to_str())
    own.no_padding()
    own.enable_truncation(
        max_length, stride=0, strategy="longest_first", direction=tokenizer.truncation_side
    )
    own.encode_special_tokens = bool(getattr(tokenizer, "split_special_tokens", False))
    return own


class Encodings:
    """Tokenizations kept for the next model with the same tokenizer, in this process and,
    given a ``directory``, in the other xdist workers and later runs.

    Several fine-tunes of one base model share its tokenizer (the zoo's models of one
    family do too), and a suite asks each of them for exactly the same inputs: the second
    model's pass reuses the first one's tokens instead of tokenizing ~170k inputs again, on
    whichever worker it runs (or in a re-run with a new candidate model).  Keyed by the
    truncating backend's full serialized state (vocabulary, normalizer, post-processor,
    truncation length and side), the feature names, the tokenizers version and the inputs;
    a slow tokenizer (no backend) never shares.
    """

    def __init__(
        self,
        keep: int = 48,
        directory: Path | None = None,
        keep_files: int = 96,
        min_inputs: int = 1024,
        keep_bytes: int = 256 << 20,
    ) -> None:
        # Entries are the parts of a pass: ahead of an accelerator ``producer.PASS_PART``
        # inputs (a suite's pass is ~11), 48 of them about four (tokenizer, suite) passes of a
        # run, ~7-14 MiB each; on the CPU a whole pass (a run holds far fewer than 48).
        self.keep = keep
        # Smaller passes (an attack's queries, a comparison's few inputs) tokenize in
        # milliseconds: kept, they would only push a suite's tokenization out.
        self.min_inputs = min_inputs
        self.directory = directory  # the files shared between processes; None: memory only
        # In the smallest int type, as in memory: a part ~1-2.5 MB, a whole CPU pass ~10-25
        # MB; either way at most ``keep_bytes`` together (about eight passes).
        self.keep_files = keep_files
        self.keep_bytes = keep_bytes
        self.reused = 0  # answered from this process's memory
        self.loaded = 0  # answered from a file another process (or run) wrote
        self._store: OrderedDict[str, Encoded] = OrderedDict()
        # (tokenizer, its truncating backend, the sha256 of the backend's state) per
        # (tokenizer id, max length, truncation side); the tokenizer is kept so its id stays
        # its own.
        self._backends: dict[tuple[int, int, str], tuple[Any, Any, Any]] = {}

    def encode(self, tokenizer: Any, inputs: Sequence[Hashable], max_length: int) -> Encoded:
        backend, state = self._backend(tokenizer, max_length)
        if backend is None or len(inputs) < self.min_inputs:
            return encode(tokenizer, inputs, max_length, backend)
        h = state.copy()
        for x in inputs:  # length-prefixed parts: no two input lists hash alike
            parts = x if isinstance(x, tuple) else (x,)
            h.update(len(parts).to_bytes(1, "big"))
            for part in parts:
                raw = str(part).encode()
                h.update(len(raw).to_bytes(8, "big") + raw)
        key = h.hexdigest()
        found = self._store.get(key)
        if found is not None:
            self._store.move_to_end(key)
            self.reused += 1
            return found
        found = self._read(key)
        if found is None:
            found = encode(tokenizer, inputs, max_length, backend)
            self._write(key, found)
        self._store[key] = found
        while len(self._store) > self.keep:
            self._store.popitem(last=False)
        return found

    def _backend(self, tokenizer: Any, max_length: int) -> tuple[Any, Any]:
        """``tokenizer``'s truncating backend and the hash of its state, made once per
        tokenizer: serializing and rebuilding a tokenizer takes milliseconds (more for a
        30k-word vocabulary), and an attack calls the engine thousands of times."""
        slot = (id(tokenizer), max_length, str(tokenizer.truncation_side))
        if slot not in self._backends:
            backend = _truncating_backend(tokenizer, max_length)
            state = (
                None
                if backend is None
                else hashlib.sha256(
                    json.dumps(
                        [
                            backend.to_str(),
                            backend.encode_special_tokens,
                            list(tokenizer.model_input_names),
                            version("tokenizers"),
                            _FILE_FORMAT,
                        ]
                    ).encode()
                )
            )
            self._backends[slot] = (tokenizer, backend, state)
        return self._backends[slot][1:]

    def _path(self, key: str) -> Path | None:
        return None if self.directory is None else self.directory / f"{key}.npz"

    def _read(self, key: str) -> Encoded | None:
        path = self._path(key)
        if path is None or not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as data:
                lengths = data["lengths"].astype(np.int64)
                truncated = int(data["truncated"])
                flat = {
                    name.removeprefix("flat_"): data[name]
                    for name in data.files
                    if name.startswith("flat_")
                }
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            return None  # evicted meanwhile, or unreadable: tokenize again
        mark_used(path)
        self.loaded += 1
        return Encoded(lengths, np.cumsum(lengths) - lengths, flat, truncated)

    def _write(self, key: str, found: Encoded) -> None:
        path = self._path(key)
        if path is not None:
            publish(
                path,
                lambda f: np.savez(
                    f,
                    lengths=_compact(found.lengths),
                    truncated=np.int64(found.truncated),
                    **{f"flat_{name}": _compact(a) for name, a in found.flat.items()},  # type: ignore[arg-type]  # numpy's stub: **kwds as bool
                ),
                self.keep_files,
                self.keep_bytes,
            )


_FILE_FORMAT = 2  # layout of an Encodings file (part of its key)


def _compact(a: np.ndarray) -> np.ndarray:
    """``a`` (non-negative ints) in the smallest unsigned type that holds it: token ids fit
    16 bits for most vocabularies, token types 8."""
    return a.astype(np.min_scalar_type(int(a.max())), copy=False) if a.size else a


def batch_bounds(lengths: np.ndarray, batch_size: int, token_budget: int | None) -> list[int]:
    """Where the batches of inputs sorted by token count (``lengths``, ascending) end: each
    the most inputs after the last batch that hold at most ``batch_size`` rows and at most
    ``token_budget`` padded tokens (rows x the longest row's tokens; None: no budget).  An
    input longer than the budget alone is a batch of its own."""
    ends: list[int] = []
    start, n = 0, len(lengths)
    while start < n:
        end = min(start + batch_size, n)
        if token_budget is not None and (end - start) * int(lengths[end - 1]) > token_budget:
            # rows x width grows with the rows (sorted ascending): the rows that fit are a prefix.
            rows = np.arange(1, end - start + 1) * lengths[start:end]
            end = start + max(1, int(np.count_nonzero(rows <= token_budget)))
        ends.append(end)
        start = end
    return ends


def padded_batches(
    tokenizer: Any,
    inputs: Sequence[Hashable],
    max_length: int,
    batch_size: int,
    encoded: Encoded | None = None,
    token_budget: int | None = None,
) -> Iterator[tuple[np.ndarray, dict[str, np.ndarray]]]:
    """``inputs`` as model-ready batches: (indices into ``inputs``, padded features).

    Tokenized in one call of the tokenizer (or taken from ``encoded``), unpadded, then
    sorted by token count and padded per batch here with numpy: per-batch tokenizer calls
    (or ``tokenizer.pad``) spend ~1.5x as long in transformers' Python-side batching
    (measured on the zoo's QQP model), and sorting keeps padding, i.e. wasted compute,
    small.  A batch holds at most ``batch_size`` inputs and at most ``token_budget`` padded
    tokens (``batch_bounds``).  Each batch equals what ``tokenizer(batch, padding=True,
    truncation=True, max_length=max_length)`` returns for its inputs.
    """
    if not inputs:
        return
    if tokenizer.pad_token_id is None:
        raise ValueError(f"{type(tokenizer).__name__} has no padding token to pad batches with")
    enc = encoded if encoded is not None else encode(tokenizer, inputs, max_length)
    fill = {"input_ids": tokenizer.pad_token_id, "token_type_ids": tokenizer.pad_token_type_id}
    left = tokenizer.padding_side == "left"
    order = np.argsort(enc.lengths, kind="stable")
    start = 0
    for end in batch_bounds(enc.lengths[order], batch_size, token_budget):
        idx = order[start:end]
        start = end
        lengths = enc.lengths[idx][:, None]
        width = int(lengths.max())
        column = np.arange(width)[None, :]
        # Position j of a row holds its token j (right padding) or j - pad (left padding).
        offset = column - (width - lengths) if left else column
        real = (offset >= 0) & (offset < lengths)
        where = np.where(real, enc.starts[idx][:, None] + offset, 0)
        batch: dict[str, np.ndarray] = {}
        for name, flat in enc.flat.items():
            if name == "attention_mask":
                batch[name] = real.astype(np.int64)
            else:
                # Widened before padding: the pad id may not fit the packed type.
                batch[name] = np.where(real, flat[where].astype(np.int64), fill.get(name, 0))
        yield idx, batch
