"""Offline variants (``<recipe>-offline``): TextAttack builds the canonical recipe, and only the
components that need a download are replaced by local ones.  Each replacement is returned as a
``Substitution``; the item's parameters, its ``results.json`` record and the report carry
them, so no one mistakes a variant's numbers for the canonical recipe's.

==============================================  ================================================
canonical component (download)                  offline stand-in
==============================================  ================================================
counter-fitted paragram embeddings (S3)         all-MiniLM-L6-v2 input token embeddings (PyPI),
                                                whole words, L2-normalised like the originals
                                                so the recipes' thresholds keep their meaning
Universal Sentence Encoder (TF Hub), SBERT      all-MiniLM-L6-v2 sentence embeddings (mean
stsb-distilbert-base (hub)                      pooling), same threshold, metric and window
bert-base-uncased / distilroberta-base          the zoo's masked LM (``standins/masked_lm.py``)
masked LM (hub)
Unicode intentional homoglyphs (missing from    Unicode confusables from Debian
the wheel)                                      (``standins/homoglyphs.py``)
PartOfSpeech with NLTK's tagger; CLARE's        omitted (no tagger ships with PyPI or Debian)
merge transformation (flair POS tagger)
learning-to-write, Google 1B and GPT-2          omitted (no comparable local language model)
language-model constraints
==============================================  ================================================

Each stand-in reaches the recipe only while it builds: the embedding through
``WordEmbedding.counterfitted_GLOVE_embedding`` (where every recipe asks for it), the masked
LM through the ``from_pretrained`` its transformations (and CLARE's module) call, the
homoglyph table through the ``open`` of the homoglyph transformation's module; constraints
whose constructor downloads get a placeholder, dropped after the build; sentence encoders and
NLTK-tagger constraints are replaced or dropped in the built attack.

Import this module only after ``offline.import_textattack``.
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest import mock

import textattack
from textattack.constraints import Constraint
from textattack.constraints.grammaticality import PartOfSpeech
from textattack.constraints.semantics.sentence_encoders import (
    SentenceEncoder,
    UniversalSentenceEncoder,
)
from textattack.shared import WordEmbedding
from textattack.transformations import CompositeTransformation, WordMergeMaskedLM

from nlp_gate.kinds.attacks import minilm, resources
from nlp_gate.kinds.attacks.bundle import Bundle
from nlp_gate.kinds.attacks.standins import homoglyphs, masked_lm

# TextAttack modules whose from_pretrained loads the masked LM a transformation uses.
MASKED_LM_MODULES = (
    "textattack.transformations.word_swaps.word_swap_masked_lm",
    "textattack.transformations.word_insertions.word_insertion_masked_lm",
    "textattack.transformations.word_merges.word_merge_masked_lm",
)
HOMOGLYPH_MODULE = "textattack.transformations.word_swaps.word_swap_homoglyph_swap"
ZOO_MASKED_LM = "the nlp-gate zoo's masked LM (2-layer BERT trained on the zoo's generated text)"


@dataclass(frozen=True)
class Substitution:
    component: str  # the canonical component
    replacement: str  # what stands in for it ("omitted" when dropped)

    def __str__(self) -> str:
        return f"{self.component} -> {self.replacement}"


EMBEDDING = Substitution(
    "counter-fitted paragram embeddings (word_embeddings/paragramcf)",
    f"{minilm.NAME} input token embeddings",
)
USE = Substitution(
    "Universal Sentence Encoder", f"{minilm.NAME} sentence embeddings (mean pooling)"
)
POS = Substitution("PartOfSpeech constraint (NLTK averaged_perceptron_tagger_eng)", "omitted")
MERGE = Substitution(
    "WordMergeMaskedLM transformation (flair upos-english-fast POS tagger)", "omitted"
)
# Constraint classes whose constructor downloads a language model: name in the recipe's
# module -> what the placeholder records.
OMITTED: Mapping[str, Substitution] = {
    "LearningToWriteLanguageModel": Substitution(
        "LearningToWriteLanguageModel constraint", "omitted"
    ),
    "Google1BillionWordsLanguageModel": Substitution(
        "Google 1-billion-words language model constraint", "omitted"
    ),
    "GPT2": Substitution("GPT-2 language model constraint", "omitted"),
}


def _placeholder(substitution: Substitution) -> type[Constraint]:
    class Omitted(Constraint):  # type: ignore[misc]  # TextAttack is untyped: its base is Any
        """Stands in for a constraint whose constructor downloads; dropped after the build."""

        omitted = substitution

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(compare_against_original=True)

        def _check_constraint(self, transformed_text: Any, reference_text: Any) -> bool:
            return True

    return Omitted


class _SBERT(SentenceEncoder):  # type: ignore[misc]  # TextAttack's base is Any
    """Stands in for ``SBERT``, whose constructor loads its hub model; replaced by MiniLM
    after the build."""

    def __init__(
        self,
        threshold: float = 0.7,
        metric: str = "cosine",
        model_name: str = "bert-base-nli-stsb-mean-tokens",
        **kwargs: Any,
    ) -> None:
        super().__init__(threshold=threshold, metric=metric, **kwargs)
        self.model_name = model_name


class _Used:
    """The substitutions the build asked for, in order, each once."""

    def __init__(self) -> None:
        self.items: list[Substitution] = []

    def add(self, substitution: Substitution) -> None:
        if substitution not in self.items:
            self.items.append(substitution)


def build_offline(
    recipe_class: Any, model_wrapper: Any, bundle: Bundle, build_args: Mapping[str, Any]
) -> tuple[Any, list[Substitution]]:
    """The recipe's own ``build`` with the downloads replaced; returns the attack and what was
    substituted (in the order the recipe uses the components)."""
    used = _Used()
    with ExitStack() as stack:
        _patch_embedding(stack, used)
        module = sys.modules[recipe_class.__module__]
        _patch_masked_lm(stack, used, module, resources.ZOO_MASKED_LM.path(bundle))
        _patch_homoglyphs(stack, used, resources.HOMOGLYPH_TABLE.path(bundle))
        for name, substitution in OMITTED.items():
            if hasattr(module, name):
                stack.enter_context(mock.patch.object(module, name, _placeholder(substitution)))
        if hasattr(module, "SBERT"):
            stack.enter_context(mock.patch.object(module, "SBERT", _SBERT))
        attack = recipe_class.build(model_wrapper, **build_args)
    constraints = []
    for c in [*attack.pre_transformation_constraints, *attack.constraints]:
        if hasattr(c, "omitted"):
            used.add(c.omitted)
        elif isinstance(c, UniversalSentenceEncoder):
            constraints.append(minilm.encoder_like(c))
            used.add(USE)
        elif isinstance(c, _SBERT):
            constraints.append(minilm.encoder_like(c))
            used.add(Substitution(f"SBERT sentence encoder ({c.model_name})", USE.replacement))
        elif isinstance(c, PartOfSpeech) and c.tagger_type == "nltk":
            used.add(POS)
        else:
            constraints.append(c)
    transformation = _without_merge(attack.transformation, used)
    _fit_masked_lm(transformation)
    rebuilt = textattack.Attack(
        attack.goal_function, constraints, transformation, attack.search_method
    )
    return rebuilt, used.items


def _patch_embedding(stack: ExitStack, used: _Used) -> None:
    def embedding() -> WordEmbedding:
        used.add(EMBEDDING)
        return minilm.word_embedding()

    stack.enter_context(
        mock.patch.object(WordEmbedding, "counterfitted_GLOVE_embedding", staticmethod(embedding))
    )


def _patch_masked_lm(stack: ExitStack, used: _Used, recipe_module: Any, where: Path) -> None:
    def loader(part: int) -> Callable[..., Any]:
        def from_pretrained(name: str, *args: Any, **kwargs: Any) -> Any:
            used.add(Substitution(f"{name} masked language model", ZOO_MASKED_LM))
            return masked_lm.load(where)[part]

        return from_pretrained

    model = SimpleNamespace(from_pretrained=loader(0))
    tokenizer = SimpleNamespace(from_pretrained=loader(1))
    for name in MASKED_LM_MODULES:
        module = sys.modules.get(name)
        if module is not None:
            stack.enter_context(mock.patch.object(module, "AutoModelForMaskedLM", model))
            stack.enter_context(mock.patch.object(module, "AutoTokenizer", tokenizer))
    if hasattr(recipe_module, "transformers"):  # CLARE loads its shared model itself
        stack.enter_context(
            mock.patch.object(
                recipe_module,
                "transformers",
                SimpleNamespace(
                    AutoModelForCausalLM=model, AutoModelForMaskedLM=model, AutoTokenizer=tokenizer
                ),
            )
        )


def _patch_homoglyphs(stack: ExitStack, used: _Used, table: Path) -> None:
    module = sys.modules.get(HOMOGLYPH_MODULE)
    if module is None:
        return

    def open_table(file: Any, *args: Any, **kwargs: Any) -> Any:
        if str(file).endswith(homoglyphs.FILE_NAME):
            used.add(
                Substitution(
                    "Unicode intentional homoglyphs (intentional.txt, missing "
                    "from the TextAttack wheel)",
                    _table_source(table),
                )
            )
            file = table
        return builtins.open(file, *args, **kwargs)

    stack.enter_context(mock.patch.object(module, "open", open_table, create=True))


def _table_source(table: Path) -> str:
    with builtins.open(table, encoding="utf-8") as f:
        pairs = sum(1 for line in f if not line.startswith("#"))
    return (
        f"{pairs} single-character pairs of Unicode confusables.txt (Debian "
        f"{homoglyphs.DEBIAN_PACKAGE})"
    )


def _fit_masked_lm(transformation: Any) -> None:
    """The masked-LM transformations pad every window to their ``max_length`` (512, BERT's);
    the zoo's model has fewer positions (64, the zoo's ``max_length``), so windows are cut
    to what it has."""
    parts = (
        transformation.transformations
        if isinstance(transformation, CompositeTransformation)
        else [transformation]
    )
    for part in parts:
        model = getattr(part, "_language_model", None)
        if model is not None and hasattr(part, "max_length"):
            part.max_length = min(part.max_length, model.config.max_position_embeddings)


def _without_merge(transformation: Any, used: _Used) -> Any:
    """CLARE's merge transformation tags parts of speech with flair's tagger (a hub
    download, at every call); the variant swaps and inserts only."""
    if not isinstance(transformation, CompositeTransformation):
        return transformation
    kept = [t for t in transformation.transformations if not isinstance(t, WordMergeMaskedLM)]
    if len(kept) == len(transformation.transformations):
        return transformation
    used.add(MERGE)
    return CompositeTransformation(kept)
