"""--nlp-profile: tiny is the default; unknown names and unreachable hub models are loud."""

from __future__ import annotations

from importlib import metadata

import pytest

from fixtures.gate_run import RunGate


def test_default_profile_is_tiny_and_header_reproduces_the_run(run_gate: RunGate) -> None:
    run = run_gate("-m", "fairness and not native", "-k", "rotten_tomatoes", "--nlp-sample", "5")
    out = run.result.stdout.str()
    # The header's first line names the plugin's release, as results.json does.
    version = metadata.version("nlp-gate")
    assert f"nlp-gate {version}: python " in out
    assert "nlp-gate: profile=tiny" in out and "seed=1" in out and "sample=5" in out
    assert "rotten_tomatoes/bert: zoo:rotten_tomatoes/bert" in out
    meta = run.json["run"]
    assert meta["profile"] == "tiny"
    assert meta["packages"]["torch"].startswith("2.13.0")
    assert meta["packages"]["nlp-gate"] == version
    assert {m["model_id"] for m in meta["models"]} >= {"zoo:sst2/bert", "zoo:sst2/albert"}
    assert all(m["revision"] for m in meta["models"])  # zoo models carry the recipe hash


def test_unknown_profile_lists_valid_profiles(run_gate: RunGate) -> None:
    run = run_gate("--nlp-profile", "nope", "-m", "fairness")
    assert run.result.ret != pytest.ExitCode.OK
    assert "valid profiles: paper, tiny" in run.result.stdout.str() + run.result.stderr.str()


def test_paper_profile_offline_stops_at_start_naming_every_model(
    run_gate: RunGate, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hub checkpoints neither cached nor reachable: one usage error before any item runs,
    listing each model with the ways to provide it."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # as on an air-gapped machine: no retries
    run = run_gate(
        "--nlp-profile", "paper", "-m", "fairness and not native", "-k", "sst2", "--nlp-sample", "2"
    )
    err = run.result.stderr.str()
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR, err[-2000:]
    assert err.splitlines()[0].startswith("ERROR: 12 model(s) of profile 'paper' "), err[:500]
    assert "cannot load sst2-bert (textattack/bert-base-uncased-SST-2)" in err
    assert "--nlp-profile tiny" in err and "Traceback" not in err
    assert "passed" not in run.result.stdout.str()
