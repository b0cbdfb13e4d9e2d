"""--nlp-shard K/N and ``python -m nlp_gate.report merge``: three shards partition a run's
items (every model of a dataset on one shard), and their merged outputs are the one run's:
identical CheckList records, comparison verdicts and p-values (Benjamini-Hochberg adjusted
again over all shards), one verdict with its exit status, one Allure HTML holding every item.
Shards run with and without xdist.  This half checks the split (collection only); the runs
and their merge: ``tests/integration/test_option_shard_merge.py``."""

from __future__ import annotations

import re

import pytest

from fixtures.shard_run import collected as _collected
from fixtures.shard_run import pytest_run as _pytest
from nlp_gate.kinds.comparison.stats import rejudge
from nlp_gate.shard import Shard, ShardError, assign


def test_shards_partition_the_collection_keeping_each_dataset_together() -> None:
    whole = _collected()
    parts = [_collected("--nlp-shard", f"{k}/3") for k in (1, 2, 3)]
    assert sorted(sum(parts, [])) == sorted(whole)  # the union, and no item twice
    assert all(parts)
    datasets = [
        {m.group(1) for item in part for m in [re.search(r"/(\w+)/[\w-]+\]$", item)] if m}
        for part in parts
    ]
    assert all(a.isdisjoint(b) for i, a in enumerate(datasets) for b in datasets[i + 1 :])


def test_shard_option_is_checked() -> None:
    run = _pytest("--co", "--nlp-shard", "4/3")
    assert run.returncode == pytest.ExitCode.USAGE_ERROR
    assert "--nlp-shard '4/3': expected K/N with 1 <= K <= N" in run.stderr
    with pytest.raises(ShardError):
        Shard.parse("0/2")


def test_the_split_is_balanced_largest_first() -> None:
    assert assign({"a": 10, "b": 6, "c": 5, "d": 1}, 2) == {"a": 1, "b": 2, "c": 2, "d": 1}


def test_merge_adjusts_p_values_over_every_shards_comparisons() -> None:
    """Alone on its shard, p = 0.04 is a discovery at alpha 0.05; in the whole run's family
    of two it is not (BH: 0.04 x 2 / 1 = 0.08)."""

    def record(p: float, position: int) -> dict[str, object]:
        return {
            "position": position,
            "p_value": p,
            "p_adjusted": p,
            "alpha": 0.05,
            "delta": 10.0,
            "excess": 10.0,
            "tolerance": 0.0,
            "verdict": "worse",
            "passed": False,
        }

    first, second = rejudge([record(0.04, 0), record(0.5, 1)])
    assert first["p_adjusted"] == pytest.approx(0.08) and first["passed"] is True
    assert first["verdict"] == "no significant difference"
    assert second["p_adjusted"] == pytest.approx(0.5)
