"""A tiny "pre-training" stage: one base encoder per family for the pair tasks.

Why this exists: a 2-layer encoder trained from scratch on a pair task only
gets one bit of supervision per example, and in our measurements it did not
learn to compare the two segments within any affordable budget (held-out
accuracy stalled around 65-75% on qqp; even "is sentence B a copy of A" was
not learned in 6 epochs).  The real checkpoints get cross-segment matching
from pre-training on billions of tokens.  We substitute a dense, cheap
objective: for every token, predict whether the same token id occurs in the
*other* segment.  A few thousand pairs are enough for the encoder to learn
content-based alignment (token accuracy jumps from ~90% to ~99.9% within a
few hundred updates), after which fine-tuning reaches 85-97% in a few epochs.
Like real pre-training, one base serves all of a family's pair models.

The objective is generic (it knows nothing about labels, synonyms or the
CheckList phenomena), so it does not hand the models any behaviour the suites
test for; it only makes comparison *possible*.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import Sequence

import torch
from transformers import (
    AlbertConfig,
    AlbertForTokenClassification,
    BertConfig,
    BertForTokenClassification,
    PreTrainedModel,
    PreTrainedTokenizerBase,
)

from nlp_gate.progress import Stage
from workshop.zoo.data import Example
from workshop.zoo.train import Encoded, adamw, collate, encode, epoch_batches, seed_everything


def matching_pairs(pairs: Sequence[tuple[str, str]], seed: int) -> list[Example]:
    """The pairs themselves plus as many mismatched re-pairings, so both
    'mostly shared' and 'mostly unshared' token patterns are common."""
    rng = random.Random(seed)
    seconds = [b for _, b in pairs]
    rng.shuffle(seconds)
    examples = [Example(pair, 0) for pair in pairs]
    examples += [Example((a, b), 0) for (a, _), b in zip(pairs, seconds)]
    return examples


def match_labels(batch: dict[str, torch.Tensor], special_ids: set[int]) -> torch.Tensor:
    """1 where a token's id also occurs in the other segment, 0 where not,
    -100 (ignored) on special and padding tokens."""
    ids, segments = batch["input_ids"], batch["token_type_ids"]
    # Whole-batch comparisons rather than a loop over tokens: the labels are the same
    # integers, and the loop was 15 % of a base's pre-training time.
    scored = batch["attention_mask"].bool() & ~torch.isin(ids, torch.tensor(sorted(special_ids)))
    same_id = ids[:, :, None] == ids[:, None, :]
    other_segment = segments[:, :, None] != segments[:, None, :]
    matched = (same_id & other_segment & scored[:, None, :]).any(dim=-1)
    return torch.where(scored, matched.long(), torch.full_like(ids, -100))


def _aux_model(classifier: PreTrainedModel) -> PreTrainedModel:
    config = copy.deepcopy(classifier.config)
    config.num_labels = 2
    config.id2label = {0: "unmatched", 1: "matched"}
    config.label2id = {"unmatched": 0, "matched": 1}
    config.problem_type = None
    if isinstance(config, BertConfig):
        return BertForTokenClassification(config)
    assert isinstance(config, AlbertConfig)
    return AlbertForTokenClassification(config)


@dataclass(frozen=True)
class PretrainStats:
    steps: int  # updates actually taken (the schedule below adapts)
    final_token_accuracy: float  # matched/unmatched accuracy over the last 100 steps


@dataclass(frozen=True)
class PretrainSchedule:
    """Train at a constant rate until the alignment transition has happened,
    then decay to zero so the weights settle.

    Why adaptive: when the transition happens varies by family, seed and
    corpus (we saw anything from ~600 to >1500 updates), and a base that
    missed it cost its pair models 10-20 points of accuracy.  A fixed budget
    either wastes time or, sometimes, misses.  The stopping rule only looks
    at deterministic training statistics, so the build stays reproducible.
    """

    learning_rate: float
    target_accuracy: float = 0.99  # running token accuracy that marks the transition
    min_steps: int = 400
    max_steps: int = 3000  # cap on the constant phase (time bound)
    decay_steps: int = 300
    warmup_steps: int = 50
    window: int = 100  # steps the running accuracy is averaged over


def pretrain_encoder(
    template: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    examples: Sequence[Example],
    *,
    schedule: PretrainSchedule,
    batch_size: int,
    max_length: int,
    seed: int,
    grouping: int | None = None,
    stage: str = "pre-training",
) -> tuple[dict[str, torch.Tensor], PretrainStats]:
    """Train the matching objective (cycling through ``examples``); return the
    *encoder* weights (the ``bert``/``albert`` sub-module), ready to load into
    a classifier, and how training went.  Reported as the progress stage ``stage``, in
    steps (no total: the schedule adapts), noting the running token accuracy.  ``grouping``:
    how rows are batched (``train.epoch_batches``); grouped, each epoch's last partial batch
    is left out, so that every batch is one of its epoch's."""
    seed_everything(seed)
    model = _aux_model(template)
    rows: Encoded = encode(tokenizer, examples, max_length)
    pad_id = int(tokenizer.pad_token_id)
    special = set(tokenizer.all_special_ids)
    lengths = [len(r["input_ids"]) for r in rows]
    optimizer = adamw(model.parameters(), lr=schedule.learning_rate)
    order_rng = torch.Generator().manual_seed(seed)
    order: list[int] = []
    recent: list[tuple[int, int]] = []  # (hits, scored) per step, last `window` steps
    decay_from: int | None = None
    step = 0
    model.train()
    with Stage(stage, unit="steps") as steps:
        while decay_from is None or step < decay_from + schedule.decay_steps:
            if decay_from is None:
                factor = min(1.0, (step + 1) / schedule.warmup_steps)
            else:
                factor = 1.0 - (step - decay_from) / schedule.decay_steps
            for group in optimizer.param_groups:
                group["lr"] = schedule.learning_rate * factor
            if len(order) < batch_size:
                order += [i for part in epoch_batches(lengths, batch_size, order_rng, grouping,
                                                      drop_last=grouping is not None)
                          for i in part]
            idx, order = order[:batch_size], order[batch_size:]
            batch = collate([rows[i] for i in idx], pad_id)
            labels = match_labels(batch, special)
            out = model(**batch, labels=labels)
            out.loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            scored = labels != -100
            recent = (recent + [(int((out.logits.argmax(-1)[scored] == labels[scored]).sum()), int(scored.sum()))])[
                -schedule.window :
            ]
            step += 1
            running = sum(h for h, _ in recent) / max(1, sum(n for _, n in recent))
            if decay_from is None and step >= schedule.min_steps and (
                running >= schedule.target_accuracy or step >= schedule.max_steps
            ):
                decay_from = step
            steps.advance(detail=f"token accuracy {running:.3f} " + (
                f"(decay starts at {schedule.target_accuracy})" if decay_from is None
                else f"(decaying, {step - decay_from}/{schedule.decay_steps})"))
    encoder = getattr(model, model.base_model_prefix)
    weights = {k: v.detach().clone() for k, v in encoder.state_dict().items()}
    return weights, PretrainStats(steps=step, final_token_accuracy=round(running, 4))
