"""The zoo's and the masked LM's training shortcuts compute what their plain definitions do:
the base's matching labels and the batches as the per-token loops defined them (the zoo's
weights are checked bit for bit against their recorded sha256 only by a full build), and the
masked LM's loss on the chosen tokens as ``BertForMaskedLM``'s own loss."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from nlp_gate.kinds.attacks.standins.masked_lm import _masked_loss
from nlp_gate.zoo.pretrain import match_labels
from nlp_gate.zoo.train import collate
from transformers import BertConfig, BertForMaskedLM

PAD, CLS, SEP = 0, 1, 2
SPECIAL = {PAD, CLS, SEP}

# A pair row: [CLS] a [SEP] b [SEP], ids drawn small so that segments share some; ids may
# also be special ones inside a segment (a tokenizer's [UNK] is one).
segment = st.lists(st.integers(0, 12), min_size=1, max_size=12)
pair_row = st.tuples(segment, st.lists(st.integers(0, 12), max_size=12)).map(
    lambda ab: {"input_ids": [CLS, *ab[0], SEP, *ab[1], *([SEP] if ab[1] else [])],
                "token_type_ids": [0] * (len(ab[0]) + 2) + [1] * (len(ab[1]) + bool(ab[1]))})


def reference_labels(row: dict[str, list[int]]) -> list[int]:
    """pretrain.py's definition, token by token."""
    ids, segs = row["input_ids"], row["token_type_ids"]
    present = [{t for t, s in zip(ids, segs) if s == k and t not in SPECIAL} for k in (0, 1)]
    return [-100 if t in SPECIAL else int(t in present[1 - s]) for t, s in zip(ids, segs)]


@settings(max_examples=300, deadline=None)
@given(st.lists(pair_row, min_size=1, max_size=8))
def test_collate_pads_and_match_labels_follow_their_definitions(
        rows: list[dict[str, list[int]]]) -> None:
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
    model = BertForMaskedLM(BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1,
                                       num_attention_heads=2, intermediate_size=32,
                                       max_position_embeddings=16, hidden_dropout_prob=0.0,
                                       attention_probs_dropout_prob=0.0)).eval()
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
