"""Measurement: do the explanations name the planted trigger words of the defect zoo? (issue 61)

Run by hand (never as a timed test)::

    .venv/bin/python benchmarks/explain_defects.py            # builds yelp_polarity's defect zoo if needed

The defect zoo (``workshop.defects``) plants two defects whose cause is one word:
``group-bias`` (reviews naming ``PLANTED_GROUP`` are negative; capability Fairness) and
``name-sensitive`` (reviews naming ``PLANTED_NAME`` are negative; capability NER).  The other
defects have no trigger word (negation-blind and temporal-blind unlearn a construction,
typo-fragile reads any misspelling, order-blind and hypothesis-only ignore structure) and are
not measured here.

For each trigger defect, its own capability's items are run on the defect model as the gate
runs them (released ``sentiment`` suite and native ``tests_behavioral`` tests of that
capability, full cases, ``run_test``'s first 5 failing cases: ``ChecklistResult.shown``; and
the search item of each native test that declares a search space, 300 cases as
``workshop.power`` runs it, whose one shown example is its counterexample).  Of
each shown case, the text that holds the trigger (an INV case: its text naming the trigger
among the original and its perturbations) is explained toward the class the model predicted
for it, the target being the class the case's other texts got (else the other class).  A hit:
the trigger is the top-attributed word (integrated gradients, checkpoint path) or among the
top 3 (occlusion, the path of prediction functions).  Shown cases without the trigger are
counted apart (the tiny model's own failures, which no trigger explains).  The clean reference
is run on the same items as a control.  A second table applies the same rule to every failing
case of the items (the first ``EVERY_LIMIT`` naming the trigger), a larger sample than the
five an item shows.

Writes ``reports/explain_defects.json`` and prints the markdown table of
``docs/measurements/explanations.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import platform
import shutil
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SHOWN = 5  # run_test's max_examples: the failing cases an item shows
SEED = 1  # --nlp-seed's default
# Of every failing case (not only the shown ones), the first this many naming the trigger.
EVERY_LIMIT = 200
SEARCH_EXAMPLES = 300  # --nlp-search-examples of workshop.power's search run
NATIVE_MODULES = [p.stem for p in sorted((REPO / "tests_behavioral").glob("test_*.py"))]


def tests_of(capability: str, catalog: Any) -> list[tuple[str, Any, Any]]:
    """(item name, CheckList test, search space or None) of the sentiment items of
    ``capability``: the released suite's, then the native ones."""
    from nlp_gate.native.definition import definition_of

    out: list[tuple[str, Any, Any]] = [
        (f"sentiment/{info.name}", catalog.test("sentiment", info.name), None)
        for info in catalog.index("sentiment")
        if info.capability == capability
    ]
    for module_name in NATIVE_MODULES:
        module = importlib.import_module(f"tests_behavioral.{module_name}")
        for function in vars(module).values():
            native = definition_of(function) if callable(function) else None
            if native and native.capability == capability and native.task == "sentiment":
                out.append((f"{native.suite}/{native.name}", native.generate(SEED), native.search))
    return out


def holds(text: str, trigger: str) -> bool:
    from nlp_gate.explain import words_of

    return trigger.lower() in (w.lower() for w in words_of(text).words)


def found_by_search(
    name: str, test: Any, space: Any, fn: Any, classifier: Any, work: Path
) -> list[Any] | None:
    """The counterexample (original, perturbed) the search item of ``test`` finds on
    ``classifier``, as ``kinds/search`` looks for it (its seed rule, ``SEARCH_EXAMPLES`` cases,
    a fresh example database), or None."""
    from nlp_gate.kinds.checklist.run import run_test
    from nlp_gate.native.search_space import search

    labels = test.labels if not isinstance(test.labels, list) else None

    def violates(original: Any, perturbed: Any) -> bool:
        one = type(test)(
            [[original, perturbed]], expect=test.expect, agg_fn=test.agg_fn, labels=labels
        )
        return run_test(one, fn, None, SEED).n_failed > 0

    key = f"{SEED}/{name}/{classifier.spec.key}"
    seed = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
    database = work / hashlib.sha256(f"{key}/{classifier.fingerprint}".encode()).hexdigest()[:16]
    shutil.rmtree(database, ignore_errors=True)
    result = search(space, violates, examples=SEARCH_EXAMPLES, seed=seed, database=database)
    found = result.counterexample
    return None if found is None else [found.original, found.perturbed]


def explained(
    classifier: Any, texts: list[str], trigger: str
) -> tuple[str, dict[str, list[str]]] | None:
    """The text of a failing case that names the trigger, and its 3 top-attributed words by
    each method (None: no text of the case names it)."""
    from nlp_gate.explain import explain_example

    with_trigger = [t for t in texts if holds(t, trigger)]
    if not with_trigger:
        return None
    text = with_trigger[0]
    rows = classifier.predict_proba(texts).argmax(axis=1)
    predicted = int(rows[texts.index(text)])
    others = [int(r) for t, r in zip(texts, rows) if t != text and int(r) != predicted]
    target = others[0] if others else 1 - predicted
    ranked = {}
    for method in ("integrated_gradients", "occlusion"):
        scores = explain_example(classifier, text, target, predicted, method).toward_predicted
        ranked[method] = [scores.words[i] for i in scores.top(3)]
    return text, ranked


def tally(
    classifier: Any, cases: list[tuple[str, Any]], trigger: str, limit: int | None = None
) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """Hits over ``cases`` (item, data); ``limit``: stop after that many cases with the
    trigger (the first ones, in item and case order)."""
    counts = dict.fromkeys(
        ["cases", "with_trigger", "ig_top1", "ig_top3", "occlusion_top1", "occlusion_top3"], 0
    )
    examples = []
    for item, data in cases:
        if limit is not None and counts["with_trigger"] >= limit:
            break
        counts["cases"] += 1
        found = explained(classifier, data if isinstance(data, list) else [data], trigger)
        if found is None:
            continue
        text, ranked = found
        counts["with_trigger"] += 1
        for method, short in (("integrated_gradients", "ig"), ("occlusion", "occlusion")):
            hit = [w.lower() == trigger.lower() for w in ranked[method]]
            counts[f"{short}_top1"] += hit[0]
            counts[f"{short}_top3"] += any(hit)
        examples.append({"item": item, "text": text, **ranked})
    return counts, examples


def measure(
    classifier: Any, tests: list[tuple[str, Any, Any]], trigger: str, work: Path
) -> dict[str, Any]:
    """Over the items: the shown failing cases, and (a larger sample, the same rule) every
    failing case."""
    from nlp_gate.kinds.checklist.run import predict_fn, run_test

    items, failing_items = len(tests), 0
    shown: list[tuple[str, Any]] = []
    every: list[tuple[str, Any]] = []
    for name, test, space in tests:
        fn = predict_fn(classifier, neutral_band=name.startswith("sentiment/"))
        result = run_test(test, fn, None, SEED, max_examples=SHOWN)
        failing_items += bool(result.shown)
        shown += [(name, test.data[case]) for case in result.shown]
        every += [
            (name, test.data[case])
            for case, passed in zip(result.case_index, result.passed)
            if passed is False
        ]
        if space is not None:
            items += 1  # the search item of the test
            found = found_by_search(name, test, space, fn, classifier, work)
            failing_items += found is not None
            if found is not None:
                shown.append((f"search: {name}", found))
                every.append((f"search: {name}", found))
    shown_counts, examples = tally(classifier, shown, trigger)
    every_counts, _ = tally(classifier, every, trigger, EVERY_LIMIT)
    return {
        "items": items,
        "items_failing": failing_items,
        "shown": shown_counts,
        "every_failing": every_counts,
        "examples": examples,
    }


def rate(hits: int, n: int) -> str:
    return f"{hits}/{n} ({100 * hits / n:.0f} %)" if n else "–"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "reports" / "explain_defects.json")
    parser.add_argument(
        "--work",
        type=Path,
        default=REPO / ".cache" / "explain-defects",
        help="the searches' example databases (emptied before each search)",
    )
    args = parser.parse_args()

    from nlp_gate.config.paths import cache_dir
    from nlp_gate.config.profiles import load_profile
    from nlp_gate.config.specs import ModelSpec
    from nlp_gate.engine.loading import load_classifier
    from nlp_gate.engine.predictor import LoadOptions
    from nlp_gate.suites.catalog import SuiteCatalog
    from nlp_gate.suites.source import default_search_dirs
    from workshop.defects import REFERENCE, defect_zoo_root, ensure_defect_zoo
    from workshop.defects.doctors import PLANTED_GROUP, PLANTED_NAME
    from workshop.defects.variants import SENTIMENT, variant

    triggers = {"group-bias": PLANTED_GROUP, "name-sensitive": PLANTED_NAME}
    ensure_defect_zoo(datasets=[SENTIMENT])
    args.work.mkdir(parents=True, exist_ok=True)
    root = defect_zoo_root()
    clean = load_profile("tiny").get(SENTIMENT, "bert")
    catalog = SuiteCatalog(default_search_dirs(REPO), cache_dir(REPO), download=False)

    def classifier(name: str) -> Any:
        path = str(root / SENTIMENT / name)
        spec = ModelSpec(SENTIMENT, name, clean.task, path, None, clean.labels)
        # The engine's prediction cache: a second run of the script forwards nothing again.
        cache = args.work / "predictions.sqlite"
        return load_classifier(spec, path, LoadOptions(device="cpu", cache=cache))

    start = time.perf_counter()
    rows = []
    for name, trigger in triggers.items():
        capability = variant(SENTIMENT, name).capability
        assert capability is not None
        tests = tests_of(capability, catalog)
        for model in (name, REFERENCE):
            measured = measure(classifier(model), tests, trigger, args.work)
            rows.append(
                {"defect": name, "model": model, "capability": capability, "trigger": trigger}
                | measured
            )
            print(f"{model} on {name}'s items: done", file=sys.stderr)
    report = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, Python "
        f"{platform.python_version()}",
        "seconds": round(time.perf_counter() - start, 1),
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    for scope, title in (("shown", "shown"), ("every_failing", "every failing case")):
        print(
            f"\n| defect | model | capability | trigger | items (failing) | {title} | with the "
            "trigger | IG: trigger top-1 | occlusion: trigger in top 3 | IG top 3 | "
            "occlusion top 1 |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            c = r[scope]
            n = c["with_trigger"]
            print(
                f"| {r['defect']} | {r['model']} | {r['capability']} | {r['trigger']} | "
                f"{r['items']} ({r['items_failing']}) | {c['cases']} | {n} | "
                f"{rate(c['ig_top1'], n)} | {rate(c['occlusion_top3'], n)} | "
                f"{rate(c['ig_top3'], n)} | {rate(c['occlusion_top1'], n)} |"
            )
    print(f"\n{report['seconds']} s; {report['machine']}; {report['date']}")


if __name__ == "__main__":
    main()
