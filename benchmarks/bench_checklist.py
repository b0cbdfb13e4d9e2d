"""Benchmark: CheckList's reference path vs the behavioral suite, on the tiny zoo (issue 6).

Run by hand (never as a timed test)::

    .venv/bin/python benchmarks/bench_checklist.py                  # Tables 2 + 3, all 10 models
    .venv/bin/python benchmarks/bench_checklist.py --sample 20 --models sst2-bert qqp-albert

(a) CheckList's reference path, built like the seed's notebook: for each suite model,
    ``TestSuite.run(pred_fn, overwrite=True, seed=1)`` over the decoded release suite, where
    ``pred_fn`` calls a ``transformers`` text-classification pipeline (all scores) on chunks
    of 128 inputs (pairs as ``{"text", "text_pair"}``); binary sentiment models get CheckList's
    neutral band (``nlp_gate.kinds.checklist.run.binary_to_three_class``).  The 2020 pipelines the
    seed used ran a list as one padded batch, so each chunk is one batch of 128 by default;
    ``--pipeline-batch-size 1`` is what today's pipeline does with a list and no batch_size.
(b) ``pytest tests_behavioral -m checklist -n W`` with a fresh prediction cache file (cold),
    then again with the same file (warm); its CheckList tests scored in bulk
    (``--nlp-scoring bulk``, the default: ``nlp_gate.kinds.checklist.scoring``) or, with
    ``--scoring checklist``, by CheckList's own ``run``/``get_stats`` as (a) does.

Each side runs in its own subprocess, timed wall-clock from start to exit (interpreter start,
imports, suite decoding and model loading included), with its peak RSS sampled over the whole
process tree.  Both sides use every core and no more: the reference runs one process with
``cpu_threads()`` = all cores, the suite W workers with ``cpu_threads()`` = cores // W each.

Prints the issue's four figures (a/b wall-time ratio, forward passes vs unique inputs, warm/cold
ratio, peak RSS), checks that both sides agree on every item's fail rate, and writes the
figures to ``reports/benchmark.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run as a script from anywhere

from nlp_gate.config.profiles import ModelSpec, load_profile  # noqa: E402  # after the sys.path set-up above

SUITES = ("sentiment", "qqp")  # seed Tables 2 and 3
CHUNK = 128  # the seed notebook's pipeline chunk
TARGETS = {"speedup": 5.0, "forward_per_unique": 1.05, "warm_over_cold": 0.05}


def suite_models(keys: Sequence[str] | None) -> list[ModelSpec]:
    """The tiny profile's models that a CheckList suite runs on (6 sentiment + 4 QQP)."""
    profile = load_profile("tiny")
    specs = [m for suite in SUITES for m in profile.for_suite(suite)]
    if not keys:
        return specs
    by_key = {m.key: m for m in specs}
    unknown = sorted(set(keys) - set(by_key))
    if unknown:
        raise SystemExit(f"unknown --models {unknown}; choose from {sorted(by_key)}")
    return [m for m in specs if m.key in keys]


def decoded_suites(specs: Sequence[ModelSpec]) -> dict[str, Any]:
    """The released suites (name -> CheckList ``TestSuite``) that ``specs`` run, decoded as the
    plugin decodes them (also benchmarks/bench_engine.py's workload)."""
    from nlp_gate.suites import default_search_dirs, load_suite, locate

    return {
        s: load_suite(s, locate(s, default_search_dirs(REPO)))
        for s in SUITES
        if any(m.task.suite == s for m in specs)
    }


# -- (a) the reference path, in its own process -------------------------------------------
class NotebookPredictor:
    """CheckList's ``predict_and_confidence_fn`` as the seed's notebook built it: a
    text-classification pipeline (all scores) called on chunks of 128 inputs."""

    def __init__(self, spec: ModelSpec, path: str, device: int, batch_size: int) -> None:
        from transformers import pipeline

        self.spec = spec
        self.pipe = pipeline(
            "text-classification", model=path, tokenizer=path, top_k=None, device=device
        )
        self.label2id = self.pipe.model.config.label2id
        # Same truncation as the engine: the tiny models' position table (64 tokens).
        self.max_length = min(128, self.pipe.model.config.max_position_embeddings)
        self.order = spec.class_index()  # output index of each task class
        self.batch_size = batch_size
        self.calls = 0
        self.seen: set[Any] = set()  # what an ideal engine would predict once

    def probabilities(self, examples: Sequence[Any]) -> np.ndarray:
        rows = []
        for i in range(0, len(examples), CHUNK):
            chunk = [
                {"text": x[0], "text_pair": x[1]} if isinstance(x, (list, tuple)) else x
                for x in examples[i : i + CHUNK]
            ]
            for scores in self.pipe(
                chunk,
                batch_size=min(self.batch_size, len(chunk)),
                truncation=True,
                max_length=self.max_length,
            ):
                row = np.zeros(len(self.order))
                for s in scores:
                    row[self.label2id[s["label"]]] = s["score"]
                rows.append(row[self.order])
        self.calls += len(examples)
        self.seen.update(tuple(x) if isinstance(x, list) else x for x in examples)
        return np.array(rows).reshape(len(examples), len(self.order))

    def __call__(self, examples: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        from nlp_gate.kinds.checklist.run import binary_to_three_class

        probs = self.probabilities(examples)
        if self.spec.task.suite == "sentiment":
            return binary_to_three_class(probs[:, 1])
        return np.argmax(probs, axis=1), probs


def run_reference(specs: list[ModelSpec], sample: int | None, batch_size: int, out: Path) -> None:
    import torch

    from nlp_gate.engine.predictor import cpu_threads
    from nlp_gate.zoo import ensure_zoo, model_dir

    ensure_zoo()
    torch.set_num_threads(cpu_threads())  # one process: all cores
    device = 0 if torch.cuda.is_available() else -1
    start = time.perf_counter()
    suites = decoded_suites(specs)
    report: dict[str, Any] = {"decode_s": time.perf_counter() - start, "models": {}}
    for spec in specs:
        start = time.perf_counter()
        predictor = NotebookPredictor(
            spec, str(model_dir(*spec.source.removeprefix("zoo:").split("/"))), device, batch_size
        )
        load_s = time.perf_counter() - start
        suite = suites[spec.task.suite]
        start = time.perf_counter()
        suite.run(predictor, overwrite=True, seed=1, n=sample, verbose=False)
        report["models"][spec.key] = {
            "load_s": load_s,
            "run_s": time.perf_counter() - start,
            "model_calls": predictor.calls,
            "unique_inputs": len(predictor.seen),
            "tests": {name: _outcome(test) for name, test in suite.tests.items()},
        }
        print(
            f"reference {spec.key}: {time.perf_counter() - start:.1f} s, "
            f"{predictor.calls} model calls",
            flush=True,
        )
    out.write_text(json.dumps(report))


def _outcome(test: Any) -> dict[str, Any]:
    stats = test.get_stats()
    n_run = stats.get("testcases_run", stats["testcases"])
    return {
        "n_cases": int(stats.get("after_filtering", n_run)),
        "n_failed": int(len(test.fail_idxs())),
        "fail_rate": stats.get("fail_rate"),
    }


# -- measuring a subprocess ---------------------------------------------------------------
def measured(cmd: list[str], log: Path, ok: Callable[[int], bool]) -> dict[str, float]:
    """Run ``cmd`` (output to ``log``); its wall time and peak RSS summed over its process tree."""
    import psutil

    start = time.perf_counter()
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        root = psutil.Process(proc.pid)
        while not done.is_set():
            total = 0
            try:
                for p in [root, *root.children(recursive=True)]:
                    total += p.memory_info().rss
            except psutil.Error:
                pass  # a process ended between listing and reading it
            peak = max(peak, total)
            done.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    rc = proc.wait()
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    if not ok(rc):
        tail = "".join(log.read_text().splitlines(keepends=True)[-30:])
        raise SystemExit(f"{tail}\n{' '.join(cmd)} exited with {rc} (log above)")
    return {"wall_s": wall, "peak_rss_mib": peak / 2**20, "exit_code": rc}


def suite_command(
    specs: list[ModelSpec],
    sample: int | None,
    workers: int,
    cache: Path,
    results: Path,
    scoring: str = "bulk",
) -> list[str]:
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "tests_behavioral",
        "-m",
        "checklist",
        "-n",
        str(workers),
        "-q",
        "-p",
        "no:cacheprovider",
        "--no-header",
        "--nlp-prediction-cache",
        str(cache),
        "--nlp-results",
        str(results),
        "--nlp-scoring",
        scoring,
    ]
    if sample is not None:
        cmd += ["--nlp-sample", str(sample), "--nlp-seed", "1"]
    if len(specs) < len(suite_models(None)):
        # Item ids end in "/<dataset>/<model>]"; the leading "/" keeps bert from matching albert.
        cmd += ["-k", " or ".join(f"/{m.dataset}/{m.name}]" for m in specs)]
    return cmd


def engine_totals(results: Path) -> dict[str, Any]:
    engine = json.loads(results.read_text()).get("engine", [])
    totals: dict[str, Any] = {
        k: sum(r[k] for r in engine) for k in ("forward_passes", "cache_hits", "unique_inputs")
    }
    # One record per model and worker that predicted it: more than one means the model's
    # items were spread over workers, each predicting (part of) the same inputs again.
    workers: dict[str, int] = {}
    for r in engine:
        key = f"{r['dataset']}-{r['model']}"
        workers[key] = workers.get(key, 0) + 1
    totals["split_models"] = {k: n for k, n in workers.items() if n > 1}
    return totals


def disagreements(reference: dict[str, Any], results: Path) -> tuple[int, list[str]]:
    """Items compared, and those whose fail rate differs between the two sides."""
    records = json.loads(results.read_text())["records"]
    differ = []
    for r in records:
        ref = reference["models"][f"{r['dataset']}-{r['model']}"]["tests"][r["test"]]
        ours = {"n_cases": r["n_cases"], "n_failed": r["n_failed"], "fail_rate": r["fail_rate"]}
        if ref != ours:
            differ.append(
                f"{r['suite']}/{r['test']}/{r['dataset']}/{r['model']}: "
                f"reference {ref} vs suite {ours}"
            )
    return len(records), differ


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sample",
        type=int,
        default=None,
        help="N sampled cases per test (n=N, seed=1 on both sides); default: the full suites",
    )
    parser.add_argument(
        "--models",
        nargs="+",
        default=None,
        metavar="KEY",
        help="subset of models by key, e.g. sst2-bert qqp-albert",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        help="xdist workers of the suite (0: one process, as the reference)",
    )
    parser.add_argument(
        "--pipeline-batch-size",
        type=int,
        default=CHUNK,
        help="reference pipeline's batch size within a chunk of 128 (default: "
        "the whole chunk, as the seed's 2020 pipelines; 1: today's "
        "pipeline called on a list without batch_size)",
    )
    parser.add_argument(
        "--scoring",
        choices=("bulk", "checklist"),
        default="bulk",
        help="how the suite scores its CheckList tests (--nlp-scoring; default: bulk)",
    )
    parser.add_argument("--output", type=Path, default=REPO / "reports" / "benchmark.json")
    parser.add_argument("--reference-json", type=Path, help=argparse.SUPPRESS)  # internal
    args = parser.parse_args(argv)
    specs = suite_models(args.models)
    if args.reference_json:
        run_reference(specs, args.sample, args.pipeline_batch_size, args.reference_json)
        return

    from nlp_gate.zoo import ensure_zoo

    ensure_zoo()  # built once, outside every timing
    cores = os.cpu_count() or 1
    device = "cuda" if _cuda_available() else "cpu"
    threads = (
        f"every core, none oversubscribed ({cores} cores, {device}): reference 1 process x "
        f"{cores} torch threads; suite {args.workers} xdist workers x "
        f"{max(1, cores // max(1, args.workers))} threads "
        "(nlp_gate.engine.predictor.cpu_threads; -n 0: one process)"
    )
    print(
        f"bench_checklist: {len(specs)} models, sample={args.sample or 'all'}, seed=1, "
        f"reference pipeline: chunks of {CHUNK}, batch size {args.pipeline_batch_size}; "
        f"suite scoring: {args.scoring}"
    )
    print(f"thread policy: {threads}")
    load_before = os.getloadavg()[0]
    if load_before > cores / 2:
        # Other processes steal cores; multi-threaded torch then slows down far more than
        # in proportion (spinning OpenMP threads), which distorts the a/b ratio.
        print(
            f"warning: the machine is busy (1-min load {load_before:.1f} on {cores} cores); "
            "timings are only comparable on an otherwise idle machine"
        )

    with tempfile.TemporaryDirectory(prefix="bench-checklist-") as tmp:
        work = Path(tmp)
        ref_json = work / "reference.json"
        print("(a) CheckList reference path ...", flush=True)
        keys = ["--models", *[m.key for m in specs]]
        sample = ["--sample", str(args.sample)] if args.sample is not None else []
        a = measured(
            [
                sys.executable,
                __file__,
                "--reference-json",
                str(ref_json),
                *keys,
                *sample,
                "--pipeline-batch-size",
                str(args.pipeline_batch_size),
            ],
            work / "reference.log",
            ok=lambda rc: rc == 0,
        )
        reference = json.loads(ref_json.read_text())
        runs: dict[str, dict[str, Any]] = {}
        for phase in ("cold", "warm"):
            print(f"(b) our suite, {phase} cache ...", flush=True)
            results = work / f"results-{phase}.json"
            # Exit code 1 = some gates failed: expected, the gates are not what is timed.
            runs[phase] = measured(
                suite_command(
                    specs,
                    args.sample,
                    args.workers,
                    work / "predictions.sqlite",
                    results,
                    args.scoring,
                ),
                work / f"suite-{phase}.log",
                ok=lambda rc: rc in (0, 1),
            )
            runs[phase].update(engine_totals(results))
        disagreement = disagreements(reference, work / "results-cold.json")

    body = summarize(a, reference, runs, *disagreement)
    body.update(
        {
            "command": " ".join(["benchmarks/bench_checklist.py", *(argv or sys.argv[1:])]),
            "models": [m.key for m in specs],
            "sample": args.sample,
            "seed": 1,
            "workers": args.workers,
            "scoring": args.scoring,
            "cores": cores,
            "device": device,
            "pipeline_chunk": CHUNK,
            "pipeline_batch_size": args.pipeline_batch_size,
            "thread_policy": threads,
            "load_average": {"before": load_before, "after": os.getloadavg()[0]},
        }
    )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(body, indent=2) + "\n")
    print(f"written: {args.output}")


def summarize(
    a: dict[str, Any],
    reference: dict[str, Any],
    runs: dict[str, dict[str, Any]],
    compared: int,
    differ: list[str],
) -> dict[str, Any]:
    """Print the figures against the issue's targets; return them for benchmark.json."""
    model_calls = sum(m["model_calls"] for m in reference["models"].values())
    unique = sum(m["unique_inputs"] for m in reference["models"].values())
    cold, warm = runs["cold"], runs["warm"]
    figures = {
        "speedup": a["wall_s"] / cold["wall_s"],
        "forward_per_unique": cold["forward_passes"] / unique if unique else float("nan"),
        "warm_over_cold": warm["wall_s"] / cold["wall_s"],
    }
    met = {
        "speedup": figures["speedup"] >= TARGETS["speedup"],
        "forward_per_unique": figures["forward_per_unique"] <= TARGETS["forward_per_unique"],
        "warm_over_cold": figures["warm_over_cold"] <= TARGETS["warm_over_cold"],
    }
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux

    def row(name: str, value: str, target: str, ok: bool | None = None) -> str:
        verdict = "" if ok is None else ("met" if ok else "MISSED")
        return f"  {name:<44}{value:>16}  {target:<10}{verdict}"

    print(
        f"\n(a) reference: {a['wall_s']:8.1f} s  peak RSS {a['peak_rss_mib']:7.0f} MiB  "
        f"{model_calls} model calls, {unique} unique inputs "
        f"(suite decoding {reference['decode_s']:.1f} s)"
    )
    for phase, r in runs.items():
        print(
            f"(b) {phase:<9}: {r['wall_s']:8.1f} s  peak RSS {r['peak_rss_mib']:7.0f} MiB  "
            f"{r['forward_passes']} forward passes, {r['cache_hits']} cache hits"
        )
    print("\nfigures")
    print(row("wall-time ratio a/b (cold)", f"{figures['speedup']:.1f}x", ">= 5x", met["speedup"]))
    print(
        row(
            "forward passes / unique inputs (cold)",
            f"{cold['forward_passes']}/{unique} = {figures['forward_per_unique']:.3f}",
            "<= 1.05",
            met["forward_per_unique"],
        )
    )
    print(
        row(
            "warm / cold wall time",
            f"{100 * figures['warm_over_cold']:.1f}%",
            "<= 5%",
            met["warm_over_cold"],
        )
    )
    print(
        row(
            "peak RSS a / b cold / b warm (MiB)",
            f"{a['peak_rss_mib']:.0f} / {cold['peak_rss_mib']:.0f} / {warm['peak_rss_mib']:.0f}",
            "(tree sum)",
        )
    )
    print(row("largest single process (getrusage)", f"{largest:.0f} MiB", ""))
    if cold["split_models"]:
        print(
            f"\nwarning: models predicted on more than one xdist worker (their items were not "
            f"kept together by --dist loadgroup): {cold['split_models']}"
        )
    print(f"\nfail rates: {compared - len(differ)} of {compared} items identical on both sides")
    for line in differ[:10]:
        print(f"  differs: {line}")
    return {
        "reference": {
            **a,
            "model_calls": model_calls,
            "unique_inputs": unique,
            "decode_s": reference["decode_s"],
            "models": {
                k: {f: v[f] for f in ("load_s", "run_s", "model_calls", "unique_inputs")}
                for k, v in reference["models"].items()
            },
        },
        "suite": runs,
        "figures": figures,
        "targets": TARGETS,
        "met": met,
        "largest_process_rss_mib": largest,
        "fail_rates": {"items": compared, "differ": differ},
    }


def _cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


if __name__ == "__main__":
    main()
