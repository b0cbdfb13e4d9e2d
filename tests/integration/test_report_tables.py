"""Reviewer tables (nlp_gate.report): the seed's row order, bold-lower, missing cells, custom
model names, and Markdown / CSV / HTML saying the same thing.  Integration tests run the real
gate: on a user's models file with and without xdist (tables and plots byte for byte equal),
and on the default profile (every test a row, 6 and 4 fail-rate columns).

Its fast tests: ``tests/unit/test_report_tables.py``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fixtures.gate_run import RunGate
from fixtures.report_data import parse_markdown

# -- parsers for the three formats, back to a grid of (text, bold) ---------------------------


# -- real runs: the same tables with and without xdist ----------------------------------------
CUSTOM_MODELS = """
tasks:
  sentiment: {classes: [negative, positive], suite: sentiment}
  paraphrase: {classes: [not_duplicate, duplicate], suite: qqp}
  entailment: {classes: [entailment, not_entailment], suite: null}
profiles:
  custom:
    datasets:
      sst2:
        task: sentiment
        models:
          roberta: {id: MODELS/a, labels: [negative, positive]}
          distil: {id: MODELS/b, labels: [positive, negative]}
      qqp:
        task: paraphrase
        models:
          roberta: {id: MODELS/a, labels: [not_duplicate, duplicate]}
          distil: {id: MODELS/b, labels: [not_duplicate, duplicate]}
      rte:  # the attack items' default dataset (deselected here by -m)
        task: entailment
        models:
          roberta: {id: MODELS/a, labels: [entailment, not_entailment]}
          distil: {id: MODELS/b, labels: [entailment, not_entailment]}
"""


@pytest.fixture
def custom_models_file(tmp_path: Path) -> tuple[Path, Path]:
    """A user's models file: two tiny random BERTs named roberta / distil (no zoo, no hub)."""
    import torch
    from transformers import (
        BertConfig,
        BertForSequenceClassification,
        BertTokenizerFast,
    )

    vocab = tmp_path / "vocab.txt"
    words = "the a is was not good bad great movie i it this and but very how can what who".split()
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]) + "\n")
    for seed, name in enumerate("ab"):
        torch.manual_seed(seed)
        config = BertConfig(
            vocab_size=len(words) + 5,
            hidden_size=16,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=32,
            num_labels=2,
        )
        BertForSequenceClassification(config).save_pretrained(tmp_path / name)
        BertTokenizerFast(vocab_file=str(vocab)).save_pretrained(tmp_path / name)
    models = tmp_path / "models.yaml"
    models.write_text(CUSTOM_MODELS.replace("MODELS", str(tmp_path)))
    thresholds = tmp_path / "thresholds.yaml"
    thresholds.write_text("profiles:\n  custom:\n    checklist:\n      default: 50\n")
    return models, thresholds


def test_custom_models_tables_identical_with_and_without_xdist(
    run_gate: RunGate, custom_models_file: tuple[Path, Path]
) -> None:
    models, thresholds = custom_models_file
    args = (
        "--nlp-profile",
        "custom",
        "--nlp-models-file",
        str(models),
        "--nlp-thresholds",
        str(thresholds),
        "-m",
        "checklist and (fairness or logic)",
        "--nlp-sample",
        "4",
    )
    serial = run_gate(*args, workers=0)
    out = serial.results_path.parent
    first = {p.name: p.read_bytes() for d in ("tables", "plots") for p in (out / d).iterdir()}
    stdout = serial.result.stdout.str()
    assert "Table 2: CheckList test suite for sentiment" in stdout, stdout[-3000:]
    assert re.search(r"release gate (PASSED|FAILED)", stdout)
    parallel = run_gate(*args, workers=2)
    out2 = parallel.results_path.parent  # each run writes its own folder
    assert out2 != out
    second = {p.name: p.read_bytes() for d in ("tables", "plots") for p in (out2 / d).iterdir()}
    assert first and first == second
    header, rows = parse_markdown(first["table2.md"].decode())
    assert header[2:] == ["sst2 roberta", "sst2 distil"]
    assert [row[1][0] for row in rows] == [
        "protected: race",
        "protected: sexual",
        "protected: religion",
        "protected: nationality",
    ]
    header3, rows3 = parse_markdown(first["table3.md"].decode())
    assert header3[2:] == ["qqp roberta", "qqp distil"]
    assert rows3[-1][1][0] == "Testing implications †"  # Logic tests the seed omitted, last
    assert "release gate" in parallel.result.stdout.str()


def test_default_profile_tables_have_every_test_and_six_and_four_columns(run_gate: RunGate) -> None:
    run = run_gate("-m", "checklist", "--nlp-sample", "2", workers=2)
    tables = run.results_path.parent / "tables"
    header, rows = parse_markdown((tables / "table2.md").read_text())
    assert len(rows) == 38 and len(header) == 2 + 6, run.result.stdout.str()[-3000:]
    header3, rows3 = parse_markdown((tables / "table3.md").read_text())
    assert len(rows3) == 53 and len(header3) == 2 + 4
    assert any(bold for row in rows + rows3 for _, bold in row[2:])
