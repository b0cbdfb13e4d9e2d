"""Benchmark: the zoo's training batches drawn at random against batches grouped by length
(issue 32, the main job's largest stage).

Run by hand (never as a timed test)::

    .venv/bin/python benchmarks/bench_zoo_batches.py                     # random, 50, 8
    .venv/bin/python benchmarks/bench_zoo_batches.py --grouping none 4 --datasets sst2 rte

Builds the whole zoo (both families' tokenizers and pre-trained bases, every classifier) once
per variant of ``Recipe.length_grouping`` (``none``: rows drawn at random, the zoo's recipe;
``k``: transformers' length grouping in mega-batches of k batches, ``train.epoch_batches``),
one variant after the other, each into a temporary folder, as ``python -m workshop.zoo
train`` does (two build processes).  Per variant: the build's wall time and its processes'
CPU seconds (user + system of the build processes, ``RUSAGE_CHILDREN``), the padding share
of the tokens the classifiers' batches compute, each classifier's held-out accuracy (the
zoo's floor is 85 %) and fine-tuning seconds, each base's pre-training steps; and whether
its weights are the ones the tiny gates were calibrated on (``calibrated_on`` in
thresholds.yaml): the random variant must reproduce them all.  The load average is printed
at the start and the end: the machine these figures come from is shared.  Writes
reports/benchmark-zoo-batches.json (``--output``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# Run from a checkout without the package installed; the recipe is the workshop's, at the root.
sys.path[:0] = [str(REPO), str(REPO / "plugins")]

import torch  # noqa: E402  # after the sys.path set-up above
import yaml  # noqa: E402  # after the sys.path set-up above

from workshop.zoo.build import build_zoo  # noqa: E402  # after the sys.path set-up above
from workshop.zoo.data import DATASETS  # noqa: E402  # after the sys.path set-up above
from workshop.zoo.pipeline import load_tokenizer, train_split  # noqa: E402  # after the sys.path set-up above
from workshop.zoo.recipe import DEFAULT_RECIPE, Recipe  # noqa: E402  # after the sys.path set-up above
from workshop.zoo.train import encode, epoch_batches  # noqa: E402  # after the sys.path set-up above

FLOOR = 0.85  # the zoo's held-out accuracy floor (tests/integration/test_zoo.py)


def calibrated_on(thresholds: Path) -> dict[str, str]:
    profiles = yaml.safe_load(thresholds.read_text())["profiles"]
    return dict(profiles["tiny"].get("calibrated_on", {}))


def padding_share(recipe: Recipe, root: Path) -> dict[str, float]:
    """Per dataset, the share of the tokens its classifiers' fine-tuning batches compute that
    are padding (the bert family's tokenizer; the batches as ``train_model`` draws them)."""
    shares: dict[str, float] = {}
    tokenizer = load_tokenizer(root / recipe.datasets[0] / "bert")
    for dataset in recipe.datasets:
        rows = encode(tokenizer, train_split(recipe, dataset), recipe.max_length)
        lengths = [len(r["input_ids"]) for r in rows]
        generator = torch.Generator().manual_seed(recipe.seed_for(dataset, "bert"))
        real = padded = 0
        for _ in range(recipe.epochs[dataset]):
            for batch in epoch_batches(
                lengths, recipe.batch_size, generator, recipe.length_grouping
            ):
                real += sum(lengths[i] for i in batch)
                padded += len(batch) * max(lengths[i] for i in batch)
        shares[dataset] = round(1 - real / padded, 3)
    return shares


def build_variant(recipe: Recipe, calibrated: dict[str, str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-zoo-") as tmp:
        root = Path(tmp) / "zoo"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        card = build_zoo(root, force=True, recipe=recipe)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        padding = padding_share(recipe, root)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    models = {
        m.path: {
            "accuracy": m.accuracy,
            "train_seconds": m.train_seconds,
            "calibrated": calibrated.get(m.path, "-")
            == m.weights_sha256[: len(calibrated.get(m.path, "-"))],
        }
        for m in card.models
    }
    return {
        "length_grouping": recipe.length_grouping,
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "padding_share": padding,
        "bases": {b.family: {"steps": b.steps, "seconds": b.seconds} for b in card.bases},
        "models": models,
        "min_accuracy": min(m.accuracy for m in card.models),
        "calibrated_weights": sum(m["calibrated"] for m in models.values()),
    }


def table(results: list[dict[str, Any]]) -> list[str]:
    def name(r: dict[str, Any]) -> str:
        return "random" if r["length_grouping"] is None else f"grouped {r['length_grouping']}"

    lines = [
        "| | " + " | ".join(name(r) for r in results) + " |",
        "| --- |" + " ---: |" * len(results),
    ]

    def row(label: str, cell: Any) -> None:
        lines.append(f"| {label} | " + " | ".join(str(cell(r)) for r in results) + " |")

    row("build wall s", lambda r: r["wall_seconds"])
    row("build CPU s", lambda r: r["cpu_seconds"])
    for family in results[0]["bases"]:
        row(
            f"{family} base: steps (s)",
            lambda r, f=family: f"{r['bases'][f]['steps']} ({r['bases'][f]['seconds']})",
        )
    for dataset in results[0]["padding_share"]:
        row(f"{dataset}: padding", lambda r, d=dataset: f"{100 * r['padding_share'][d]:.0f} %")
    for path in results[0]["models"]:
        row(
            f"{path}: accuracy (s)",
            lambda r, p=path: "{:.3f} ({})".format(
                r["models"][p]["accuracy"], r["models"][p]["train_seconds"]
            ),
        )
    row(f"lowest accuracy (floor {FLOOR})", lambda r: f"{r['min_accuracy']:.3f}")
    row(
        "weights the gates were calibrated on",
        lambda r: f"{r['calibrated_weights']} of {len(r['models'])}",
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--grouping",
        nargs="+",
        default=["none", "50", "8"],
        help="variants: none (random batches) or a mega-batch multiple",
    )
    parser.add_argument(
        "--datasets",
        nargs="+",
        choices=sorted(DATASETS),
        help="a part of the zoo (default: all of it)",
    )
    parser.add_argument("--thresholds", type=Path, default=REPO / "thresholds.yaml")
    parser.add_argument(
        "--output", type=Path, default=REPO / "reports" / "benchmark-zoo-batches.json"
    )
    args = parser.parse_args()
    base = (
        DEFAULT_RECIPE
        if args.datasets is None
        else dataclasses.replace(DEFAULT_RECIPE, datasets=tuple(args.datasets))
    )
    calibrated = calibrated_on(args.thresholds)
    print(f"load average at start: {os.getloadavg()}", flush=True)
    results = []
    for variant in args.grouping:
        grouping = None if variant == "none" else int(variant)
        recipe = dataclasses.replace(base, length_grouping=grouping)
        print(f"building the zoo, length_grouping={grouping} ...", flush=True)
        results.append(build_variant(recipe, calibrated))
        print(json.dumps(results[-1]), flush=True)
    print(f"load average at end: {os.getloadavg()}")
    print("\n".join(table(results)))
    ratio = [r["cpu_seconds"] / results[0]["cpu_seconds"] for r in results]
    print(
        "build CPU against the first variant: "
        + ", ".join(f"{x:.2f}" for x in ratio)
        + f" (of {math.fsum(r['cpu_seconds'] for r in results):.0f} CPU s in all)"
    )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(
        json.dumps({"load_average": os.getloadavg(), "variants": results}, indent=2) + "\n"
    )


if __name__ == "__main__":
    main()
