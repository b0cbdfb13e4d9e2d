"""--nlp-sample / --nlp-seed: seeded per-test samples; identical records with and without xdist."""

from __future__ import annotations

from fixtures.gate_run import RunGate

RELEASED = 38 * 3 * 2 + 53 * 2 * 2  # sentiment x 3 datasets + QQP x 2 datasets, 2 models
MODELS_OF_TASK = {"sentiment": 6, "paraphrase": 4, "entailment": 2}  # tiny: datasets x 2


def test_full_run_has_one_record_per_item_and_xdist_changes_nothing(run_gate: RunGate) -> None:
    # Every item but the attacks (minutes each, not sampled; their -n 0 / -n 2 identity is
    # test_attack_run's): what --nlp-sample samples.
    serial = run_gate("--nlp-sample", "3", "-m", "not adversarial", workers=0)
    parallel = run_gate("--nlp-sample", "3", "-m", "not adversarial", workers=2)
    released = [r for r in serial.records if r["suite"] in ("sentiment", "qqp")]
    assert len(released) == RELEASED, serial.result.stdout.str()[-3000:]
    native: dict[tuple[str, str], int] = {}
    for r in serial.records:
        if r["suite"] not in ("sentiment", "qqp"):
            native[r["suite"], r["test"]] = native.get((r["suite"], r["test"]), 0) + 1
    assert len(native) >= 3 * 10 * 2  # every capability, >= 2 tests per task
    assert all(
        n == MODELS_OF_TASK[suite.removeprefix("native_")] for (suite, _), n in native.items()
    )
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
