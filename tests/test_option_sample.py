"""--nlp-sample / --nlp-seed: seeded per-test samples; identical records with and without xdist."""

from __future__ import annotations

from fixtures.gate_run import RunGate

FULL_RUN = 38 * 3 * 2 + 53 * 2 * 2  # sentiment x 3 datasets + QQP x 2 datasets, 2 models


def test_full_run_has_one_record_per_item_and_xdist_changes_nothing(run_gate: RunGate) -> None:
    serial = run_gate("--nlp-sample", "3", workers=0)
    parallel = run_gate("--nlp-sample", "3", workers=2)
    assert len(serial.records) == FULL_RUN, serial.result.stdout.str()[-3000:]
    assert serial.records == parallel.records
    assert all(r["n_cases"] <= 3 for r in serial.records)


def test_same_seed_same_records_and_seed_is_recorded(run_gate: RunGate) -> None:
    args = ("-m", "negation and sentiment and not native", "-k", "sst2", "--nlp-sample", "5")
    a = run_gate("--nlp-seed", "1", *args)
    b = run_gate("--nlp-seed", "1", *args)
    c = run_gate("--nlp-seed", "7", *args)
    assert a.records and a.records == b.records
    assert (a.json["run"]["seed"], c.json["run"]["seed"]) == (1, 7)
    assert a.json["run"]["sample"] == 5
