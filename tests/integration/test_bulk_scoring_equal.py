"""Bulk scoring equals CheckList's on the zoo: all 440 released items and every native test.

Each of the tiny profile's ten models is loaded once; every released CheckList test of its
suite (Tables 2 + 3: 440 items) and every native test of its task (``tests_behavioral``) is
run through ``run_test`` twice over one shared prediction function, ``scoring="checklist"``
(CheckList's own ``run``/``get_stats``) and ``scoring="bulk"``, and the two outcomes must be
equal: per-case pass/fail, fail counts, fail rate, failing texts and the cases shown.

Cost (at most ~2 CPU-minutes in scripts/test.sh; the models' forward pass is most of it):
the released tests run on a seeded sample of 10 cases each (``n=10, seed=1``; ~2k inputs a
model), the native tests whole on the first model of their task in the profile
(rotten_tomatoes-bert, qqp-bert, rte-bert) and sampled (10) on the others; the two scorings share
the engine's memo, so each input is predicted once.  Every case of every released test is
compared with the real zoo models by ``benchmarks/bench_checklist.py`` (440/440 fail rates,
docs/measurements/performance.md) and on generated predictions by
``tests/unit/test_bulk_scoring.py``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest

from nlp_gate import suites as cr
from nlp_gate.config.profiles import load_profile
from nlp_gate.engine.loading import load_classifier, zoo_location
from nlp_gate.engine.predictor import Classifier, LoadOptions
from nlp_gate.kinds.checklist.run import predict_fn, run_test
from nlp_gate.native.definition import NativeTest, definition_of
from nlp_gate.zoo import default_zoo_root, ensure_zoo

REPO = Path(__file__).resolve().parents[2]
SAMPLE, SEED = 10, 1
PROFILE = load_profile("tiny")
SUITES = ("sentiment", "qqp")


def native_tests() -> list[NativeTest]:
    found = []
    for path in sorted((REPO / "tests_behavioral").glob("test_*.py")):
        module = importlib.import_module(f"tests_behavioral.{path.stem}")
        for value in vars(module).values():
            definition = definition_of(value)
            if definition is not None:
                found.append(definition)
    return found


def equal(test: Any, fn: Any, sample: int | None) -> tuple[bool, int]:
    """Whether both scorings agree on ``test``, and how many cases it ran."""
    reference = run_test(test, fn, sample, SEED, scoring="checklist")
    del test.results
    ours = run_test(test, fn, sample, SEED, scoring="bulk")
    bulk = "results" not in vars(test)
    return bulk and ours.stored() == reference.stored(), len(ours.passed)


@pytest.mark.usefixtures("zoo")
def test_bulk_scoring_equals_checklists_on_the_zoo() -> None:
    ensure_zoo()
    dirs = cr.default_search_dirs(REPO)
    suites = {name: cr.load_suite(name, cr.locate(name, dirs)) for name in SUITES}
    natives = native_tests()
    differ: list[str] = []
    released = native = 0
    tasks_done: set[str] = set()
    for spec in PROFILE.models:
        suite = spec.task.suite
        mine = [n for n in natives if n.task == spec.task.name]
        if suite not in suites and not mine:
            continue
        classifier: Classifier = load_classifier(
            spec, zoo_location(default_zoo_root(), spec), LoadOptions(cache=None)
        )
        if suite in suites:
            fn = predict_fn(classifier, neutral_band=suite == "sentiment")
            for name, test in suites[suite].tests.items():
                ok, _ = equal(test, fn, SAMPLE)
                released += 1
                if not ok:
                    differ.append(f"{suite}/{name} on {spec.key}")
        fn = predict_fn(classifier, neutral_band=False)  # the native kind's
        whole = spec.task.name not in tasks_done
        tasks_done.add(spec.task.name)
        for definition in mine:
            ok, _ = equal(definition.generate(SEED), fn, None if whole else SAMPLE)
            native += whole
            if not ok:
                differ.append(f"{definition.where} on {spec.key}")
    assert released == 440
    assert native == len(natives)  # each native test whole on one model
    assert differ == []
