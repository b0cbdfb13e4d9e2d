"""The two kinds of build job, as pure functions of (recipe, names, paths).

A job reads everything it needs from its arguments and the files earlier
jobs wrote, so jobs can run in any process in any order and still produce
the same bytes - which is what lets ``build.py`` spread them over worker
processes without giving up reproducibility.

1. ``build_base(family)``: trains the family's tokenizer on the training text
   of every selected dataset (one vocabulary per family, like the real
   ``bert-base-uncased`` / ``albert-base-v2``) and pre-trains the base encoder
   the pair tasks start from (see ``pretrain.py``).
2. ``build_model(dataset, family)``: trains a classifier (pair tasks: from
   that base; sentiment: from scratch), measures held-out accuracy and
   ``save_pretrained``s model + tokenizer.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from pathlib import Path

from safetensors.torch import load_file, save_file
from transformers import AutoTokenizer, PreTrainedTokenizerBase, PreTrainedTokenizerFast

from nlp_gate.progress import Stage
from nlp_gate.zoo.card import BaseResult, ModelResult
from workshop.zoo.data import DATASETS, Example, heldout_path, read_jsonl
from workshop.zoo.pretrain import PretrainSchedule, matching_pairs, pretrain_encoder
from workshop.zoo.recipe import FAMILIES, Recipe
from workshop.zoo.tokenization import train_tokenizer
from workshop.zoo.vocabulary import tokenizer_split, training_split
from workshop.zoo.train import accuracy, build_model as new_classifier, deterministic_torch, seed_everything, train_model


# What a model of a dataset trains on: the zoo's generated split, or (the defect zoo) a
# doctored copy of it.  A module-level function, so spawned build workers can unpickle it.
TrainingData = Callable[[Recipe, str], list[Example]]


def train_split(recipe: Recipe, dataset: str) -> list[Example]:
    """The generated split with the suites' vocabulary (``vocabulary.py``)."""
    return training_split(recipe.train_size, dataset)


def tokenizer_data(recipe: Recipe, dataset: str) -> list[Example]:
    return tokenizer_split(recipe.train_size, dataset)


def base_dir(workdir: Path, family: str) -> Path:
    return workdir / "_base" / family


def _texts(examples: list[Example]) -> list[str]:
    return [t for e in examples for t in (e.text if isinstance(e.text, tuple) else (e.text,))]


def corpus(recipe: Recipe, data: TrainingData = train_split) -> list[str]:
    """Every training text of the recipe's datasets, in a fixed order: what the tokenizers
    (and the attack stand-in masked LM) learn from."""
    return [t for d in recipe.datasets for t in _texts(data(recipe, d))]


def _pretraining_pairs(recipe: Recipe, data: TrainingData) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for dataset in recipe.datasets:
        if DATASETS[dataset].task in recipe.base_tasks:
            examples = data(recipe, dataset)[: recipe.base_pairs_per_dataset]
            pairs += [e.text for e in examples if isinstance(e.text, tuple)]
    return pairs


def base_tokenizer(recipe: Recipe, family: str, out: Path,
                   data: TrainingData = tokenizer_data) -> PreTrainedTokenizerFast:
    """The family's tokenizer, trained on the recipe's tokenizer data and saved to
    ``out / "tokenizer"``: the one every model of the family gets, and the one the attacks'
    masked LM trains with (``kinds/attacks/standins/masked_lm.py``)."""
    tokenizer = train_tokenizer(family, corpus(recipe, data), recipe.arch(family).vocab_size,
                                out / "vocab-work")
    tokenizer.save_pretrained(out / "tokenizer")
    return tokenizer


def build_base(recipe: Recipe, family: str, workdir: Path,
               data: TrainingData = tokenizer_data, *, pretrain: bool = True) -> BaseResult:
    """Tokenizer (always) and pre-trained encoder (when a selected dataset's task uses one,
    unless not ``pretrain``: a build of the recipe's sentiment models alone, which train
    from scratch, needs the tokenizer of every dataset's text but no encoder)."""
    start = time.perf_counter()
    out = base_dir(workdir, family)
    with Stage(f"zoo: {family} base: tokenizer"):
        tokenizer = base_tokenizer(recipe, family, out, data)
    pairs = _pretraining_pairs(recipe, data) if pretrain else []
    seed = recipe.base_seed + FAMILIES.index(family)
    matching: float | None = None
    if pairs:
        with deterministic_torch(recipe.num_threads):
            seed_everything(seed)
            # Any dataset's label set works for the template: only the
            # encoder (embeddings + transformer layers) is kept.
            template = new_classifier(family, recipe, DATASETS[recipe.datasets[0]], tokenizer)
            weights, stats = pretrain_encoder(
                template, tokenizer, matching_pairs(pairs, seed),
                schedule=PretrainSchedule(
                    learning_rate=recipe.arch(family).base_learning_rate,
                    min_steps=recipe.base_min_steps, max_steps=recipe.base_max_steps,
                    decay_steps=recipe.base_decay_steps,
                ),
                batch_size=recipe.batch_size, max_length=recipe.max_length, seed=seed,
                grouping=recipe.length_grouping,
                stage=f"zoo: {family} base: pre-training",
            )
        save_file({k: v.contiguous() for k, v in weights.items()}, str(out / "encoder.safetensors"))
        matching = stats.final_token_accuracy
    return BaseResult(
        family=family, seed=seed, vocab_size=len(tokenizer), steps=stats.steps if pairs else 0,
        matching_accuracy=matching, seconds=round(time.perf_counter() - start, 2),
    )


def load_tokenizer(path: Path) -> PreTrainedTokenizerBase:
    tokenizer: PreTrainedTokenizerBase = AutoTokenizer.from_pretrained(str(path))
    return tokenizer


def build_model(recipe: Recipe, dataset: str, family: str, workdir: Path,
                data: TrainingData = train_split, path: str | None = None) -> ModelResult:
    """Train, measure and save one classifier to ``workdir/path`` (default
    ``<dataset>/<family>``)."""
    start = time.perf_counter()
    spec = DATASETS[dataset]
    seed = recipe.seed_for(dataset, family)
    tokenizer = load_tokenizer(base_dir(workdir, family) / "tokenizer")
    # Written once by the orchestrator before any model job starts.
    heldout = read_jsonl(heldout_path(workdir, dataset))
    with deterministic_torch(recipe.num_threads):
        seed_everything(seed)
        model = new_classifier(family, recipe, spec, tokenizer)
        if spec.task in recipe.base_tasks:
            encoder = load_file(str(base_dir(workdir, family) / "encoder.safetensors"))
            result = getattr(model, model.base_model_prefix).load_state_dict(encoder, strict=False)
            # Only the pooler (unused by the token-level objective) starts fresh.
            assert not result.unexpected_keys and all("pooler" in k for k in result.missing_keys), result
        path = path or f"{dataset}/{family}"
        train_model(model, tokenizer, data(recipe, dataset), recipe, recipe.epochs[dataset], seed,
                    stage=f"zoo: {path}: fine-tuning")
        acc = accuracy(model, tokenizer, heldout, recipe.max_length, recipe.eval_batch_size,
                       stage=f"zoo: {path}: evaluation")
    out = workdir / path
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    weights = (out / "model.safetensors").read_bytes()
    return ModelResult(
        dataset=dataset, family=family, path=path, seed=seed,
        accuracy=acc, heldout_size=len(heldout),
        num_parameters=sum(p.numel() for p in model.parameters()),
        train_seconds=round(time.perf_counter() - start, 2),
        weights_sha256=hashlib.sha256(weights).hexdigest(),
    )
