"""Train and evaluate one tiny sequence classifier, deterministically.

Determinism on CPU needs three things, all handled here: a fixed seed for
every RNG that training touches (init, dropout, batch order), deterministic
kernels, and a fixed intra-op thread count - float sums are not associative,
so a different split of a matmul across threads changes the last bits.
"""

from __future__ import annotations

import contextlib
import math
import random
from typing import Any, Iterator, Sequence

import numpy as np
import torch
from transformers import (
    AlbertConfig,
    AlbertForSequenceClassification,
    BertConfig,
    BertForSequenceClassification,
    PreTrainedModel,
    PreTrainedTokenizerBase,
)

from nlp_gate.progress import Reporter, Stage
from workshop.zoo.data import DatasetSpec, Example
from workshop.zoo.recipe import Recipe


@contextlib.contextmanager
def deterministic_torch(num_threads: int) -> Iterator[None]:
    """Pin threads and deterministic kernels, restoring the caller's settings
    afterwards (the zoo may be built inside a pytest session)."""
    previous_threads = torch.get_num_threads()
    previous_det = torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(num_threads)
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(previous_det)
        torch.set_num_threads(previous_threads)


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def build_model(family: str, recipe: Recipe, spec: DatasetSpec, tokenizer: PreTrainedTokenizerBase) -> PreTrainedModel:
    arch = recipe.arch(family)
    labels = {
        "id2label": dict(enumerate(spec.labels)),
        "label2id": {name: i for i, name in enumerate(spec.labels)},
        "num_labels": len(spec.labels),
        "problem_type": "single_label_classification",
        "pad_token_id": tokenizer.pad_token_id,
    }
    shape = {
        "vocab_size": len(tokenizer),
        "hidden_size": arch.hidden_size,
        "num_hidden_layers": arch.num_layers,
        "num_attention_heads": arch.num_heads,
        "intermediate_size": arch.intermediate_size,
        "max_position_embeddings": recipe.max_length,
        "type_vocab_size": 2,
        "initializer_range": arch.initializer_range,
    }
    if family == "bert":
        bert_config = BertConfig(
            **shape, **labels,
            hidden_dropout_prob=arch.dropout, attention_probs_dropout_prob=arch.dropout,
        )
        return BertForSequenceClassification(bert_config)
    if family == "albert":
        assert arch.embedding_size is not None and arch.embedding_size < arch.hidden_size
        albert_config = AlbertConfig(
            **shape, **labels,
            embedding_size=arch.embedding_size,
            num_hidden_groups=1,  # one parameter group shared by all layers
            inner_group_num=1,
            hidden_dropout_prob=arch.dropout, attention_probs_dropout_prob=arch.dropout,
            classifier_dropout_prob=0.1,  # albert-base-v2's value; only the head
            bos_token_id=tokenizer.cls_token_id, eos_token_id=tokenizer.sep_token_id,
        )
        return AlbertForSequenceClassification(albert_config)
    raise ValueError(f"unknown model family {family!r}")


Encoded = list[dict[str, list[int]]]


def adamw(params: Any, **options: Any) -> torch.optim.AdamW:
    """AdamW as everything the project trains uses it, with its multi-tensor update: on CPU
    the same element-wise kernels as the per-tensor loop (every zoo weight bit-identical,
    checked against the cards' sha256), with less Python per step."""
    return torch.optim.AdamW(params, foreach=True, **options)


def encode(tokenizer: PreTrainedTokenizerBase, examples: Sequence[Example], max_length: int) -> Encoded:
    if examples and examples[0].is_pair:
        firsts = [e.text[0] for e in examples]
        seconds = [e.text[1] for e in examples]
        enc = tokenizer(firsts, seconds, truncation=True, max_length=max_length)
    else:
        enc = tokenizer([str(e.text) for e in examples], truncation=True, max_length=max_length)
    return [
        {"input_ids": enc["input_ids"][i], "token_type_ids": enc["token_type_ids"][i]}
        for i in range(len(examples))
    ]


def collate(rows: Encoded, pad_id: int) -> dict[str, torch.Tensor]:
    """Pad to the longest row of the batch (not to max_length): most texts
    are far shorter, and attention cost is quadratic in padded length."""
    lengths = [len(r["input_ids"]) for r in rows]
    width = max(lengths)

    def padded(values: list[list[int]], fill: int) -> torch.Tensor:
        # One tensor from padded lists, not a tensor per row: the same values in a fraction
        # of the Python time of the zoo's thousands of small batches.
        return torch.tensor([v + [fill] * (width - len(v)) for v in values], dtype=torch.long)

    return {"input_ids": padded([r["input_ids"] for r in rows], pad_id),
            "token_type_ids": padded([r["token_type_ids"] for r in rows], 0),
            "attention_mask": padded([[1] * n for n in lengths], 0)}


def epoch_batches(lengths: Sequence[int], size: int, generator: torch.Generator,
                  grouping: int | None = None, *, drop_last: bool = False) -> list[list[int]]:
    """One epoch's batches of row indices (``lengths``: each row's tokens), in the order
    they train.

    ``grouping`` None: rows drawn at random, a permutation cut into batches (the zoo's
    recipe).  ``grouping`` k: rows of similar length together, by transformers' own length
    grouping (what its Trainer does with ``group_by_length``: random mega-batches of k
    batches, each sorted by length), the batches then shuffled so that no run of steps sees
    only long or only short rows.  A batch is padded to its longest row, and random batches
    of the zoo's data are 23-59 % padding; grouped, a step costs what its tokens cost, but
    its rows are no longer a random sample (``benchmarks/bench_zoo_batches.py`` measures
    both).  ``drop_last``: no partial batch at the end."""
    if grouping is None:
        order = torch.randperm(len(lengths), generator=generator).tolist()
    else:
        from transformers.trainer_pt_utils import get_length_grouped_indices

        order = get_length_grouped_indices(list(lengths), size, mega_batch_mult=grouping,
                                           generator=generator)
    end = len(order) - size + 1 if drop_last else len(order)
    batches = [order[i:i + size] for i in range(0, end, size)]
    if grouping is None:
        return batches
    return [batches[j] for j in torch.randperm(len(batches), generator=generator).tolist()]


def train_model(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    examples: Sequence[Example],
    recipe: Recipe,
    epochs: int,
    seed: int,
    *,
    stage: str = "fine-tuning",
) -> None:
    """Fine-tune ``model`` (reported as the progress stage ``stage``, in steps)."""
    seed_everything(seed)
    rows = encode(tokenizer, examples, recipe.max_length)
    labels = torch.tensor([e.label for e in examples])
    pad_id = int(tokenizer.pad_token_id)
    steps_per_epoch = math.ceil(len(rows) / recipe.batch_size)
    total = steps_per_epoch * epochs
    warmup = max(1, int(total * recipe.warmup_ratio))
    # No weight decay on biases/LayerNorm, as in the reference BERT recipe.
    decay = [p for n, p in model.named_parameters() if p.ndim >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.ndim < 2]
    optimizer = adamw(
        [{"params": decay, "weight_decay": recipe.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=recipe.learning_rate,
    )
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min((step + 1) / warmup, max(0.0, (total - step) / max(1, total - warmup)))
    )
    order_rng = torch.Generator().manual_seed(seed)
    lengths = [len(r["input_ids"]) for r in rows]
    model.train()
    with Stage(stage, total, "steps") as steps:
        for epoch in range(epochs):
            for idx in epoch_batches(lengths, recipe.batch_size, order_rng,
                                     recipe.length_grouping):
                batch = collate([rows[i] for i in idx], pad_id)
                update(model, model(**batch, labels=labels[idx]).loss, optimizer, scheduler)
                steps.advance(detail=f"epoch {epoch + 1}/{epochs}")
    model.eval()


def update(model: PreTrainedModel, loss: torch.Tensor, optimizer: torch.optim.Optimizer,
           scheduler: torch.optim.lr_scheduler.LRScheduler) -> None:
    """One optimisation step, as the zoo trains everything: gradients clipped to norm 1."""
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)


@torch.inference_mode()
def predict(
    model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, examples: Sequence[Example],
    max_length: int = 64, batch_size: int = 128, *, stage: str | None = None,
) -> list[int]:
    """Predicted labels (reported as the progress stage ``stage``, when named)."""
    model.eval()
    rows = encode(tokenizer, examples, max_length)
    pad_id = int(tokenizer.pad_token_id)
    predictions: list[int] = []
    with Stage(stage or "predict", len(rows), "examples",
               None if stage else Reporter()) as done:
        for start in range(0, len(rows), batch_size):
            logits = model(**collate(rows[start : start + batch_size], pad_id)).logits
            predictions.extend(logits.argmax(dim=-1).tolist())
            done.advance(len(logits))
    return predictions


def accuracy(
    model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, examples: Sequence[Example],
    max_length: int = 64, batch_size: int = 128, *, stage: str | None = None,
) -> float:
    predictions = predict(model, tokenizer, examples, max_length, batch_size, stage=stage)
    return sum(int(p == e.label) for p, e in zip(predictions, examples)) / len(examples)
