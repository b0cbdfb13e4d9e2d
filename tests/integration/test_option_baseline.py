"""--nlp-baseline / --nlp-candidate: a planted regression is caught, a planted no-change passes."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from fixtures.gate_run import RunGate
from nlp_gate.config.profiles import DEFAULT_MODELS_FILE

# The Vocabulary tests, where the zoo's SST-2 BERT is right with confidence: a copy with its
# output rows exchanged turns those passes into failures.  (Not the Negation tests: there it
# reads many sentences as neutral, p(positive) near 0.5, which the flipped copy reads alike.)
ARGS = ("-m", "regression and vocabulary and not native", "--nlp-sample", "40")
SENTIMENT_VOCABULARY_TESTS = 10


@pytest.fixture(scope="module")
def flipped(zoo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The zoo's SST-2 BERT with its two output rows exchanged: it predicts the opposite class."""
    from safetensors.torch import load_file, save_file

    path = tmp_path_factory.mktemp("models") / "flipped"
    shutil.copytree(zoo / "sst2" / "bert", path)
    weights = load_file(path / "model.safetensors")
    for name in ("classifier.weight", "classifier.bias"):
        weights[name] = weights[name].flip(0).contiguous()
    save_file(weights, path / "model.safetensors", metadata={"format": "pt"})
    return path


def _files(tmp_path: Path, models: dict[str, Path], comparison: dict | None = None) -> list[str]:
    tmp_path.mkdir(exist_ok=True)
    tasks = yaml.safe_load(DEFAULT_MODELS_FILE.read_text())["tasks"]
    entries = {
        name: {"id": str(p), "labels": ["negative", "positive"]} for name, p in models.items()
    }
    models_file, gates = tmp_path / "models.yaml", tmp_path / "gates.yaml"
    models_file.write_text(
        yaml.safe_dump(
            {
                "tasks": tasks,
                "profiles": {
                    "tiny": {"datasets": {"sst2": {"task": "sentiment", "models": entries}}}
                },
            }
        )
    )
    gates.write_text(
        yaml.safe_dump(
            {"profiles": {"tiny": {"checklist": {"default": 100}, "comparison": comparison or {}}}}
        )
    )
    return ["--nlp-models-file", str(models_file), "--nlp-thresholds", str(gates)]


@pytest.mark.parametrize("workers", [0, 2])
def test_planted_regression_is_caught(
    run_gate: RunGate, tmp_path: Path, zoo: Path, flipped: Path, workers: int
) -> None:
    files = _files(tmp_path, {"bert": zoo / "sst2" / "bert", "flipped": flipped})
    run = run_gate(
        *files, "--nlp-baseline", "bert", "--nlp-candidate", "flipped", *ARGS, workers=workers
    )
    records = run.json["comparisons"]
    assert len(records) == SENTIMENT_VOCABULARY_TESTS, run.result.stdout.str()[-3000:]
    assert {(r["baseline"], r["candidate"], r["dataset"]) for r in records} == {
        ("bert", "flipped", "sst2")
    }
    worse = [r for r in records if r["verdict"] == "worse"]
    assert worse, "a model predicting the opposite class must regress on vocabulary tests"
    for r in worse:
        assert not r["passed"] and r["delta"] > r["tolerance"] == 0
        assert r["p_adjusted"] <= r["alpha"] and r["p_value"] <= r["p_adjusted"]
        assert r["worse"] > r["better"] and 0 < r["n_cases"] <= 40
        assert r["ci_low"] <= r["delta"] <= r["ci_high"]
        assert r["delta"] == pytest.approx(r["candidate_fail_rate"] - r["baseline_fail_rate"])
    out = run.result.stdout.str()
    assert "candidate flipped is significantly worse than baseline bert" in out
    assert "exact McNemar p" in out and "Benjamini-Hochberg adjusted p" in out
    assert run.result.parseoutcomes()["failed"] == len(worse)
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize("workers", [0, 2])
def test_reseeds_judge_the_candidate_against_every_clean_model(
    run_gate: RunGate, tmp_path: Path, zoo: Path, flipped: Path, workers: int
) -> None:
    """comparison.reseeds: a reseed that behaves as the baseline changes no verdict; one that
    behaves as the candidate (retraining noise as large as the change) clears every item."""
    bert = zoo / "sst2" / "bert"
    models = {"bert": bert, "flipped": flipped, "bert-twin": bert, "flipped-twin": flipped}
    plain = run_gate(
        *_files(tmp_path / "plain", models, {"baseline": "bert", "candidate": "flipped"}),
        *ARGS,
        workers=workers,
    ).json["comparisons"]
    twin = run_gate(
        *_files(
            tmp_path / "twin",
            models,
            {"baseline": "bert", "candidate": "flipped", "reseeds": ["bert-twin"]},
        ),
        *ARGS,
        workers=workers,
    ).json["comparisons"]
    assert any(r["verdict"] == "worse" for r in plain)
    for p, t in zip(plain, twin, strict=True):
        assert [r["model"] for r in t["reseeds"]] == ["bert-twin"] and p["reseeds"] == []
        assert t["reseeds"][0]["delta"] == pytest.approx(t["delta"]) == pytest.approx(p["delta"])
        assert t["excess"] == pytest.approx(t["delta"])
        assert (t["verdict"] == "worse") == (p["verdict"] == "worse")
    noise = run_gate(
        *_files(
            tmp_path / "noise",
            models,
            {"baseline": "bert", "candidate": "flipped", "reseeds": ["bert-twin", "flipped-twin"]},
        ),
        *ARGS,
        workers=workers,
    )
    assert noise.result.ret == pytest.ExitCode.OK
    for r in noise.json["comparisons"]:
        assert [x["model"] for x in r["reseeds"]] == ["bert-twin", "flipped-twin"]
        assert r["reseeds"][1]["delta"] == 0 and r["excess"] <= 0 and r["passed"], r
        assert r["p_value"] == 1.0  # not worse than flipped-twin: no evidence of a regression


def test_swapping_baseline_and_candidate_flips_every_delta(
    run_gate: RunGate, tmp_path: Path, zoo: Path, flipped: Path
) -> None:
    files = _files(
        tmp_path,
        {"bert": zoo / "sst2" / "bert", "flipped": flipped},
        {"baseline": "bert", "candidate": "flipped"},
    )  # from thresholds.yaml
    forward = run_gate(*files, *ARGS).json["comparisons"]
    backward = run_gate(*files, "--nlp-baseline", "flipped", "--nlp-candidate", "bert", *ARGS).json[
        "comparisons"
    ]
    assert [r["test"] for r in forward] == [r["test"] for r in backward]
    assert {r["candidate"] for r in backward} == {"bert"}
    for f, b in zip(forward, backward):
        assert b["delta"] == pytest.approx(-f["delta"])
        assert (b["ci_low"], b["ci_high"]) == pytest.approx((-f["ci_high"], -f["ci_low"]))
        assert (b["worse"], b["better"]) == (f["better"], f["worse"])
        assert b["p_adjusted"] == pytest.approx(f["p_adjusted"])
        assert (f["verdict"] == "worse") == (b["verdict"] == "better")


def test_planted_no_change_passes(run_gate: RunGate, tmp_path: Path, zoo: Path) -> None:
    same = zoo / "sst2" / "bert"
    files = _files(
        tmp_path,
        {"bert": same, "twin": same},
        {"baseline": "bert", "candidate": "twin", "alpha": 0.05},
    )
    run = run_gate(*files, *ARGS)
    records = run.json["comparisons"]
    assert len(records) == SENTIMENT_VOCABULARY_TESTS
    assert all(
        r["delta"] == 0
        and r["worse"] == r["better"] == 0
        and r["p_value"] == 1
        and r["verdict"] == "no significant difference"
        and r["passed"]
        for r in records
    )
    assert run.result.ret == pytest.ExitCode.OK


def test_unknown_candidate_stops_the_run_and_lists_the_models(
    run_gate: RunGate, tmp_path: Path, zoo: Path
) -> None:
    files = _files(tmp_path, {"bert": zoo / "sst2" / "bert"})
    run = run_gate(*files, "--nlp-baseline", "bert", "--nlp-candidate", "roberta", *ARGS)
    # A configuration error is a usage error at session start: pytest prints the error and
    # no summary line (so no parseoutcomes), and no item runs, not even a collection.
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert not re.search(r"\d+ (passed|failed)", run.result.stdout.str())
    # results.json says the run was refused (no earlier run's file stands in for it)
    assert run.json["refused"] and run.json["records"] == [] and run.json["ran"] == 0
    assert "unknown candidate model 'roberta'; valid: bert" in run.result.stderr.str()


def test_without_baseline_and_candidate_regression_items_say_why_they_skip(
    run_gate: RunGate, tmp_path: Path, zoo: Path
) -> None:
    run = run_gate(*_files(tmp_path, {"bert": zoo / "sst2" / "bert"}), "-m", "regression", "-rs")
    outcomes = run.result.parseoutcomes()
    assert outcomes["skipped"] == 1 and "passed" not in outcomes and "failed" not in outcomes
    assert "no baseline/candidate declared: pass --nlp-baseline" in run.result.stdout.str()


def test_default_tiny_profile_has_one_comparison_per_test_and_dataset(run_gate: RunGate) -> None:
    run = run_gate("--collect-only", "-q", "-m", "regression")
    ids = [line for line in run.result.stdout.lines if "test_comparison[" in line]
    assert len(ids) == 38 * 3 + 53 * 2  # sentiment x 3 datasets + QQP x 2, albert vs bert
    assert all(line.endswith("/albert-vs-bert]") for line in ids)
    fairness = run_gate("--collect-only", "-q", "-m", "fairness and regression")
    assert sum("test_comparison[" in line for line in fairness.result.stdout.lines) == 4 * 3
