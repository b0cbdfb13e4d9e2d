"""Served endpoints as model sources: ``http://…``, ``https://…`` (docs/reference/endpoints.md).

Two protocols, told apart by the URL: a path ending in ``/invocations`` is MLflow's scoring
protocol (``{"inputs": [...]}`` in, ``{"predictions": [[...], ...]}`` out); any other URL the
plain JSON batch protocol (``{"inputs": [...]}`` in, ``{"probabilities": [[...], ...]}`` out).
A transformers-flavor model served by MLflow answers label/score pairs per input instead,
mapped to probability rows in the model's label order (``label_scores``).
An input is a text, or a pair of texts as a two-element list.

Batches of ``--nlp-batch-size`` inputs go out ``CONCURRENCY`` at a time, each with
``--nlp-endpoint-timeout``; a 429, a 5xx, a timeout or a dropped connection is retried
``RETRIES`` times with exponential backoff (or after the server's ``Retry-After``), then the
items that needed the batch fail with one line.  Credentials and headers come from the
environment variables a model's entry names (``endpoint_http``; ``NLP_GATE_ENDPOINT_TOKEN``
for one that names none): a URL with a user or password in it is refused, no report ever
sees a credential, and no redirect carries one to another origin.  Query parameters that
look like secrets (``?token=``, ``?sig=``, ...) are sent but never recorded: a spec holds the
public URL (``config.endpoint_url.remember``).

Fingerprint: a declared version (``URL@v3``, the models file's ``revision``), else the
endpoint's ``X-Model-Version`` response header, else none (memoised for the run only).

Only the standard library: no extra is needed to gate an endpoint.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Hashable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

__all__ = ["EndpointClassifier", "endpoint_name", "split_version"]

import numpy as np

from nlp_gate.config.endpoint_url import (
    Access,
    endpoint_name,
    public_url,
    request_url,
    split_version,
)
from nlp_gate.config.specs import ModelSpec
from nlp_gate.engine.checkpoint import ModelLoadError
from nlp_gate.engine.endpoint_http import (
    RETRY_AFTER_CAP,
    RETRY_AFTER_STATUSES,
    CredentialError,
    build_request,
    opener,
    request_headers,
    retry_after,
)
from nlp_gate.engine.function_model import (
    FunctionClassifier,
    PredictionError,
    probe_batch,
    validate_rows,
)
from nlp_gate.engine.prediction_cache import PredictionCache
from nlp_gate.engine.predictor import LoadOptions
from nlp_gate.engine.rows import InputIndex

VERSION_HEADER = "X-Model-Version"
CONCURRENCY = 4  # requests in flight per model: a served model is shared, never flooded
RETRIES = 4  # after the first try: 0.5 + 1 + 2 + 4 s of backoff before a batch is given up
BACKOFF = 0.5
DEFAULT_TIMEOUT = 30.0


class EndpointError(ModelLoadError):
    """An endpoint that cannot answer; the message is one line, without a credential."""


class Endpoint:
    """One URL's client: the protocol, the bounded retries, and a count of the prediction
    requests it sent (what a warm run must not send)."""

    def __init__(
        self,
        url: str,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = RETRIES,
        backoff: float = BACKOFF,
        access: Access | None = None,
    ) -> None:
        self.url, self.timeout, self.retries, self.backoff = url, timeout, retries, backoff
        self.access = access if access is not None else Access()
        self.mlflow = urlsplit(url).path.rstrip("/").endswith("/invocations")
        self.requests = 0
        self.version: str | None = None  # the last X-Model-Version header seen
        self._headers: tuple[dict[str, str], dict[str, str]] | None = (
            None  # read once, on first use
        )
        self._opener: urllib.request.OpenerDirector  # with them: redirects keep secrets home

    def problem(self) -> str | None:
        """What makes the endpoint unusable before anything is sent: credentials in the URL,
        a credential its entry names that is not set."""
        parts = urlsplit(self.url)
        if parts.username or parts.password:
            return (
                f"endpoint {self.shown}: credentials in the URL are refused (they would "
                "reach the reports); name the environment variable that holds the token in "
                "the models file (auth: {bearer_env: VARIABLE}), or set "
                "$NLP_GATE_ENDPOINT_TOKEN"
            )
        try:
            self.headers()
        except EndpointError as exc:
            return str(exc)
        return None

    def headers(self) -> tuple[dict[str, str], dict[str, str]]:
        """(secret, plain) headers of every request, from the environment at first use."""
        if self._headers is None:
            try:
                self._headers = request_headers(self.access, os.environ)
            except CredentialError as exc:
                raise EndpointError(f"endpoint {self.shown}: {exc}") from None
            self._opener = opener(self._headers[0])
        return self._headers

    @property
    def shown(self) -> str:
        """The URL as reports name it: without user, password or secret query parameters."""
        return public_url(self.url)

    def predict(self, batch: list[Hashable], connect_retries: bool = True) -> list[Any]:
        """The endpoint's rows for ``batch``, retried on 429, 5xx, timeouts and dropped
        connections (``connect_retries``: a start-up does not wait to learn that nothing
        listens); an ``EndpointError`` of one line when every try failed."""
        body = json.dumps(
            {"inputs": [list(x) if isinstance(x, tuple) else x for x in batch]}
        ).encode()
        attempts = 1 + self.retries
        reason, delay = "", 0.0
        for attempt in range(attempts):
            if attempt:
                time.sleep(delay)
            delay = self.backoff * 2**attempt  # before the next try, unless the server says
            try:
                return self._post(body)
            except urllib.error.HTTPError as exc:
                reason = f"HTTP {exc.code} {exc.reason}"
                if exc.code != 429 and exc.code < 500:  # the request is wrong: no retry
                    break
                asked = retry_after(exc.headers) if exc.code in RETRY_AFTER_STATUSES else None
                if asked is not None:
                    cap = max(RETRY_AFTER_CAP, self.timeout)
                    if asked > cap:  # a quota, not a burst: waiting would only delay the end
                        reason += f", Retry-After {asked:.0f} s (more than {cap:g} s)"
                        break
                    delay = asked
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
                cause = getattr(exc, "reason", exc)
                reason = (
                    f"no answer within {self.timeout:g} s"
                    if isinstance(cause, TimeoutError) or "timed out" in str(cause)
                    else f"unreachable ({cause})"
                )
                if not connect_retries:
                    break
        tries = f"{attempt + 1} tr{'y' if attempt == 0 else 'ies'}"
        raise EndpointError(f"endpoint {self.shown}: {reason} ({tries})")

    def _post(self, body: bytes) -> list[Any]:
        secret, plain = self.headers()
        request = build_request(self.url, body, secret, plain)
        self.requests += 1
        with self._opener.open(request, timeout=self.timeout) as response:
            self.version = response.headers.get(VERSION_HEADER) or self.version
            raw = response.read()
        key = "predictions" if self.mlflow else "probabilities"
        try:
            rows = json.loads(raw)[key]
        except (ValueError, KeyError, TypeError):
            raise EndpointError(
                f"endpoint {self.shown} answered without {key!r}: {raw[:120]!r}"
            ) from None
        return list(rows)


def preflight_endpoint(spec: ModelSpec, timeout: float) -> str | None:
    """What stops an endpoint model at start-up, or None: credentials in its URL, no answer
    to a probe batch (tried once: a start-up waits for no backoff), or an answer that is not
    class probabilities."""
    endpoint = Endpoint(request_url(spec.source), timeout, access=spec.access)
    problem = endpoint.problem()
    if problem:
        return f"{spec.key}: {problem}"
    if spec.revision is not None:
        # A declared version may be answered from the cache whole: a warm run then sends
        # no prediction, and start-up only asks whether anything answers at the URL.
        return _unreachable(spec, endpoint)
    batch = probe_batch(spec)
    try:
        validate_rows(
            spec,
            label_scores(
                spec, endpoint.shown, endpoint.predict(list(batch), connect_retries=False)
            ),
            len(batch),
        )
    except ModelLoadError as exc:
        return f"{spec.key}: {exc} (on a probe batch {batch!r})"
    return None


def _unreachable(spec: ModelSpec, endpoint: Endpoint) -> str | None:
    """Whether a GET of the URL gets any HTTP answer (a 405 is an answer: the server is up)."""
    try:  # no credential: any answer, a 401 included, says that the server is up
        with urllib.request.urlopen(endpoint.url, timeout=endpoint.timeout):
            return None
    except urllib.error.HTTPError:
        return None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        return f"{spec.key}: endpoint {endpoint.shown}: unreachable ({getattr(exc, 'reason', exc)})"


def label_scores(spec: ModelSpec, shown: str, rows: list[Any]) -> list[Any]:
    """``rows`` as probability rows in ``spec.labels`` order when they are label/score pairs
    (what MLflow's scoring server answers for a transformers text-classification pipeline:
    ``{"0": {"label": ..., "score": ...}, "1": ...}`` per input, or a list of such pairs);
    any other rows as they are, for ``validate_rows``.  A pipeline that answers its top label
    only, or labels that are not the model's, is refused: a probability row cannot be made
    from them honestly."""
    if not rows or not all(
        isinstance(row, dict)
        or (isinstance(row, list) and row and all(isinstance(x, dict) for x in row))
        for row in rows
    ):
        return rows
    where = f"{spec.key} (endpoint {shown})"
    out = []
    for row in rows:
        if isinstance(row, dict) and "label" in row:
            raise PredictionError(
                f"{where} answers one label and its score per input, not every label's "
                "score: a transformers text-classification pipeline logged without all its "
                "class scores; log it with model_config={'top_k': None} (MLflow) so that it "
                "answers a score for each label"
            )
        pairs = list(row.values()) if isinstance(row, dict) else row
        scores: dict[str, float] = {}
        for pair in pairs:
            if not isinstance(pair, dict) or "label" not in pair or "score" not in pair:
                raise PredictionError(
                    f"{where} answered {pair!r} among its label scores; "
                    "expected {'label': ..., 'score': ...}"
                )
            label = str(pair["label"])
            name = spec.task.canonical(label) or spec.task.canonical(label.lower())
            if name is None or name not in spec.labels or name in scores:
                raise PredictionError(
                    f"{where} answered scores for labels "
                    f"{[str(p.get('label')) for p in pairs]}, which do not name each of the "
                    f"model's labels {list(spec.labels)} once (its config's id2label); give "
                    "the served checkpoint those label names"
                )
            scores[name] = pair["score"]
        if len(scores) != len(spec.labels):
            raise PredictionError(
                f"{where} answered scores for labels {sorted(scores)} only; the model's "
                f"labels are {list(spec.labels)}: serve every label's score"
            )
        out.append([scores[label] for label in spec.labels])
    return out


class EndpointClassifier(FunctionClassifier):
    """``Classifier``'s memo, cache and batching over an endpoint: batches sent
    ``CONCURRENCY`` at a time, every batch's rows checked."""

    def __init__(
        self,
        spec: ModelSpec,
        endpoint: Endpoint,
        options: LoadOptions,
        cache: PredictionCache | None,
        version: str | None,
        inputs: InputIndex | None,
    ) -> None:
        super().__init__(spec, endpoint.predict, options, None, inputs)
        self.endpoint = endpoint
        # The URL in it even without a version: two unversioned endpoints are two models.
        self.fingerprint = hashlib.sha256(
            json.dumps(["endpoint", endpoint.shown, version, list(spec.labels)]).encode()
        ).hexdigest()
        if version is not None:
            self.cache = cache
            self.fingerprint_source = "declared" if spec.revision else "endpoint"

    def _checked(self, returned: Any, n: int) -> np.ndarray:
        return validate_rows(self.spec, label_scores(self.spec, self.endpoint.shown, returned), n)

    def _forward(self, inputs: list[Hashable]) -> np.ndarray:
        size = self.options.batch_size
        batches = [list(inputs[start : start + size]) for start in range(0, len(inputs), size)]
        out = np.empty((len(inputs), len(self._order)), dtype=np.float64)
        with ThreadPoolExecutor(max_workers=CONCURRENCY) as pool:
            for n, returned in enumerate(pool.map(self.endpoint.predict, batches)):
                batch = batches[n]
                rows = self._checked(returned, len(batch))
                out[n * size : n * size + len(batch)] = rows[:, self._order]
                self.largest_batch_rows = max(self.largest_batch_rows, len(batch))
                self._advance(len(batch))
        self.forward_count += len(inputs)
        return out


def load_endpoint_classifier(
    spec: ModelSpec, options: LoadOptions, timeout: float, inputs: InputIndex | None = None
) -> EndpointClassifier:
    """The engine of an endpoint.  Without a declared version one probe batch asks the
    endpoint for its ``X-Model-Version`` header: with one, its answers persist under it."""
    endpoint = Endpoint(request_url(spec.source), timeout, access=spec.access)
    problem = endpoint.problem()
    if problem:
        raise EndpointError(problem)
    version = spec.revision
    if version is None:
        endpoint.predict(probe_batch(spec))
        version = endpoint.version
    cache = (
        PredictionCache(options.cache, options.cache_max_mb << 20)
        if options.cache and version is not None
        else None
    )
    return EndpointClassifier(spec, endpoint, options, cache, version, inputs)
