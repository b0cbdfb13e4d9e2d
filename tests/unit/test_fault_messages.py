"""The refusal messages say what is true and never advise running a payload (issue #29,
point 9): a pickle refused for holding more than tensors is reported without transformers'
``from_tf=True`` and torch's ``weights_only=False`` advice, and the truncation line names the
length inputs were cut at (64 for the tiny zoo), not the default a cache-answered process
kept.  (Naming --nlp-model, not the packaged models file:
tests/integration/test_fault_remote_code.py.)

Its fast tests; the slow ones, and the story, in ``tests/integration/test_fault_messages.py``."""

from __future__ import annotations

from nlp_gate.report.terminal import truncation_lines


def test_the_truncation_line_names_the_length_inputs_were_cut_at() -> None:
    engine = [  # one process forwarded (narrowed to the model's 64 positions), one was answered
        # from the prediction cache and kept the default 128
        {"dataset": "sst2", "model": "bert", "truncated_inputs": 3, "max_length": 64},
        {"dataset": "sst2", "model": "bert", "truncated_inputs": 0, "max_length": 128},
    ]
    assert truncation_lines(engine) == [
        "inputs longer than the model's maximum length, truncated to it (of those forwarded "
        "this run): sst2/bert 3 (at 64 tokens)"
    ]
