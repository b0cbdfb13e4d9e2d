"""The defect zoo proves the gate: ``python -m workshop.power`` builds the defect zoo (cached),
runs the comparison items of a planted defect and a clean re-seed against the clean reference and
writes reports/power.json and reports/tables/power.md, where the planted single-name defect
is flagged on its own capability (NER); and the counterexample search of the native speaker
test finds the planted name on the defect model -- shrunk to texts one name apart, the
other of which passes -- and nothing on the clean re-seeds, and replays it from the example
database on a second run.

The defect zoo is trained here, on this machine's CPU, so its weights differ between CPUs
(docs/measurements/calibration.md): every assertion is a property any rebuild has by
construction -- the planted name is trained in on purpose, the re-seeds and the null are
clean retrainings of the same data -- and no assertion pins a number of one build."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fixtures.gate_run import REPO
from nlp_gate.packaged import modules
from nlp_gate.pytest_plugin.plugin import NATIVE_ITEMS

# One xdist worker runs both tests, so the module's power run (~200 CPU-s) is made once, not
# once per worker (--dist loadgroup, pyproject.toml).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("power")]


@pytest.fixture(scope="module")
def power_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("power")
    # A seeded sample of 40 cases per CheckList test, on the sentiment models alone (the
    # planted name's dataset): what is checked here is the pipeline (comparisons judged
    # against every reseed, the search's counterexample flagged on its own capability, the
    # null counted), not the power figures, which come from full runs of workshop/power.py
    # (docs/measurements/power.md).  The full suites made this fixture ~940 CPU-seconds, a
    # third of the whole test run's, 474 of them the comparison runs; the whole defect zoo's
    # build is 462 of the rest, its yelp_polarity models (the same bytes) ~170.
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "workshop.power",
            "--candidates",
            "name-sensitive",
            "null-1",
            "--datasets",
            "yelp_polarity",
            "--sample",
            "40",
            "--work",
            str(tmp / "work"),
            "--out",
            str(tmp / "reports"),
        ],
        cwd=REPO,
        text=True,
        capture_output=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return tmp


def test_power_report_flags_the_planted_name_defect_and_counts_the_null(power_run: Path) -> None:
    power = json.loads((power_run / "reports" / "power.json").read_text())
    [defect] = power["defects"]
    assert {
        "name",
        "capability",
        "items",
        "flagged_items_own_capability",
        "flagged_items_other",
    } <= set(defect)
    assert (defect["name"], defect["capability"]) == ("name-sensitive", "NER")
    # CheckList's fixed samples do not contain the planted name: the search finds it.
    assert "search: native_sentiment/sentiment_speaker_name_does_not_matter" in defect["flagged"]
    assert defect["flagged_items_own_capability"] >= 1, defect
    assert defect["items"] >= defect["flagged_items_own_capability"] + defect["flagged_items_other"]
    assert power["run"]["datasets"] == ["yelp_polarity"]
    null = power["null"]
    assert null["items"] > 0
    assert null["false_alarm_rate"] == pytest.approx(null["flagged"] / null["items"])
    # Judged against the reference and its three reseeds: a flagged item is worse than each.
    reseeds = ["reseed-1", "reseed-2", "reseed-3"]
    assert power["run"]["reseeds"] == reseeds
    comparisons = json.loads((power_run / "work" / "null-1.json").read_text())["comparisons"]
    judged = [c for c in comparisons if c["passed"] is not None]
    assert judged and all([r["model"] for r in c["reseeds"]] == reseeds for c in judged)
    for c in judged:
        if c["passed"] is False:
            assert all(r["delta"] > c["tolerance"] for r in c["reseeds"]), c
    table = (power_run / "reports" / "tables" / "power.md").read_text()
    assert "| name-sensitive | NER | NER **own** |" in table
    assert "| null-1 | clean |" in table


def _search(work: Path, run: str, cache: Path) -> dict[str, dict[str, Any]]:
    results = work / run / "results.json"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            # The packaged module's file: tests_behavioral/'s in a checkout.
            *(str(m) for m in modules(NATIVE_ITEMS) if m.name == "test_ner.py"),
            "-k",
            "speaker",
            "-m",
            "search",
            "--nlp-search-examples",
            "300",
            "--rootdir",
            str(REPO),
            "-c",
            str(REPO / "pyproject.toml"),
            "-p",
            "no:cacheprovider",
            "-q",
            "-n",
            "0",
            "--nlp-profile",
            "defects",
            "--nlp-models-file",
            str(work / "models.yaml"),
            "--nlp-thresholds",
            str(work / "thresholds.yaml"),
            "--nlp-candidate",
            "null-1",
            "--nlp-results",
            str(results),
        ],
        cwd=REPO,
        text=True,
        capture_output=True,
        timeout=600,
        env={**os.environ, "NLP_GATE_CACHE": str(cache)},
    )
    return {s["model"]: s for s in json.loads(results.read_text())["searches"]}


def test_search_finds_the_planted_name_not_the_clean_reseeds_and_replays_it(
    power_run: Path,
) -> None:
    from workshop.defects.doctors import PLANTED_NAME

    # A cache of its own: the search's example database starts empty (the models file names
    # the defect zoo's model directories).
    work, cache = power_run / "work", power_run / "cache"
    first, second = _search(work, "first", cache), _search(work, "second", cache)
    found = first["name-sensitive"]
    assert found["found"] and not found["replayed"], found
    example = found["counterexample"]
    original, perturbed = example["original"].split(), example["perturbed"].split()
    assert len(original) == len(perturbed)
    assert sum(a != b for a, b in zip(original, perturbed)) == 1  # one token apart: a name
    assert example["slot"] == "first_name"
    assert example["to"] == PLANTED_NAME, example  # CheckList's fixed sample lacks it
    assert [p["label"] for p in example["predictions"]] == ["positive", "negative"], example
    # Clean re-trainings read every name of the space alike.
    assert not first["null-1"]["found"] and not first["null-2"]["found"]
    again = second["name-sensitive"]
    assert again["replayed"] and again["tried"] <= 2, again
    assert again["counterexample"] == example
