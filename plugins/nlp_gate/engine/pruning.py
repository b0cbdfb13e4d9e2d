"""The last encoder layer computed only where the classification head reads it.

A BERT or ALBERT sequence classifier reads one position of its last layer: the pooler takes
``last_hidden_state[:, 0]``.  Once that layer's self-attention has mixed the sequence into
each position, everything after it (attention output projection and LayerNorm for BERT, the
feed-forward block and its LayerNorm for both) is position-wise, so its work at every other
position is dead: it cannot change a logit.  For the zoo's two-layer models that is a quarter
to two fifths of a forward pass; for a 12-layer base model about 4 %.

Nothing is recomputed here: forward hooks (a documented PyTorch mechanism) slice the tensors
between transformers' own modules to position 0, and transformers' code does the rest.  The
logits are those of the unpruned model (tests/integration/test_engine_properties.py checks them
against it, padding included); the rule is part of the model fingerprint all the same, because a
GEMM over other shapes may round differently.
"""

from __future__ import annotations

from typing import Any

# model_type -> rule name; AutoModelForSequenceClassification builds exactly these classes
# (BertForSequenceClassification, AlbertForSequenceClassification), whose heads read the
# pooler, i.e. position 0 only.  Other architectures run unpruned.
RULES = {"bert": "bert-last-layer-position-0", "albert": "albert-last-layer-position-0"}


def pruning_rule(config: dict[str, Any]) -> str | None:
    """The rule that applies to a checkpoint with this config, if any (fingerprint part)."""
    if config.get("chunk_size_feed_forward"):  # chunks of the sequence axis: keep it whole
        return None
    if config.get("add_cross_attention") or config.get("is_decoder"):
        return None
    return RULES.get(str(config.get("model_type")))


def prune_last_layer(model: Any, rule: str) -> None:
    """Install ``rule`` on a loaded model; raises if the model is not built as expected."""
    if rule == RULES["bert"]:
        # BertAttention calls output(context, residual): both go in cut to position 0, so
        # the output projection, its LayerNorm and the feed-forward block see one position.
        model.bert.encoder.layer[-1].attention.output.register_forward_pre_hook(_position_0)
    elif rule == RULES["albert"]:
        _LastAttention(model.albert.encoder).install()
    else:
        raise ValueError(f"unknown pruning rule {rule!r}")


def _position_0(module: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(a[:, :1] for a in args)


class _LastAttention:
    """ALBERT applies one shared layer (per group) ``num_hidden_layers`` times, so the module
    alone does not say which call is the last: count the attention calls of each forward
    (reset when the encoder starts) and cut the output of the last one to position 0."""

    def __init__(self, encoder: Any) -> None:
        config = encoder.config
        self.encoder = encoder
        self.calls = config.num_hidden_layers * config.inner_group_num
        self.left = 0

    def install(self) -> None:
        self.encoder.register_forward_pre_hook(self._reset)
        for group in self.encoder.albert_layer_groups:
            for layer in group.albert_layers:
                layer.attention.register_forward_hook(self._after)

    def _reset(self, module: Any, args: tuple[Any, ...]) -> None:
        self.left = self.calls

    def _after(self, module: Any, args: tuple[Any, ...], output: Any) -> Any:
        self.left -= 1
        if self.left:
            return None  # not the last layer: leave its output alone
        return (output[0][:, :1], *output[1:])
