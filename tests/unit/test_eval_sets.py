"""nlp_gate.eval_sets: the Table 1 splits, the offline layout, and messages for missing data."""

from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path

import pytest

from nlp_gate.config.profiles import load_profile
from nlp_gate.eval_sets import (
    HUB_SPLITS,
    MAX_EXAMPLES,
    EvalDataMissing,
    export,
    load_eval_set,
)

PAPER = load_profile("paper")


def _write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_every_paper_dataset_has_the_split_textattack_evaluated_on() -> None:
    # Table 1 is `textattack eval` output; its model -> dataset table is the authority.
    # Read from the installed source: importing textattack needs NLTK data this test doesn't.
    spec = importlib.util.find_spec("textattack")
    assert spec and spec.submodule_search_locations
    source = Path(spec.submodule_search_locations[0], "dataset_args.py").read_text()
    [table] = [
        node.value
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign)
        and getattr(node.targets[0], "id", "") == "HUGGINGFACE_DATASET_BY_MODEL"
    ]
    BY_MODEL = ast.literal_eval(table)
    names = {
        "rotten_tomatoes": "mr",
        "yelp_polarity": "yelp",
        "sst2": "sst2",
        "qqp": "qqp",
        "mrpc": "mrpc",
        "rte": "rte",
    }
    assert set(PAPER.datasets) == set(HUB_SPLITS) == set(names)
    for dataset, short in names.items():
        name, config, split = BY_MODEL[f"bert-base-uncased-{short}"][:3]
        hub = HUB_SPLITS[dataset]
        assert hub.path.rsplit("/", 1)[-1] == name and hub.config == config, dataset
        assert hub.split == split, dataset


def test_offline_layout_reads_hub_columns_label_ids_and_class_names(tmp_path: Path) -> None:
    spec = PAPER.get("mrpc", "bert")
    _write(
        tmp_path / "mrpc" / "validation.jsonl",
        [
            {"sentence1": "a", "sentence2": "b", "label": 1, "idx": 0},
            {"text_a": "c", "text_b": "d", "label": "not_equivalent"},  # the generic columns
            {"sentence1": "e", "sentence2": "f", "label": "duplicate"},
        ],
    )
    data = load_eval_set(spec, tmp_path, tmp_path / "no-zoo")
    assert data.inputs == [("a", "b"), ("c", "d"), ("e", "f")]
    assert data.gold == [1, 0, 1]  # task classes: not_duplicate, duplicate
    assert (data.split, data.source) == ("validation", str(tmp_path / "mrpc" / "validation.jsonl"))


def test_offline_layout_is_capped_at_1000_examples(tmp_path: Path) -> None:
    _write(
        tmp_path / "sst2" / "validation.jsonl",
        [{"sentence": f"s{i}", "label": i % 2} for i in range(MAX_EXAMPLES + 7)],
    )
    data = load_eval_set(PAPER.get("sst2", "albert"), tmp_path, tmp_path)
    assert len(data.inputs) == MAX_EXAMPLES and data.inputs[-1] == f"s{MAX_EXAMPLES - 1}"


@pytest.mark.parametrize(
    "row, needle",
    [
        ({"sentence": "x", "label": -1}, "label id -1 is not one of 0..1 (an unlabelled split?)"),
        (
            {"sentence": "x", "label": "neutral"},
            "label 'neutral' is not a class of task 'sentiment'",
        ),
        ({"review": "x", "label": 0}, "needs 'label' and text column(s) ['sentence']"),
    ],
)
def test_bad_rows_are_named_with_file_and_row(tmp_path: Path, row: dict, needle: str) -> None:
    path = tmp_path / "sst2" / "validation.jsonl"
    _write(path, [{"sentence": "fine", "label": 0}, row])
    with pytest.raises(EvalDataMissing) as err:
        load_eval_set(PAPER.get("sst2", "bert"), tmp_path, tmp_path)
    assert f"{path}: row 2" in str(err.value) and needle in str(err.value)


def test_missing_file_names_the_file_and_how_to_provide_it(tmp_path: Path) -> None:
    with pytest.raises(EvalDataMissing) as err:
        load_eval_set(PAPER.get("rte", "bert"), tmp_path, tmp_path)
    message = str(err.value)
    assert str(tmp_path / "rte" / "validation.jsonl") in message
    assert "python -m nlp_gate.eval_sets DATA" in message and "--nlp-data-dir" in message


def test_unreachable_hub_names_dataset_split_and_the_offline_layout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import datasets

    def offline(*args: object, **kwargs: object) -> None:
        raise ConnectionError("Couldn't reach 'nyu-mll/glue' on the Hub (LocalEntryNotFoundError)")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    with pytest.raises(EvalDataMissing) as err:
        load_eval_set(PAPER.get("qqp", "albert"), None, Path("unused"))
    message = str(err.value)
    assert (
        "no evaluation data for qqp:" in message
        and "nyu-mll/glue/qqp split 'validation'" in message
    )
    assert "ConnectionError" in message and "DATA/qqp/validation.jsonl" in message


def test_export_writes_what_the_offline_layout_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import datasets

    requested: list[tuple] = []

    def fake_hub(path: str, config: str | None, split: str) -> datasets.Dataset:
        requested.append((path, config, split))
        return datasets.Dataset.from_dict(
            {"question1": ["q1", "q3"], "question2": ["q2", "q4"], "label": [1, 0], "idx": [0, 1]}
        )

    monkeypatch.setattr(datasets, "load_dataset", fake_hub)
    [path] = export(tmp_path, ["qqp"])
    assert requested == [("nyu-mll/glue", "qqp", "validation[:1000]")]
    assert path == tmp_path / "qqp" / "validation.jsonl"
    data = load_eval_set(PAPER.get("qqp", "bert"), tmp_path, tmp_path)
    assert (data.inputs, data.gold) == ([("q1", "q2"), ("q3", "q4")], [1, 0])
