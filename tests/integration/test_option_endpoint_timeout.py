"""--nlp-endpoint-timeout SECONDS: how long one request to a served endpoint may take.  An
endpoint slower than that at start-up stops the run (exit 4, one message); one that turns slow
mid-run is retried, then its items fail with one line each, and the run has no verdict (exit
3).  The server (a real HTTP server,
``fixtures.endpoint_server``) waits 3 s where the timeout is 1 s."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.endpoint_server import Behaviour, serve
from fixtures.gate_run import RunGate
from nlp_gate.report.verdict import NO_VERDICT

ARGS = ("-m", "fairness", "--nlp-sample", "10", "--nlp-endpoint-timeout", "1")


@pytest.fixture(autouse=True)
def own_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NLP_GATE_CACHE", str(tmp_path / "cache"))


def test_an_endpoint_slower_than_the_timeout_at_start_stops_the_run(run_gate: RunGate) -> None:
    with serve(Behaviour(delay=3)) as url:
        run = run_gate("--nlp-model", f"sentiment={url}", *ARGS)
    err = run.result.stderr.str()
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR, err[-2000:]
    assert err.count("ERROR:") == 1 and "Traceback" not in err, err[-2000:]
    assert f"endpoint {url}: no answer within 1 s (1 try)" in err


def test_an_endpoint_that_turns_slow_fails_its_items_with_one_line(run_gate: RunGate) -> None:
    with serve(Behaviour(delay=3, slow_after=1)) as url:  # the probe answers at once
        run = run_gate("--nlp-model", f"sentiment={url}", *ARGS)
    # A model refused while the run ran: no verdict (exit 3), not a missed gate (exit 1).
    assert run.result.ret == NO_VERDICT, run.result.stdout.str()[-3000:]
    errors = run.json["errors"]
    assert errors and not run.json["records"]
    assert {e["message"] for e in errors} == {
        f"model refused: endpoint {url}: no answer within 1 s (5 tries)"
    }


def test_the_timeout_is_at_least_one_second(run_gate: RunGate) -> None:
    run = run_gate(
        "--nlp-model",
        "sentiment=http://127.0.0.1:9/p",
        "-m",
        "fairness",
        "--nlp-endpoint-timeout",
        "0",
    )
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--nlp-endpoint-timeout" in run.result.stderr.str()
