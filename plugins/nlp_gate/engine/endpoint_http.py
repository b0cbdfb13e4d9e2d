"""The HTTP of a served endpoint beneath its protocol (``nlp_gate.engine.endpoint``): the
headers one request carries (a model's credentials, read from the environment variables its
models-file entry names), redirects that never carry a credential to another origin, and a
server's ``Retry-After``.

The standard library's redirect handler copies every header onto the next request, wherever
it goes: an ``Authorization`` would reach any host a server (or whoever answers in its place)
redirects to.  Here secret headers are set as urllib's *unredirected* headers, which it
never copies, and ``SameOriginRedirects`` adds them back only when the redirect stays on the
same scheme, host and port.
"""

from __future__ import annotations

import datetime
import email.utils
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping
from http.client import HTTPMessage
from typing import IO, Any
from urllib.parse import urlsplit

from nlp_gate.config.endpoint_url import Access, public_url

# A server's Retry-After is honoured on these answers (RFC 9110 10.2.3: 503; RFC 6585: 429).
RETRY_AFTER_STATUSES = (429, 503)
# The longest Retry-After a batch waits for (or --nlp-endpoint-timeout, when longer): a
# per-minute rate limit is waited out; a server asking for more is given up on at once.
RETRY_AFTER_CAP = 60.0


class CredentialError(ValueError):
    """A credential a model's entry names that cannot be sent; the message names the
    environment variable, never its value."""


def request_headers(
    access: Access, environ: Mapping[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """(secret headers, plain headers) of a model's requests, their values from ``environ``;
    ``CredentialError`` for a variable the entry names that is unset or empty, or whose value
    no HTTP header can carry (a line break: http.client would put the value in its error)."""
    secret: dict[str, str] = {}
    bearer = environ.get(access.bearer_env, "") if access.bearer_env else ""
    if bearer or access.required:  # the fallback token is sent only when set
        secret["Authorization"] = f"Bearer {_value(environ, access.bearer_env, 'Authorization')}"
    for header, variable in access.secret_headers:
        secret[header] = _value(environ, variable, header)
    return secret, dict(access.headers)


def _value(environ: Mapping[str, str], variable: str | None, header: str) -> str:
    value = environ.get(variable or "", "")
    if not value:
        raise CredentialError(
            f"${variable} is not set (the models file names it for the {header} header); "
            "export it before the run"
        )
    if not value.isprintable() or not value.isascii():
        raise CredentialError(
            f"${variable} holds a character an HTTP header cannot carry (a line break, a "
            "control or non-ASCII character); check how it is set"
        )
    return value


def origin(url: str) -> tuple[str, str, int | None]:
    """Scheme, host and port: what must stay the same for a credential to follow a redirect
    (another port is another origin: another server may listen there)."""
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port or default


class SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects as urllib follows them, except: a POST follows a 307 or 308 with its body
    (urllib refuses them) and is refused a 301, 302 or 303 (urllib would turn it into a GET
    without the batch, which a prediction server answers with a 405); only ``http``/``https``
    targets; and the secret headers ``secret`` names go along only to the same origin."""

    def __init__(self, secret: Iterable[str]) -> None:
        super().__init__()
        # urllib stores a header name capitalized (Request.add_unredirected_header).
        self.secret = [name.capitalize() for name in secret]

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        if urlsplit(newurl).scheme.lower() not in ("http", "https"):
            raise urllib.error.HTTPError(
                req.full_url, code, f"{msg}, redirected to a non-HTTP URL", headers, fp
            )
        method = req.get_method()
        new: urllib.request.Request | None
        if method == "POST" and code in (307, 308):
            new = urllib.request.Request(
                newurl.replace(" ", "%20"),
                data=req.data,
                headers=dict(req.headers),  # not the unredirected ones: no secret, no Host
                origin_req_host=req.origin_req_host,
                unverifiable=True,
                method="POST",
            )
        elif method == "POST":
            raise urllib.error.HTTPError(
                req.full_url,
                code,
                f"{msg}, redirected to {public_url(newurl)}, where a POST is not followed "
                "(only a 307 or 308 keeps the batch): give that URL",
                headers,
                fp,
            )
        else:
            new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and origin(new.full_url) == origin(req.full_url):
            for name in self.secret:  # only those this request carried: none once dropped
                value = req.unredirected_hdrs.get(name)
                if value is not None:
                    new.add_unredirected_header(name, value)
        return new


def opener(secret: Iterable[str]) -> urllib.request.OpenerDirector:
    """urllib's default opener (proxies from the environment, HTTPS) with
    ``SameOriginRedirects`` for the secret headers named ``secret`` in place of its redirect
    handler."""
    return urllib.request.build_opener(SameOriginRedirects(secret))


def build_request(
    url: str, body: bytes, secret: Mapping[str, str], plain: Mapping[str, str]
) -> urllib.request.Request:
    """A POST of ``body`` to ``url``: plain headers as headers, secret ones unredirected."""
    request = urllib.request.Request(
        url, data=body, headers={**plain, "Content-Type": "application/json"}, method="POST"
    )
    for name, value in secret.items():
        request.add_unredirected_header(name, value)
    return request


def retry_after(headers: Any, now: float | None = None) -> float | None:
    """The seconds a ``Retry-After`` header asks to wait (delay-seconds or an HTTP-date; a date
    in the past is 0), or None when there is none or it cannot be read."""
    value = headers.get("Retry-After") if headers is not None else None
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # "-0000", RFC 5322's unknown zone: HTTP-dates are in GMT
        when = when.replace(tzinfo=datetime.UTC)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))
