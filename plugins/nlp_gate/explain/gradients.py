"""Integrated gradients of a checkpoint, through Captum, summed into words.

Captum's ``LayerIntegratedGradients`` over the model's input (word) embeddings: the path runs
from a baseline input -- every text token replaced by the padding token, the special tokens
([CLS], [SEP], ...) and the attention mask kept -- to the input, in ``N_STEPS`` steps
(Gauss-Legendre, Captum's default), toward the softmax probability of each class asked for.
Each token's attribution is its embedding's attribution summed over the hidden dimension; a
word's is the sum over the pieces whose characters lie in it (the fast tokenizer's offsets and
sequence ids), so "unbelievable" split into "un ##bel ##ievable" is scored once.

Deterministic: on the CPU the attribution runs with one intra-op thread, so that a process of
a two-worker run (fewer threads per process) sums in the same order as a single process.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from nlp_gate.engine.predictor import Classifier
from nlp_gate.explain.words import Example, Span, parts_of

# Steps of the path integral: 50, Captum's default.  On the zoo's models the words'
# attributions then sum to the change of the class probability (input vs baseline) within
# 0.004: ~0 on the sentiment models, at most 3.3 % of the change on qqp pairs (ten
# examples, docs/measurements/explanations.md).
N_STEPS = 50


def token_words(
    offsets: Sequence[tuple[int, int]], sequence: Sequence[int | None], words: Sequence[Span]
) -> list[int]:
    """For each token, the index of the word its characters lie in, or -1 (a special token,
    or a piece of whitespace alone)."""
    owner: dict[int, list[int]] = {}
    for index, span in enumerate(words):
        chars = owner.setdefault(span.part, [])
        chars.extend([-1] * (span.end - len(chars)))
        chars[span.start : span.end] = [index] * (span.end - span.start)
    out = []
    for (start, end), part in zip(offsets, sequence):
        chars = owner.get(part, []) if part is not None else []
        found = next((chars[c] for c in range(start, min(end, len(chars))) if chars[c] >= 0), -1)
        out.append(found)
    return out


@contextlib.contextmanager
def _one_thread(device: str) -> Iterator[None]:
    import torch

    if not device.startswith("cpu"):
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def integrated_gradients(
    classifier: Classifier, example: Example, words: Sequence[Span], classes: Sequence[int]
) -> list[np.ndarray]:
    """Per task class of ``classes``: each word's summed attribution (float64, unnormalised)."""
    import torch
    from captum.attr import LayerIntegratedGradients

    model, tokenizer = classifier.model, classifier.tokenizer
    parts = parts_of(example)
    encoded = tokenizer(
        *parts,
        truncation=True,
        max_length=classifier.max_length,
        return_offsets_mapping=True,
        return_tensors="pt",
    )
    sequence = encoded.sequence_ids(0)
    owners = token_words(encoded["offset_mapping"][0].tolist(), sequence, words)
    names = [k for k in ("token_type_ids",) if k in encoded and k in tokenizer.model_input_names]
    device = classifier.device
    n = len(classes)
    ids = encoded["input_ids"].to(device).expand(n, -1)
    baseline = ids.clone()
    text_tokens = torch.tensor([s is not None for s in sequence], device=device)
    baseline[:, text_tokens] = tokenizer.pad_token_id
    extra = tuple(encoded[k].to(device).expand(n, -1) for k in ["attention_mask", *names])
    order = classifier.spec.class_index()  # task class -> model output

    def forward(input_ids: Any, attention_mask: Any, *rest: Any) -> Any:
        kwargs = dict(zip(names, rest))
        logits = model(input_ids=input_ids, attention_mask=attention_mask, **kwargs).logits
        return torch.softmax(logits.float(), dim=-1)

    integrated = LayerIntegratedGradients(forward, model.get_input_embeddings())
    with _one_thread(device):
        attributions = integrated.attribute(
            inputs=ids,
            baselines=baseline,
            additional_forward_args=extra,
            target=[int(order[c]) for c in classes],
            n_steps=N_STEPS,
            internal_batch_size=N_STEPS,
        )
    per_token = attributions.sum(dim=-1).detach().to("cpu", torch.float64).numpy()
    out = []
    for row in per_token:
        scores = np.zeros(len(words), dtype=np.float64)
        for token, word in enumerate(owners):
            if word >= 0:
                scores[word] += row[token]
        out.append(scores)
    return out
