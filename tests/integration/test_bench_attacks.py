"""benchmarks/bench_attacks.py: the plugin's attack item and TextAttack's own ``Attacker`` on
the same examples, seed and budget give byte-identical logs (one cheap recipe, tiny budget),
and the comparison would say so if they did not."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from fixtures.gate_run import REPO

BENCH = REPO / "benchmarks" / "bench_attacks.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_attacks", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def deepwordbug_runs_here() -> None:
    from nlp_gate.kinds.attacks import resources
    from nlp_gate.kinds.attacks.bundle import Bundle
    from nlp_gate.kinds.attacks.recipes import registry

    bundle = Bundle(REPO / ".cache" / "attack-resources")
    recipe = next(r for r in registry() if r.name == "deepwordbug")
    absent = resources.missing(recipe.needs, bundle)
    if absent:
        pytest.skip(resources.describe_missing(recipe.name, absent, bundle))


def test_our_item_and_textattacks_attacker_agree_byte_for_byte(
    zoo: Path, deepwordbug_runs_here: None, tmp_path: Path
) -> None:
    figures = tmp_path / "bench.json"
    run = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--recipes",
            "deepwordbug",
            "--models",
            "rte-bert",
            "--examples",
            "2",
            "--query-budget",
            "40",
            "--repeat",
            "1",
            "--json",
            str(figures),
        ],
        check=False,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    (row,) = json.loads(figures.read_text())["rows"]
    assert (row["recipe"], row["model"], row["difference"]) == ("deepwordbug", "rte-bert", None)
    assert len(row["theirs_s"]) == len(row["ours_s"]) == 1 and row["ratio"] > 0
    assert "| deepwordbug | rte-bert | theirs |" in run.stdout and "| 1 of 1 |" in run.stdout


def test_the_comparison_names_the_first_difference(tmp_path: Path) -> None:
    bench = _bench()
    (tmp_path / "a.txt").write_bytes(b"--- Result 1 ---\n[[Positive (99%)]]\n")
    (tmp_path / "b.txt").write_bytes(b"--- Result 1 ---\n[[Positive (98%)]]\n")
    result = {
        "type": "SuccessfulAttackResult",
        "original_output": 0,
        "perturbed_output": 1,
        "num_queries": 7,
        "perturbed_text": ["a b"],
    }
    theirs = {"repeatable": True, "results": [result], "log": str(tmp_path / "a.txt")}
    assert bench.compare(theirs, dict(theirs)) is None
    other_log = bench.compare(theirs, {**theirs, "log": str(tmp_path / "b.txt")})
    assert other_log is not None and other_log.startswith("logs differ at byte 30: ")
    assert "(99%)" in other_log and "(98%)" in other_log
    other_text = bench.compare(theirs, {**theirs, "results": [{**result, "num_queries": 8}]})
    assert other_text is not None and other_text.startswith("example 0: ")
    assert (
        bench.compare(theirs, {**theirs, "repeatable": False}) == "ours: the repeated runs differ"
    )
