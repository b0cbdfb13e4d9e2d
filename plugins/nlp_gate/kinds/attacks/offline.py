"""Keeping TextAttack off the network: it downloads what it misses from S3, NLTK and the hubs
the moment a recipe is built, and offline that either fails after a network time-out or hangs.
Here its import is pointed at the bundle (``bundle.Bundle``) and every download path is
turned into ``MissingResources`` naming the file, so an unlisted need is a named skip too.

Apart from ``resources`` (what the recipes need and how to tell it is there) because this is
the process-wide patching, used only once a recipe is actually built.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any
from unittest import mock

from nlp_gate.kinds.attacks.bundle import Bundle
from nlp_gate.kinds.attacks.resources import (
    IMPORT_REQUIREMENTS,
    MissingResources,
    TextAttackFile,
)

_NLTK_PATHS = {
    "stopwords": "corpora/stopwords",
    "wordnet": "corpora/wordnet",
    "omw-1.4": "corpora/omw-1.4",
    "omw": "corpora/omw",
    "punkt": "tokenizers/punkt",
    "averaged_perceptron_tagger": "taggers/averaged_perceptron_tagger",
    "averaged_perceptron_tagger_eng": "taggers/averaged_perceptron_tagger_eng",
    "universal_tagset": "taggers/universal_tagset",
}


def _nltk_download_offline(info_or_id: str | None = None, *args: Any, **kwargs: Any) -> bool:
    """Stands in for ``nltk.download``: reports presence like the real one, never connects."""
    import nltk

    path = _NLTK_PATHS.get(str(info_or_id))
    if path is None:
        return False
    try:
        nltk.data.find(path)
        return True
    except LookupError:
        return False


def import_textattack(bundle: Bundle) -> ModuleType:
    """``import textattack`` pointed at the bundle, without its import-time downloads.

    TextAttack reads TA_CACHE_DIR at import and then re-points HF_HOME, XDG_CACHE_HOME, the
    transformers and TF Hub caches at it; those are restored afterwards, and the libraries that
    read them are imported first so that their caches stay where the user keeps them.  Its
    first import also calls ``nltk.download`` for six packages (offline: one network error or
    timeout each); the offline stand-in answers from disk instead.
    """
    if "textattack" in sys.modules:
        return sys.modules["textattack"]
    absent = [r for r in IMPORT_REQUIREMENTS if not r.present(bundle)]
    if absent:
        raise MissingResources(absent)
    import datasets  # noqa: F401  # before TextAttack re-points its cache (docstring)
    import huggingface_hub  # noqa: F401  # likewise
    import nltk
    import transformers  # noqa: F401  # likewise

    clobbered = ("HF_HOME", "XDG_CACHE_HOME", "PYTORCH_TRANSFORMERS_CACHE", "TFHUB_CACHE_DIR")
    saved = {k: os.environ.get(k) for k in clobbered}
    os.environ["TA_CACHE_DIR"] = str(bundle.textattack)
    try:
        with mock.patch.object(nltk, "download", _nltk_download_offline), warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # PYTORCH_TRANSFORMERS_CACHE notice
            import textattack
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    module: ModuleType = textattack
    return module


@contextmanager
def offline_guard() -> Iterator[None]:
    """While building and running a recipe: TextAttack's downloaders answer from the cache or
    raise ``MissingResources`` naming the file, so an unlisted need is a named skip too; and
    the hub client is offline (every hub file a recipe needs was found in the cache first), so
    a request fails at once and the cached copy is used instead of waiting on the network."""
    import huggingface_hub.constants
    import nltk
    import textattack.shared.utils as ta_utils

    def from_cache(name: str, *args: Any, **kwargs: Any) -> str:
        path: str = ta_utils.path_in_cache(name)
        if os.path.exists(path):
            return path
        raise MissingResources([TextAttackFile(name, "requested by TextAttack while building")])

    def from_url(url: str, save_path: str, *args: Any, **kwargs: Any) -> str:
        path: str = ta_utils.path_in_cache(save_path)
        if os.path.exists(path):
            return path
        raise MissingResources([TextAttackFile(save_path, f"TextAttack download of {url}")])

    with (
        mock.patch.object(nltk, "download", _nltk_download_offline),
        mock.patch.object(ta_utils, "download_from_s3", from_cache),
        mock.patch.object(ta_utils, "download_from_url", from_url),
        mock.patch.object(huggingface_hub.constants, "HF_HUB_OFFLINE", True),
    ):
        yield
