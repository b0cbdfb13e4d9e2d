"""Build and cache the defect zoo (layout as the embedded zoo's: ``zoo.json`` and
``<dataset>/<variant>/`` model directories), with the embedded zoo's lock and swap."""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from nlp_gate.config.paths import cache_dir
from nlp_gate.zoo.card import BaseResult, ModelResult, ZooCard, read_card
from workshop.defects.variants import (
    DEFECT_RECIPE,
    FAMILY,
    VARIANTS,
    Variant,
    base_data,
    training_data,
)
from workshop.zoo.build import SpawnPool, build_locked
from workshop.zoo.data import DATASETS, write_heldout
from workshop.zoo.recipe import library_versions, recipe_hash, source_digest


def defect_zoo_root(root: Path | None = None) -> Path:
    return (root or cache_dir(Path.cwd()) / "defect-zoo").resolve()


def defect_recipe_hash() -> str:
    """The embedded zoo's recipe hash (its recipe, sources and library versions) and the
    source of this package: editing a doctoring rebuilds."""
    payload = recipe_hash(DEFECT_RECIPE) + source_digest(Path(__file__).parent)
    return hashlib.sha256(payload.encode()).hexdigest()


def variants_of(datasets: Sequence[str] | None) -> tuple[Variant, ...]:
    """The variants of ``datasets`` (None: every variant)."""
    if datasets is None:
        return VARIANTS
    unknown = set(datasets) - set(DEFECT_RECIPE.datasets)
    if unknown:
        raise ValueError(
            f"no defect-zoo models for {sorted(unknown)}; "
            f"its datasets: {', '.join(DEFECT_RECIPE.datasets)}"
        )
    return tuple(v for v in VARIANTS if v.dataset in datasets)


def holds(card: ZooCard, variants: Sequence[Variant]) -> bool:
    """Whether ``card``'s zoo has a model for each of ``variants``."""
    return {v.path for v in variants} <= {m.path for m in card.models}


def ensure_defect_zoo(
    root: Path | None = None, jobs: int = 2, datasets: Sequence[str] | None = None
) -> ZooCard:
    """The defect zoo at ``root`` with (at least) the models of ``datasets`` (None: all),
    built first when missing, built from another recipe or holding fewer models.  A build
    makes exactly the models asked for: each is the same bytes whichever others are built
    with it (the tokenizer learns every dataset's text either way)."""
    root = defect_zoo_root(root)
    expected = defect_recipe_hash()
    wanted = variants_of(datasets)
    card = read_card(root)
    if card is not None and card.recipe_hash == expected and holds(card, wanted):
        return card  # lock-free fast path, as the embedded zoo's
    return build_locked(
        root,
        expected,
        lambda tmp: _build_into(tmp, expected, jobs, wanted),
        holds=lambda card: holds(card, wanted),
    )


def _build_into(workdir: Path, expected: str, jobs: int, wanted: Sequence[Variant]) -> ZooCard:
    from workshop.zoo import pipeline  # imports torch: only when building

    start = time.perf_counter()
    workdir.mkdir(parents=True)
    for dataset in DEFECT_RECIPE.datasets:
        write_heldout(dataset, workdir)
    # The base encoder only for models that start from it (the pair tasks'); the sentiment
    # models train from scratch.
    pretrain = any(DATASETS[v.dataset].task in DEFECT_RECIPE.base_tasks for v in wanted)
    # Longest first (pair tasks, then sentiment), so the two workers finish together.
    order = sorted(wanted, key=lambda v: v.dataset == "yelp_polarity")
    with SpawnPool(jobs, dict(DEFECT_RECIPE.cpu_numerics)) as run:
        bases: list[BaseResult] = run(
            partial(pipeline.build_base, pretrain=pretrain),
            [(DEFECT_RECIPE, FAMILY, workdir, base_data)],
        )
        results: list[ModelResult] = run(
            pipeline.build_model,
            [
                (v.recipe(), v.dataset, FAMILY, workdir, partial(training_data, v.name), v.path)
                for v in order
            ],
        )
    shutil.rmtree(workdir / "_base")
    paths = [v.path for v in VARIANTS]
    results.sort(key=lambda r: paths.index(r.path))
    card = ZooCard(
        recipe_hash=expected,
        recipe=DEFECT_RECIPE.to_json(),
        versions=library_versions(),
        models=tuple(results),
        bases=tuple(bases),
        build_seconds=round(time.perf_counter() - start, 1),
        built_at=datetime.now(UTC).isoformat(timespec="seconds"),
        build_pid=os.getpid(),
    )
    card.write(workdir)
    return card
