"""Set values in the text of a YAML file, keeping everything else of it byte for byte.

A thresholds file is read by people: its comments say where each gate came from. A YAML
library that loads and dumps the file loses them, so the calibration writes its gates into the
text instead: each value is replaced where it stands (found with PyYAML's node positions), a
missing key is added after the last entry of its mapping, and the comments, the order and the
layout of the rest are left alone. ``set_values`` checks that the new text parses to the old
one with exactly those values set.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any

import yaml

Path_ = Sequence[str]  # keys from the document's root
WIDTH = 100  # a flow mapping longer than this is wrapped, its lines aligned after its brace


class YamlTextError(Exception):
    """A key path that runs through something that is not a mapping."""


def set_values(text: str, values: Iterable[tuple[Path_, Any]]) -> str:
    """``text`` with each ``(path, value)`` set, in order; the rest unchanged."""
    expected = yaml.safe_load(text) or {}
    for path, value in values:
        text = set_value(text, path, value)
        _set(expected, path, value)
    if yaml.safe_load(text) != expected:  # a bug here must never write a wrong gate
        raise RuntimeError("the edited YAML does not parse to the values set")
    return text


def set_value(text: str, path: Path_, value: Any) -> str:
    root = yaml.compose(text)
    if root is None:  # empty, or comments only
        return (
            text
            + ("\n" if text and not text.endswith("\n") else "")
            + _block(_nest(path, value), 0)
        )
    if not isinstance(root, yaml.MappingNode) or root.flow_style:
        raise YamlTextError("expected the file to be a mapping in block style")
    node: yaml.Node = root
    key_node: yaml.Node | None = None
    for depth, key in enumerate(path):
        rest = path[depth:]
        if key_node is not None and not isinstance(node, yaml.MappingNode):
            if node.tag != "tag:yaml.org,2002:null":
                raise YamlTextError(f"{'.'.join(path[:depth])} is not a mapping")
            return _replace(text, key_node, node, _nest(rest, value))
        assert isinstance(node, yaml.MappingNode)
        if node.flow_style:
            assert key_node is not None
            merged = yaml.safe_load(text[node.start_mark.index : node.end_mark.index]) or {}
            _set(merged, rest, value)
            return _replace(text, key_node, node, merged)
        pair = next((p for p in node.value if p[0].value == key), None)
        if pair is None:
            return _insert(text, node, _nest(rest, value))
        key_node, node = pair
    assert key_node is not None
    return _replace(text, key_node, node, value)


def _replace(text: str, key: yaml.Node, old: yaml.Node, value: Any) -> str:
    """``key``'s value ``old`` replaced by ``value``: a block mapping in the old one's place
    and indentation (comments before its first key kept), a flat flow mapping as flow, any
    other mapping in block style under the key, anything else after the colon."""
    end = _end(text, old)
    if isinstance(value, dict) and value:
        if isinstance(old, yaml.MappingNode) and not old.flow_style:
            column = old.start_mark.column
            start = old.start_mark.index - column
            return text[:start] + _block(value, column).rstrip("\n") + text[end:]
        colon = text.index(":", key.end_mark.index) + 1
        if isinstance(old, yaml.MappingNode) and not any(
            isinstance(v, dict) for v in value.values()
        ):
            # flow stays flow while it is flat: nested mappings read better in block style
            column = colon + 1 - (text.rfind("\n", 0, colon) + 1)
            return text[:colon] + " " + _flow(value, column) + text[end:]
        block = _block(value, key.start_mark.column + 2).rstrip("\n")
        line_end = _line_end(text, end)  # a comment after the old value stays on the key's line
        return text[:colon] + text[end:line_end] + "\n" + block + text[line_end:]
    colon = text.index(":", key.end_mark.index) + 1
    return text[:colon] + " " + _inline(value) + text[end:]


def _insert(text: str, mapping: yaml.MappingNode, value: dict[str, Any]) -> str:
    """``value``'s keys added after the last entry of ``mapping``."""
    end = _line_end(text, _end(text, mapping))  # after a comment on the last entry's line
    column = mapping.value[0][0].start_mark.column
    return text[:end] + "\n" + _block(value, column).rstrip("\n") + text[end:]


def _line_end(text: str, index: int) -> int:
    end = text.find("\n", index)
    return len(text) if end < 0 else end


def _end(text: str, node: yaml.Node) -> int:
    """Where ``node``'s own text ends: a block collection's end mark is the next token's start,
    past the comments and blank lines that follow it, which belong to the next key."""
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style:
        last = node.value[-1]
        return _end(text, last[1] if isinstance(node, yaml.MappingNode) else last)
    end = int(node.end_mark.index)
    while end > node.start_mark.index and text[end - 1] in " \t\r\n":
        end -= 1
    return end


class _Dumper(yaml.SafeDumper):  # type: ignore[misc]  # PyYAML is untyped: its base is Any
    """PyYAML's safe dumper, but a key of one line is written as a plain key whatever its
    length: PyYAML writes one of 128 characters or more (its tag counted) as an explicit
    ``? key`` entry on two lines, and some CheckList test names reach that."""

    analysis: Any  # PyYAML's analysis of the scalar being written

    def check_simple_key(self) -> bool:
        if isinstance(self.event, yaml.ScalarEvent):
            if self.analysis is None:
                self.analysis = self.analyze_scalar(self.event.value)
            # YAML's own limit for an implicit key is 1024 characters.
            return bool(
                not self.analysis.empty
                and not self.analysis.multiline
                and len(self.analysis.scalar) < 1000
            )
        return bool(super().check_simple_key())


def _block(value: Any, column: int) -> str:
    dumped = yaml.dump(value, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)
    pad = " " * column
    return "".join(pad + line if line.strip() else line for line in dumped.splitlines(True))


def _inline(value: Any) -> str:
    dumped = str(yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10**6))
    return dumped.removesuffix("\n").removesuffix("\n...").strip()


def _flow(value: dict[str, Any], column: int) -> str:
    """``{k: v, ...}`` starting at ``column``, wrapped at ``WIDTH`` under its first key."""
    pad = " " * (column + 1)
    pieces = [f"{_inline(k)}: {_inline(v)}," for k, v in value.items()]
    pieces[-1] = pieces[-1][:-1] + "}"
    lines, line, offset = [], "{", column  # offset: the column ``line`` starts at
    for piece in pieces:
        joined = line + ("" if line in ("{", pad) else " ") + piece
        if offset + len(joined) > WIDTH and line not in ("{", pad):
            lines.append(line)
            line, offset = pad + piece, 0
        else:
            line = joined
    return "\n".join([*lines, line])


def _nest(path: Path_, value: Any) -> dict[str, Any]:
    for key in reversed(path):
        value = {key: value}
    return dict(value)


def _set(doc: dict[str, Any], path: Path_, value: Any) -> None:
    for key in path[:-1]:
        if not isinstance(doc.get(key), dict):
            doc[key] = {}
        doc = doc[key]
    doc[path[-1]] = copy.deepcopy(value)
