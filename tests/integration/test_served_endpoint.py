"""Served endpoints (``http://…``) as ``--nlp-model`` sources, against real HTTP servers: the
plain JSON batch protocol (``fixtures.endpoint_server``) and MLflow's scoring protocol
(``mlflow models serve`` of a registered pyfunc).  Same fail rates as the function behind
them; ceil(unique inputs / batch size) requests on a cold run, none on a warm run of a declared
version; retries of a 500 burst; a persistent 500 fails the items with one line; an
unreachable endpoint, credentials in the URL and scores instead of probabilities stop the run
at start-up."""

from __future__ import annotations

import math
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.endpoint_server import Behaviour, serve
from fixtures.gate_run import REPO, GateRun, RunGate
from fixtures.mlflow_registry import mlflow_registry  # noqa: F401
from nlp_gate.report.verdict import NO_VERDICT

ARGS = ("-m", "fairness", "--nlp-sample", "10")
FUNCTION = "sentiment=fixtures.lexicon_model:predict_proba"


def rates(run: GateRun) -> dict[str, float]:
    return {r["test"]: r["fail_rate"] for r in run.json["records"]}


def gated(run: GateRun) -> GateRun:
    assert run.result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), (
        run.result.stdout.str()[-3000:] + run.result.stderr.str()[-2000:]
    )
    return run


def one_error(run: GateRun) -> str:
    err = run.result.stderr.str()
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR, err[-2000:]
    assert err.count("ERROR:") == 1 and "Traceback" not in err, err[-2000:]
    return err[err.index("ERROR:") :]


@pytest.fixture
def own_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NLP_GATE_CACHE", str(tmp_path / "cache"))
    from fixtures.gate_run import ZOO

    monkeypatch.setenv("NLP_GATE_ZOO_DIR", str(ZOO))


def test_a_declared_version_costs_one_request_per_batch_cold_and_none_warm(
    run_gate: RunGate, own_cache: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NLP_GATE_ENDPOINT_TOKEN", "s3cret-token")
    behaviour = Behaviour()
    with serve(behaviour) as url:
        # A key in the query string is sent, never recorded; a plain parameter is both.
        given = f"{url}?api_key=q-s3cret&model=sst2"
        cold = gated(
            run_gate("--nlp-model", f"sentiment={given}@v3", "--nlp-batch-size", "16", *ARGS)
        )
        cold_posts = behaviour.posts
        warm = gated(run_gate("--nlp-model", f"sentiment={given}@v3", *ARGS))
    unique = cold.json["engine"][0]["unique_inputs"]
    assert unique > 16
    assert cold_posts == math.ceil(unique / 16)
    assert behaviour.posts == cold_posts  # warm: every answer from the cache
    assert warm.json["engine"][0]["forward_passes"] == 0
    assert cold.json["engine"][0]["fingerprint_source"] == "declared"
    assert set(behaviour.authorizations) == {"Bearer s3cret-token"}
    function = gated(run_gate("--nlp-model", FUNCTION, *ARGS))
    assert rates(cold) == rates(function) == rates(warm)
    assert set(behaviour.paths) == {"/predict?model=sst2&api_key=q-s3cret"}
    model = cold.json["run"]["models"][0]
    assert (model["model"], model["model_id"], model["location"], model["revision"]) == (
        f"127.0.0.1-{url.split(':')[2].split('/')[0]}-predict",
        f"{url}?model=sst2",
        f"{url}?model=sst2",
        "v3",
    )
    assert {r["model_id"] for r in cold.json["records"]} == {f"{url}?model=sst2"}
    # No report, nor the prediction cache, holds the token or the query's key.
    folders = [run.results_path.parent for run in (cold, warm)]
    for path in (
        p
        for folder in [*folders, Path(os.environ["NLP_GATE_CACHE"])]
        for p in folder.rglob("*")
        if p.is_file()
    ):
        data = path.read_bytes()
        assert b"s3cret-token" not in data and b"q-s3cret" not in data, path


def test_a_500_burst_is_retried_and_a_persistent_500_fails_the_items_with_one_line(
    run_gate: RunGate, own_cache: None
) -> None:
    burst = Behaviour(fail_first=2)
    with serve(burst) as url:
        run = gated(run_gate("--nlp-model", f"sentiment={url}", *ARGS))
    assert burst.posts > 2
    assert not run.json.get("errors") and run.json["records"]

    down = Behaviour(fail_after=1)  # up for the start-up probe, down for the run
    with serve(down) as url:
        failed = run_gate("--nlp-model", f"sentiment={url}", *ARGS)
    # Refused while the run ran: no verdict (exit 3), not a missed gate (exit 1).
    assert failed.result.ret == NO_VERDICT, failed.result.stdout.str()[-3000:]
    errors = failed.json["errors"]
    assert errors and not failed.json["records"]
    for error in errors:
        assert error["message"].startswith("model refused: endpoint ")
        assert "HTTP 500" in error["message"] and "(5 tries)" in error["message"]
        assert "\n" not in error["message"]


def test_start_up_stops_on_an_unreachable_endpoint_credentials_and_scores(
    run_gate: RunGate, own_cache: None
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}/predict"
    assert "unreachable" in one_error(run_gate("--nlp-model", f"sentiment={closed}", *ARGS))
    assert "unreachable" in one_error(run_gate("--nlp-model", f"sentiment={closed}@v1", *ARGS))
    refused = one_error(run_gate("--nlp-model", "sentiment=http://me:pw@127.0.0.1:9/p", *ARGS))
    assert "credentials in it is refused" in refused and "pw" not in refused
    with serve(Behaviour(scores=True)) as url:
        scores = one_error(run_gate("--nlp-model", f"sentiment={url}", *ARGS))
    assert "returned rows that are not probabilities" in scores


@pytest.fixture
def mlflow_served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``mlflow models serve`` of the registry's pyfunc ``models:/sst2-lexicon/1`` (MLflow's
    own scoring server, uvicorn) on a free port: its /invocations URL and its access log."""
    yield from mlflow_serve(request, tmp_path, "models:/sst2-lexicon/1")


@pytest.fixture
def mlflow_served_transformers(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[str, Path]]:
    """``mlflow models serve`` of the zoo's sst2 bert logged as the transformers flavor with
    every label's score (``models:/sst2-bert-all-scores/1``)."""
    yield from mlflow_serve(request, tmp_path, "models:/sst2-bert-all-scores/1")


@pytest.fixture
def mlflow_served_top_label(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[str, Path]]:
    """``mlflow models serve`` of the zoo's sst2 bert logged as the transformers flavor as is
    (``models:/sst2-bert/1``): its pipeline answers the top label's score only."""
    yield from mlflow_serve(request, tmp_path, "models:/sst2-bert/1")


def mlflow_serve(
    request: pytest.FixtureRequest, tmp_path: Path, model_uri: str
) -> Iterator[tuple[str, Path]]:
    pytest.importorskip("mlflow")
    registry = request.getfixturevalue("mlflow_registry")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log = tmp_path / "serve.log"
    env = {
        **os.environ,
        "MLFLOW_TRACKING_URI": registry.tracking_uri,
        # uvicorn is started by name from PATH; the pickled model imports fixtures.
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(REPO),
    }
    with log.open("w") as out:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mlflow",
                "models",
                "serve",
                "-m",
                model_uri,
                "--env-manager",
                "local",
                "-h",
                "127.0.0.1",
                "-p",
                str(port),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    try:
        for _ in range(600):  # readiness, not a timed assertion: up to 2 minutes to start
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/ping", timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, log.read_text()[-2000:]
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/invocations", log
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_mlflow_models_serve_gives_the_fail_rates_of_its_function_at_one_request_per_batch(
    run_gate: RunGate, own_cache: None, mlflow_served: tuple[str, Path]
) -> None:
    url, log = mlflow_served

    def posts() -> int:
        return log.read_text().count('"POST /invocations')

    # Without explanations: two of these items miss their gate, and explaining them by
    # occlusion asks the server for the word-deleted variants in calls of their own, which
    # this test's one-request-per-batch count of the gate's predictions does not cover.
    quiet = ("--nlp-explain", "off")
    cold = gated(
        run_gate("--nlp-model", f"sentiment={url}@v1", "--nlp-batch-size", "16", *quiet, *ARGS)
    )
    cold_posts = posts()
    warm = gated(run_gate("--nlp-model", f"sentiment={url}@v1", *quiet, *ARGS))
    unique = cold.json["engine"][0]["unique_inputs"]
    assert cold_posts == math.ceil(unique / 16) and unique > 16
    assert posts() == cold_posts and warm.json["engine"][0]["forward_passes"] == 0
    assert rates(cold) == rates(gated(run_gate("--nlp-model", FUNCTION, *ARGS))) == rates(warm)


def test_a_served_transformers_flavor_gives_the_fail_rates_of_its_checkpoint_directory(
    run_gate: RunGate, own_cache: None, zoo: Path, mlflow_served_transformers: tuple[str, Path]
) -> None:
    """MLflow's scoring server answers label/score pairs for a transformers pipeline: mapped
    to probability rows in the model's label order, the verdict is the checkpoint's."""
    url, log = mlflow_served_transformers

    def posts() -> int:
        return log.read_text().count('"POST /invocations')

    # Without explanations: two of these items miss their gate, and explaining them by
    # occlusion asks the server for the word-deleted variants in calls of their own, which
    # this test's one-request-per-batch count of the gate's predictions does not cover.
    quiet = ("--nlp-explain", "off")
    cold = gated(
        run_gate("--nlp-model", f"sentiment={url}@v1", "--nlp-batch-size", "16", *quiet, *ARGS)
    )
    cold_posts = posts()
    warm = gated(run_gate("--nlp-model", f"sentiment={url}@v1", *quiet, *ARGS))
    unique = cold.json["engine"][0]["unique_inputs"]
    assert cold_posts == math.ceil(unique / 16) and unique > 16
    assert posts() == cold_posts and warm.json["engine"][0]["forward_passes"] == 0
    directory = gated(run_gate("--nlp-model", f"sentiment={zoo / 'sst2' / 'bert'}", *ARGS))
    assert rates(cold) == rates(directory) == rates(warm)
    assert len(rates(cold)) > 2


def test_a_served_pipeline_answering_its_top_label_only_stops_the_run_at_start(
    run_gate: RunGate, own_cache: None, mlflow_served_top_label: tuple[str, Path]
) -> None:
    url, _ = mlflow_served_top_label
    message = one_error(run_gate("--nlp-model", f"sentiment={url}", *ARGS))
    assert "answers one label and its score per input" in message
    assert "model_config={'top_k': None}" in message


def test_a_version_header_is_the_fingerprint_and_without_one_nothing_persists(
    run_gate: RunGate, own_cache: None
) -> None:
    with serve(Behaviour(version="2026-11-28")) as url:
        headed = [gated(run_gate("--nlp-model", f"sentiment={url}", *ARGS)) for _ in range(2)]
    assert [r.json["engine"][0]["fingerprint_source"] for r in headed] == ["endpoint"] * 2
    assert headed[1].json["engine"][0]["forward_passes"] == 0  # cached under the header
    with serve(Behaviour()) as url:
        plain = [gated(run_gate("--nlp-model", f"sentiment={url}", *ARGS)) for _ in range(2)]
    assert [r.json["engine"][0]["fingerprint_source"] for r in plain] == ["none"] * 2
    assert plain[1].json["engine"][0]["forward_passes"] > 0  # memoised for its run only
    assert plain[0].json["engine"][0]["fingerprint"] != headed[0].json["engine"][0]["fingerprint"]
