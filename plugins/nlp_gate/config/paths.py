"""Where a run keeps its files: one rule for the plugin (root: pytest's rootdir) and the
command-line tools (root: the working directory)."""

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
