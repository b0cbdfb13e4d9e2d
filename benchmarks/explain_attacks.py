"""Measurement: the seed's saliency-vs-attack question on the zoo's attack items (issue 61).

Run by hand (never as a timed test)::

    .venv/bin/python benchmarks/explain_attacks.py                 # runs the attack items
    .venv/bin/python benchmarks/explain_attacks.py --results PATH  # tabulates a run's results.json

Runs the attack items of the embedded zoo as the gate does (``pytest tests_behavioral -m
adversarial``: every recipe on the tiny profile's rte models, 10 examples each, offline, from
the resource bundle of ``scripts/provision_attacks.sh``), then prints, per recipe x model with
successful attacks, its ``saliency_overlap`` (``kinds/attacks/saliency.py``): how often the
perturbed words are among the original's top-k attributed words, beside a random choice of k
words, and the time the explanations took beside the attacks'.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def run(results: Path, resources: Path | None, workers: int) -> None:
    command = [
        sys.executable,
        "-m",
        "pytest",
        str(REPO / "tests_behavioral"),
        "-m",
        "adversarial",
        "-p",
        "no:cacheprovider",
        "-q",
        "-n",
        str(workers),
        "--nlp-results",
        str(results),
    ]
    if resources is not None:
        command += ["--nlp-resources", str(resources)]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, text=True, capture_output=True)
    if done.returncode not in (0, 1) or not results.exists():
        raise SystemExit(f"the attack run failed (exit {done.returncode}):\n{done.stdout[-3000:]}")
    print(f"attack run: {time.perf_counter() - start:.0f} s", file=sys.stderr)


def pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def table(records: list[dict[str, Any]]) -> str:
    measured = [r for r in records if r.get("saliency_overlap")]
    lines = [
        "| recipe | model | attribution | successful attacks measured | perturbed words | "
        "in top k % | random % | all in top k % | random all % | no original word |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in measured:
        o = r["saliency_overlap"]
        lines.append(
            f"| {r['recipe']} | {r['dataset']}/{r['model']} | {o['method']} | {o['attacks']} | "
            f"{o['perturbed_words']} | {pct(o['hit_rate'])} | {pct(o['random_hit_rate'])} | "
            f"{pct(o['all_in_top_k'])} | {pct(o['random_all_in_top_k'])} | "
            f"{o['no_original_word']} |"
        )
    k = sum(r["saliency_overlap"]["perturbed_words"] for r in measured)
    hits = sum(r["saliency_overlap"]["hits"] for r in measured)
    expected = sum(
        (r["saliency_overlap"]["random_hit_rate"] or 0) * r["saliency_overlap"]["perturbed_words"]
        for r in measured
    )
    explain = sum(r["saliency_overlap"]["seconds"] for r in measured)
    attack = sum(r.get("wall_time_s") or 0 for r in records if r.get("status") == "ran")
    ran = sum(r.get("status") == "ran" for r in records)
    lines += [
        "",
        f"{len(measured)} of {ran} items that ran had successful attacks; over them "
        f"{hits} of {k} perturbed words were in the top k ({100 * hits / k:.1f} %; random "
        f"{expected / k:.1f} %)."
        if k
        else "no successful attack",
        f"Explaining took {explain:.1f} s beside {attack:.1f} s of attacks.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=None, help="tabulate this results.json")
    parser.add_argument("--out", type=Path, default=REPO / "reports" / "explain_attacks.json")
    parser.add_argument("--resources", type=Path, default=None, help="--nlp-resources")
    parser.add_argument("--workers", type=int, default=0, help="-n of the run")
    args = parser.parse_args()
    results = args.results
    if results is None:
        results = args.out
        results.parent.mkdir(parents=True, exist_ok=True)
        run(results, args.resources, args.workers)
    print(table(json.loads(results.read_text()).get("attacks", [])))


if __name__ == "__main__":
    main()
