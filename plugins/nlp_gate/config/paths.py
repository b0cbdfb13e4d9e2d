"""Where a run keeps its files: one rule for the plugin (root: pytest's rootdir) and the
command-line tools (root: the working directory); and the user's cache, shared by every
repository (CheckList's released suites, downloaded once)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(root: Path) -> Path:
    """``$NLP_GATE_CACHE``, else ``<root>/.cache``: prediction cache, token files, figures,
    attack resources, the zoo."""
    return Path(os.environ.get("NLP_GATE_CACHE", root / ".cache"))


def zoo_dir(root: Path) -> Path:
    """``$NLP_GATE_ZOO_DIR``, else the cache's ``zoo/``."""
    env = os.environ.get("NLP_GATE_ZOO_DIR")
    return Path(env).expanduser() if env else cache_dir(root) / "zoo"


def user_cache_dir() -> Path:
    """``$NLP_GATE_CACHE``, else ``$XDG_CACHE_HOME/nlp-gate``, else ``~/.cache/nlp-gate``.

    XDG's rule: a relative ``XDG_CACHE_HOME`` is invalid and ignored (it would name a
    different folder from each working directory)."""
    env = os.environ.get("NLP_GATE_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "nlp-gate"
