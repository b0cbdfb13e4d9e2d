"""Served endpoints' URLs (``http://…``, ``https://…``) as model sources, named and kept free of
secrets as plain text, and what a model's entry in the models file says it sends (``Access``):
the models file and ``--nlp-model`` parse them without the engine (``nlp_gate.engine.endpoint``
is what sends requests; which strings are endpoints, ``nlp_gate.sources.endpoint``'s to say)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

# The bearer token of an endpoint model whose entry names no credential of its own (every
# ``--nlp-model TASK=URL``): from the environment only, sent when set.
TOKEN_ENV = "NLP_GATE_ENDPOINT_TOKEN"
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110's token
# Set by the client for every request (the batch's own framing): not a models file's to give.
CLIENT_HEADERS = frozenset({"host", "content-type", "content-length", "transfer-encoding"})
# Query parameters that look like secrets (token, api_key, access_token, sig, signature,
# password, Azure Functions' code, ...): sent, never recorded.
SECRET_PARAM = re.compile(r"token|key|sig|pass|pwd|secret|auth|credential|^code$", re.I)
# public URL -> the secret query parameters it was given with, for this process's requests
# (every process parses the models anew from the same options: xdist workers too).
_SECRETS: dict[str, list[tuple[str, str]]] = {}


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


@dataclass(frozen=True)
class Access:
    """What an endpoint model sends besides its batch, as its models-file entry says: the
    environment variables that hold its secrets, by name (a spec, and so anything that names
    a model, never holds a value), and headers that are no secret.

    ``bearer_env``: the variable sent as ``Authorization: Bearer …`` (None: no Authorization);
    ``required``: the entry named it, so an unset one stops the run (the fallback
    ``NLP_GATE_ENDPOINT_TOKEN`` is sent only when set).  ``secret_headers``: (header,
    variable) pairs; ``headers``: (header, value) pairs sent as written."""

    bearer_env: str | None = TOKEN_ENV
    required: bool = False
    secret_headers: tuple[tuple[str, str], ...] = ()
    headers: tuple[tuple[str, str], ...] = ()


def parse_access(entry: Mapping[str, Any]) -> Access:
    """The ``auth`` and ``headers`` of a models-file entry; ValueError, a message naming the
    key (never a value that could be a secret), when they are not what the file format says.

    ``auth: {bearer_env: VAR}`` sends $VAR as a bearer token; ``auth: none`` sends no
    Authorization.  ``headers: {Name: {env: VAR}}`` sends $VAR as a secret header, ``{Name:
    value}`` a plain one.  An entry with neither gets ``NLP_GATE_ENDPOINT_TOKEN`` when set; one
    with secret headers and no ``auth`` gets no bearer token (its headers authenticate it)."""
    secret: list[tuple[str, str]] = []
    plain: list[tuple[str, str]] = []
    given = entry.get("headers") or {}
    if not isinstance(given, Mapping):
        raise ValueError("'headers' must map header names to values or to {env: VARIABLE}")
    for name, value in given.items():
        name = str(name)
        if not HEADER_NAME.fullmatch(name) or name.lower() in CLIENT_HEADERS:
            raise ValueError(
                f"headers: {name!r} is not a header a models file may set (a token name, "
                f"not one of {', '.join(sorted(CLIENT_HEADERS))})"
            )
        if isinstance(value, Mapping):
            secret.append((name, _variable(value, "env", f"headers: {name}")))
        elif name.lower() in ("authorization", "proxy-authorization"):
            raise ValueError(  # not echoed: it is a credential written into the file
                f"headers: {name} is given as a value; give it from the environment, "
                f"{{{name}: {{env: VARIABLE}}}} (a credential written into the file would "
                "be in the repository)"
            )
        elif isinstance(value, str | int | float) and not isinstance(value, bool):
            plain.append((name, str(value)))
        else:
            raise ValueError(f"headers: {name} must be a value or {{env: VARIABLE}}")
    auth = entry.get("auth", ...)
    if auth is ...:
        bearer = None if secret else TOKEN_ENV
        return Access(bearer, False, tuple(secret), tuple(plain))
    if isinstance(auth, str) and auth.lower() == "none":
        bearer = None
    elif isinstance(auth, Mapping):
        bearer = _variable(auth, "bearer_env", "auth")
    else:
        raise ValueError("auth must be {bearer_env: VARIABLE} or none")
    if bearer is not None and any(h.lower() == "authorization" for h, _ in secret):
        raise ValueError("auth and headers: Authorization give two credentials; keep one")
    return Access(bearer, bearer is not None, tuple(secret), tuple(plain))


def _variable(given: Mapping[str, Any], key: str, where: str) -> str:
    """The environment variable's name ``given[key]`` (the only key), or ValueError."""
    name = given.get(key)
    if set(given) != {key} or not isinstance(name, str) or not ENV_NAME.fullmatch(name):
        raise ValueError(f"{where} must be {{{key}: VARIABLE}}, an environment variable's name")
    return name
