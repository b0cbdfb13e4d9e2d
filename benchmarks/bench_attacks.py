"""Benchmark: the plugin's attack items against TextAttack's own ``Attacker`` (issue 32).

Run by hand (never as a timed test)::

    .venv/bin/python benchmarks/bench_attacks.py                     # 5 canonical recipes x 2 RTE models
    .venv/bin/python benchmarks/bench_attacks.py --recipes deepwordbug --models rte-bert \\
        --examples 2 --query-budget 50
    .venv/bin/python benchmarks/bench_attacks.py --recipes clare-offline iga-offline --repeat 1

For each recipe x model, two sides attack the same examples (the model's held-out RTE set,
the first ``--examples``) with the same seed and query budget:

(a) theirs: what a TextAttack user writes: the checkpoint loaded by ``transformers``
    (``AutoModelForSequenceClassification``/``AutoTokenizer``), wrapped in TextAttack's
    ``HuggingFaceModelWrapper``, the recipe's ``build``, ``textattack.Attacker`` with
    ``AttackArgs(num_examples, random_seed, query_budget, log_to_txt, ...)``.  The zoo's
    tokenizers declare no maximum length, so the wrapper would pad to 512 tokens, past the
    models' 64 positions: its ``model_max_length`` is set to the position table, the one
    change a user has to make.  An offline variant (``clare-offline``) is built with the
    same stand-ins as ours (``substitutes.build_offline``), which is the same work.
(b) ours: ``AttackRunner.run``, the function the pytest item calls, with the engine's
    ``Classifier`` loaded as the plugin loads it (its own, fresh prediction cache: a cold run
    as on a fresh clone) and the runner's defaults (batch size 32, the budget stop).

Each side runs in its own subprocess (``--side``), one after the other, the order alternating
from item to item; a side's wall time is measured inside it, from the recipe's build to the
attack's last result (ours: the whole ``AttackRunner.run``, which also computes the metrics and
writes the examples), excluding interpreter start, imports and model loading, which the pytest
item does not pay per item either.  Both logs (TextAttack's ``log_to_txt``) must be byte-identical
and the per-example result types, outputs and perturbed texts equal, else the script exits 1.

Prints a table with the ratio ours/theirs and the 1-minute load average before and after,
and writes the figures to ``reports/bench_attacks.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CANONICAL = ("deepwordbug", "pruthi", "input-reduction", "pwws", "leap")
MODELS = ("rte-bert", "rte-albert")


@dataclass(frozen=True)
class Job:
    side: str  # ours | theirs
    recipe: str
    model: str  # profile key, e.g. rte-bert
    examples: int
    seed: int
    query_budget: int | None
    repeat: int  # runs, one after the other in the side's process
    out: Path  # where the side writes its log and its figures
    threads: int | None = None  # torch threads; None: the engine's (every core, no xdist)


# -- one side, in its own process -----------------------------------------------------------
def _context(job: Job) -> tuple[Any, Any, Any, Any]:
    """The profile's model spec, its evaluation set, the recipe and the resource bundle, as
    the plugin finds them (the default cache directory, the default profile)."""
    from nlp_gate.config.profiles import load_profile
    from nlp_gate.eval_sets import load_eval_set
    from nlp_gate.kinds.attacks.bundle import Bundle
    from nlp_gate.kinds.attacks.recipes import registry
    from nlp_gate.zoo.build import default_zoo_root

    spec = next(m for m in load_profile().models if m.key == job.model)
    bundle = Bundle((REPO / ".cache" / "attack-resources").resolve())
    bundle.activate()
    recipe = next(r for r in registry() if r.name == job.recipe)
    zoo = default_zoo_root()
    if not (zoo / "zoo.json").is_file():
        raise SystemExit(f"no zoo at {zoo}: build it first (python -m nlp_gate.zoo build)")
    # The zoo as built (its held-out files as the data directory): a benchmark times the
    # attacks, it never starts a build, even where the zoo's recipe changed since.
    return spec, load_eval_set(spec, zoo, zoo), recipe, bundle


def run_side(job: Job) -> dict[str, Any]:
    """``job.repeat`` runs of one side, each with a freshly loaded model (and, ours, a fresh
    prediction cache): wall and CPU seconds of each, the first run's log and results, and
    whether every run's results equalled the first's."""
    spec, examples, recipe, bundle = _context(job)
    from nlp_gate.kinds.attacks import offline

    textattack = offline.import_textattack(bundle)
    walls, cpus, logs, runs = [], [], [], []
    for i in range(job.repeat):
        out = job.out / f"run-{i}"
        out.mkdir(parents=True, exist_ok=True)
        side = _theirs if job.side == "theirs" else _ours
        wall, cpu, results, log = side(textattack, job, spec, examples, recipe, bundle, out)
        walls.append(wall)
        cpus.append(cpu)
        logs.append(log.read_bytes())
        runs.append([_result(r) for r in results])
    return {
        "wall_s": walls,
        "cpu_s": cpus,
        "log": str(job.out / "run-0" / "log.txt"),
        "results": runs[0],
        "repeatable": all(r == runs[0] for r in runs) and all(log == logs[0] for log in logs),
    }


def _theirs(
    textattack: Any, job: Job, spec: Any, examples: Any, recipe: Any, bundle: Any, out: Path
) -> tuple[float, float, list[Any], Path]:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from nlp_gate.engine.loading import zoo_location
    from nlp_gate.engine.predictor import cpu_threads
    from nlp_gate.kinds.attacks import offline
    from nlp_gate.kinds.attacks.run import _dataset
    from nlp_gate.zoo.build import default_zoo_root

    where = zoo_location(default_zoo_root(), spec)
    model = AutoModelForSequenceClassification.from_pretrained(where).eval()
    tokenizer = AutoTokenizer.from_pretrained(where)
    tokenizer.model_max_length = model.config.max_position_embeddings
    torch.set_num_threads(job.threads or cpu_threads())  # as the plugin's engine sets it
    wrapper = textattack.models.wrappers.HuggingFaceModelWrapper(model, tokenizer)
    log = out / "log.txt"
    start, cpu = time.perf_counter(), time.process_time()
    with offline.offline_guard():  # the bundle's files instead of downloads, as ours
        if recipe.offline_variant_of:  # the same stand-ins as ours (the same work)
            from nlp_gate.kinds.attacks.substitutes import build_offline

            attack, _ = build_offline(recipe.load_class(), wrapper, bundle, recipe.build_args)
        else:
            attack = recipe.load_class().build(wrapper, **recipe.build_args)
        args = textattack.AttackArgs(
            num_examples=min(job.examples, len(examples.inputs)),
            random_seed=job.seed,
            query_budget=job.query_budget,
            log_to_txt=str(log),
            log_summary_to_json=str(out / "summary.json"),
            disable_stdout=True,
            silent=True,
        )
        results = textattack.Attacker(
            attack, _dataset(textattack, examples, spec), args
        ).attack_dataset()
    return time.perf_counter() - start, time.process_time() - cpu, results, log


def _ours(
    textattack: Any, job: Job, spec: Any, examples: Any, recipe: Any, bundle: Any, out: Path
) -> tuple[float, float, list[Any], Path]:
    from nlp_gate.engine.batching import Encodings
    from nlp_gate.engine.loading import load_classifier, zoo_location
    from nlp_gate.engine.predictor import LoadOptions
    from nlp_gate.kinds.attacks.cases import AttackCase
    from nlp_gate.kinds.attacks.gates import AttackGates
    from nlp_gate.kinds.attacks.run import AttackRunner, AttackSettings, Unavailable
    from nlp_gate.zoo.build import default_zoo_root

    cache = out / "predictions.sqlite"  # cold, as on a fresh clone
    classifier = load_classifier(
        spec,
        zoo_location(default_zoo_root(), spec),
        LoadOptions(cache=cache),
        0,
        Encodings(directory=cache.with_suffix(".tokens")),
    )
    if job.threads:
        import torch

        torch.set_num_threads(job.threads)  # after the engine's own choice at load
    settings = AttackSettings(
        examples=job.examples,
        seed=job.seed,
        query_budget=job.query_budget,
        batch_size=32,
        strict=True,
    )
    gates = AttackGates({"default": {"max_attack_success_rate": 100}}, "bench")
    runner = AttackRunner(settings, bundle, gates, lambda _: examples, out)
    captured: list[Any] = []
    attack_dataset = textattack.Attacker.attack_dataset

    def keep_results(self: Any) -> list[Any]:  # the results, for the comparison
        captured[:] = attack_dataset(self)
        return captured

    textattack.Attacker.attack_dataset = keep_results
    start, cpu = time.perf_counter(), time.process_time()
    verdict = runner.run(AttackCase(0, recipe, spec), classifier)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    textattack.Attacker.attack_dataset = attack_dataset
    if isinstance(verdict, Unavailable):
        raise SystemExit(f"{job.recipe}/{job.model} cannot run here: {verdict.message}")
    log = Path(verdict.record.textattack_log or "")
    return wall, cpu, captured, log.replace(out / "log.txt")


def _result(result: Any) -> dict[str, Any]:
    """What must agree between the sides: result type, outputs, queries, perturbed text."""
    original, perturbed = result.original_result, result.perturbed_result
    return {
        "type": type(result).__name__,
        "original_output": int(original.output),
        "perturbed_output": int(perturbed.output),
        "num_queries": perturbed.num_queries,
        "perturbed_text": list(perturbed.attacked_text._text_input.values()),
    }


# -- the comparison -----------------------------------------------------------------------
def spawn(job: Job) -> dict[str, Any]:
    command = [
        sys.executable,
        __file__,
        "--side",
        job.side,
        "--recipes",
        job.recipe,
        "--models",
        job.model,
        "--examples",
        str(job.examples),
        "--seed",
        str(job.seed),
        "--query-budget",
        str(job.query_budget or 0),
        "--repeat",
        str(job.repeat),
        "--out",
        str(job.out),
        *(["--threads", str(job.threads)] if job.threads else []),
    ]
    subprocess.run(command, check=True, cwd=REPO)
    return dict(json.loads((job.out / "figures.json").read_text()))


@dataclass
class Row:
    recipe: str
    model: str
    first: str  # the side that ran first
    theirs_s: list[float]  # wall seconds of each run
    ours_s: list[float]
    theirs_cpu_s: list[float]  # CPU seconds (every thread) of each run
    ours_cpu_s: list[float]
    difference: str | None  # the first difference between the sides; None: identical

    @property
    def ratio(self) -> float:
        """ours/theirs, best run of each: the figure least disturbed by other load."""
        return min(self.ours_s) / min(self.theirs_s)


def compare(theirs: dict[str, Any], ours: dict[str, Any]) -> str | None:
    """None when the logs are byte-identical and the results equal, else what differs."""
    for name, figures in (("theirs", theirs), ("ours", ours)):
        if not figures["repeatable"]:
            return f"{name}: the repeated runs differ"
    if theirs["results"] != ours["results"]:
        for i, (a, b) in enumerate(zip(theirs["results"], ours["results"])):
            if a != b:
                return f"example {i}: theirs {a} != ours {b}"
        return f"{len(theirs['results'])} results (theirs) != {len(ours['results'])} (ours)"
    log_theirs, log_ours = Path(theirs["log"]).read_bytes(), Path(ours["log"]).read_bytes()
    if log_theirs != log_ours:
        at = next(
            (i for i, (a, b) in enumerate(zip(log_theirs, log_ours)) if a != b),
            min(len(log_theirs), len(log_ours)),
        )
        around = slice(max(0, at - 40), at + 40)
        return f"logs differ at byte {at}: theirs {log_theirs[around]!r}, ours {log_ours[around]!r}"
    return None


def bench(
    recipes: Sequence[str],
    models: Sequence[str],
    examples: int,
    seed: int,
    budget: int | None,
    repeat: int,
    threads: int | None,
    work: Path,
) -> list[Row]:
    rows = []
    for i, (recipe, model) in enumerate((r, m) for r in recipes for m in models):
        order = ("theirs", "ours") if i % 2 == 0 else ("ours", "theirs")
        figures = {
            side: spawn(
                Job(
                    side,
                    recipe,
                    model,
                    examples,
                    seed,
                    budget,
                    repeat,
                    work / f"{recipe}__{model}" / side,
                    threads,
                )
            )
            for side in order
        }
        theirs, ours = figures["theirs"], figures["ours"]
        row = Row(
            recipe,
            model,
            order[0],
            theirs["wall_s"],
            ours["wall_s"],
            theirs["cpu_s"],
            ours["cpu_s"],
            compare(theirs, ours),
        )
        rows.append(row)
        print(
            f"{recipe}/{model}: theirs {_seconds(row.theirs_s)}, ours {_seconds(row.ours_s)}"
            f"{'' if row.difference is None else ' DIFFERENT: ' + row.difference}",
            flush=True,
        )
    return rows


def _seconds(runs: Sequence[float]) -> str:
    return " / ".join(f"{s:.2f}" for s in runs) + " s"


def table(rows: Sequence[Row]) -> str:
    lines = [
        (
            "| recipe | model | first | TextAttack `Attacker` wall s (best; runs) "
            "| ours wall s (best; runs) | ours/theirs (best) | CPU s theirs / ours (best) "
            "| identical |"
        ),
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.recipe} | {r.model} | {r.first} | {min(r.theirs_s):.2f}; "
            f"{_seconds(r.theirs_s)} | {min(r.ours_s):.2f}; {_seconds(r.ours_s)} | "
            f"{r.ratio:.2f} | {min(r.theirs_cpu_s):.2f} / {min(r.ours_cpu_s):.2f} | "
            f"{'yes' if r.difference is None else 'NO'} |"
        )
    theirs, ours = sum(min(r.theirs_s) for r in rows), sum(min(r.ours_s) for r in rows)
    cpu_theirs = sum(min(r.theirs_cpu_s) for r in rows)
    cpu_ours = sum(min(r.ours_cpu_s) for r in rows)
    identical = sum(r.difference is None for r in rows)
    lines.append(
        f"| **sum** | | | {theirs:.2f} | {ours:.2f} | **{ours / theirs:.2f}** | "
        f"{cpu_theirs:.2f} / {cpu_ours:.2f} | {identical} of {len(rows)} |"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--recipes", nargs="+", default=list(CANONICAL))
    parser.add_argument("--models", nargs="+", default=list(MODELS))
    parser.add_argument("--examples", type=int, default=10, help="as --nlp-attack-examples")
    parser.add_argument("--seed", type=int, default=765, help="as --nlp-attack-seed")
    parser.add_argument(
        "--query-budget", type=int, default=500, help="as --nlp-attack-query-budget (0: unlimited)"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs per side and item, in one process (default: %(default)s)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch threads of both sides (default: every core, as the engine "
        "without xdist; the main job's -n 2 gives each worker 1)",
    )
    parser.add_argument("--json", type=Path, default=REPO / "reports" / "bench_attacks.json")
    parser.add_argument("--side", choices=("ours", "theirs"), help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    budget = args.query_budget or None
    if args.side:  # one side of one item, in this process
        job = Job(
            args.side,
            args.recipes[0],
            args.models[0],
            args.examples,
            args.seed,
            budget,
            args.repeat,
            args.out,
            args.threads,
        )
        (args.out / "figures.json").write_text(json.dumps(run_side(job)))
        return 0
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-attacks-") as work:
        rows = bench(
            args.recipes,
            args.models,
            args.examples,
            args.seed,
            budget,
            args.repeat,
            args.threads,
            Path(work),
        )
    load_after = os.getloadavg()
    print(table(rows))
    print(
        f"1-min load average: {load_before[0]:.2f} before, {load_after[0]:.2f} after; "
        f"{os.cpu_count()} cores; {args.examples} examples, seed {args.seed}, query budget "
        f"{budget or 'unlimited'}, {args.repeat} runs per side, torch threads "
        f"{args.threads or 'as the engine sets them'}"
    )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(
        json.dumps(
            {
                "rows": [{**vars(r), "ratio": r.ratio} for r in rows],
                "load_average_1min": [load_before[0], load_after[0]],
                "cores": os.cpu_count(),
                "examples": args.examples,
                "seed": args.seed,
                "query_budget": budget,
                "repeat": args.repeat,
                "threads": args.threads,
            },
            indent=2,
        )
        + "\n"
    )
    return 0 if all(r.difference is None for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
