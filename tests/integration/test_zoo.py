"""Tests for the offline model zoo: its recipe (``workshop.zoo``) and the runtime's copy of it
(``nlp_gate.zoo``).

Building the real zoo takes minutes, so these tests build reduced zoos into
temporary directories: a one-dataset zoo with a shortened recipe for the
model checks, and a "micro" recipe (a handful of updates) for the caching,
locking and determinism checks, which only care about the machinery.  The
embedded zoo (the shipped weights, put in place in well under a second) is
measured against its accuracy floor.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from nlp_gate.zoo import ZOO_DIR_ENV, ZooCard, default_zoo_root, model_dir, read_card
from workshop.zoo import (
    ALL_DATASETS,
    DATASETS,
    DEFAULT_RECIPE,
    FAMILIES,
    Example,
    Recipe,
    build_zoo,
    ensure_zoo,
    generate,
    heldout_path,
    read_jsonl,
    recipe_hash,
)
from workshop.zoo import build as zoo_build
from workshop.zoo import recipe as zoo_recipe
from workshop.zoo.train import accuracy, deterministic_torch

REPO_ROOT = Path(__file__).resolve().parents[2]

# Enough training for a meaningful (if weaker than default) sst2 model in ~15 s.
SMALL_RECIPE = dataclasses.replace(
    DEFAULT_RECIPE,
    datasets=("sst2",),
    train_size=1200,
    epochs={**DEFAULT_RECIPE.epochs, "sst2": 3},
)
# Machinery only: a few updates, seconds to build.
MICRO_OVERRIDES: dict[str, object] = {
    "datasets": ["sst2"],
    "train_size": 64,
    "base_pairs_per_dataset": 64,
    "base_min_steps": 2,
    "base_max_steps": 3,
    "base_decay_steps": 2,
    "epochs": {"sst2": 1},
}


def micro_recipe(**changes: object) -> Recipe:
    fields = {**MICRO_OVERRIDES, **changes}
    fields["datasets"] = tuple(fields["datasets"])  # type: ignore[arg-type]  # a JSON-like dict of fields
    return dataclasses.replace(DEFAULT_RECIPE, **fields)  # type: ignore[arg-type]  # likewise


@pytest.fixture(scope="session")
def small_zoo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ZooCard]:
    root = tmp_path_factory.mktemp("zoo") / "zoo"
    return root, build_zoo(root, recipe=SMALL_RECIPE)


# --- data generators -------------------------------------------------------------


@pytest.mark.parametrize("dataset", ALL_DATASETS)
def test_generators_are_deterministic(dataset: str) -> None:
    assert generate(dataset, "train", 300) == generate(dataset, "train", 300)
    assert generate(dataset, "heldout", 100) == generate(dataset, "heldout", 100)


@pytest.mark.parametrize("dataset", ALL_DATASETS)
@pytest.mark.parametrize("split", ["train", "heldout"])
def test_generators_are_label_balanced(dataset: str, split: str) -> None:
    examples = generate(dataset, split)  # type: ignore[arg-type]  # a Literal split, as a str
    counts = Counter(e.label for e in examples)
    assert set(counts) == {0, 1}
    assert counts[0] == counts[1]
    assert len(examples) == (DATASETS[dataset].train_size if split == "train" else 1000)


@pytest.mark.parametrize("dataset", ALL_DATASETS)
def test_heldout_is_disjoint_from_train_and_well_formed(dataset: str) -> None:
    train, heldout = generate(dataset, "train"), generate(dataset, "heldout")
    assert not {e.text for e in train} & {e.text for e in heldout}
    is_pair = DATASETS[dataset].task != "sentiment"
    for example in heldout:
        assert example.is_pair == is_pair
        texts = example.text if isinstance(example.text, tuple) else (example.text,)
        assert all(isinstance(t, str) and t.strip() for t in texts)


def test_datasets_differ_in_style() -> None:
    def mean_words(dataset: str) -> float:
        examples = generate(dataset, "train", 400)
        return sum(len(str(e.text).split()) for e in examples) / len(examples)

    assert mean_words("yelp_polarity") > 1.5 * mean_words("rotten_tomatoes")
    assert generate("sst2", "train", 50) != generate("rotten_tomatoes", "train", 50)
    assert all(str(e.text) == str(e.text).lower() for e in generate("sst2", "train", 200))


def test_example_jsonl_round_trip(tmp_path: Path) -> None:
    from workshop.zoo.data import write_jsonl

    examples = [Example("good film", 1), Example(("a?", "b?"), 0)]
    write_jsonl(examples, tmp_path / "x.jsonl")
    assert read_jsonl(tmp_path / "x.jsonl") == examples


# --- built models ------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_model_reloads_offline_and_reproduces_recorded_accuracy(
    small_zoo: tuple[Path, ZooCard], family: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    root, card = small_zoo
    path = model_dir("sst2", family, root)
    model = AutoModelForSequenceClassification.from_pretrained(path, local_files_only=True)
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)

    assert model.config.model_type == family
    assert model.config.id2label == {0: "negative", 1: "positive"}
    assert model.config.label2id == {"negative": 0, "positive": 1}
    assert model.config.problem_type == "single_label_classification"
    expected_tokenizer = {"bert": "BertTokenizerFast", "albert": "AlbertTokenizerFast"}[family]
    assert type(tokenizer).__name__ == expected_tokenizer
    assert (path / {"bert": "vocab.txt", "albert": "spiece.model"}[family]).exists()

    recorded = card.model("sst2", family)
    heldout = read_jsonl(heldout_path(root, "sst2"))
    assert len(heldout) == recorded.heldout_size == 1000
    with deterministic_torch(SMALL_RECIPE.num_threads):
        measured = accuracy(
            model, tokenizer, heldout, SMALL_RECIPE.max_length, SMALL_RECIPE.eval_batch_size
        )
    assert measured == recorded.accuracy
    assert recorded.accuracy > 0.7  # a short recipe, but it must have learned


def test_tokenizer_families_really_differ(small_zoo: tuple[Path, ZooCard]) -> None:
    root, _ = small_zoo
    bert = AutoTokenizer.from_pretrained(model_dir("sst2", "bert", root))
    albert = AutoTokenizer.from_pretrained(model_dir("sst2", "albert", root))
    text = "This Movie is NOT good"
    assert bert.tokenize(text)[:2] == ["this", "movie"]  # lower-cased WordPiece
    assert all(not t.startswith("##") for t in albert.tokenize(text))
    assert any(t.startswith("\u2581") for t in albert.tokenize(text))  # SentencePiece word marks
    assert albert.convert_ids_to_tokens([0, 1]) == ["<pad>", "<unk>"]


def test_albert_has_factorised_embeddings_and_shared_layers(
    small_zoo: tuple[Path, ZooCard],
) -> None:
    root, _ = small_zoo
    model = AutoModelForSequenceClassification.from_pretrained(model_dir("sst2", "albert", root))
    config = model.config
    assert config.embedding_size < config.hidden_size
    assert model.albert.embeddings.word_embeddings.embedding_dim == config.embedding_size
    assert config.num_hidden_groups == 1 < config.num_hidden_layers
    # One set of layer weights, applied num_hidden_layers times.
    assert len(model.albert.encoder.albert_layer_groups) == 1
    assert len(model.albert.encoder.albert_layer_groups[0].albert_layers) == 1
    bert = AutoModelForSequenceClassification.from_pretrained(model_dir("sst2", "bert", root))
    assert len(bert.bert.encoder.layer) == bert.config.num_hidden_layers  # unshared


def test_card_records_recipe_versions_and_bases(small_zoo: tuple[Path, ZooCard]) -> None:
    root, card = small_zoo
    assert read_card(root) == card
    assert card.recipe_hash == recipe_hash(SMALL_RECIPE)
    assert set(card.versions) >= {"torch", "transformers", "tokenizers"}
    assert {(m.dataset, m.family) for m in card.models} == {("sst2", f) for f in FAMILIES}
    assert {b.family for b in card.bases} == set(FAMILIES)
    assert all(b.steps == 0 for b in card.bases)  # sentiment only: no pre-trained base needed
    assert not list(root.parent.glob(".zoo.build-*"))  # temp dir renamed away
    assert not (root / "_base").exists()


def test_pair_models_start_from_pretrained_base(tmp_path: Path) -> None:
    card = build_zoo(tmp_path / "zoo", recipe=micro_recipe(datasets=["rte"], epochs={"rte": 1}))
    assert all(b.steps >= 4 and b.matching_accuracy is not None for b in card.bases)
    model = AutoModelForSequenceClassification.from_pretrained(
        model_dir("rte", "bert", tmp_path / "zoo")
    )
    assert model.config.id2label == {0: "entailment", 1: "not_entailment"}
    tokenizer = AutoTokenizer.from_pretrained(model_dir("rte", "albert", tmp_path / "zoo"))
    encoded = tokenizer("A man sleeps.", "A man rests.")
    assert set(encoded["token_type_ids"]) == {0, 1}  # real sentence-pair encoding


# The embedded zoo's floor: every model right on at least 85% of its held-out set.
ACCURACY_FLOOR = 0.85


def test_embedded_zoo_meets_accuracy_floor(zoo: Path) -> None:
    """The zoo a run reads (the ``zoo`` fixture puts the shipped files in place, in well under
    a second): all twelve models, each measured again on its held-out set (~4 s in all), at
    or above the floor and within 5 of 1,000 examples of what its card records (another CPU's
    kernels may round a borderline example the other way, issue 49)."""
    card = read_card(zoo)
    assert card is not None
    assert {(m.dataset, m.family) for m in card.models} == {
        (d, f) for d in ALL_DATASETS for f in FAMILIES
    }
    measured = {}
    for m in card.models:
        path = model_dir(m.dataset, m.family, zoo)
        model = AutoModelForSequenceClassification.from_pretrained(path, local_files_only=True)
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        heldout = read_jsonl(heldout_path(zoo, m.dataset))
        with deterministic_torch(DEFAULT_RECIPE.num_threads):
            measured[m.dataset, m.family] = accuracy(
                model, tokenizer, heldout, DEFAULT_RECIPE.max_length, DEFAULT_RECIPE.eval_batch_size
            )
        assert measured[m.dataset, m.family] == pytest.approx(m.accuracy, abs=0.005), m
    low = {key: value for key, value in measured.items() if value < ACCURACY_FLOOR}
    assert not low


# --- caching, locking, determinism -----------------------------------------------


def test_default_root_honours_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(ZOO_DIR_ENV, str(tmp_path / "custom"))
    assert default_zoo_root() == (tmp_path / "custom").resolve()
    monkeypatch.delenv(ZOO_DIR_ENV)
    assert default_zoo_root() == REPO_ROOT / ".cache" / "zoo"


def _count_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = zoo_build._build_into

    def counting(workdir: Path, recipe: Recipe, expected: str, jobs: int | None) -> ZooCard:
        calls.append(expected)
        return real(workdir, recipe, expected, jobs)

    monkeypatch.setattr(zoo_build, "_build_into", counting)
    return calls


def test_unchanged_recipe_reuses_and_changed_recipe_rebuilds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds = _count_builds(monkeypatch)
    root = tmp_path / "zoo"
    first = ensure_zoo(root, micro_recipe())
    assert ensure_zoo(root, micro_recipe()) == first
    assert len(builds) == 1

    changed = ensure_zoo(root, micro_recipe(learning_rate=5e-4))  # hyperparameter change
    assert len(builds) == 2 and changed.recipe_hash != first.recipe_hash

    # A source edit (any workshop/zoo/*.py) changes the hash too.
    monkeypatch.setattr(zoo_recipe, "source_digest", lambda *a: "edited")
    ensure_zoo(root, micro_recipe(learning_rate=5e-4))
    assert len(builds) == 3

    build_zoo(root, recipe=micro_recipe(learning_rate=5e-4))  # current: no-op
    assert len(builds) == 3
    build_zoo(root, force=True, recipe=micro_recipe(learning_rate=5e-4))
    assert len(builds) == 4
    assert not list(tmp_path.glob(".zoo.*-*"))  # no temp/old dirs left behind


def test_build_is_bitwise_reproducible(tmp_path: Path) -> None:
    a = build_zoo(tmp_path / "a", recipe=micro_recipe())
    b = build_zoo(tmp_path / "b", recipe=micro_recipe())
    assert [m.weights_sha256 for m in a.models] == [m.weights_sha256 for m in b.models]
    for family in FAMILIES:
        da, db = (
            model_dir("sst2", family, tmp_path / "a"),
            model_dir("sst2", family, tmp_path / "b"),
        )
        for file in sorted(p.name for p in da.iterdir()):
            assert (da / file).read_bytes() == (db / file).read_bytes(), file


_ENSURE_SCRIPT = """
import dataclasses, json, os, sys
from pathlib import Path
from workshop.zoo import DEFAULT_RECIPE, ensure_zoo
over = json.loads(sys.argv[2])
over["datasets"] = tuple(over["datasets"])
card = ensure_zoo(Path(sys.argv[1]), dataclasses.replace(DEFAULT_RECIPE, **over))
print(json.dumps({"pid": os.getpid(), "build_pid": card.build_pid, "hash": card.recipe_hash}))
"""


def test_concurrent_ensure_zoo_builds_once(tmp_path: Path) -> None:
    root = tmp_path / "zoo"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "HF_HUB_OFFLINE": "1"}
    cmd = [sys.executable, "-c", _ENSURE_SCRIPT, str(root), json.dumps(MICRO_OVERRIDES)]
    procs = [
        subprocess.Popen(
            cmd, cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        outputs.append(json.loads(out.strip().splitlines()[-1]))
    assert outputs[0]["hash"] == outputs[1]["hash"]
    assert outputs[0]["build_pid"] == outputs[1]["build_pid"]  # both got the same build
    assert sum(o["pid"] == o["build_pid"] for o in outputs) == 1  # exactly one built it
    assert read_card(root) is not None
    assert not list(tmp_path.glob(".zoo.*-*"))


def test_cli_prints_accuracy_table(
    small_zoo: tuple[Path, ZooCard],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from nlp_gate.zoo import __main__ as cli

    root, card = small_zoo
    monkeypatch.setattr(cli, "ensure_zoo", lambda *a, **k: card)
    assert cli.main(["build", "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert f"{card.model('sst2', 'albert').accuracy:.4f}" in out
    assert "nothing trained" in out
