"""What the gate catches and what it cries wolf about: the defect zoo against its reference.

For each candidate of the defect zoo (``workshop.defects``) -- seven models with one
planted, learned defect each and two clean re-seeds per dataset (the nulls) -- one pytest run
of the behavioral suite's comparison items (``-m regression``: released and native CheckList
tests, candidate vs the clean reference on identical cases, McNemar + Benjamini-Hochberg
across the run, the default alpha 0.05 and tolerance 0).  The reference's three reseeds
(other clean seeds, not candidates) are declared as ``comparison.reseeds``: an item fails
only when the candidate is worse than the reference and each reseed; ``--reseeds 0`` judges
against the reference alone.  And one run of the counterexample searches (``-m search``,
``--search-examples``, default 300) on every model: a search that finds a counterexample on
a candidate is one more flagged item of its capability when the reference and every reseed
pass that counterexample -- the fixed samples of CheckList's cases do not contain every
name, the search is there to find the one that matters.  Then:

* ``reports/power.json``: per defect, its gate items (comparisons and searches), how many
  were flagged on its own capability and on others; for the clean re-seeds (the null),
  items, flagged and the false-alarm rate (a fraction);
* ``reports/tables/power.md``: per defect x capability, the items, flagged items, the largest
  significant Δ fail rate and the verdict.

    .venv/bin/python -m workshop.power                  # every candidate, full suites
    .venv/bin/python -m workshop.power --sample 40 --candidates name-sensitive null-1 \
        --datasets yelp_polarity                        # what tests/integration runs
    .venv/bin/python -m workshop.power --reseeds 0      # against the reference alone

Builds the defect zoo first when needed (~5 minutes on 2 cores, cached in .cache/defect-zoo;
with ``--datasets``, only those datasets' models: ``yelp_polarity``'s alone in ~2).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    from workshop.defects import Variant

REPO = Path(__file__).resolve().parents[1]
PROFILE = "defects"


def write_models(path: Path, zoo_root: Path, variants: Sequence[Variant]) -> None:
    from nlp_gate.config.profiles import DEFAULT_MODELS_FILE
    from workshop.zoo.data import DATASETS

    tasks = yaml.safe_load(DEFAULT_MODELS_FILE.read_text())["tasks"]
    datasets: dict[str, Any] = {}
    for v in variants:
        spec = DATASETS[v.dataset]
        entry = datasets.setdefault(v.dataset, {"task": spec.task, "models": {}})
        entry["models"][v.name] = {"id": str(zoo_root / v.path), "labels": list(spec.labels)}
    path.write_text(
        yaml.safe_dump(
            {
                "tasks": tasks,
                "profiles": {
                    PROFILE: {
                        "description": "defect zoo: clean reference, clean re-seeds, planted defects",
                        "datasets": datasets,
                    }
                },
            }
        )
    )


def write_gates(path: Path, tolerance: float, reseeds: list[str]) -> None:
    """No fail-rate gate (every CheckList item passes at 100): only the comparisons judge,
    with the plugin's default alpha (0.05) and the given tolerance (the plugin's default: 0)."""
    path.write_text(
        yaml.safe_dump(
            {
                "profiles": {
                    PROFILE: {
                        "checklist": {"default": 100},
                        "comparison": {
                            "baseline": "reference",
                            "reseeds": reseeds,
                            "tolerance": {"default": tolerance},
                        },
                    }
                }
            }
        )
    )


def run_gate(name: str, work: Path, sample: int | None, workers: int, *args: str) -> dict[str, Any]:
    """One pytest run of the behavioral suite on the defect zoo; its results.json."""
    results = work / f"{name}.json"
    command = [
        sys.executable,
        "-m",
        "pytest",
        str(REPO / "tests_behavioral"),
        *args,
        "--rootdir",
        str(REPO),
        "-c",
        str(REPO / "pyproject.toml"),
        "-p",
        "no:cacheprovider",
        "-q",
        "-n",
        str(workers),
        "--nlp-profile",
        PROFILE,
        "--nlp-models-file",
        str(work / "models.yaml"),
        "--nlp-thresholds",
        str(work / "thresholds.yaml"),
        "--nlp-results",
        str(results),
        "--nlp-prediction-cache",
        str(work / "predictions.sqlite"),
    ]
    if sample is not None:
        command += ["--nlp-sample", str(sample)]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, text=True, capture_output=True)
    if done.returncode not in (0, 1) or not results.exists():
        raise SystemExit(
            f"the run of {name} failed (exit {done.returncode}):\n"
            f"{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
    print(f"{name}: {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return json.loads(results.read_text())  # type: ignore[no-any-return]  # results.json: a dict


def judged(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The comparisons that were judged (skipped ones compared no case)."""
    return [c for c in results["comparisons"] if c["passed"] is not None]


def items_of(
    variant: Any, runs: dict[str, dict[str, Any]], searches: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """A candidate's gate items: its comparisons, and the searches run on it (a search
    item has no Δ: it fails when it finds a counterexample)."""
    return [c for c in judged(runs[variant.name]) if c["dataset"] == variant.dataset] + [
        {**s, "delta": None}
        for s in searches
        if (s["dataset"], s["model"]) == (variant.dataset, variant.name)
    ]


def against_clean_models(
    searches: list[dict[str, Any]], work: Path, clean: list[str]
) -> list[dict[str, Any]]:
    """The searches judged as the comparisons are: a counterexample counts against the model
    only when every clean model (``clean``: the reference and its reseeds) passes it.  The
    tiny clean models have name sensitivities of their own, which the search also finds
    (e.g. on the reference); only one no clean model shares is the candidate's regression."""
    from nlp_gate.config.profiles import load_profile
    from nlp_gate.engine.loading import load_classifier
    from nlp_gate.engine.predictor import LoadOptions

    profile = load_profile(PROFILE, work / "models.yaml")
    loaded: dict[tuple[str, str], Any] = {}  # each clean model loaded once, not per search

    def classifier(dataset: str, name: str) -> Any:
        if (dataset, name) not in loaded:
            spec = profile.get(dataset, name)
            loaded[dataset, name] = load_classifier(spec, spec.source, LoadOptions(device="cpu"))
        return loaded[dataset, name]

    judged_searches = []
    for search in searches:
        example = search["counterexample"]
        failing: list[str] = []
        if example is not None:
            texts = [
                tuple(t) if isinstance(t, list) else t
                for t in (example["original"], example["perturbed"])
            ]
            for name in clean:
                probabilities = classifier(search["dataset"], name).predict_proba(texts)
                if probabilities[0].argmax() != probabilities[1].argmax():  # INV broken
                    failing.append(name)
        judged_searches.append(
            {**search, "clean_models_failing": failing, "passed": search["passed"] or bool(failing)}
        )
    return judged_searches


def summarize(
    runs: dict[str, dict[str, Any]], searches: list[dict[str, Any]], variants: Sequence[Variant]
) -> dict[str, Any]:
    defects, null_items, null_flagged = [], 0, 0
    for v in variants:
        if v.name not in runs:
            continue
        items = items_of(v, runs, searches)
        flagged = [c for c in items if c["passed"] is False]
        if v.capability is None:
            null_items, null_flagged = null_items + len(items), null_flagged + len(flagged)
            continue
        defects.append(
            {
                "name": v.name,
                "dataset": v.dataset,
                "capability": v.capability,
                "description": v.description,
                "items": len(items),
                "flagged_items_own_capability": sum(
                    c["capability"] == v.capability for c in flagged
                ),
                "flagged_items_other": sum(c["capability"] != v.capability for c in flagged),
                "flagged": [
                    ("search: " if "found" in c else "") + f"{c['suite']}/{c['test']}"
                    for c in flagged
                ],
            }
        )
    return {
        "defects": defects,
        "null": {
            "items": null_items,
            "flagged": null_flagged,
            "false_alarm_rate": null_flagged / null_items if null_items else None,
        },
        "reference": saturation(runs),
    }


def saturation(runs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """How many tests the clean reference fails on >= 95 % of its cases (where the tiny
    profile's calibration would put a gate at 100: no gate), released and native."""
    rates: dict[tuple[str, str, str], float] = {}
    for results in runs.values():
        for c in judged(results):
            rates[(c["dataset"], c["suite"], c["test"])] = c["baseline_fail_rate"]
    out: dict[str, Any] = {}
    for label, native in (("released", False), ("native", True)):
        values = [r for (_, suite, _), r in rates.items() if suite.startswith("native_") == native]
        out[label] = {"tests": len(values), "failing_95_percent": sum(r >= 95 for r in values)}
    return out


def table(
    runs: dict[str, dict[str, Any]],
    searches: list[dict[str, Any]],
    tolerance: float,
    reseeds: list[str],
    variants: Sequence[Variant],
) -> str:
    against = (
        "the clean reference and its reseeds " + ", ".join(reseeds) + " (an item fails "
        "only when the candidate is worse than each)"
        if reseeds
        else "the clean reference"
    )
    lines = [
        "# Power of the gate: planted defects and clean re-seeds vs clean models",
        "",
        (
            f"Comparison items (`-m regression`) against {against}, McNemar + "
            f"Benjamini-Hochberg per run, alpha 0.05, tolerance {tolerance:g}; and the "
            "counterexample searches (`-m search`) on the candidate. Δ: candidate - "
            "reference fail rate, percentage points; flagged: the item fails."
        ),
        "",
        (
            "| candidate | planted in | capability | items | flagged | largest Δ | "
            "largest flagged Δ | verdict |"
        ),
        "|---|---|---|---|---|---|---|---|",
    ]
    for v in variants:
        if v.name not in runs:
            continue
        by_capability: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for c in items_of(v, runs, searches):
            by_capability[c["capability"]].append(c)
        for capability, items in sorted(by_capability.items()):
            flagged = [c for c in items if c["passed"] is False]
            deltas = [c["delta"] for c in items if c["delta"] is not None]
            found = sum("found" in c and c["passed"] is False for c in items)
            own = "**own**" if capability == v.capability else ""
            verdict = f"flagged on {len(flagged)}" if flagged else "not flagged"
            if found:
                verdict += f" ({found} by a search)"
            lines.append(
                f"| {v.name} | {v.capability or 'clean'} | {capability} {own} | {len(items)} | "
                f"{len(flagged)} | {max(deltas, default=0):+.1f} | "
                f"{max((c['delta'] for c in flagged if c['delta'] is not None), default=0):+.1f}"
                f" | {verdict} |"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    from workshop.defects.variants import DEFECT_RECIPE

    parser = argparse.ArgumentParser(
        prog="python -m workshop.power", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--candidates",
        nargs="+",
        default=None,
        help="variant names (default: every defect and clean re-seed)",
    )
    parser.add_argument("--sample", type=int, default=None, help="--nlp-sample of each run")
    parser.add_argument("--workers", type=int, default=2, help="-n of each run")
    parser.add_argument(
        "--tolerance",
        type=float,
        default=0.0,
        help="comparison tolerance, percentage points (default: the plugin's, 0)",
    )
    parser.add_argument(
        "--search-examples",
        type=int,
        default=300,
        help="--nlp-search-examples of the search run (0: no search)",
    )
    parser.add_argument(
        "--reseeds",
        type=int,
        default=None,
        help="how many of the reference's reseeds the comparison declares "
        "(default: all three; 0: the reference alone)",
    )
    parser.add_argument(
        "--datasets",
        nargs="+",
        default=None,
        choices=DEFECT_RECIPE.datasets,
        help="only these datasets' models (default: all three)",
    )
    parser.add_argument("--work", type=Path, default=REPO / ".cache" / "power")
    parser.add_argument("--out", type=Path, default=REPO / "reports")
    args = parser.parse_args()

    from workshop.defects import REFERENCE, RESEEDS, defect_zoo_root, ensure_defect_zoo
    from workshop.defects.build import variants_of

    variants = variants_of(args.datasets)
    ensure_defect_zoo(datasets=args.datasets)
    args.work.mkdir(parents=True, exist_ok=True)
    reseeds = list(RESEEDS[: args.reseeds])
    write_models(args.work / "models.yaml", defect_zoo_root(), variants)
    write_gates(args.work / "thresholds.yaml", args.tolerance, reseeds)
    names = args.candidates or list(
        dict.fromkeys(v.name for v in variants if v.name not in (REFERENCE, *RESEEDS))
    )
    unknown = sorted(set(names) - {v.name for v in variants})
    if unknown:
        raise SystemExit(
            f"no defect-zoo model named {', '.join(unknown)} in "
            f"{', '.join(sorted({v.dataset for v in variants}))}"
        )
    runs = {
        name: run_gate(
            name, args.work, args.sample, args.workers, "-m", "regression", "--nlp-candidate", name
        )
        for name in names
    }
    # One search run covers every model of the profile (each search item is one model's).
    searches = (
        []
        if not args.search_examples
        else run_gate(
            "search",
            args.work,
            args.sample,
            args.workers,
            "-m",
            "search",
            "--nlp-search-examples",
            str(args.search_examples),
            "--nlp-candidate",
            names[0],
        )["searches"]
    )  # (the comparison section asks for one)
    searches = against_clean_models(
        [s for s in searches if s["model"] in names], args.work, [REFERENCE, *reseeds]
    )
    power = summarize(runs, searches, variants)
    power["run"] = {
        "sample": args.sample,
        "seed": next(iter(runs.values()))["run"]["seed"],
        "datasets": sorted({v.dataset for v in variants}),
        "candidates": names,
        "reseeds": reseeds,
        "search_examples": args.search_examples,
        "alpha": 0.05,
        "tolerance": args.tolerance,
    }
    (args.out / "tables").mkdir(parents=True, exist_ok=True)
    (args.out / "power.json").write_text(json.dumps(power, indent=2) + "\n")
    (args.out / "tables" / "power.md").write_text(
        table(runs, searches, args.tolerance, reseeds, variants)
    )
    for d in power["defects"]:
        print(
            f"{d['name']:<16} {d['capability']:<11} items {d['items']:>4}  flagged own "
            f"{d['flagged_items_own_capability']:>3}  other {d['flagged_items_other']:>3}"
        )
    n = power["null"]
    print(
        f"null: {n['flagged']} of {n['items']} items flagged (false-alarm rate "
        f"{n['false_alarm_rate']})"
    )
    print(f"reference fails >= 95 % of the cases of: {power['reference']}")


if __name__ == "__main__":
    main()
