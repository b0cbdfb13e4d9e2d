"""--nlp-shard K/N and ``python -m nlp_gate.report merge``, run: three shards merged are the
one run (records, comparison verdicts, p-values, verdict, exit status, one Allure HTML), and
an incomplete split is refused.  Shards run with and without xdist.  The split itself:
``tests/unit/test_option_shard.py``."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from fixtures.shard_run import SELECT
from fixtures.shard_run import allure_names as _allure_names
from fixtures.shard_run import merge as _merge
from fixtures.shard_run import pytest_run as _pytest


@pytest.mark.skipif(shutil.which("npx") is None, reason="the Allure HTML needs Node.js (npx)")
def test_three_shards_merged_are_the_one_run(tmp_path: Path) -> None:
    def run(name: str, *args: str) -> subprocess.CompletedProcess[str]:
        return _pytest(
            *SELECT,
            "--nlp-results",
            str(tmp_path / name / "results.json"),
            "--alluredir",
            str(tmp_path / name / "allure-results"),
            *args,
        )

    whole = run("whole", "-n", "2")
    shards = [
        run(f"shard{k}", "--nlp-shard", f"{k}/3", "-n", "2" if k == 2 else "0") for k in (1, 2, 3)
    ]
    for r in (whole, *shards):
        assert r.returncode in (0, 1), r.stdout[-3000:] + r.stderr[-2000:]
    merged = _merge(
        *(str(tmp_path / f"shard{k}") for k in (1, 2, 3)), "--out", str(tmp_path / "merged")
    )
    assert merged.returncode == whole.returncode, merged.stdout[-3000:] + merged.stderr
    one = json.loads((tmp_path / "whole" / "results.json").read_text())
    joined = json.loads((tmp_path / "merged" / "results.json").read_text())
    assert one["records"] and joined["records"] == one["records"]
    assert one["comparisons"] and joined["comparisons"] == one["comparisons"]
    assert joined["summary"] == one["summary"] and joined["run"]["merged_shards"] == [
        "1/3",
        "2/3",
        "3/3",
    ]
    line = re.search(r"release gate (PASSED|FAILED).*", whole.stdout)
    assert line and line.group(0) in merged.stdout
    assert (tmp_path / "merged" / "tables" / "table2.md").read_text() == (
        tmp_path / "whole" / "tables" / "table2.md"
    ).read_text()
    names = _allure_names(tmp_path / "merged")
    assert names == _allure_names(tmp_path / "whole")
    assert sum(n.startswith("Release gate summary") for n in names) == 1 and len(names) > 100


def test_merge_refuses_an_incomplete_split(tmp_path: Path) -> None:
    for k in (1, 3):
        run = _pytest(
            *SELECT,
            "--nlp-shard",
            f"{k}/3",
            "--nlp-results",
            str(tmp_path / f"shard{k}" / "results.json"),
        )
        assert run.returncode in (0, 1), run.stdout[-2000:]
    merged = _merge(
        str(tmp_path / "shard1"), str(tmp_path / "shard3"), "--out", str(tmp_path / "merged")
    )
    assert merged.returncode == 4
    assert merged.stderr.startswith("ERROR: shards 1/3, 3/3 given; missing 2/3")
    assert not (tmp_path / "merged" / "results.json").exists()
