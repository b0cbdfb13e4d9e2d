"""Configuration: the models file (profiles), ``thresholds.yaml``, and where a run's files live.

Everything here is plain data parsed once per process; nothing imports torch.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml


class ConfigurationError(ValueError):
    """A configuration the run cannot use (models file, thresholds, missing suite): a usage
    error before any item runs.  The message says how to fix it."""


def read_yaml(path: Path, what: str, error: type[ConfigurationError]) -> Any:
    """``path`` parsed with YAML's safe loader (no tag can build an object or run code); a
    missing file or a syntax error is ``error``, one line naming the file, line and column."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise error(f"{what} not found: {path}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise error(f"{where}: not valid YAML ({problem}); fix the {what} at that line") from None


def at_least(minimum: int, meaning: str = "") -> Callable[[str], int]:
    """An ``addoption`` type: an integer of at least ``minimum``, else a usage error (exit
    4) naming the option and the allowed range, before anything runs (``--nlp-sample 0``
    failed every item with a numpy traceback)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be an integer >= {minimum}{meaning}, got {text!r}"
            ) from None
        if value < minimum:
            raise argparse.ArgumentTypeError(
                f"must be an integer >= {minimum}{meaning}, got {value}"
            )
        return value

    parse.__name__ = f"integer >= {minimum}"  # argparse's name for the type in its errors
    return parse
