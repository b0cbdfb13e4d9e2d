"""``--nlp-shard K/N``: the K-th of N disjoint parts of a run's items, one per machine of a CI
matrix; ``python -m nlp_gate.report merge`` joins their outputs into one gate.

Items are split by dataset: every model of a dataset, so every comparison (candidate and
baseline share a dataset), stays on one shard, which loads only its own models and computes
its comparisons from both models' outcomes; the merge recomputes what spans the whole run
(Benjamini-Hochberg over every comparison).  Datasets are dealt out by expected cost, largest
first to the least loaded shard (LPT): a dataset's cost is the sum over its selected items of
the size of the weights they run, i.e. items x model size (an item's own input count is not
known before it is built).  The same selection gives the same split in every process, so
xdist workers within a shard agree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from nlp_gate.config import ConfigurationError


class ShardError(ConfigurationError):
    """A shard option that cannot be used."""


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based, as written on the command line
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
        if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
            raise ShardError(f"--nlp-shard {text!r}: expected K/N with 1 <= K <= N, e.g. 2/3")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def weights_size(location: str) -> int:
    """Bytes of a local checkpoint's weight files; 1 when unknown (a hub id, a function)."""
    path = Path(location)
    if not path.is_dir():
        return 1
    return (
        sum(
            p.stat().st_size
            for p in path.iterdir()
            if p.suffix in (".safetensors", ".bin", ".pt", ".onnx")
        )
        or 1
    )


def assign(costs: dict[str, float], count: int) -> dict[str, int]:
    """Each group's shard (1-based): largest cost first onto the least loaded shard; ties by
    group name, so the split never depends on the order items were collected in."""
    loads = [0.0] * count
    placed: dict[str, int] = {}
    for group in sorted(costs, key=lambda g: (-costs[g], g)):
        shard = min(range(count), key=lambda s: (loads[s], s))
        loads[shard] += costs[group]
        placed[group] = shard + 1
    return placed


def split(groups: Iterable[tuple[str | None, float]], shard: Shard) -> list[bool]:
    """For each item's (group, cost), whether it belongs to ``shard``; items of no group
    (no model) go to the first shard."""
    items = list(groups)
    costs: dict[str, float] = {}
    for group, cost in items:
        if group is not None:
            costs[group] = costs.get(group, 0.0) + cost
    placed = assign(costs, shard.count)
    return [
        placed.get(group, 1) == shard.index if group is not None else shard.index == 1
        for group, _ in items
    ]
