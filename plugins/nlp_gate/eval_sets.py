"""Evaluation sets for Table 1: each dataset's labelled split, at most 1000 examples.

Where the examples come from, in order:

1. ``--nlp-data-dir DATA``: ``DATA/<dataset>/<split>.jsonl`` (offline machines; nothing else
   is tried).  One JSON object per line: the text column(s) of the hub dataset (``sentence``,
   ``question1``/``question2``, ...) or ``text`` / ``text_a`` + ``text_b``, and ``label``, either
   the dataset's label id or a task class name.  ``Dataset.to_json`` writes exactly this;
   ``python -m nlp_gate.eval_sets DATA`` exports every known dataset that way.
2. Zoo models: the held-out split the zoo generated, ``<zoo>/<dataset>/heldout.jsonl``.
3. Hub models: ``datasets.load_dataset`` (its cache works offline), with the dataset, config
   and split TextAttack evaluated its checkpoints on (``textattack.dataset_args``,
   ``HUGGINGFACE_DATASET_BY_MODEL``) -- the seed's Table 1 is ``textattack eval`` output:
   "the full validation or test set up to 1000 examples", i.e. the split's first 1000 rows.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nlp_gate.config.specs import ModelSpec, Task
from nlp_gate.engine.predictor import ModelInput

MAX_EXAMPLES = 1000
ZOO_SPLIT = "heldout"
NEG_POS = ("negative", "positive")


@dataclass(frozen=True)
class HubSplit:
    path: str  # hub dataset id
    config: str | None
    split: str
    columns: tuple[str, ...]  # text column(s): two for sentence-pair tasks
    labels: tuple[str, ...]  # task class of each label id

    def describe(self) -> str:
        return f"{self.path}{'/' + self.config if self.config else ''} split {self.split!r}"


# Label ids as the hub datasets define them (yelp_polarity's class names are '1' and '2', so
# names are never read from the dataset: the mapping is declared, as in the models file).
HUB_SPLITS: dict[str, HubSplit] = {
    "rotten_tomatoes": HubSplit(
        "cornell-movie-review-data/rotten_tomatoes", None, "test", ("text",), NEG_POS
    ),
    "yelp_polarity": HubSplit("fancyzhx/yelp_polarity", None, "test", ("text",), NEG_POS),
    "sst2": HubSplit("nyu-mll/glue", "sst2", "validation", ("sentence",), NEG_POS),
    "qqp": HubSplit(
        "nyu-mll/glue",
        "qqp",
        "validation",
        ("question1", "question2"),
        ("not_duplicate", "duplicate"),
    ),
    "mrpc": HubSplit(
        "nyu-mll/glue",
        "mrpc",
        "validation",
        ("sentence1", "sentence2"),
        ("not_duplicate", "duplicate"),
    ),
    "rte": HubSplit(
        "nyu-mll/glue",
        "rte",
        "validation",
        ("sentence1", "sentence2"),
        ("entailment", "not_entailment"),
    ),
}


class EvalDataMissing(RuntimeError):
    """An evaluation set that cannot be read; the message says how to provide it."""


@dataclass(frozen=True)
class EvalSet:
    dataset: str
    split: str
    source: str  # the file or hub dataset it was read from
    inputs: list[ModelInput]
    gold: list[int]  # index into the task's classes


def hub_split(spec: ModelSpec) -> HubSplit:
    """The known split of ``spec.dataset``; a user's own dataset defaults to its test split."""
    return HUB_SPLITS.get(spec.dataset) or HubSplit(
        spec.dataset, None, "test", ("text",), spec.task.classes
    )


def load_eval_set(spec: ModelSpec, data_dir: Path | None, zoo_dir: Path) -> EvalSet:
    if spec.is_zoo:
        from nlp_gate.zoo.build import LABELS

        labels = tuple(spec.task.canonical(n) or n for n in LABELS[spec.dataset])
        columns: tuple[str, ...] = ()
        split, root = ZOO_SPLIT, data_dir
        if root is None:
            from nlp_gate.zoo import ensure_zoo

            ensure_zoo(zoo_dir)
            root = zoo_dir
    else:
        hub = hub_split(spec)
        labels, columns, split, root = hub.labels, hub.columns, hub.split, data_dir
        if root is None:
            return _from_hub(spec, hub)
    path = root / spec.dataset / f"{split}.jsonl"
    if not path.exists():
        raise EvalDataMissing(
            f"no evaluation data for {spec.dataset}: {path} does not exist.\n"
            + _how_to_provide(spec, split)
        )
    return EvalSet(spec.dataset, split, str(path), *_read_jsonl(path, columns, labels, spec.task))


def _from_hub(spec: ModelSpec, hub: HubSplit) -> EvalSet:
    import datasets

    try:
        rows = datasets.load_dataset(hub.path, hub.config, split=f"{hub.split}[:{MAX_EXAMPLES}]")
    except Exception as exc:  # offline, gated, renamed: datasets raises many unrelated types
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise EvalDataMissing(
            f"no evaluation data for {spec.dataset}: {hub.describe()} is neither in the local "
            f"datasets cache nor reachable ({type(exc).__name__}: {first_line}).\n"
            + _how_to_provide(spec, hub.split)
        ) from exc
    missing = [c for c in (*hub.columns, "label") if c not in rows.column_names]
    if missing:
        raise EvalDataMissing(
            f"{hub.describe()} has no column(s) {missing}; columns: {rows.column_names}"
        )
    inputs, gold = _parse(rows.to_list(), hub.columns, hub.labels, spec.task, hub.describe())
    return EvalSet(spec.dataset, hub.split, hub.describe(), inputs, gold)


def _how_to_provide(spec: ModelSpec, split: str) -> str:
    if spec.is_zoo:
        return (
            "  The tiny zoo writes its held-out sets when it is built: "
            "`python -m nlp_gate.zoo build`, or pass --nlp-data-dir DATA with "
            f"DATA/{spec.dataset}/{split}.jsonl."
        )
    return (
        "  To provide it offline: on a machine with hub access run "
        "`python -m nlp_gate.eval_sets DATA` (writes DATA/<dataset>/<split>.jsonl for every "
        f"known dataset, here DATA/{spec.dataset}/{split}.jsonl), copy DATA to this machine and "
        "pass --nlp-data-dir DATA.  Each line is a JSON object with the text column(s) and "
        "'label'.  Or pre-fill the datasets cache (HF_DATASETS_CACHE), or run the embedded "
        "offline zoo with --nlp-profile tiny."
    )


def _read_jsonl(
    path: Path, columns: tuple[str, ...], labels: tuple[str, ...], task: Task
) -> tuple[list[ModelInput], list[int]]:
    rows: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if len(rows) == MAX_EXAMPLES:
                break
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise EvalDataMissing(f"{path}:{number}: not JSON ({exc})") from None
    return _parse(rows, columns, labels, task, str(path))


def _parse(
    rows: list[dict[str, Any]],
    columns: tuple[str, ...],
    labels: tuple[str, ...],
    task: Task,
    where: str,
) -> tuple[list[ModelInput], list[int]]:
    inputs: list[ModelInput] = []
    gold: list[int] = []
    for number, row in enumerate(rows, 1):
        fields = next(
            (
                c
                for c in (columns, ("text_a", "text_b"), ("text",))
                if c and all(k in row for k in c)
            ),
            None,
        )
        if fields is None or "label" not in row:
            raise EvalDataMissing(
                f"{where}: row {number} needs 'label' and text column(s) "
                f"{list(columns) or ['text']} (or 'text_a', 'text_b'); "
                f"got {sorted(row)}"
            )
        texts = [str(row[k]) for k in fields]
        inputs.append(texts[0] if len(texts) == 1 else (texts[0], texts[1]))
        gold.append(_class_index(row["label"], labels, task, f"{where}: row {number}"))
    if not inputs:
        raise EvalDataMissing(f"{where}: no examples")
    return inputs, gold


def _class_index(label: Any, labels: tuple[str, ...], task: Task, where: str) -> int:
    if isinstance(label, int) and not isinstance(label, bool):
        if not 0 <= label < len(labels):  # GLUE test splits use -1: unlabelled
            raise EvalDataMissing(
                f"{where}: label id {label} is not one of 0..{len(labels) - 1}"
                " (an unlabelled split?)"
            )
        label = labels[label]
    name = task.canonical(str(label))
    if name is None:
        raise EvalDataMissing(
            f"{where}: label {label!r} is not a class of task {task.name!r}: {list(task.classes)}"
        )
    return task.classes.index(name)


def export(data_dir: Path, names: list[str]) -> list[Path]:
    """Write each dataset's evaluation split where ``--nlp-data-dir`` expects it."""
    import datasets

    written = []
    for name in names:
        hub = HUB_SPLITS[name]
        rows = datasets.load_dataset(hub.path, hub.config, split=f"{hub.split}[:{MAX_EXAMPLES}]")
        path = data_dir / name / f"{hub.split}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        rows.to_json(str(path), lines=True)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m nlp_gate.eval_sets",
        description="Download the Table 1 evaluation splits for use with --nlp-data-dir.",
    )
    parser.add_argument("data_dir", type=Path)
    parser.add_argument(
        "--dataset",
        action="append",
        choices=sorted(HUB_SPLITS),
        help="only this dataset (repeatable; default: all)",
    )
    args = parser.parse_args(argv)
    for path in export(args.data_dir, args.dataset or list(HUB_SPLITS)):
        print(path)


if __name__ == "__main__":
    main()
