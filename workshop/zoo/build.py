"""Train the zoo of a recipe into place (the runtime, ``nlp_gate.zoo``, only copies the
shipped one).

Layout under the zoo root, as ``nlp_gate/zoo/build.py`` describes it: ``zoo.json`` (the card,
written last), ``<dataset>/heldout.jsonl``, ``<dataset>/<family>/``.

Concurrency: a build happens under the root's exclusive file lock (``nlp_gate.zoo``'s, so a
run putting the embedded zoo in place and a build never interleave), into a private temporary
directory that is renamed into place only when complete, so no process ever sees a half-built
zoo; a process that waited for the lock re-reads the card and reuses the zoo the winner
built.  The default recipe's zoo is the embedded one: ``ensure_zoo`` installs it, never trains
it; ``build_zoo`` trains it anew (``python -m workshop.zoo train`` compares the two).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import shutil
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from filelock import FileLock

from nlp_gate import progress
from nlp_gate import zoo as runtime
from nlp_gate.zoo.build import default_zoo_root, lock_path
from nlp_gate.zoo.card import BaseResult, ModelResult, ZooCard, read_card
from nlp_gate.zoo.folders import remove_leftovers, swap_into_place
from workshop.zoo.data import DATASETS, write_heldout
from workshop.zoo.recipe import DEFAULT_RECIPE, Recipe, library_versions, recipe_hash
from workshop.zoo.relay import Relay, forward_to

# Generous: a full build takes ~2 minutes; a waiter should outlast it.
LOCK_TIMEOUT_S = 30 * 60
# How often a parent waiting on build workers writes their progress (and heartbeats).
POLL_S = 0.25


def is_current(root: Path, recipe: Recipe = DEFAULT_RECIPE) -> bool:
    if is_embedded(recipe):
        return runtime.is_current(root)
    card = read_card(root)
    return card is not None and card.recipe_hash == recipe_hash(recipe)


def is_embedded(recipe: Recipe) -> bool:
    """Whether ``recipe`` is the default one (any of its datasets): the zoo it makes is the
    embedded one, installed from the shipped files, never trained (``nlp_gate.zoo``)."""
    return dataclasses.replace(recipe, datasets=DEFAULT_RECIPE.datasets) == DEFAULT_RECIPE


def _resolve(
    root: Path | None, recipe: Recipe, datasets: Sequence[str] | None
) -> tuple[Path, Recipe]:
    if datasets is not None:
        unknown = set(datasets) - set(DATASETS)
        if unknown:
            raise ValueError(f"unknown datasets: {sorted(unknown)}")
        recipe = dataclasses.replace(recipe, datasets=tuple(datasets))
    return (root or default_zoo_root()).resolve(), recipe


def ensure_zoo(
    root: Path | None = None,
    recipe: Recipe = DEFAULT_RECIPE,
    *,
    datasets: Sequence[str] | None = None,
    jobs: int | None = None,
) -> ZooCard:
    """The zoo at ``root``: the default recipe's is the embedded zoo, installed there from the
    shipped files (all its models, whichever ``datasets`` are asked for) when it is not there
    byte for byte; another recipe's (the project's own tests shrink it) is built first if
    missing or built from another recipe."""
    root, recipe = _resolve(root, recipe, datasets)
    if is_embedded(recipe):
        return runtime.ensure_zoo(root)
    card = read_card(root)
    if card is not None and card.recipe_hash == recipe_hash(recipe):
        return card  # lock-free fast path: a readable card means a complete zoo
    return build_zoo(root, force=False, recipe=recipe, jobs=jobs)


def build_zoo(
    root: Path | None = None,
    force: bool = False,
    recipe: Recipe = DEFAULT_RECIPE,
    *,
    datasets: Sequence[str] | None = None,
    jobs: int | None = None,
) -> ZooCard:
    """Train the zoo of ``recipe`` into ``root`` (unless current and not ``force``).  The
    default recipe's trains anew here too: ``python -m workshop.zoo train`` compares such a
    build with the embedded zoo."""
    root, recipe = _resolve(root, recipe, datasets)
    expected = recipe_hash(recipe)
    return build_locked(root, expected, lambda tmp: _build_into(tmp, recipe, expected, jobs), force)


def build_locked(
    root: Path,
    expected: str,
    build: Callable[[Path], ZooCard],
    force: bool = False,
    *,
    holds: Callable[[ZooCard], bool] = lambda card: True,
) -> ZooCard:
    """``build(tmp)`` a zoo whose card will carry ``expected`` into a private directory,
    under the root's lock, and swap it into place -- unless (not ``force``) another process
    built it while we waited (a card of ``expected`` that ``holds`` what we need: the
    defect zoo may hold some of its models only).  A recipe's zoo and the defect zoo build
    this way."""
    root.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(lock_path(root)), timeout=LOCK_TIMEOUT_S):
        card = read_card(root)
        if not force and card is not None and card.recipe_hash == expected and holds(card):
            return card  # another process built it while we waited
        remove_leftovers(root)
        tmp = root.parent / f".{root.name}.build-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            card = build(tmp)
            swap_into_place(tmp, root)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return card


def default_jobs(recipe: Recipe) -> int:
    # Every worker process pays ~3 s to import torch/transformers, which only
    # pays off with more than one model per family.
    if len(recipe.datasets) < 2:
        return 1
    return max(1, min(2, os.cpu_count() or 1))


def _build_into(workdir: Path, recipe: Recipe, expected_hash: str, jobs: int | None) -> ZooCard:
    start = time.perf_counter()
    workdir.mkdir(parents=True)
    for dataset in recipe.datasets:
        write_heldout(dataset, workdir)
    n_jobs = default_jobs(recipe) if jobs is None else jobs
    base_jobs = [("build_base", recipe, family, workdir) for family in recipe.families]
    # Pair tasks train longest: start them first so the two workers finish together.
    cost = {"paraphrase": 0, "entailment": 0, "sentiment": 1}
    model_jobs = [
        ("build_model", recipe, dataset, family, workdir)
        for dataset in sorted(recipe.datasets, key=lambda d: cost[DATASETS[d].task])
        for family in recipe.families
    ]
    with SpawnPool(n_jobs, dict(recipe.cpu_numerics)) as run:
        bases: list[BaseResult] = run(
            pipeline_job, base_jobs, "zoo: tokenizers and base encoders", "families"
        )
        results: list[ModelResult] = run(pipeline_job, model_jobs, "zoo: classifiers", "models")
    shutil.rmtree(workdir / "_base")  # intermediate: folded into every model
    order = {
        (d, f): i
        for i, (d, f) in enumerate((d, f) for d in recipe.datasets for f in recipe.families)
    }
    results.sort(key=lambda r: order[(r.dataset, r.family)])
    card = ZooCard(
        recipe_hash=expected_hash,
        recipe=recipe.to_json(),
        versions=library_versions(),
        models=tuple(results),
        bases=tuple(bases),
        build_seconds=round(time.perf_counter() - start, 1),
        built_at=datetime.now(UTC).isoformat(timespec="seconds"),
        build_pid=os.getpid(),
    )
    card.write(workdir)  # last: its presence marks the directory complete
    return card


def pipeline_job(job: str, *args: Any) -> Any:
    """``pipeline.<job>(*args)``, in a build worker.  Named rather than handed over: handing
    the function over would import ``pipeline`` (torch, transformers: seconds, tens of seconds
    on a busy machine) here too, before the build could report anything; and a run that only
    checks the zoo is current (every pytest session) need not pay for it."""
    from workshop.zoo import pipeline

    return getattr(pipeline, job)(*args)


class SpawnPool:
    """Runs job batches on a spawn-based process pool, ``jobs`` processes wide.

    Always in fresh processes, even for one job: the recipe's ``cpu_numerics`` must be in
    the environment before torch and MKL initialise, which in the calling process (a pytest
    worker, say) they already have.  ``spawn`` rather than ``fork``: forking a process that
    already initialised torch's thread pools can deadlock, and pytest processes have.

    The workers' progress stages (``nlp_gate.progress``) come back through a queue, and this
    process writes them while it waits: one writer for the terminal, however many workers.
    """

    def __init__(self, jobs: int, env: dict[str, str]) -> None:
        self.jobs = max(1, jobs)
        self.env = env
        self.pool: ProcessPoolExecutor | None = None
        self.relay: Relay | None = None
        self._saved: dict[str, str | None] = {}

    def __enter__(self) -> Callable[..., list[Any]]:
        # Workers are spawned lazily, on submit, and inherit os.environ as it is then:
        # keep the pins in place until the pool is shut down.
        self._saved = {name: os.environ.get(name) for name in self.env}
        os.environ.update(self.env)
        context = multiprocessing.get_context("spawn")
        # A SimpleQueue's put returns once the event is in the pipe: a job's events are
        # all sent when its result arrives.
        events = context.SimpleQueue()
        self.relay = Relay(events)
        self.pool = ProcessPoolExecutor(
            max_workers=self.jobs, mp_context=context, initializer=forward_to, initargs=(events,)
        )
        return self.run

    def run(
        self,
        fn: Callable[..., Any],
        argsets: list[tuple[Any, ...]],
        stage: str | None = None,
        unit: str = "jobs",
    ) -> list[Any]:
        """``fn(*args)`` of each of ``argsets`` on the pool, results in their order.  While
        they run, the workers' stages are written, and ``stage`` (when named) counts the
        jobs done; the first job to fail raises its exception."""
        assert self.pool is not None
        futures = [self.pool.submit(fn, *args) for args in argsets]
        if stage is None:
            self._wait(futures, None)
        else:
            with progress.Stage(stage, len(futures), unit) as jobs:
                self._wait(futures, jobs)
        return [future.result() for future in futures]

    def _wait(self, futures: list[Future[Any]], jobs: progress.Stage | None) -> None:
        assert self.relay is not None
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=POLL_S, return_when=FIRST_COMPLETED)
            self.relay.pump()
            if jobs is not None and done:
                jobs.advance(len(done))
            failed = next((f.exception() for f in done if f.exception() is not None), None)
            if failed is not None:
                raise failed

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
        if self.relay is not None:
            self.relay.close()  # the last events; a stage of a worker that died: failed
        for name, value in self._saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
