"""Benchmark: the engine against the floor -- bare arithmetic and ONNX Runtime (issue 32).

Run by hand (never as a timed test)::

    .venv/bin/python benchmarks/bench_engine.py                           # the 10 suite models
    .venv/bin/python benchmarks/bench_engine.py --model sst2/bert --limit 40000
    .venv/bin/python benchmarks/bench_engine.py --model sst2/bert --threads 1 --checklist-run

Per model, the unique inputs of its full CheckList workload (every test of its released
suite, as ``-m checklist`` prefetches them; ``--limit N``: the first N) go through four
variants, each in a subprocess of its own, so that its peak RSS (``ru_maxrss`` of that child,
from ``os.wait4``) is its own:

(a) bare        a bare transformers/torch loop: the checkpoint as transformers loads it, its
                tokenizer, the inputs tokenized once, length-sorted batches of the engine's
                batch size padded by ``tokenizer.pad``, ``torch.inference_mode``, softmax;
(b) engine      our engine, as the plugin builds it (``load_classifier`` + ``predict_proba``),
                torch backend, cold: no prediction cache, no token files;
(c) ort         a bare ONNX Runtime loop (the batches of (a)) over the checkpoint as
                transformers loads it, exported by ``onnx_backend.export`` in the child;
(d) engine-onnx our engine with ``--nlp-backend onnx``, cold, over the export that a child
                of its own made first (timed apart: a checkpoint's first run only).

Every process uses the same intra-op threads: ``cpu_threads()``, all cores of one process, or
``--threads N`` (the plugin's policy for cores/N xdist workers).  The table gives each
variant's load (imports included; (c)'s export too) and prediction pass in wall and CPU
seconds (CPU: of the whole process, all threads; a shared machine disturbs it far less than
wall time), inputs/s, the child's peak RSS, max |dp| against (a), how many CheckList
outcomes change against (a) (per case: pass/fail; per test: its fail count; on the tests
whose inputs all lie within ``--limit``), and the pass relative to (a).  ``--checklist-run``
also times the cold ``pytest -m checklist`` run of the models (benchmarks/bench_checklist.py's
command, one process, fresh prediction cache) against the bare loop's whole processes.  The
load average is printed at the start and the end: the machine these figures come from is
shared.  Writes reports/benchmark-engine.json (``--output``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import sys
import tempfile
import time
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run as a script from anywhere

from bench_checklist import (  # noqa: E402  # found through the sys.path line above
    decoded_suites,
    measured,
    suite_command,
    suite_models,
)

from nlp_gate.config.profiles import ModelSpec  # noqa: E402  # after the sys.path line, as above

VARIANTS = ("bare", "engine", "ort", "engine-onnx")
# A child that only makes the engine's export (``--nlp-backend onnx``'s first run of a
# checkpoint), before "engine-onnx" runs over it as every later run does.
EXPORT = "export"
BATCH = 128  # the engine's default batch size (LoadOptions.batch_size)


# -- the workload ---------------------------------------------------------------------------
def _key(x: Any) -> Hashable:
    return tuple(x) if isinstance(x, (list, tuple)) else x


@dataclass
class Workload:
    """A model's unique inputs (first-seen order) and the tests whose every input is among
    them (with ``--limit``, the tests before the cut)."""

    inputs: list[Hashable]
    tests: dict[str, Any]
    all_tests: int


def workload(suite: Any, limit: int | None) -> Workload:
    from nlp_gate.kinds.checklist.run import examples_of

    unique: dict[Hashable, None] = {}
    tests: dict[str, Any] = {}
    for name, test in suite.tests.items():
        unique.update(dict.fromkeys(map(_key, examples_of(test, None, 1))))
        if limit is None or len(unique) <= limit:
            tests[name] = test
    inputs = list(unique)[:limit]
    return Workload(inputs, tests, len(suite.tests))


# -- the variants, each run in its own child process ---------------------------------------
def _texts(inputs: Sequence[Hashable]) -> tuple[list[str], list[str] | None]:
    if inputs and isinstance(inputs[0], tuple):
        return [x[0] for x in inputs], [x[1] for x in inputs]
    return [str(x) for x in inputs], None


def bare_batches(
    tokenizer: Any, inputs: Sequence[Hashable], max_length: int
) -> tuple[np.ndarray, dict[str, list[list[int]]]]:
    """The inputs tokenized once (truncated, unpadded) and their stable length order: the
    engine's batches, computed the way a bare loop would."""
    first, second = _texts(inputs)
    enc = tokenizer(first, second, truncation=True, max_length=max_length)
    order = np.argsort([len(ids) for ids in enc["input_ids"]], kind="stable")
    return order, {k: enc[k] for k in tokenizer.model_input_names if k in enc}


class Clock:
    """Wall and CPU seconds (of this process, all its threads) of a child's phases: on a
    shared machine the CPU seconds of a one-thread run move far less than its wall time."""

    def __init__(self) -> None:
        self.figures: dict[str, float] = {}

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        wall, cpu = time.perf_counter(), time.process_time()
        yield
        self.figures[f"{name}_s"] = time.perf_counter() - wall
        self.figures[f"{name}_cpu_s"] = time.process_time() - cpu


def run_bare(
    location: str, inputs: Sequence[Hashable], order_of: list[int], threads: int, clock: Clock
) -> np.ndarray:
    """(a): the checkpoint as transformers loads it, in a bare torch loop."""
    with clock.phase("load"):
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        torch.set_num_threads(threads)
        tokenizer = AutoTokenizer.from_pretrained(location)
        # A fast tokenizer warns that padding pre-tokenized ids is slower than calling it on
        # texts; here the ids are needed first, to sort by length.
        tokenizer.deprecation_warnings["Asking-to-pad-a-fast-tokenizer"] = True
        model = AutoModelForSequenceClassification.from_pretrained(location).eval()
        max_length = min(128, model.config.max_position_embeddings)
    with clock.phase("pass"):
        order, enc = bare_batches(tokenizer, inputs, max_length)
        out = np.empty((len(inputs), len(order_of)), dtype=np.float32)
        with torch.inference_mode():
            for i in range(0, len(order), BATCH):
                idx = order[i : i + BATCH]
                batch = tokenizer.pad(
                    {k: [v[j] for j in idx] for k, v in enc.items()}, return_tensors="pt"
                )
                out[idx] = model(**batch).logits.softmax(-1)[:, order_of].numpy()
    return out


def run_ort(
    location: str,
    inputs: Sequence[Hashable],
    order_of: list[int],
    threads: int,
    work: Path,
    clock: Clock,
) -> np.ndarray:
    """(c): the checkpoint as transformers loads it, exported, in a bare ORT loop."""
    with clock.phase("load"):
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        from nlp_gate.engine.onnx_backend import OnnxModel, export

        tokenizer = AutoTokenizer.from_pretrained(location)
        tokenizer.deprecation_warnings["Asking-to-pad-a-fast-tokenizer"] = True
        model = AutoModelForSequenceClassification.from_pretrained(location).eval()
        max_length = min(128, model.config.max_position_embeddings)
        path = work / "bare.onnx"
        export(model, tokenizer, path)
        session = OnnxModel(path, model.config, threads)
        del model
    with clock.phase("pass"):
        order, enc = bare_batches(tokenizer, inputs, max_length)
        out = np.empty((len(inputs), len(order_of)), dtype=np.float32)
        for i in range(0, len(order), BATCH):
            idx = order[i : i + BATCH]
            batch = tokenizer.pad(
                {k: [v[j] for j in idx] for k, v in enc.items()}, return_tensors="np"
            )
            out[idx] = session.probabilities({k: v.astype(np.int64) for k, v in batch.items()})[
                :, order_of
            ]
    return out


def run_engine(
    spec: ModelSpec,
    location: str,
    inputs: Sequence[Hashable],
    backend: str,
    work: Path,
    clock: Clock,
) -> np.ndarray:
    """(b) and (d): the plugin's engine, cold."""
    with clock.phase("load"):
        from nlp_gate.engine.batching import Encodings
        from nlp_gate.engine.loading import load_classifier
        from nlp_gate.engine.predictor import LoadOptions

        options = LoadOptions(device="cpu", cache=None, backend=backend, export_dir=work / "onnx")
        # As the plugin's session makes it with the prediction cache off: memory only.
        classifier = load_classifier(spec, location, options, encodings=Encodings())
    with clock.phase("pass"):
        out = classifier.predict_proba(list(inputs))
    assert classifier.forward_count == len(inputs)  # cold: every input went through the model
    return out


def child(variant: str, key: str, inputs_file: Path, out: Path) -> None:
    from nlp_gate.engine.predictor import cpu_threads
    from nlp_gate.zoo import model_dir

    spec = next(m for m in suite_models(None) if m.key == key)
    location = str(model_dir(*spec.source.removeprefix("zoo:").split("/")))
    inputs = [_key(x) for x in json.loads(inputs_file.read_text())]
    order_of = spec.class_index()
    clock = Clock()
    if variant == "bare":
        probs = run_bare(location, inputs, order_of, cpu_threads(), clock)
    elif variant == "ort":
        probs = run_ort(location, inputs, order_of, cpu_threads(), out, clock)
    else:
        probs = run_engine(
            spec,
            location,
            [] if variant == EXPORT else inputs,
            "torch" if variant == "engine" else "onnx",
            out,
            clock,
        )
    np.save(out / f"{variant}.npy", probs)
    (out / f"{variant}.json").write_text(json.dumps(clock.figures))


def spawn(
    variant: str, spec: ModelSpec, inputs_file: Path, work: Path, env: dict[str, str]
) -> dict[str, Any]:
    """Run one variant in a child; its wall time, peak RSS and its own figures."""
    cmd = [
        sys.executable,
        __file__,
        "--child",
        variant,
        "--model",
        spec.key,
        "--inputs",
        str(inputs_file),
        "--out",
        str(work),
    ]
    start = time.perf_counter()
    with (work / f"{variant}.log").open("w") as log:
        pid = os.posix_spawn(
            cmd[0],
            cmd,
            env,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, log.fileno(), 1),
                (os.POSIX_SPAWN_DUP2, log.fileno(), 2),
            ],
        )
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        tail = "".join((work / f"{variant}.log").read_text().splitlines(keepends=True)[-30:])
        raise SystemExit(f"{tail}\n{' '.join(cmd)} failed (log above)")
    figures = json.loads((work / f"{variant}.json").read_text())
    return {
        **figures,
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_rss_mib": usage.ru_maxrss / 1024,  # KiB on Linux
        "probs": np.load(work / f"{variant}.npy"),
    }


# -- CheckList outcomes from a variant's probabilities --------------------------------------
class Answers:
    """A variant's probabilities as the classifier CheckList's predict function asks."""

    def __init__(self, inputs: Sequence[Hashable], probs: np.ndarray) -> None:
        self.rows = dict(zip(inputs, probs))

    def predict_proba(self, examples: Sequence[Any]) -> np.ndarray:
        return np.stack([self.rows[_key(x)] for x in examples])


def outcomes(spec: ModelSpec, load: Workload, probs: np.ndarray) -> dict[str, Any]:
    """Per test: its cases' pass/fail (None: filtered) and its fail count."""
    from nlp_gate.kinds.checklist.run import predict_fn, run_test

    fn = predict_fn(Answers(load.inputs, probs), neutral_band=spec.task.suite == "sentiment")
    return {name: run_test(test, fn, None, 1) for name, test in load.tests.items()}


def changes(reference: dict[str, Any], other: dict[str, Any]) -> tuple[int, int]:
    """Cases whose pass/fail differs, and tests whose fail count differs."""
    cases = sum(
        a != b for name in reference for a, b in zip(reference[name].passed, other[name].passed)
    )
    tests = sum(reference[name].n_failed != other[name].n_failed for name in reference)
    return cases, tests


# -- the parent ------------------------------------------------------------------------------
def bench_model(
    spec: ModelSpec, suite: Any, limit: int | None, work: Path, env: dict[str, str]
) -> dict[str, Any]:
    load = workload(suite, limit)
    inputs_file = work / "inputs.json"
    inputs_file.write_text(json.dumps(load.inputs))
    runs = {}
    for variant in (*VARIANTS[:3], EXPORT, *VARIANTS[3:]):
        print(f"  {spec.dataset}/{spec.name}: {variant} ...", flush=True)
        runs[variant] = spawn(variant, spec, inputs_file, work, env)
    export = runs.pop(EXPORT)
    del export["probs"]
    probs = {variant: run.pop("probs") for variant, run in runs.items()}
    reference = outcomes(spec, load, probs["bare"])
    for variant, run in runs.items():
        run["max_dp"] = float(np.abs(probs[variant] - probs["bare"]).max())
        run["changed_cases"], run["changed_tests"] = (
            (0, 0)
            if variant == "bare"
            else changes(reference, outcomes(spec, load, probs[variant]))
        )
        run["ratio"] = run["pass_s"] / runs["bare"]["pass_s"]
        run["cpu_ratio"] = run["pass_cpu_s"] / runs["bare"]["pass_cpu_s"]
    return {
        "inputs": len(load.inputs),
        "tests_compared": len(load.tests),
        "tests": load.all_tests,
        "variants": runs,
        "export": export,
    }


def print_table(key: str, result: dict[str, Any]) -> None:
    export = result["export"]
    print(
        f"\n{key}: {result['inputs']} unique inputs; CheckList outcomes compared on "
        f"{result['tests_compared']} of {result['tests']} tests; the engine's ONNX export "
        f"(first run of a checkpoint only): {export['load_s']:.1f} s, peak RSS "
        f"{export['peak_rss_mib']:.0f} MiB"
    )
    print(
        f"  {'variant':<12}{'load s':>8}{'pass s':>8}{'inputs/s':>9}{'pass CPU s':>11}"
        f"{'wall s':>8}{'peak RSS MiB':>13}{'max |dp| vs a':>14}{'changed cases/tests':>20}"
        f"{'pass / a':>9}{'CPU / a':>8}"
    )
    for variant, r in result["variants"].items():
        print(
            f"  {variant:<12}{r['load_s']:>8.1f}{r['pass_s']:>8.1f}"
            f"{result['inputs'] / r['pass_s']:>9.0f}{r['pass_cpu_s']:>11.1f}"
            f"{r['wall_s']:>8.1f}{r['peak_rss_mib']:>13.0f}{r['max_dp']:>14.1e}"
            f"{r['changed_cases']:>12} / {r['changed_tests']:<5}{r['ratio']:>9.2f}"
            f"{r['cpu_ratio']:>8.2f}"
        )


def checklist_run(
    specs: list[ModelSpec], results: dict[str, Any], work: Path, env: dict[str, str]
) -> dict[str, Any]:
    """The cold ``pytest -m checklist`` run of ``specs`` (one process, a fresh prediction
    cache, the children's threads) against the bare loop over the same, full workload."""
    print("\ncold pytest -m checklist ...", flush=True)
    os.environ.update(env)  # measured() starts it with this process's environment
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = measured(
        suite_command(specs, None, 0, work / "cold.sqlite", work / "results.json"),
        work / "checklist.log",
        ok=lambda rc: rc in (0, 1),
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    run["cpu_s"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    bare = {
        k: sum(r["variants"]["bare"][k] for r in results.values())
        for k in ("wall_s", "cpu_s", "pass_s", "pass_cpu_s")
    }
    print(
        f"cold pytest -m checklist: {run['wall_s']:.1f} s wall, {run['cpu_s']:.1f} s CPU, "
        f"peak RSS {run['peak_rss_mib']:.0f} MiB (process tree)"
    )
    print(
        f"bare loop (a), whole processes: {bare['wall_s']:.1f} s wall, {bare['cpu_s']:.1f} s "
        f"CPU; its passes alone: {bare['pass_s']:.1f} s wall, {bare['pass_cpu_s']:.1f} s CPU"
    )
    print(
        f"ratio, cold run / bare processes: {run['wall_s'] / bare['wall_s']:.2f} wall, "
        f"{run['cpu_s'] / bare['cpu_s']:.2f} CPU"
    )
    return {**run, "bare": bare}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model",
        nargs="+",
        default=None,
        metavar="DATASET/MODEL",
        help="zoo models, e.g. sst2/bert (default: the 10 that the CheckList suites run on)",
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="the first N unique inputs of each model's workload"
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="intra-op threads of each process (default: every core); given, "
        "every child sees the plugin's thread policy of a run with "
        "cores/threads xdist workers",
    )
    parser.add_argument(
        "--checklist-run",
        action="store_true",
        help="also time the cold pytest -m checklist run of the models "
        "(needs the full workload: no --limit)",
    )
    parser.add_argument("--output", type=Path, default=REPO / "reports" / "benchmark-engine.json")
    parser.add_argument("--child", choices=(*VARIANTS, EXPORT), help=argparse.SUPPRESS)
    parser.add_argument("--inputs", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.model[0], args.inputs, args.out)
        return
    if args.checklist_run and args.limit is not None:
        parser.error("--checklist-run compares against the full workload: drop --limit")
    keys = [m.replace("/", "-") for m in args.model] if args.model else None
    specs = suite_models(keys)

    from nlp_gate.zoo import ensure_zoo

    ensure_zoo()  # built once, outside every timing
    env = dict(os.environ)
    if args.threads is not None:
        # cpu_threads() = cores // PYTEST_XDIST_WORKER_COUNT: the engine's own policy, which
        # the bare loops read too.
        env["PYTEST_XDIST_WORKER_COUNT"] = str(max(1, (os.cpu_count() or 1) // args.threads))
    threads = max(1, (os.cpu_count() or 1) // int(env.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    load_before = os.getloadavg()
    print(
        f"bench_engine: {len(specs)} models, limit={args.limit or 'none'}, batch {BATCH}, "
        f"{threads} intra-op threads per process, {os.cpu_count()} cores; load average "
        f"(1, 5, 15 min) at start: {', '.join(f'{x:.2f}' for x in load_before)}"
    )
    suites = decoded_suites(specs)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-engine-") as tmp:
        for spec in specs:
            work = Path(tmp) / spec.key
            work.mkdir()
            results[spec.key] = bench_model(spec, suites[spec.task.suite], args.limit, work, env)
            print_table(f"{spec.dataset}/{spec.name}", results[spec.key])
        checklist = checklist_run(specs, results, Path(tmp), env) if args.checklist_run else None
    load_after = os.getloadavg()
    print(f"\nload average (1, 5, 15 min) at end: {', '.join(f'{x:.2f}' for x in load_after)}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(
        json.dumps(
            {
                "command": " ".join(["benchmarks/bench_engine.py", *(argv or sys.argv[1:])]),
                "threads": threads,
                "cores": os.cpu_count(),
                "batch_size": BATCH,
                "limit": args.limit,
                "load_average": {"start": load_before, "end": load_after},
                "models": results,
                "checklist_run": checklist,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"written: {args.output}")


if __name__ == "__main__":
    main()
