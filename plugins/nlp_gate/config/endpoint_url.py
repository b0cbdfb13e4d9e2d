"""Served endpoints' URLs (``http://…``, ``https://…``) as model sources, told apart and named
as plain text: the models file and ``--nlp-model`` parse them without the engine
(``nlp_gate.engine.endpoint`` is what sends requests)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

PREFIXES = ("http://", "https://")
# The one credential an endpoint gets: a bearer token, from the environment only.
TOKEN_ENV = "NLP_GATE_ENDPOINT_TOKEN"


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
