"""--nlp-prediction-cache: a re-run of unchanged models does no forward pass and changes nothing."""

from __future__ import annotations

import sqlite3
from collections import Counter
from contextlib import closing
from pathlib import Path

import pytest

from fixtures.gate_run import ZOO, GateRun, RunGate

ARGS = ("-m", "fairness and not native", "-k", "sst2", "--nlp-sample", "20")


def totals(run: GateRun) -> dict[str, int]:
    """Engine counters of the run, summed over models and workers (results.json "engine")."""
    engine = run.json["engine"]
    assert engine, run.result.stdout.str()[-3000:]
    return {
        k: sum(r[k] for r in engine)
        for k in (
            "forward_passes",
            "cache_hits",
            "unique_inputs",
            "checklist_forward_passes",
            "checklist_cache_hits",
            "checklist_stored_outcomes",
        )
    }


def checklist_processes(run: GateRun) -> Counter[tuple[str, str]]:
    """How many processes ran CheckList items of each model (one engine record each)."""
    keys = ("checklist_forward_passes", "checklist_cache_hits", "checklist_stored_outcomes")
    return Counter(
        (r["dataset"], r["model"]) for r in run.json["engine"] if sum(r[k] for k in keys) > 0
    )


def stored_rows(path: Path) -> int:
    with closing(sqlite3.connect(path)) as db:
        return int(db.execute("SELECT count(*) FROM predictions").fetchone()[0])


@pytest.mark.parametrize("workers", [0, 2])
def test_second_run_with_the_same_cache_does_no_forward_pass(
    run_gate: RunGate, tmp_path: Path, workers: int
) -> None:
    cache = ("--nlp-prediction-cache", str(tmp_path / "predictions.sqlite"))
    cold = run_gate(*ARGS, *cache, workers=workers)
    warm = run_gate(*ARGS, *cache, workers=workers)

    assert cold.records, cold.result.stdout.str()[-3000:]
    assert totals(cold)["forward_passes"] > 0
    if workers == 0:
        # In one process CheckList items run before the comparisons that reuse their
        # outcomes.  Under xdist the comparison worker may evaluate a test first and the
        # CheckList item then reuses that outcome, stored in this same cold run.
        assert totals(cold)["checklist_forward_passes"] > 0
        assert totals(cold)["checklist_stored_outcomes"] == 0
    assert totals(warm)["forward_passes"] == totals(warm)["checklist_forward_passes"] == 0
    # Every CheckList item reuses its stored outcome: nothing is predicted or re-evaluated.
    checklist_items = len(warm.records)
    assert totals(warm)["checklist_stored_outcomes"] == checklist_items > 0
    warm.result.stdout.fnmatch_lines(
        [
            "prediction engine: CheckList items 0 forward passes, 0 cache hits, "
            f"{checklist_items} stored outcomes reused; *"
        ]
    )
    # Comparisons reuse the stored outcomes too; whatever else is predicted comes from the cache.
    assert totals(warm)["cache_hits"] == totals(warm)["unique_inputs"]
    assert warm.records == cold.records
    assert warm.json["comparisons"] == cold.json["comparisons"]
    # --dist loadgroup (pyproject.toml) keeps a model's CheckList items in one process, so
    # each model is prefetched once (under pytest 9.2 too: nlp_gate/pytest_plugin/xdist_groups.py).
    for run in (cold, warm):
        assert checklist_processes(run) == {("sst2", "bert"): 1, ("sst2", "albert"): 1}


def test_default_location_and_off(
    run_gate: RunGate, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NLP_GATE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NLP_GATE_ZOO_DIR", str(ZOO))  # the built zoo
    default = tmp_path / "cache" / "predictions.sqlite"

    first = run_gate(*ARGS)
    assert default.is_file(), first.result.stdout.str()[
        -3000:
    ]  # $NLP_GATE_CACHE/predictions.sqlite
    rows = stored_rows(default)
    assert rows == totals(first)["unique_inputs"]

    off = run_gate(*ARGS, "--nlp-prediction-cache", "off")
    assert totals(off)["cache_hits"] == 0  # the filled cache is not read ...
    assert totals(off)["forward_passes"] == totals(off)["unique_inputs"] > 0
    assert stored_rows(default) == rows  # ... nor written
    assert off.records == first.records
