"""``--nlp-mlflow-log`` against a real tracking server (``fixtures.mlflow_server``: ``mlflow
server`` over HTTP with a sqlite store, started by the tests): a gate run of two registry
versions, with ``-n 0`` and with ``-n 2``, leaves one MLflow run with a metric per item and per
capability × model (the same in both), results.json and the reports as artifacts, the verdict
as a tag and a metric; each gated version is tagged with the verdict and that run's id.  A
tracking server that cannot be reached is one line and leaves the gate's exit status; a run
that names no tracking server stops at start-up."""

from __future__ import annotations

import re
import socket
from collections import defaultdict
from statistics import fmean
from typing import Any

import pytest

pytest.importorskip("mlflow")

from fixtures.gate_run import ZOO, GateRun, RunGate  # after the importorskip above
from fixtures.mlflow_server import TrackingServer, mlflow_server  # noqa: F401  # a fixture
from nlp_gate.report.mlflow_log import metric_key

# One server per worker: both tests that need it on the worker that started it.
pytestmark = pytest.mark.xdist_group("mlflow_server")

ARGS = ("-m", "fairness", "--nlp-sample", "10")
MODELS = (
    "--nlp-model",
    "sentiment=models:/sst2-bert@champion",
    "--nlp-model",
    "sentiment=models:/sst2-bert/2",
)
VERDICTS = {pytest.ExitCode.OK: "passed", pytest.ExitCode.TESTS_FAILED: "failed"}


@pytest.fixture
def gate_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """A cold cache of the test's own, the zoo at its place, MLflow's retries off (a
    refused connection is said at once, not after MLflow's ~4 minutes of backing off)."""
    monkeypatch.setenv("NLP_GATE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NLP_GATE_ZOO_DIR", str(ZOO))
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")


def test_a_gate_run_of_registry_versions_is_logged_and_tags_each_version_with_n0_and_n2(
    run_gate: RunGate,
    mlflow_server: TrackingServer,
    gate_env: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MLFLOW_TRACKING_URI", mlflow_server.uri)
    logged = {}
    for workers in (0, 2):
        experiment = f"gate-n{workers}"
        run = run_gate(
            *MODELS, *ARGS, "--nlp-mlflow-log", "--nlp-mlflow-experiment", experiment,
            workers=workers,
        )  # fmt: skip
        ret = run.result.ret
        out = run.result.stdout.str()
        assert ret in VERDICTS, out[-3000:]
        run_id = logged_run_id(run)
        mlflow_run = mlflow_server.get("runs/get", run_id=run_id)["run"]
        named = mlflow_server.get("experiments/get-by-name", experiment_name=experiment)
        assert mlflow_run["info"]["experiment_id"] == named["experiment"]["experiment_id"]
        assert mlflow_run["info"]["status"] == "FINISHED"
        data = mlflow_run["data"]
        metrics = {m["key"]: m["value"] for m in data["metrics"]}
        tags = {t["key"]: t["value"] for t in data["tags"]}
        params = {p["key"]: p["value"] for p in data["params"]}
        results = run.json

        # The verdict, as a tag and a metric.
        assert tags["nlp_gate.verdict"] == VERDICTS[ret]
        assert metrics["verdict_passed"] == float(ret == pytest.ExitCode.OK)
        # Per item: every CheckList record's fail rate, every comparison's delta.
        records = results["records"]
        assert {r["model"] for r in records} == {"sst2-bert-champion", "sst2-bert-2"}
        assert len(records) > 4
        for r in records:
            key = metric_key("fail_rate", r["dataset"], r["model"], r["suite"], r["test"])
            assert metrics[key] == pytest.approx(r["fail_rate"]), key
        assert results["comparisons"]
        for c in results["comparisons"]:
            pair = f"{c['candidate']} vs {c['baseline']}"
            key = metric_key("delta", c["dataset"], pair, c["suite"], c["test"])
            assert metrics[key] == pytest.approx(c["delta"]), key
        # Per capability × model: the mean fail rate and the items over their gate.
        for (dataset, model, capability), group in by_capability(records).items():
            mean = metrics[metric_key("capability_fail_rate", dataset, model, capability)]
            assert mean == pytest.approx(fmean(r["fail_rate"] for r in group))
            failed = metrics[metric_key("capability_failed", dataset, model, capability)]
            assert failed == sum(r["passed"] is False for r in group)
        # The models and their sources.
        assert params["model/sentiment/sst2-bert-champion"] == "models:/sst2-bert@champion"
        assert params["model/sentiment/sst2-bert-champion/version"] == "sst2-bert/1"
        assert params["model/sentiment/sst2-bert-2/version"] == "sst2-bert/2"
        assert (params["sample"], params["seed"]) == ("10", "1")
        # The reports: results.json as the run wrote it, the tables, summary.html.
        assert mlflow_server.artifact(run_id, "results.json") == run.results_path.read_bytes()
        files = set(mlflow_server.artifacts(run_id))
        assert {"summary.html", "tables/table2.md", "tables/table2.csv"} <= files, files
        # Each gated version: this run's id, its verdict and its own missed gates.
        for model, version in (("sst2-bert-champion", "1"), ("sst2-bert-2", "2")):
            got = mlflow_server.get("model-versions/get", name="sst2-bert", version=version)
            version_tags = {t["key"]: t["value"] for t in got["model_version"]["tags"]}
            assert version_tags == {
                "nlp_gate.run_id": run_id,
                "nlp_gate.verdict": VERDICTS[ret],
                "nlp_gate.missed_gates": str(missed_gates(results, model)),
            }
        assert "tagged sst2-bert version 1, sst2-bert version 2" in out
        logged[workers] = metrics
    assert logged[0] == logged[2]  # the same run's metrics, with or without xdist


def test_an_unreachable_tracking_server_is_one_line_and_the_gate_keeps_its_status(
    run_gate: RunGate, gate_env: None
) -> None:
    with socket.socket() as sock:  # a port nothing listens on once it is closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    run = run_gate(
        "--nlp-model", f"sentiment={ZOO / 'sst2' / 'bert'}", *ARGS, "--nlp-mlflow-log",
        "--nlp-mlflow-tracking-uri", f"http://gate:s3cret@127.0.0.1:{port}",
    )  # fmt: skip
    out = run.result.stdout.str() + run.result.stderr.str()
    # The gate missed (the CLI gates on bert's fairness items): still exit 1, not a pass,
    # and not another status for the write-back.
    assert any(r["passed"] is False for r in run.records)
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    assert "release gate FAILED" in out
    lines = [line for line in out.splitlines() if "MLflow write-back" in line]
    assert len(lines) == 1, out[-3000:]
    assert lines[0].startswith(
        "nlp-gate: MLflow write-back failed at looking up the experiment 'nlp-gate': "
        f"tracking server http://127.0.0.1:{port}: "
    )
    assert "Connection refused" in lines[0]
    assert "Traceback" not in out and "s3cret" not in out


def test_no_tracking_server_named_stops_the_run_at_start_up(
    run_gate: RunGate, gate_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    run = run_gate("--nlp-model", f"sentiment={ZOO / 'sst2' / 'bert'}", *ARGS, "--nlp-mlflow-log")
    err = run.result.stderr.str()
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR, err[-2000:]
    assert [line for line in err.splitlines() if line.startswith("ERROR:")] == [
        "ERROR: --nlp-mlflow-log: no tracking server named; set MLFLOW_TRACKING_URI or give "
        "--nlp-mlflow-tracking-uri URI"
    ]


def logged_run_id(run: GateRun) -> str:
    """The run id the terminal summary names (one line)."""
    found = re.findall(r"^nlp-gate: MLflow run (\w+) in experiment ", run.result.stdout.str(), re.M)
    assert len(found) == 1, run.result.stdout.str()[-3000:]
    return str(found[0])


def by_capability(records: list[dict[str, Any]]) -> dict[tuple[str, str, str], list[Any]]:
    groups: dict[tuple[str, str, str], list[Any]] = defaultdict(list)
    for r in records:
        groups[(r["dataset"], r["model"], r["capability"])].append(r)
    return groups


def missed_gates(results: dict[str, Any], model: str) -> int:
    """A model's gated records over their gate (a comparison is its candidate's)."""
    return sum(
        r["passed"] is False
        for section in ("records", "accuracy", "comparisons", "searches", "attacks")
        for r in results.get(section, [])
        if r.get("candidate", r.get("model")) == model
    )
