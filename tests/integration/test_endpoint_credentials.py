"""A served endpoint's credentials, redirects and Retry-After, against real HTTP servers on
127.0.0.1 (``fixtures.endpoint_server``):

- each endpoint model of a models file gets the credentials and headers its entry names, from
  the environment variables it names (``NLP_GATE_ENDPOINT_TOKEN`` only for one that names
  none); no value reaches results.json, the reports, the cache or the run's output; an unset
  one stops the run at start-up, naming the variable;
- a redirect to another origin (another port here) carries no credential, one to the same
  origin does; a POST follows a 307/308 with its batch and is refused a 301;
- a 429 or 503 with Retry-After (seconds or an HTTP-date) is retried after that long, and one
  asking for longer than nlp-gate waits is given up at once.
"""

from __future__ import annotations

import email.utils
import os
import time
from pathlib import Path

import pytest
import yaml

from fixtures.endpoint_server import Behaviour, serve
from fixtures.gate_run import RunGate
from nlp_gate.config.endpoint_url import Access
from nlp_gate.config.profiles import DEFAULT_MODELS_FILE
from nlp_gate.engine.endpoint import Endpoint, EndpointError

SECRETS = {"SST2_TOKEN": "tok-s3cret", "SST2_KEY": "key-s3cret"}
FALLBACK = "fallback-s3cret"
ACCESS = Access("SST2_TOKEN", True, (("X-Api-Key", "SST2_KEY"),), (("X-Tenant", "team-a"),))
ARGS = ("-m", "fairness and not native", "--nlp-sample", "10")


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("NLP_GATE_ENDPOINT_TOKEN", FALLBACK)
    monkeypatch.setenv("NLP_GATE_CACHE", str(tmp_path / "cache"))


def lower(headers: dict[str, str]) -> dict[str, str]:
    return {name.lower(): value for name, value in headers.items()}


# -- a models file's credentials, through a gate run ------------------------------------------


def models_file(tmp_path: Path, keyed: str, plain: str) -> Path:
    tasks = yaml.safe_load(DEFAULT_MODELS_FILE.read_text())["tasks"]
    labels = ["negative", "positive"]
    models = {
        "keyed": {
            "id": keyed,
            "labels": labels,
            "auth": {"bearer_env": "SST2_TOKEN"},
            "headers": {"X-Api-Key": {"env": "SST2_KEY"}, "X-Tenant": "team-a"},
        },
        "plain": {"id": plain, "labels": labels},
    }
    path = tmp_path / "models.yaml"
    dataset = {"sst2": {"task": "sentiment", "models": models}}
    path.write_text(yaml.safe_dump({"tasks": tasks, "profiles": {"tiny": {"datasets": dataset}}}))
    return path


def gates(tmp_path: Path) -> str:
    path = tmp_path / "gates.yaml"
    path.write_text(yaml.safe_dump({"profiles": {"tiny": {"checklist": {"default": 100}}}}))
    return str(path)


def test_each_model_sends_the_credentials_its_entry_names_and_nothing_records_them(
    run_gate: RunGate, tmp_path: Path, secrets: None
) -> None:
    keyed, plain = Behaviour(), Behaviour()
    with serve(keyed) as keyed_url, serve(plain) as plain_url:
        run = run_gate(
            "--nlp-models-file",
            str(models_file(tmp_path, keyed_url, plain_url)),
            "--nlp-thresholds",
            gates(tmp_path),
            *ARGS,
            workers=2,
        )
    out = run.result.stdout.str() + run.result.stderr.str()
    assert run.result.ret == pytest.ExitCode.OK, out[-3000:]
    assert {r["model"] for r in run.records} == {"keyed", "plain"}
    assert keyed.posts and plain.posts
    for headers in map(lower, keyed.received):
        assert headers["authorization"] == "Bearer tok-s3cret"
        assert (headers["x-api-key"], headers["x-tenant"]) == ("key-s3cret", "team-a")
    for headers in map(lower, plain.received):  # names nothing: the fallback token only
        assert headers["authorization"] == f"Bearer {FALLBACK}"
        assert "x-api-key" not in headers and "x-tenant" not in headers
    written = [
        p
        for folder in (run.results_path.parent, Path(os.environ["NLP_GATE_CACHE"]))
        for p in folder.rglob("*")
        if p.is_file()
    ]
    assert run.results_path in written
    for text, where in [(out.encode(), "output"), *((p.read_bytes(), p) for p in written)]:
        for value in (*SECRETS.values(), FALLBACK):
            assert value.encode() not in text, where


def test_an_unset_credential_stops_the_run_naming_its_variable(
    run_gate: RunGate, tmp_path: Path, secrets: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SST2_KEY")
    keyed, plain = Behaviour(), Behaviour()
    with serve(keyed) as keyed_url, serve(plain) as plain_url:
        run = run_gate(
            "--nlp-models-file",
            str(models_file(tmp_path, keyed_url, plain_url)),
            "--nlp-thresholds",
            gates(tmp_path),
            *ARGS,
        )
    err = run.result.stderr.str()
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR, err[-2000:]
    assert err.count("ERROR:") == 1 and "Traceback" not in err, err[-2000:]
    assert "sst2-keyed: endpoint" in err and "$SST2_KEY is not set" in err, err[-2000:]
    assert "tok-s3cret" not in err and FALLBACK not in err
    assert keyed.posts == 0  # nothing is sent without the credential


# -- redirects --------------------------------------------------------------------------------


@pytest.mark.parametrize("code", [307, 308])
def test_a_redirect_to_another_origin_carries_no_credential(code: int, secrets: None) -> None:
    other = Behaviour()
    with serve(other) as elsewhere:  # the same host, another port: another origin
        here = Behaviour(redirects={"/away": elsewhere, "/old": "/predict"}, redirect_code=code)
        with serve(here) as url:
            base = url.removesuffix("/predict")
            kept = Endpoint(f"{base}/old", access=ACCESS).predict(["a good movie"])
            dropped = Endpoint(f"{base}/away", access=ACCESS).predict(["a good movie"])
    assert len(kept) == len(dropped) == 1  # the batch went along: the rows came back
    assert here.paths == ["/old", "/predict", "/away"]
    first, same_origin = map(lower, here.received[:2])
    for headers in (first, same_origin):
        assert headers["authorization"] == "Bearer tok-s3cret"
        assert headers["x-api-key"] == "key-s3cret" and headers["x-tenant"] == "team-a"
    (moved,) = map(lower, other.received)
    assert "authorization" not in moved and "x-api-key" not in moved
    assert moved["x-tenant"] == "team-a"  # a plain header is no secret


def test_a_post_is_not_turned_into_a_get_by_a_301(secrets: None) -> None:
    other = Behaviour()
    with serve(other) as elsewhere:
        here = Behaviour(redirects={"/predict": elsewhere}, redirect_code=301)
        with serve(here) as url, pytest.raises(EndpointError) as refused:
            Endpoint(url, access=ACCESS).predict(["a good movie"])
    message = str(refused.value)
    assert f"HTTP 301 Moved Permanently, redirected to {elsewhere}" in message
    assert "give that URL" in message and "(1 try)" in message
    assert other.posts == 0 and "s3cret" not in message


# -- Retry-After ------------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["seconds", "http-date"])
def test_retry_after_is_waited_for_before_the_next_try(form: str) -> None:
    code, value = (
        (429, "1")
        if form == "seconds"
        else (503, email.utils.formatdate(time.time() + 2, usegmt=True))  # 1 to 2 s ahead
    )
    limited = Behaviour(answers=[(code, {"Retry-After": value})])
    with serve(limited) as url:
        # The backoff alone would wait 0.01 s: a wait of a second is the server's.
        rows = Endpoint(url, backoff=0.01).predict(["a good movie"])
    assert len(rows) == 1 and limited.posts == 2
    waited = limited.times[1] - limited.times[0]
    assert 1.0 <= waited < 3.0, waited


def test_a_retry_after_longer_than_nlp_gate_waits_is_given_up_at_once() -> None:
    limited = Behaviour(answers=[(429, {"Retry-After": "3600"})])
    with serve(limited) as url, pytest.raises(EndpointError) as refused:
        Endpoint(url, timeout=5).predict(["a good movie"])
    assert limited.posts == 1
    assert str(refused.value) == (
        f"endpoint {url}: HTTP 429 Too Many Requests, Retry-After 3600 s (more than 60 s) (1 try)"
    )
