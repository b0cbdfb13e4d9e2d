"""Deterministic synthetic datasets standing in for the six hub datasets.

``generate(dataset, split)`` is a pure function of its arguments (plus the
source of this package, which the recipe hash covers): every draw comes from
a ``random.Random`` seeded with a string, which Python hashes with SHA-512
independently of ``PYTHONHASHSEED``.  The held-out split uses a different
seed *and* rejects texts that occur in the training split, so held-out
accuracy measures generalisation across template fillings, not memorisation.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Literal, Union

from workshop.zoo.entailment import entailment_pair
from workshop.zoo.paraphrase import paraphrase_pair
from workshop.zoo.sentiment import sentiment_text

Split = Literal["train", "heldout"]
TextInput = Union[str, tuple[str, str]]

SENTIMENT_LABELS = ("negative", "positive")


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    task: Literal["sentiment", "paraphrase", "entailment"]
    labels: tuple[str, ...]  # index = label id, names as in the real datasets
    seed: int
    train_size: int
    heldout_size: int = 1000


DATASETS: dict[str, DatasetSpec] = {
    spec.name: spec
    for spec in (
        DatasetSpec("rotten_tomatoes", "sentiment", SENTIMENT_LABELS, seed=11, train_size=3000),
        DatasetSpec("yelp_polarity", "sentiment", SENTIMENT_LABELS, seed=23, train_size=3000),
        DatasetSpec("sst2", "sentiment", SENTIMENT_LABELS, seed=37, train_size=3000),
        DatasetSpec("qqp", "paraphrase", ("not_duplicate", "duplicate"), seed=41, train_size=5000),
        DatasetSpec("mrpc", "paraphrase", ("not_equivalent", "equivalent"), seed=53, train_size=4000),
        DatasetSpec("rte", "entailment", ("entailment", "not_entailment"), seed=67, train_size=4000),
    )
}


@dataclass(frozen=True)
class Example:
    """One labelled input: a single text or a (text_a, text_b) pair."""

    text: TextInput
    label: int

    @property
    def is_pair(self) -> bool:
        return isinstance(self.text, tuple)

    def to_json(self) -> dict[str, object]:
        if isinstance(self.text, tuple):
            return {"text_a": self.text[0], "text_b": self.text[1], "label": self.label}
        return {"text": self.text, "label": self.label}

    @classmethod
    def from_json(cls, row: dict[str, object]) -> "Example":
        label = int(row["label"])  # type: ignore[call-overload]
        if "text_a" in row:
            return cls((str(row["text_a"]), str(row["text_b"])), label)
        return cls(str(row["text"]), label)


def _draw(spec: DatasetSpec, label: int, rng: random.Random) -> TextInput:
    if spec.task == "sentiment":
        return sentiment_text(spec.name, label, rng)
    if spec.task == "paraphrase":
        return paraphrase_pair(spec.name, label, rng)
    return entailment_pair(label, rng)


def _examples(spec: DatasetSpec, split: Split, n: int, exclude: frozenset[TextInput]) -> Iterator[Example]:
    rng = random.Random(f"{spec.name}/{split}/{spec.seed}")
    for i in range(n):
        label = i % 2  # exact balance; order is shuffled afterwards
        text = _draw(spec, label, rng)
        for _ in range(50):  # short-phrase styles can collide with train
            if text not in exclude:
                break
            text = _draw(spec, label, rng)
        yield Example(text, label)


def generate(dataset: str, split: Split, n: int | None = None) -> list[Example]:
    """Examples for ``dataset``'s ``split``; ``n`` defaults to the spec's size."""
    spec = DATASETS[dataset]
    if split == "train":
        size = spec.train_size if n is None else n
        exclude: frozenset[TextInput] = frozenset()
    elif split == "heldout":
        size = spec.heldout_size if n is None else n
        exclude = frozenset(e.text for e in generate(dataset, "train"))
    else:
        raise ValueError(f"unknown split {split!r}")
    examples = list(_examples(spec, split, size, exclude))
    random.Random(f"{spec.name}/{split}/{spec.seed}/order").shuffle(examples)
    return examples


def write_jsonl(examples: list[Example], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for example in examples:
            fh.write(json.dumps(example.to_json(), ensure_ascii=False) + "\n")


def read_jsonl(path: Path) -> list[Example]:
    with path.open(encoding="utf-8") as fh:
        return [Example.from_json(json.loads(line)) for line in fh if line.strip()]


def write_heldout(dataset: str, zoo_root: Path) -> Path:
    """Write the held-out split to ``<zoo_root>/<dataset>/heldout.jsonl``."""
    path = heldout_path(zoo_root, dataset)
    write_jsonl(generate(dataset, "heldout"), path)
    return path


def heldout_path(zoo_root: Path, dataset: str) -> Path:
    return zoo_root / dataset / "heldout.jsonl"
