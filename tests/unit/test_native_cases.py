"""Native tests build the same cases in every process: across Python hash seeds (each xdist
worker has its own), and their case files round-trip through JSON (text pairs included)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from checklist.test_types import INV, MFT

from fixtures.gate_run import REPO
from nlp_gate.native.cases import read_cases, write_cases

DIGESTS = """
import hashlib, importlib, json
from nlp_gate.native.definition import definition_of
from nlp_gate.packaged import modules
from nlp_gate.pytest_plugin.plugin import NATIVE_ITEMS
out = {}
for path in (m for m in modules(NATIVE_ITEMS) if m.name.startswith("test_")):
    module = importlib.import_module(f"nlp_gate.native_tests.{path.stem}")
    for name, function in sorted(vars(module).items()):
        definition = definition_of(function)
        if definition is not None:
            test = definition.generate(1)
            blob = json.dumps([test.data, test.labels], default=str).encode()
            out[f"{definition.suite}/{definition.name}"] = hashlib.sha256(blob).hexdigest()
print(json.dumps(out))
"""


def _digests(hash_seed: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    run = subprocess.run(
        [sys.executable, "-c", DIGESTS],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def test_every_native_test_builds_the_same_cases_under_any_hash_seed() -> None:
    first, second = _digests("1"), _digests("2")
    assert len(first) >= 3 * 10 * 2 - 6  # the three tasks' native suites
    assert first == second


def test_case_files_round_trip_strings_and_pairs(tmp_path: Path) -> None:
    header = {
        "suite": "s",
        "test": "t",
        "capability": "Logic",
        "type": "inv",
        "task": "x",
        "seed": 1,
        "source": "here",
    }
    pairs = INV([[("a?", "b?"), ("b?", "a?")], [("c?", "d?"), ("d?", "c?")]])
    write_cases(tmp_path / "pairs.jsonl", header, pairs)
    data, labels, meta = read_cases(tmp_path / "pairs.jsonl")
    assert (data, labels, meta) == (pairs.data, None, None)
    single = MFT(["good", "bad"], labels=[1, 0])
    write_cases(tmp_path / "single.jsonl", header, single)
    assert read_cases(tmp_path / "single.jsonl") == (["good", "bad"], [1, 0], None)
