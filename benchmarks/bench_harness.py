"""Benchmark: the harness floor -- the Tables 2 + 3 workload with a constant-cost forward (issue 52).

Run by hand (never as a timed test)::

    .venv/bin/python benchmarks/bench_harness.py                    # all 10 models, -n 0
    .venv/bin/python benchmarks/bench_harness.py --workers 0 2      # one process, then 2 workers
    .venv/bin/python benchmarks/bench_harness.py --real-forward --output reports/bench_harness-real.json
    .venv/bin/python benchmarks/bench_harness.py --models sst2-bert qqp-albert
    .venv/bin/python benchmarks/bench_harness.py --hold-per-token 0 1.8e-6   # a device's time
    .venv/bin/python benchmarks/bench_harness.py --repo /tmp/v051 . --rounds 2  # 0.5.1 beside

``--hold-per-token SECONDS`` makes the stand-in hold each batch for SECONDS x its padded tokens
(a sleep, the GIL released: an accelerator's time), and the engine then makes its batches
ahead in its producer thread, as on CUDA (``--ahead`` overrides): the wall time shows whether
the CPU side overlaps the device's time or adds to it.  ``--repo`` runs the workload on other
checkouts' packages (their ``plugins/`` first on ``PYTHONPATH``), alternating with this one,
measured by this checkout's stage plugin.

Runs ``pytest tests_behavioral -m checklist --nlp-prediction-cache off`` (440 CheckList items
on the embedded tiny zoo's 6 sentiment and 4 QQP/MRPC models, 1.66 M unique inputs) exactly
as a checkpoint run does -- same suites, cases, tokenizer calls, batching, scoring, items,
reports -- in a pytest subprocess that loads benchmarks/harness_stages.py (``-p``), which
replaces the forward pass of one padded batch (``Classifier._probabilities``) by a
deterministic stand-in of constant, tiny cost (rows derived from each row's token ids), unless
``--real-forward``, and accounts CPU seconds per stage in every process (controller and xdist
workers alike), summed here.  The fail rates and gate verdicts of a stand-in run mean
nothing (its exit code is ignored); what it measures is everything but the model.  Each run
gets a cache directory of its own (``NLP_GATE_CACHE``: a copy of the suites' test index, the
zoo where it is): no token files, and figures drawn anew, as in a first run.

Prints the table (CPU seconds per stage, summed over processes and their threads; the main
threads' CPU, the critical path of a run whose forward pass is a device's; the seconds held;
wall seconds of the whole subprocess) and writes reports/bench_harness.json (``--output``).  CPU seconds are
``time.process_time`` of each process, all its threads: a shared machine disturbs them far less
than wall time; the load average is printed at the start and end of each run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run as a script from anywhere
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_checklist import suite_models  # noqa: E402  # after the sys.path set-up above

from nlp_gate.config.paths import cache_dir  # noqa: E402
from nlp_gate.zoo import default_zoo_root  # noqa: E402

# The table's order: the workload's stages as a run meets them; then what no stage claims.
STAGES = (
    "start-up",
    "collection",
    "suite decode",
    "case building",
    "model load",
    "tokenizing",
    "forward",
    "engine (keys, memo)",
    "memory trims",
    "cache",
    "expectations/scoring",
    "per-item (gate, record)",
    "per-item (pytest, outcome)",
    "reports",
    "other",
)


def command(
    models: Sequence[str],
    all_models: int,
    workers: int,
    results: Path,
    token_budget: int | None = None,
    explain_off: bool = False,
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
        "-p",
        "harness_stages",
        "--no-header",
        "--nlp-prediction-cache",
        "off",
        "--nlp-results",
        str(results),
    ]
    if token_budget is not None:
        cmd += ["--nlp-token-budget", str(token_budget)]
    if explain_off:
        # The stand-in's rows miss nearly every gate, and --nlp-explain's default explains the
        # items that miss: the workload's real models, passing their gates, explain none.
        cmd += ["--nlp-explain", "off"]
    if len(models) < all_models:
        specs = suite_models(models)
        # Item ids end in "/<dataset>/<model>]"; the leading "/" keeps bert from matching albert.
        cmd += ["-k", " or ".join(f"/{m.dataset}/{m.name}]" for m in specs)]
    return cmd


def run_once(
    models: Sequence[str],
    workers: int,
    real_forward: bool,
    log: Path,
    hold: float = 0.0,
    ahead: str | None = None,
    repo: Path = REPO,
    token_budget: int | None = None,
) -> dict[str, Any]:
    all_models = len(suite_models(None))
    with tempfile.TemporaryDirectory(prefix="bench-harness-") as tmp:
        work = Path(tmp)
        # A cache of its own, holding only the suites' test index (what collection reads)
        # and the zoo where it is: every run draws its figures anew (a cache would copy them
        # from the run before, whose fail rates the stand-in reproduces) and starts without
        # token files.
        cache = work / "cache"
        index = cache_dir(REPO) / "checklist-index"
        if index.is_dir():
            shutil.copytree(index, cache / "checklist-index")
        env = {
            **os.environ,
            "NLP_GATE_CACHE": str(cache),
            "NLP_GATE_ZOO_DIR": str(default_zoo_root()),
            "PYTHONPATH": os.pathsep.join(
                p
                for p in (
                    # Another checkout's package first (--repo), this one's stage plugin.
                    str(repo / "plugins") if repo != REPO else None,
                    str(REPO / "benchmarks"),
                    os.environ.get("PYTHONPATH"),
                )
                if p
            ),
            "NLP_GATE_BENCH_STAGES_DIR": str(work / "stages"),
            "NLP_GATE_BENCH_FORWARD": "real" if real_forward else "standin",
            "NLP_GATE_BENCH_HOLD_PER_TOKEN": repr(hold),
        }
        if ahead is not None:
            env["NLP_GATE_BENCH_AHEAD"] = ahead
        # An older checkout (0.5.1) has no --nlp-explain, and no explanations to turn off.
        explains = (
            "--nlp-explain"
            in (repo / "plugins" / "nlp_gate" / "pytest_plugin" / "options.py").read_text()
        )
        cmd = command(models, all_models, workers, work / "results.json", token_budget, explains)
        load_before = os.getloadavg()
        start = time.perf_counter()
        with log.open("w") as out:
            rc = subprocess.call(cmd, cwd=repo, env=env, stdout=out, stderr=subprocess.STDOUT)
        wall = time.perf_counter() - start
        load_after = os.getloadavg()
        # 1: some gates missed -- expected with the stand-in, whose rows are no model's.
        if rc not in (0, 1):
            tail = "".join(log.read_text().splitlines(keepends=True)[-30:])
            raise SystemExit(f"{tail}\n{' '.join(cmd)} exited with {rc} (log: {log})")
        processes = [json.loads(p.read_text()) for p in sorted((work / "stages").glob("*.json"))]
        records = json.loads((work / "results.json").read_text())["records"]
    seconds: dict[str, float] = {}
    for p in processes:
        for stage, s in p["seconds"].items():
            seconds[stage] = seconds.get(stage, 0.0) + s
    calls: dict[str, int] = {}
    for p in processes:
        for stage, n in p["calls"].items():
            calls[stage] = calls.get(stage, 0) + n
    return {
        "command": " ".join(cmd[1:]),
        "repo": str(repo),
        "workers": workers,
        "forward": "real" if real_forward else "stand-in",
        "hold_per_token": hold,
        "ahead": ahead or ("on" if hold else "device"),
        "token_budget": token_budget,
        "exit_code": rc,
        "wall_s": wall,
        "cpu_s": sum(p["cpu_s"] for p in processes),
        # The processes' main threads: with a producer thread, the CPU side a device waits
        # on (the slowest process's under xdist, each process's own critical path).
        "critical_path_cpu_s": max(p.get("main_thread_cpu_s", p["cpu_s"]) for p in processes),
        "held_s": sum(p.get("held_s", 0.0) for p in processes),
        "padded_tokens": sum(p.get("padded_tokens", 0) for p in processes),
        "batches": sum(p.get("batches", 0) for p in processes),
        "seconds": seconds,
        "calls": calls,
        "processes": processes,
        "items": len(records),
        # Every item's counts, to compare two runs' outcomes (the stand-in's mean nothing).
        "outcomes": {
            f"{r['suite']}/{r['test']}/{r['dataset']}/{r['model']}": [
                r["n_cases"],
                r["n_failed"],
                r["fail_rate"],
            ]
            for r in records
        },
        "load_average": {"before": load_before, "after": load_after},
    }


def table(runs: Sequence[dict[str, Any]]) -> str:
    heads = [
        f"{Path(r.get('repo', REPO)).name}, -n {r['workers']}"
        + (f", hold {r['hold_per_token']:.2g}" if r.get("hold_per_token") else "")
        + (", real" if r["forward"] == "real" else "")
        for r in runs
    ]
    lines = [f"{'stage (CPU s)':<28}" + "".join(f"{h:>30}" for h in heads)]
    known = set(STAGES)
    extra = sorted({s for r in runs for s in r["seconds"]} - known)
    for stage in (*STAGES, *extra):
        lines.append(
            f"{stage:<28}" + "".join(f"{r['seconds'].get(stage, 0.0):>30.1f}" for r in runs)
        )
    harness = [r["cpu_s"] - r["seconds"].get("forward", 0.0) for r in runs]
    lines.append(f"{'total CPU s':<28}" + "".join(f"{r['cpu_s']:>30.1f}" for r in runs))
    lines.append(f"{'  of which harness':<28}" + "".join(f"{h:>30.1f}" for h in harness))
    lines.append(
        f"{'critical path (main) CPU s':<28}"
        + "".join(f"{r.get('critical_path_cpu_s', 0.0):>30.1f}" for r in runs)
    )
    lines.append(
        f"{'held (device) s':<28}" + "".join(f"{r.get('held_s', 0.0):>30.1f}" for r in runs)
    )
    lines.append(f"{'wall s':<28}" + "".join(f"{r['wall_s']:>30.1f}" for r in runs))
    lines.append(
        f"{'padded tokens (M)':<28}"
        + "".join(f"{r.get('padded_tokens', 0) / 1e6:>30.2f}" for r in runs)
    )
    lines.append(f"{'items':<28}" + "".join(f"{r['items']:>30d}" for r in runs))
    lines.append(
        f"{'1-min load before/after':<28}"
        + "".join(
            f"{r['load_average']['before'][0]:>24.1f} / {r['load_average']['after'][0]:<3.1f}"
            for r in runs
        )
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--models",
        nargs="+",
        default=None,
        metavar="KEY",
        help="subset of models by key, e.g. sst2-bert qqp-albert (default: all 10)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=[0],
        help="xdist workers, one run each (0: one process; default: 0)",
    )
    parser.add_argument(
        "--real-forward",
        action="store_true",
        help="the models' own forward pass instead of the stand-in (its share of the whole)",
    )
    parser.add_argument(
        "--hold-per-token",
        type=float,
        nargs="+",
        default=[0.0],
        metavar="SECONDS",
        help="the stand-in holds each batch for SECONDS x its padded tokens (a sleep, GIL "
        "released: an accelerator's time), one run each (default: 0, no hold)",
    )
    parser.add_argument(
        "--ahead",
        choices=("device", "on", "off"),
        default=None,
        help="the engine's producer thread: its own rule (device: on CUDA only), on (as "
        "on an accelerator) or off (default: on with a hold, else device)",
    )
    parser.add_argument(
        "--repo",
        type=Path,
        nargs="+",
        default=[REPO],
        help="checkouts whose package runs the workload, alternating (e.g. /tmp/v051 for "
        "0.5.1 beside this one); this one's stage plugin measures each",
    )
    parser.add_argument(
        "--token-budget",
        type=int,
        default=None,
        metavar="N",
        help="run with --nlp-token-budget N (0.6 on; default: the device's default)",
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="times the whole set of runs is repeated"
    )
    parser.add_argument("--output", type=Path, default=REPO / "reports" / "bench_harness.json")
    args = parser.parse_args(argv)
    models = [m.key for m in suite_models(args.models)]

    from nlp_gate.zoo import ensure_zoo

    ensure_zoo()  # installed once, outside every measurement
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    print(
        f"bench_harness: {len(models)} models, workers {args.workers}, "
        f"{os.cpu_count()} cores, commit {commit}, {time.strftime('%Y-%m-%d %H:%M')}",
        flush=True,
    )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    runs = []
    plan = [
        (repo.resolve(), w, hold)
        for _ in range(args.rounds)
        for w in args.workers
        for hold in args.hold_per_token
        for repo in args.repo  # alternating checkouts, one right after the other
    ]
    for repo, workers, hold in plan:
        name = f"{repo.name}-{'real' if args.real_forward else 'standin'}-n{workers}" + (
            f"-hold{hold:g}" if hold else ""
        )
        print(f"running {name} ...", flush=True)
        log = args.output.parent / f"bench_harness-{name}.log"
        runs.append(
            run_once(
                models, workers, args.real_forward, log, hold, args.ahead, repo, args.token_budget
            )
        )
        print(
            f"  {runs[-1]['items']} items, {runs[-1]['cpu_s']:.1f} CPU s, "
            f"{runs[-1]['wall_s']:.1f} s wall, critical path "
            f"{runs[-1]['critical_path_cpu_s']:.1f} CPU s, held {runs[-1]['held_s']:.1f} s "
            f"(log: {log})",
            flush=True,
        )
    print()
    print(table(runs))
    body = {
        "command": " ".join(["benchmarks/bench_harness.py", *(argv or sys.argv[1:])]),
        "commit": commit,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "cores": os.cpu_count(),
        "models": models,
        "runs": runs,
    }
    args.output.write_text(json.dumps(body, indent=2) + "\n")
    print(f"written: {args.output}")


if __name__ == "__main__":
    main()
