"""Train the zoo's masked language model: the offline stand-in for the hub models that BAE and
BERT-Attack (``bert-base-uncased``) and CLARE (``distilroberta-base``) draw swap, insertion
and merge candidates from.  The runtime (``nlp_gate/kinds/attacks/standins/masked_lm.py``)
only copies the shipped one and loads it.

What it is: a 2-layer BERT trained with BERT's own objective (15 % of tokens chosen; of those
80 % masked, 10 % random, 10 % kept: transformers' ``DataCollatorForLanguageModeling``) on the
zoo's generated training text, with the zoo's BERT tokenizer.  It proposes the words the zoo's
models were trained on, in the contexts the zoo's data uses, and nothing beyond that
vocabulary (about 2,000 word pieces): its candidates are narrower than bert-base's, which the
substitution line of every item that uses it says.

It needs the zoo's recipe, not a built zoo: its training process trains the zoo's BERT
tokenizer anew from that recipe (the same function, data and vocabulary size as the zoo's
``build_base``: the same files); ``python -m workshop.zoo train --ship`` trains it after the
zoo.

Built like the zoo: fixed seed, one thread, the recipe's pinned CPU numerics in a spawned
process, into a temporary directory renamed into place under a file lock, so a concurrent
build waits and then reuses the finished model.  ``masked_lm.json`` (written last) holds the
recipe hash, the training figures and the weights' sha256.  Training (minutes) reports its
steps as a progress stage (``nlp_gate.progress``), written by the building process.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import shutil
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from filelock import FileLock

from nlp_gate.kinds.attacks.standins.masked_lm import CARD, LOCK_TIMEOUT_S, build_lock, read_card
from nlp_gate.progress import Stage

# Mega-batches of this many batches, sorted by length within each (``_batches``).
GROUPING = 50


@dataclass(frozen=True)
class MaskedLMRecipe:
    # Measured on one core, the head on the chosen tokens only (``_masked_loss``), 64 wide,
    # the whole build (tokenizer, corpus, training, held-out figures): batches of rows of
    # similar length (``_batches``), 3,000 steps: 105 s, held-out masked-token accuracy 0.395
    # (perplexity 29); 2,000 such steps: 75 s, 0.250 (70); 2,000 steps of 64 rows drawn at
    # random (0.3.6-0.3.8), two thirds of each batch padding: 146 s, 0.278 (53).  The 128
    # wide, 1,000 steps of 0.3.5: 156 s, 0.221 (perplexity 99).  Narrower and longer learns
    # more in the same time, and proposes candidates to the attacks at half the cost per call.
    hidden_size: int = 64
    num_layers: int = 2
    num_heads: int = 2
    intermediate_size: int = 128
    max_length: int = 64
    steps: int = 3000
    batch_size: int = 64
    learning_rate: float = 2e-3
    warmup_steps: int = 100
    mask_probability: float = 0.15
    heldout: int = 512  # sentences kept out of training, for the card's accuracy
    seed: int = 4321


def recipe_hash(recipe: MaskedLMRecipe, zoo_recipe_hash: str) -> str:
    """Changes with this recipe, the zoo it is built from, and this module's code."""
    digest = hashlib.sha256(json.dumps(dataclasses.asdict(recipe), sort_keys=True).encode())
    digest.update(zoo_recipe_hash.encode())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()


def build(target: Path, recipe: MaskedLMRecipe = MaskedLMRecipe()) -> dict[str, Any]:
    """The stand-in trained at ``target`` from the zoo's recipe, unless a current one of
    ``recipe`` is there."""
    from nlp_gate.zoo.folders import remove_leftovers, swap_into_place
    from workshop.zoo.recipe import DEFAULT_RECIPE
    from workshop.zoo.recipe import recipe_hash as zoo_recipe_hash

    zoo_hash = zoo_recipe_hash(DEFAULT_RECIPE)
    expected = recipe_hash(recipe, zoo_hash)
    card = read_card(target)
    if card is not None and card["recipe_hash"] == expected:
        return card
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(build_lock(target)), timeout=LOCK_TIMEOUT_S):
        card = read_card(target)
        if card is not None and card["recipe_hash"] == expected:
            return card  # built by another process while this one waited
        remove_leftovers(target)  # of builds that crashed (we hold the lock)
        tmp = target.parent / f".{target.name}.build-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            card = _build(tmp, zoo_hash, recipe, expected)
            swap_into_place(tmp, target)  # the zoo's: no reader sees half a model
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return card


def _build(out: Path, zoo_hash: str, recipe: MaskedLMRecipe, expected: str) -> dict[str, Any]:
    from workshop.zoo.build import SpawnPool
    from workshop.zoo.recipe import DEFAULT_RECIPE

    zoo_recipe = DEFAULT_RECIPE
    out.mkdir(parents=True)
    # The build's own stage keeps its log alive while the worker starts and tokenizes.
    with Stage("attacks: masked LM: build"), SpawnPool(1, dict(zoo_recipe.cpu_numerics)) as run:
        (figures,) = run(train, [(recipe, zoo_recipe, out)])
    card = {"recipe_hash": expected, "recipe": dataclasses.asdict(recipe),
            "zoo_recipe_hash": zoo_hash, "tokenizer": "the zoo's bert tokenizer, trained anew "
            "from the zoo's recipe", **figures}
    (out / CARD).write_text(json.dumps(card, indent=2, sort_keys=True) + "\n")
    return card


def train(recipe: MaskedLMRecipe, zoo_recipe: Any, out: Path) -> dict[str, Any]:
    """Train and save the model (runs in a spawned build process)."""
    import tempfile

    import torch
    from workshop.zoo.pipeline import base_tokenizer, corpus, load_tokenizer
    from workshop.zoo.train import adamw, deterministic_torch, seed_everything, update
    from transformers import (
        BertConfig,
        BertForMaskedLM,
        DataCollatorForLanguageModeling,
    )

    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="masked-lm-tokenizer-") as work:
        base_tokenizer(zoo_recipe, "bert", Path(work))  # the zoo's own function and data
        tokenizer = load_tokenizer(Path(work) / "tokenizer")  # reloaded, as build_model does
    texts = sorted(set(corpus(zoo_recipe)))  # fixed order, no duplicate sentences
    rows = [{"input_ids": ids} for ids in
            tokenizer(texts, truncation=True, max_length=recipe.max_length)["input_ids"]]
    heldout, rows = rows[:recipe.heldout], rows[recipe.heldout:]
    with deterministic_torch(zoo_recipe.num_threads):
        seed_everything(recipe.seed)
        model = BertForMaskedLM(BertConfig(
            vocab_size=len(tokenizer), hidden_size=recipe.hidden_size,
            num_hidden_layers=recipe.num_layers, num_attention_heads=recipe.num_heads,
            intermediate_size=recipe.intermediate_size,
            max_position_embeddings=recipe.max_length, pad_token_id=tokenizer.pad_token_id))
        collator = DataCollatorForLanguageModeling(tokenizer,
                                                   mlm_probability=recipe.mask_probability,
                                                   return_tensors="pt")
        optimizer = adamw(model.parameters(), lr=recipe.learning_rate, weight_decay=0.01)
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(
            (step + 1) / recipe.warmup_steps,
            max(0.0, (recipe.steps - step) / (recipe.steps - recipe.warmup_steps))))
        order = torch.Generator().manual_seed(recipe.seed)
        model.train()
        with Stage("attacks: masked LM: training", recipe.steps, "steps") as steps:
            for idx in islice(_batches(rows, recipe.batch_size, order), recipe.steps):
                update(model, _masked_loss(model, collator([rows[i] for i in idx])),
                       optimizer, scheduler)
                steps.advance()
        model.eval()
        heldout_loss, accuracy = _evaluate(model, collator(heldout))
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return {"train_sentences": len(rows), "heldout_sentences": len(heldout),
            "heldout_loss": round(heldout_loss, 4), "heldout_perplexity":
            round(math.exp(heldout_loss), 2), "heldout_masked_accuracy": round(accuracy, 4),
            "num_parameters": sum(p.numel() for p in model.parameters()),
            "train_seconds": round(time.perf_counter() - start, 1),
            "weights_sha256": hashlib.sha256((out / "model.safetensors").read_bytes())
            .hexdigest()}


def _batches(rows: list[dict[str, Any]], size: int, generator: Any) -> Iterator[list[int]]:
    """Batches of ``size`` rows of similar length, epoch after epoch, in random order.

    A batch is padded to its longest sentence, and the corpus's sentences are short (17
    tokens on average) with a long tail (up to 64): 64 rows drawn at random were padded to
    49 tokens on average, two thirds of every step's arithmetic spent on padding.  Grouped
    by length (``epoch_batches``: transformers' own length grouping, mega-batches of 50
    batches), a step costs what its tokens cost."""
    from workshop.zoo.train import epoch_batches

    lengths = [len(row["input_ids"]) for row in rows]
    while True:
        yield from epoch_batches(lengths, size, generator, GROUPING, drop_last=True)


def _masked_loss(model: Any, batch: dict[str, Any]) -> Any:
    """BERT's masked-LM loss, with the vocabulary head applied to the chosen tokens only.

    ``BertForMaskedLM`` scores every position against the whole vocabulary and then ignores
    the 85 % that were not chosen: that head was half of a training step's arithmetic here.
    The loss is the same mean over the same chosen tokens (the head has no dropout, so the
    random draws are the same too); only float rounding differs."""
    import torch

    hidden = model.bert(input_ids=batch["input_ids"],
                        attention_mask=batch["attention_mask"]).last_hidden_state
    chosen = batch["labels"] != -100
    return torch.nn.functional.cross_entropy(model.cls(hidden[chosen]), batch["labels"][chosen])


def _evaluate(model: Any, batch: dict[str, Any]) -> tuple[float, float]:
    import torch

    with torch.inference_mode():
        output = model(**batch)
    chosen = batch["labels"] != -100
    predicted = output.logits.argmax(-1)
    accuracy = (predicted[chosen] == batch["labels"][chosen]).float().mean().item()
    return float(output.loss), accuracy
