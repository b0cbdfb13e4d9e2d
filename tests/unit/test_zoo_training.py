"""The zoo's and the masked LM's training shortcuts compute what their plain definitions do:
the base's matching labels and the batches as the per-token loops defined them (the zoo's
weights are checked bit for bit against their recorded sha256 only by a full build), and the
masked LM's loss on the chosen tokens as ``BertForMaskedLM``'s own loss."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import BertConfig, BertForMaskedLM

from workshop.zoo.masked_lm import _batches, _masked_loss
from workshop.zoo.pretrain import match_labels
from workshop.zoo.train import collate, epoch_batches

PAD, CLS, SEP = 0, 1, 2
SPECIAL = {PAD, CLS, SEP}

# A pair row: [CLS] a [SEP] b [SEP], ids drawn small so that segments share some; ids may
# also be special ones inside a segment (a tokenizer's [UNK] is one).
segment = st.lists(st.integers(0, 12), min_size=1, max_size=12)
pair_row = st.tuples(segment, st.lists(st.integers(0, 12), max_size=12)).map(
    lambda ab: {
        "input_ids": [CLS, *ab[0], SEP, *ab[1], *([SEP] if ab[1] else [])],
        "token_type_ids": [0] * (len(ab[0]) + 2) + [1] * (len(ab[1]) + bool(ab[1])),
    }
)


def reference_labels(row: dict[str, list[int]]) -> list[int]:
    """pretrain.py's definition, token by token."""
    ids, segs = row["input_ids"], row["token_type_ids"]
    present = [{t for t, s in zip(ids, segs) if s == k and t not in SPECIAL} for k in (0, 1)]
    return [-100 if t in SPECIAL else int(t in present[1 - s]) for t, s in zip(ids, segs)]


@settings(max_examples=300, deadline=None)
@given(st.lists(pair_row, min_size=1, max_size=8))
def test_collate_pads_and_match_labels_follow_their_definitions(
    rows: list[dict[str, list[int]]],
) -> None:
    batch = collate(rows, PAD)
    width = max(len(r["input_ids"]) for r in rows)
    labels = match_labels(batch, SPECIAL)
    for i, row in enumerate(rows):
        n, pad = len(row["input_ids"]), width - len(row["input_ids"])
        assert batch["input_ids"][i].tolist() == row["input_ids"] + [PAD] * pad
        assert batch["token_type_ids"][i].tolist() == row["token_type_ids"] + [0] * pad
        assert batch["attention_mask"][i].tolist() == [1] * n + [0] * pad
        assert labels[i].tolist() == reference_labels(row) + [-100] * pad
    assert all(t.dtype == torch.long for t in (*batch.values(), labels))


def test_the_masked_lm_loss_on_chosen_tokens_is_bert_for_masked_lms_loss() -> None:
    torch.manual_seed(0)
    model = BertForMaskedLM(
        BertConfig(
            vocab_size=50,
            hidden_size=16,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=32,
            max_position_embeddings=16,
            hidden_dropout_prob=0.0,
            attention_probs_dropout_prob=0.0,
        )
    ).eval()
    input_ids = torch.randint(3, 50, (6, 12))
    labels = torch.full_like(input_ids, -100)
    chosen = torch.rand(6, 12) < 0.3
    chosen[0, 0] = True
    labels[chosen] = input_ids[chosen]
    attention_mask = torch.ones_like(input_ids)
    attention_mask[3:, 9:] = 0
    batch = {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
    ours = _masked_loss(model, batch)
    theirs = model(**batch).loss
    torch.testing.assert_close(ours, theirs, rtol=1e-6, atol=1e-6)
    ours.backward()
    assert model.bert.embeddings.word_embeddings.weight.grad is not None


def test_the_masked_lms_batches_are_whole_length_grouped_epochs_in_a_seeded_order() -> None:
    # Lengths skewed as the corpus's are: mostly short, a long tail.
    lengths = [5 + (i * 7919) % 13 if i % 10 else 30 + (i * 31) % 34 for i in range(1000)]
    rows = [{"input_ids": [1] * n} for n in lengths]
    size = 16

    def first(n_batches: int, seed: int) -> list[list[int]]:
        batches = _batches(rows, size, torch.Generator().manual_seed(seed))
        return [next(batches) for _ in range(n_batches)]

    per_epoch = len(rows) // size
    drawn = first(2 * per_epoch, 7)
    assert all(len(b) == size for b in drawn)
    for epoch in (drawn[:per_epoch], drawn[per_epoch:]):  # each row at most once an epoch
        seen = [i for b in epoch for i in b]
        assert len(set(seen)) == len(seen) == per_epoch * size
    assert drawn[:per_epoch] != drawn[per_epoch:]  # a new order every epoch
    assert first(5, 7) == drawn[:5] and first(5, 8) != drawn[:5]  # the seed decides it

    def padded(batches: list[list[int]]) -> int:  # tokens a step computes, padding included
        return sum(size * max(lengths[i] for i in b) for b in batches)

    at_random = [
        torch.randint(len(rows), (size,), generator=torch.Generator().manual_seed(s)).tolist()
        for s in range(per_epoch)
    ]
    assert padded(drawn[:per_epoch]) < 0.6 * padded(at_random)


def test_the_zoos_random_batches_are_its_recipes_permutation_and_grouped_ones_pad_less() -> None:
    lengths = [5 + (i * 7919) % 13 if i % 10 else 30 + (i * 31) % 34 for i in range(1000)]
    size = 32

    # Random (the zoo's recipe): a permutation cut into batches, the last one partial, the
    # generator left where that permutation leaves it, as the loop before this helper did.
    ours, theirs = torch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    for _ in range(2):  # two epochs: the generator's state carries over
        order = torch.randperm(len(lengths), generator=theirs).tolist()
        assert epoch_batches(lengths, size, ours) == [
            order[i : i + size] for i in range(0, len(order), size)
        ]

    def padded(batches: list[list[int]]) -> int:
        return sum(len(b) * max(lengths[i] for i in b) for b in batches)

    for grouping in (4, 50):
        grouped = epoch_batches(lengths, size, torch.Generator().manual_seed(3), grouping)
        rows = [i for b in grouped for i in b]
        assert sorted(rows) == list(range(len(lengths)))  # every row once, one batch partial
        assert sorted(len(b) for b in grouped)[1:] == [size] * (len(grouped) - 1)
        at_random = epoch_batches(lengths, size, torch.Generator().manual_seed(3))
        assert padded(grouped) < 0.8 * padded(at_random)
        assert grouped == epoch_batches(lengths, size, torch.Generator().manual_seed(3), grouping)
        dropped = epoch_batches(
            lengths, size, torch.Generator().manual_seed(3), grouping, drop_last=True
        )
        assert all(len(b) == size for b in dropped) and len(dropped) == len(lengths) // size
