"""An endpoint model's ``auth`` and ``headers`` (``config.endpoint_url.parse_access``), the
headers they make from the environment (``engine.endpoint_http.request_headers``), and the
Retry-After header read as a wait (``retry_after``); no message echoes a value."""

from __future__ import annotations

import email.utils
from pathlib import Path
from typing import Any

import pytest
import yaml

from nlp_gate.config.endpoint_url import TOKEN_ENV, Access, parse_access
from nlp_gate.config.profiles import ProfileError, load_profile
from nlp_gate.engine.endpoint_http import CredentialError, origin, request_headers, retry_after


@pytest.mark.parametrize(
    ("entry", "access"),
    [
        ({}, Access(TOKEN_ENV, False)),
        ({"auth": "none"}, Access(None, False)),
        ({"auth": {"bearer_env": "MY_TOKEN"}}, Access("MY_TOKEN", True)),
        (
            {"headers": {"X-Api-Key": {"env": "MY_KEY"}, "X-Tenant": "a", "X-N": 3}},
            Access(None, False, (("X-Api-Key", "MY_KEY"),), (("X-Tenant", "a"), ("X-N", "3"))),
        ),
        (
            {"auth": {"bearer_env": "T"}, "headers": {"X-Api-Key": {"env": "K"}}},
            Access("T", True, (("X-Api-Key", "K"),)),
        ),
        (
            {"headers": {"Authorization": {"env": "RAW"}}},
            Access(None, False, (("Authorization", "RAW"),)),
        ),
    ],
)
def test_the_entry_names_variables(entry: dict[str, Any], access: Access) -> None:
    assert parse_access(entry) == access


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ({"auth": {"bearer_env": "sk-live-123"}}, "auth must be {bearer_env: VARIABLE}"),
        ({"auth": {"token": "T"}}, "auth must be {bearer_env: VARIABLE}"),
        ({"auth": "s3cret"}, "auth must be {bearer_env: VARIABLE} or none"),
        ({"headers": {"Authorization": "Bearer s3cret"}}, "give it from the environment"),
        ({"headers": {"Content-Type": "text/plain"}}, "not a header a models file may set"),
        ({"headers": {"X-Bad Name": "v"}}, "not a header a models file may set"),
        ({"headers": ["X-Api-Key"]}, "'headers' must map header names"),
        ({"headers": {"X-K": {"env": "K", "default": "s3cret"}}}, "{env: VARIABLE}"),
        (
            {"auth": {"bearer_env": "T"}, "headers": {"authorization": {"env": "K"}}},
            "give two credentials",
        ),
    ],
)
def test_a_wrong_entry_is_refused_without_its_values(entry: dict[str, Any], said: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_access(entry)
    assert said in str(refused.value)
    assert "s3cret" not in str(refused.value) and "sk-live" not in str(refused.value)


def test_the_models_file_keeps_them_for_endpoints_only(tmp_path: Path) -> None:
    def profile(model: dict[str, Any]) -> Any:
        path = tmp_path / "models.yaml"
        task = {"classes": ["negative", "positive"], "suite": None}
        models = {"m": {**model, "labels": ["negative", "positive"]}}
        body = {"datasets": {"d": {"task": "sentiment", "models": models}}}
        path.write_text(yaml.safe_dump({"tasks": {"sentiment": task}, "profiles": {"p": body}}))
        return load_profile("p", path)

    (spec,) = profile({"id": "https://h/p", "auth": {"bearer_env": "T"}}).models
    assert spec.access == Access("T", True)
    with pytest.raises(ProfileError, match=r"d/m: 'auth' and 'headers' are for a served"):
        profile({"id": "org/model", "auth": {"bearer_env": "T"}})
    with pytest.raises(ProfileError, match=r"d/m: headers: .*give it from the environment"):
        profile({"id": "https://h/p", "headers": {"Authorization": "Bearer x"}})


def test_headers_come_from_the_environment() -> None:
    access = Access("T", True, (("X-Api-Key", "K"),), (("X-Tenant", "a"),))
    assert request_headers(access, {"T": "t0k", "K": "k3y"}) == (
        {"Authorization": "Bearer t0k", "X-Api-Key": "k3y"},
        {"X-Tenant": "a"},
    )
    # The fallback token is sent when set, and its absence is no error.
    assert request_headers(Access(), {TOKEN_ENV: "f"}) == ({"Authorization": "Bearer f"}, {})
    assert request_headers(Access(), {}) == ({}, {})
    # An Authorization header of the entry's own is sent as it is, and is required.
    raw = Access(None, False, (("Authorization", "RAW"),))
    assert request_headers(raw, {"RAW": "Token abc", TOKEN_ENV: "f"}) == (
        {"Authorization": "Token abc"},
        {},
    )
    with pytest.raises(CredentialError, match=r"\$RAW is not set"):
        request_headers(raw, {TOKEN_ENV: "f"})


@pytest.mark.parametrize(
    ("environ", "said"),
    [
        ({"K": "k3y"}, "$T is not set"),
        ({"T": "", "K": "k3y"}, "$T is not set"),
        ({"T": "t0k"}, "$K is not set (the models file names it for the X-Api-Key header)"),
        ({"T": "t0k\r\nX-Evil: 1", "K": "k3y"}, "$T holds a character an HTTP header cannot"),
        ({"T": "t0k", "K": "k3y\u00e9"}, "$K holds a character an HTTP header cannot"),
    ],
)
def test_a_credential_that_cannot_be_sent_names_its_variable(
    environ: dict[str, str], said: str
) -> None:
    access = Access("T", True, (("X-Api-Key", "K"),))
    with pytest.raises(CredentialError) as refused:
        request_headers(access, environ)
    assert said in str(refused.value)
    assert "t0k" not in str(refused.value) and "k3y" not in str(refused.value)


def test_an_origin_is_scheme_host_and_port() -> None:
    assert origin("http://H.example:80/a") == origin("http://h.example/b?q=1")
    assert origin("https://h.example/a") == origin("https://h.example:443/b")
    assert origin("http://h.example/a") != origin("https://h.example/a")
    assert origin("http://127.0.0.1:8000/a") != origin("http://127.0.0.1:8001/a")
    assert origin("http://127.0.0.1/a") != origin("http://localhost/a")


NOW = 1_800_000_000.0


@pytest.mark.parametrize(
    ("value", "wait"),
    [
        ("120", 120.0),
        (" 0 ", 0.0),
        (email.utils.formatdate(NOW + 30, usegmt=True), 30.0),
        (email.utils.formatdate(NOW - 30, usegmt=True), 0.0),  # already past: at once
        (email.utils.formatdate(NOW + 5), 5.0),  # "-0000": a zone unknown, taken as GMT
        ("-5", None),
        ("1.5", None),
        ("soon", None),
        (None, None),
    ],
)
def test_retry_after_in_seconds_or_an_http_date(value: str | None, wait: float | None) -> None:
    headers = {} if value is None else {"Retry-After": value}
    assert retry_after(headers, now=NOW) == wait
