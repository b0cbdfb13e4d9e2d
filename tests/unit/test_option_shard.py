"""--nlp-shard K/N and ``python -m nlp_gate.report merge``: three shards partition a run's
items (every model of a dataset on one shard), and their merged outputs are the one run's:
identical CheckList records, comparison verdicts and p-values (Benjamini-Hochberg adjusted
again over all shards), one verdict with its exit status, one Allure HTML holding every item.
Shards run with and without xdist."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from nlp_gate.comparison_stats import rejudge
from nlp_gate.shard import Shard, ShardError, assign

from fixtures.gate_run import REPO

SELECT = ("-m", "(checklist or regression) and (fairness or negation)", "--nlp-sample", "10")


def _pytest(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", str(REPO / "tests_behavioral"), "--rootdir", str(REPO),
         "-c", str(REPO / "pyproject.toml"), "-p", "no:cacheprovider", *args],
        cwd=REPO, capture_output=True, text=True, timeout=900)


def _collected(*args: str) -> list[str]:
    run = _pytest("--co", "-q", *SELECT, *args)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    return [line for line in run.stdout.splitlines() if "::" in line]


def _merge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nlp_gate.report", "merge", *args],
                          cwd=REPO, capture_output=True, text=True, timeout=300)


def test_shards_partition_the_collection_keeping_each_dataset_together() -> None:
    whole = _collected()
    parts = [_collected("--nlp-shard", f"{k}/3") for k in (1, 2, 3)]
    assert sorted(sum(parts, [])) == sorted(whole)  # the union, and no item twice
    assert all(parts)
    datasets = [{m.group(1) for item in part
                 for m in [re.search(r"/(\w+)/[\w-]+\]$", item)] if m} for part in parts]
    assert all(a.isdisjoint(b) for i, a in enumerate(datasets) for b in datasets[i + 1:])


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
        return {"position": position, "p_value": p, "p_adjusted": p, "alpha": 0.05,
                "delta": 10.0, "excess": 10.0, "tolerance": 0.0, "verdict": "worse",
                "passed": False}

    first, second = rejudge([record(0.04, 0), record(0.5, 1)])
    assert first["p_adjusted"] == pytest.approx(0.08) and first["passed"] is True
    assert first["verdict"] == "no significant difference"
    assert second["p_adjusted"] == pytest.approx(0.5)


def _allure_names(reports: Path) -> list[str]:
    subprocess.run(["bash", str(REPO / "scripts" / "allure_html.sh"), str(reports)], cwd=REPO,
                   check=True, capture_output=True, timeout=300,
                   env={**os.environ, "NLP_GATE_PYTHON_BIN": sys.executable})
    by_id = json.loads((reports / "allure-report" / "test-results.json").read_text())["byId"]
    return sorted(r["name"] for r in by_id.values())


@pytest.mark.skipif(shutil.which("npx") is None, reason="the Allure HTML needs Node.js (npx)")
def test_three_shards_merged_are_the_one_run(tmp_path: Path) -> None:
    def run(name: str, *args: str) -> subprocess.CompletedProcess[str]:
        return _pytest(*SELECT, "--nlp-results", str(tmp_path / name / "results.json"),
                       "--alluredir", str(tmp_path / name / "allure-results"), *args)

    whole = run("whole", "-n", "2")
    shards = [run(f"shard{k}", "--nlp-shard", f"{k}/3", "-n", "2" if k == 2 else "0")
              for k in (1, 2, 3)]
    for r in (whole, *shards):
        assert r.returncode in (0, 1), r.stdout[-3000:] + r.stderr[-2000:]
    merged = _merge(*(str(tmp_path / f"shard{k}") for k in (1, 2, 3)),
                    "--out", str(tmp_path / "merged"))
    assert merged.returncode == whole.returncode, merged.stdout[-3000:] + merged.stderr
    one = json.loads((tmp_path / "whole" / "results.json").read_text())
    joined = json.loads((tmp_path / "merged" / "results.json").read_text())
    assert one["records"] and joined["records"] == one["records"]
    assert one["comparisons"] and joined["comparisons"] == one["comparisons"]
    assert joined["summary"] == one["summary"] and joined["run"]["merged_shards"] == [
        "1/3", "2/3", "3/3"]
    line = re.search(r"release gate (PASSED|FAILED).*", whole.stdout)
    assert line and line.group(0) in merged.stdout
    assert (tmp_path / "merged" / "tables" / "table2.md").read_text() == (
        tmp_path / "whole" / "tables" / "table2.md").read_text()
    names = _allure_names(tmp_path / "merged")
    assert names == _allure_names(tmp_path / "whole")
    assert sum(n.startswith("Release gate summary") for n in names) == 1 and len(names) > 100


def test_merge_refuses_an_incomplete_split(tmp_path: Path) -> None:
    for k in (1, 3):
        run = _pytest(*SELECT, "--nlp-shard", f"{k}/3", "--nlp-results",
                      str(tmp_path / f"shard{k}" / "results.json"))
        assert run.returncode in (0, 1), run.stdout[-2000:]
    merged = _merge(str(tmp_path / "shard1"), str(tmp_path / "shard3"),
                    "--out", str(tmp_path / "merged"))
    assert merged.returncode == 4
    assert merged.stderr.startswith("ERROR: shards 1/3, 3/3 given; missing 2/3")
    assert not (tmp_path / "merged" / "results.json").exists()
