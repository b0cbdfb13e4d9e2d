"""What a stored prediction is keyed by: the model's fingerprint and the exact input.

Apart from the cache itself (``prediction_cache``) because the engine computes both keys
whether or not a cache is in use, and a key must never depend on how it is stored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable, Iterable

# Not in typeshed nor json's documentation, but what json.dumps itself calls for a str
# (the C encoder, since Python 2.6); tests/integration/test_prediction_cache.py checks they agree.
from json.encoder import encode_basestring
from pathlib import Path


def fingerprint(parts: dict[str, object], files: Iterable[Path]) -> str:
    """sha256 over the described settings and the content of ``files`` (sorted by name)."""
    h = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode())
    for path in sorted(files, key=lambda p: p.name):
        h.update(path.name.encode())
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def input_key(x: Hashable) -> str:
    """Exact, unambiguous text key of one input (a text or a pair of texts): its JSON text,
    ``json.dumps(x, ensure_ascii=False)``.

    Texts and pairs of texts are encoded with the json module's own string encoder, which is
    what ``json.dumps`` calls for them, without its per-call setup: a third of the time, for
    the same key (a suite asks ~170k keys of each model).
    """
    if isinstance(x, str):
        return encode_basestring(x)
    if isinstance(x, tuple) and all(isinstance(part, str) for part in x):
        return "[" + ", ".join(map(encode_basestring, x)) + "]"
    return json.dumps(x, ensure_ascii=False)
