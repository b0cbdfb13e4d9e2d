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


# PyYAML has no type information here (no types-PyYAML): its loader is Any to mypy.
class _UniqueKeyLoader(yaml.SafeLoader):  # type: ignore[misc]
    """YAML's safe loader, refusing a mapping that gives a key twice: PyYAML keeps the last
    one silently, so a gate or a model written twice (a pasted block) would lose the first
    without a word."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, yaml.Node] = {}
        for key_node, _ in node.value:
            # Only plain keys: a merge (``<<: *base``) may be overridden by design, and a
            # complex key is left to the loader's own checks.
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag.endswith(":merge"):
                continue
            key = self.construct_object(key_node)
            first = seen.setdefault(key, key_node)
            if first is not key_node:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"duplicate key {key!r}: also at line {first.start_mark.line + 1}",
                    key_node.start_mark,
                )
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return mapping


def read_yaml(path: Path, what: str, error: type[ConfigurationError]) -> Any:
    """``path`` parsed with YAML's safe loader (no tag can build an object or run code); a
    missing file, a syntax error or a key given twice in one mapping is ``error``, one line
    naming the file, line and column (and a duplicate's first line)."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise error(f"{what} not found: {path}") from None
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # a SafeLoader: safe_load's tags only
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
