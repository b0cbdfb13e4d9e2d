"""The embedded zoo's verdict under other CPU kernels: the same weights on every machine must
give the same verdict (docs/measurements/portability.md).

Runs ``pytest tests_behavioral`` (the main job's items, or those of ``-m EXPR``) once per
setting of the kernels inference runs on, each with a prediction cache of its own (so no
setting is answered from another's probabilities):

    native    the kernels torch and MKL pick for this CPU
    default   ATEN_CPU_CAPABILITY=default MKL_CBWR=COMPATIBLE: no vector kernels (what a CPU
              without AVX2, an ARM laptop's NEON aside, comes closest to)
    avx2      ATEN_CPU_CAPABILITY=avx2 MKL_CBWR=AVX2
    avx512    ATEN_CPU_CAPABILITY=avx512 MKL_CBWR=AVX512, where the CPU has AVX-512

and prints, per setting: pytest's exit status, the verdict line, gate misses, the largest
|p - p_native| over every input both computed, and the CheckList records whose failed count
differs from the native run's.  Each run's results.json and reports go to a temporary folder
(the repository's reports/ are left alone).

    .venv/bin/python benchmarks/bench_kernels.py                      # the main job's items
    .venv/bin/python benchmarks/bench_kernels.py -m checklist --sample 50
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
SETTINGS: dict[str, dict[str, str]] = {
    "native": {},
    "default": {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"},
    "avx2": {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2"},
    "avx512": {"ATEN_CPU_CAPABILITY": "avx512", "MKL_CBWR": "AVX512"},
}
KERNEL_VARIABLES = ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "ONEDNN_MAX_CPU_ISA")


def has_avx512() -> bool:
    try:
        return " avx512f" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


def run(
    setting: str, folder: Path, marker: str | None, sample: int | None, workers: int
) -> dict[str, Any]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in KERNEL_VARIABLES and not k.startswith("PYTEST_")
    }
    env.update(SETTINGS[setting])
    results, cache = folder / f"{setting}.json", folder / f"{setting}.sqlite"
    command = [
        sys.executable,
        "-m",
        "pytest",
        "tests_behavioral",
        "-p",
        "no:cacheprovider",
        "-q",
        "-n",
        str(workers),
        f"--nlp-prediction-cache={cache}",
        f"--nlp-results={results}",
    ]
    if marker:
        command += ["-m", marker]
    if sample:
        command += [f"--nlp-sample={sample}"]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    verdict = next(
        (line for line in reversed(done.stdout.splitlines()) if line.startswith("release gate")),
        "(no verdict line)",
    )
    summary = next(
        (
            line.strip("= ")
            for line in reversed(done.stdout.splitlines())
            if " in " in line and ("passed" in line or "failed" in line)
        ),
        "",
    )
    data = json.loads(results.read_text()) if results.is_file() else {}
    return {
        "setting": setting,
        "exit": done.returncode,
        "wall": wall,
        "verdict": verdict,
        "summary": summary,
        "data": data,
        "cache": cache,
    }


def probabilities(cache: Path) -> dict[tuple[str, str], np.ndarray]:
    with sqlite3.connect(cache) as db:
        rows = db.execute("SELECT fingerprint, input, probs, dtype FROM predictions").fetchall()
    return {(fp, key): np.frombuffer(blob, dtype=dtype) for fp, key, blob, dtype in rows}


GATED = ("records", "accuracy", "comparisons", "searches", "attacks")


def gated(data: dict[str, Any]) -> int:
    return sum(len(data.get(kind, [])) for kind in GATED)


def misses(data: dict[str, Any]) -> int:
    return sum(1 for kind in GATED for r in data.get(kind, []) if r.get("passed") is False)


def checklist_outcomes(data: dict[str, Any]) -> dict[str, Any]:
    """Each CheckList record's failed count (released and native tests)."""
    return {
        "/".join(str(r.get(k)) for k in ("suite", "test", "dataset", "model")): r["n_failed"]
        for r in data.get("records", [])
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-m", dest="marker", default=None, help="pytest -m expression")
    parser.add_argument("--sample", type=int, default=None, help="--nlp-sample N")
    parser.add_argument("--workers", type=int, default=2, help="pytest -n (default 2)")
    parser.add_argument(
        "--settings",
        nargs="+",
        choices=list(SETTINGS),
        default=["native", "default", "avx2", "avx512"],
    )
    args = parser.parse_args(argv)
    settings = [s for s in args.settings if s != "avx512" or has_avx512()]
    with tempfile.TemporaryDirectory(prefix="bench-kernels-") as tmp:
        runs = [run(s, Path(tmp), args.marker, args.sample, args.workers) for s in settings]
        base = runs[0]
        base_p = probabilities(base["cache"])
        base_outcomes = checklist_outcomes(base["data"])
        print(
            f"{'setting':<8} {'exit':>4} {'wall s':>7} {'records':>7} {'misses':>6} "
            f"{'max |dp|':>9} {'inputs':>8} {'changed':>7}  verdict"
        )
        for r in runs:
            p = probabilities(r["cache"])
            shared = set(p) & set(base_p)
            dp = max((float(np.max(np.abs(p[k] - base_p[k]))) for k in shared), default=0.0)
            outcomes = checklist_outcomes(r["data"])
            changed = sorted(k for k in outcomes if base_outcomes.get(k) != outcomes[k])
            print(
                f"{r['setting']:<8} {r['exit']:>4} {r['wall']:>7.1f} {gated(r['data']):>7} "
                f"{misses(r['data']):>6} {dp:>9.2e} {len(shared):>8} {len(changed):>7}  "
                f"{r['verdict']}"
            )
            print(f"{'':<8} {r['summary']}")
            for key in changed:
                print(f"{'':<8} changed: {key}: {base_outcomes.get(key)} -> {outcomes[key]} failed")
    return 0 if all(r["exit"] == runs[0]["exit"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
