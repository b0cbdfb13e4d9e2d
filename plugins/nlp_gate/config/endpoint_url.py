"""Served endpoints' URLs (``http://…``, ``https://…``) as model sources, told apart and named
as plain text: the models file and ``--nlp-model`` parse them without the engine
(``nlp_gate.engine.endpoint`` is what sends requests)."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

PREFIXES = ("http://", "https://")
# The one credential an endpoint gets: a bearer token, from the environment only.
TOKEN_ENV = "NLP_GATE_ENDPOINT_TOKEN"
# Query parameters that look like secrets (token, api_key, access_token, sig, signature,
# password, Azure Functions' code, ...): sent, never recorded.
SECRET_PARAM = re.compile(r"token|key|sig|pass|pwd|secret|auth|credential|^code$", re.I)
# public URL -> the secret query parameters it was given with, for this process's requests
# (every process parses the models anew from the same options: xdist workers too).
_SECRETS: dict[str, list[tuple[str, str]]] = {}


def is_endpoint_source(source: str) -> bool:
    return source.startswith(PREFIXES)


def endpoint_name(url: str) -> str:
    """A report column name for ``url``: host, port and path, without '/', ':' or '@'."""
    parts = urlsplit(url)
    return re.sub(r"[^\w.]+", "-", f"{parts.hostname}-{parts.port or ''}{parts.path}").strip("-")


def split_version(given: str) -> tuple[str, str | None]:
    """``URL@VERSION`` -> (URL, VERSION): a declared version; '@' counts only in the URL's
    last part (a ``user@host`` is left whole, to be refused)."""
    head, _, last = given.rpartition("/")
    if "@" not in last:
        return given, None
    last, _, version = last.rpartition("@")
    return f"{head}/{last}", version or None


def public_url(url: str) -> str:
    """``url`` as reports, messages, the fingerprint and the prediction cache name it: without
    user, password, fragment or query parameters that look like secrets (the others stay:
    they may select the model)."""
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    kept = [
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if not SECRET_PARAM.search(k)
    ]
    return urlunsplit((parts.scheme, f"{parts.hostname}{port}", parts.path, urlencode(kept), ""))


def remember(url: str) -> str:
    """The public URL of a model source ``url``, its secret query parameters kept in this
    process only, for ``request_url``: a spec carries the public URL, so that nothing that
    names the model (results.json, reports, messages, the cache) ever holds them."""
    secrets = [
        (k, v)
        for k, v in parse_qsl(urlsplit(url).query, keep_blank_values=True)
        if SECRET_PARAM.search(k)
    ]
    public = public_url(url)
    if secrets:
        _SECRETS[public] = secrets
    return public


def request_url(public: str) -> str:
    """The URL requests go to: the public URL with the secret parameters it was given with."""
    secrets = _SECRETS.get(public)
    if not secrets:
        return public
    parts = urlsplit(public)
    query = urlencode([*parse_qsl(parts.query, keep_blank_values=True), *secrets])
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))
