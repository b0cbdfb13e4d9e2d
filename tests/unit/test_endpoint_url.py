"""Endpoint URLs as model sources (``nlp_gate.config.endpoint_url``): what is recorded of a
URL (no user, password or secret-looking query parameter) and what requests go to."""

from __future__ import annotations

import pytest

from nlp_gate.config import endpoint_url
from nlp_gate.config.endpoint_url import public_url, remember, request_url


@pytest.mark.parametrize(
    ("given", "public"),
    [
        ("https://h.example.com/sst2/predict", "https://h.example.com/sst2/predict"),
        ("https://me:pw@h.example.com:8443/p#frag", "https://h.example.com:8443/p"),
        ("https://h/p?token=t1&model=sst2&api_key=k1", "https://h/p?model=sst2"),
        (
            "https://h/p?access_token=a&sig=s&Signature=s2&password=p&code=c&sv=2024",
            "https://h/p?sv=2024",
        ),
        ("https://h/p?X-Api-Key=k&secret=s&auth=a", "https://h/p"),
    ],
)
def test_the_public_url_has_no_credentials(given: str, public: str) -> None:
    assert public_url(given) == public


def test_secret_parameters_are_sent_but_only_the_public_url_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(endpoint_url, "_SECRETS", {})
    public = remember("https://h/invocations?model=a&token=t0p")
    assert public == "https://h/invocations?model=a" and "t0p" not in public
    assert request_url(public) == "https://h/invocations?model=a&token=t0p"
    assert request_url("https://other/p") == "https://other/p"  # given without secrets
    assert remember("https://h/plain") == "https://h/plain" == request_url("https://h/plain")


@pytest.mark.parametrize(
    "entry", ["nosuchtask=https://h/p?token=t0p", "sentiment-x=https://h/p?api_key=t0p@v3"]
)
def test_a_refused_model_option_is_not_echoed_with_its_secret(entry: str) -> None:
    from nlp_gate.config.profiles import ProfileError, cli_profile

    with pytest.raises(ProfileError) as refused:
        cli_profile([entry])
    assert "t0p" not in str(refused.value) and "https://h/p" in str(refused.value)
