"""--nlp-prediction-cache: a re-run of unchanged models does no forward pass and changes nothing."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from plugins.plugin import REPO_ROOT
from tests.conftest import GateRun, RunGate

ARGS = ("-m", "fairness", "-k", "sst2", "--nlp-sample", "20")


def totals(run: GateRun) -> dict[str, int]:
    """Engine counters of the run, summed over models and workers (results.json "engine")."""
    engine = run.json["engine"]
    assert engine, run.result.stdout.str()[-3000:]
    return {k: sum(r[k] for r in engine) for k in (
        "forward_passes", "cache_hits", "unique_inputs", "checklist_forward_passes",
        "checklist_cache_hits", "checklist_stored_outcomes")}


def stored_rows(path: Path) -> int:
    with closing(sqlite3.connect(path)) as db:
        return int(db.execute("SELECT count(*) FROM predictions").fetchone()[0])


@pytest.mark.parametrize("workers", [0, 2])
def test_second_run_with_the_same_cache_does_no_forward_pass(
        run_gate: RunGate, tmp_path: Path, workers: int) -> None:
    cache = ("--nlp-prediction-cache", str(tmp_path / "predictions.sqlite"))
    cold = run_gate(*ARGS, *cache, workers=workers)
    warm = run_gate(*ARGS, *cache, workers=workers)

    assert cold.records, cold.result.stdout.str()[-3000:]
    assert totals(cold)["checklist_forward_passes"] > 0
    assert totals(cold)["checklist_stored_outcomes"] == 0
    assert totals(warm)["forward_passes"] == totals(warm)["checklist_forward_passes"] == 0
    # Every CheckList item reuses its stored outcome: nothing is predicted or re-evaluated.
    checklist_items = len(warm.records)
    assert totals(warm)["checklist_stored_outcomes"] == checklist_items > 0
    warm.result.stdout.fnmatch_lines([
        "prediction engine: CheckList items 0 forward passes, 0 cache hits, "
        f"{checklist_items} stored outcomes reused; *"])
    assert totals(warm)["cache_hits"] == totals(warm)["unique_inputs"] > 0
    assert warm.records == cold.records
    assert warm.json["comparisons"] == cold.json["comparisons"]


def test_default_location_and_off(run_gate: RunGate, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NLP_GATE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NLP_GATE_ZOO_DIR", str(REPO_ROOT / ".cache" / "zoo"))  # the built zoo
    default = tmp_path / "cache" / "predictions.sqlite"

    first = run_gate(*ARGS)
    assert default.is_file(), first.result.stdout.str()[-3000:]  # $NLP_GATE_CACHE/predictions.sqlite
    rows = stored_rows(default)
    assert rows == totals(first)["unique_inputs"]

    off = run_gate(*ARGS, "--nlp-prediction-cache", "off")
    assert totals(off)["cache_hits"] == 0  # the filled cache is not read ...
    assert totals(off)["forward_passes"] == totals(off)["unique_inputs"] > 0
    assert stored_rows(default) == rows  # ... nor written
    assert off.records == first.records
