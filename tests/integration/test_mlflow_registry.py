"""MLflow model URIs as ``--nlp-model`` sources (``models:/NAME@ALIAS``, ``models:/NAME/N``,
``runs:/RUN_ID/PATH``) against a real local registry (``fixtures.mlflow_registry``: sqlite,
no server): a transformers-flavor version is the checkpoint it was logged from, with the
same fail rates; results.json names the version, run id and alias each URI resolved to; an
alias that moves is a new fingerprint; what cannot be resolved stops the run at start-up."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mlflow")

from fixtures.gate_run import GateRun, RunGate  # after the importorskip above
from fixtures.mlflow_registry import LocalRegistry, mlflow_registry, move_alias, registry_env  # noqa: F401  # after the importorskip above; pytest fixtures

ARGS = ("-m", "fairness", "--nlp-sample", "10")


def fail_rates(records: list[dict[str, Any]]) -> dict[tuple[str, str], Any]:
    return {(r["model"], r["test"]): r["fail_rate"] for r in records}


def test_champion_and_challenger_are_compared_with_the_fail_rates_of_their_checkpoints(
    run_gate: RunGate, registry_env: LocalRegistry, zoo: Path
) -> None:
    run = run_gate(
        "--nlp-model",
        "sentiment=models:/sst2-bert@champion",
        "--nlp-model",
        "sentiment=models:/sst2-bert@challenger",
        *ARGS,
    )
    out = run.result.stdout.str()
    assert run.result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), out[-3000:]
    models = {m["model"]: m for m in run.json["run"]["models"]}
    assert set(models) == {"sst2-bert-champion", "sst2-bert-challenger"}
    for name, version, alias in (
        ("sst2-bert-champion", "1", "champion"),
        ("sst2-bert-challenger", "2", "challenger"),
    ):
        registry = models[name]["registry"]
        assert (registry["name"], registry["version"], registry["alias"], registry["flavor"]) == (
            "sst2-bert",
            version,
            alias,
            "transformers",
        )
        assert registry["run_id"] == registry_env.versions[f"sst2-bert/{version}"]
    assert "resolved: models:/sst2-bert@champion = version 1" in out
    assert {(c["baseline"], c["candidate"]) for c in run.json["comparisons"]} == {
        ("sst2-bert-champion", "sst2-bert-challenger")
    }
    engine = {e["model"]: e for e in run.json["engine"]}
    assert {e["fingerprint_source"] for e in engine.values()} == {"registry"}

    directories = run_gate(
        "--nlp-model",
        f"sentiment={zoo / 'sst2' / 'bert'}",
        "--nlp-model",
        f"sentiment={zoo / 'sst2' / 'albert'}",
        *ARGS,
    )
    assert directories.result.ret == run.result.ret
    renamed = {"bert": "sst2-bert-champion", "albert": "sst2-bert-challenger"}
    expected = {
        (renamed[m], t): rate for (m, t), rate in fail_rates(directories.json["records"]).items()
    }
    assert fail_rates(run.json["records"]) == expected
    assert len(expected) > 4  # the released and native fairness items of both models


def test_an_alias_that_moves_is_resolved_anew_and_never_answered_from_the_old_cache(
    run_gate: RunGate, registry_env: LocalRegistry
) -> None:
    runs = []
    for version in ("1", "2"):
        move_alias(registry_env, "sst2-bert", "moving", version)
        run = run_gate("--nlp-model", "sentiment=models:/sst2-bert@moving", *ARGS)
        assert run.result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), (
            run.result.stdout.str()[-3000:]
        )
        runs.append(run)
    first, second = (r.json for r in runs)
    assert [r["run"]["models"][0]["registry"]["version"] for r in (first, second)] == ["1", "2"]
    assert first["engine"][0]["fingerprint"] != second["engine"][0]["fingerprint"]
    assert second["engine"][0]["cache_hits"] == 0  # version 2 predicted, not v1 replayed
    again = run_gate("--nlp-model", "sentiment=models:/sst2-bert@moving", *ARGS)
    assert again.json["engine"][0]["fingerprint"] == second["engine"][0]["fingerprint"]
    assert again.json["engine"][0]["forward_passes"] == 0  # warm: the same version's cache


def test_a_version_and_a_run_artifact_are_sources_too(
    run_gate: RunGate, registry_env: LocalRegistry
) -> None:
    run_id = registry_env.versions["sst2-bert/2"]
    run = run_gate(
        "--nlp-model",
        "sentiment=models:/sst2-bert/2",
        "--nlp-model",
        f"sentiment=runs:/{run_id}/model",
        *ARGS,
    )
    assert run.result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), (
        run.result.stdout.str()[-3000:]
    )
    models = {m["model"]: m["registry"] for m in run.json["run"]["models"]}
    assert models["sst2-bert-2"]["version"] == "2"
    assert models[f"run-{run_id[:8]}-model"]["run_id"] == run_id
    rates = fail_rates(run.json["records"])
    by_test = {t: rate for (m, t), rate in rates.items() if m == "sst2-bert-2"}
    assert by_test == {t: rate for (m, t), rate in rates.items() if m != "sst2-bert-2"}


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("models:/sst2-bert/9", "model source models:/sst2-bert/9: not in the MLflow registry"),
        (
            "models:/sst2-bert@nobody",
            "model source models:/sst2-bert@nobody: not in the MLflow registry",
        ),
        (
            "models:/sst2-bert/1/extra",
            "--nlp-model: model source 'models:/sst2-bert/1/extra' is no MLflow model URI",
        ),
    ],
)
def test_what_the_registry_does_not_hold_stops_the_run_with_one_message(
    run_gate: RunGate, registry_env: LocalRegistry, source: str, message: str
) -> None:
    run = run_gate("--nlp-model", f"sentiment={source}", *ARGS)
    assert one_error(run).startswith(f"ERROR: {message}")


def test_an_unreachable_registry_stops_the_run_with_one_message(
    run_gate: RunGate, registry_env: LocalRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as sock:  # a port nothing listens on once it is closed
        sock.bind(("127.0.0.1", 0))
        store = f"http://127.0.0.1:{sock.getsockname()[1]}"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", store)
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")  # MLflow's own retries: off
    run = run_gate("--nlp-model", "sentiment=models:/sst2-bert@champion", *ARGS)
    assert one_error(run).startswith(
        "ERROR: model source models:/sst2-bert@champion: the MLflow registry "
        f"{store} cannot be reached"
    )


def one_error(run: GateRun) -> str:
    """The one line a run refused at start-up prints (exit 4), without a traceback."""
    err = run.result.stderr.str()
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR, err[-2000:]
    errors = [line for line in err.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 1 and "Traceback" not in err, err[-2000:]
    return errors[0]


def test_xdist_workers_gate_the_version_the_controller_resolved(
    run_gate: RunGate, registry_env: LocalRegistry
) -> None:
    run = run_gate(
        "--nlp-model",
        "sentiment=models:/sst2-bert@champion",
        "--nlp-model",
        "sentiment=models:/sst2-bert@challenger",
        *ARGS,
        workers=2,
    )
    assert run.result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), (
        run.result.stdout.str()[-3000:]
    )
    versions = {m["model"]: m["registry"]["version"] for m in run.json["run"]["models"]}
    assert versions == {"sst2-bert-champion": "1", "sst2-bert-challenger": "2"}
    assert {e["model"] for e in run.json["engine"]} == set(versions)
    assert {e["fingerprint_source"] for e in run.json["engine"]} == {"registry"}
