"""Cross-check the decoded CheckList release suites against CheckList itself on Python 3.7.

Development tool only: the gate never runs or imports this, and Python 3.7 is never a
runtime dependency.  It exists to show that ``nlp_gate.suites`` (which decodes
the suites on Python 3.11 *without* running their pickled code) gives exactly the same
per-test verdicts as loading the pickles natively with ``TestSuite.from_file``, which only
works on the Python 3.6/3.7 they were written for.

Both sides run every test of both suites with the same deterministic fake predictors
(class probabilities derived from a sha256 of the input, so no model and no randomness)
and the same ``n``/``seed``; the per-test fail/filter indices must be identical.

Setup of the Python 3.7 side (a throwaway venv outside the repository):

    ~/.pyenv/versions/3.7.16/bin/python -m venv /tmp/cl37
    /tmp/cl37/bin/pip install --no-deps checklist-pattern==0.0.11
    # checklist's viewer imports ipywidgets and spacy; IPython 8+ is refused by checklist
    /tmp/cl37/bin/pip install --only-binary=:all: dill munch numpy ipywidgets "ipython<8" "spacy<3.8"

Run (from the repository root):

    .venv/bin/python scripts/crosscheck_release_suites.py all --py37 /tmp/cl37/bin/python --workdir /tmp/xc

(writes native.json, decoded.json and index-native.json: each test's name, capability,
type, number of cases and examples, and recorded expectation closure tree, as seen by 3.7)

or the steps separately (each writes JSON you can diff):

    /tmp/cl37/bin/python scripts/crosscheck_release_suites.py native --out /tmp/xc/native.json \
        --index /tmp/xc/index-native.json
    .venv/bin/python scripts/crosscheck_release_suites.py decoded --out /tmp/xc/decoded.json
    .venv/bin/python scripts/crosscheck_release_suites.py compare /tmp/xc/native.json /tmp/xc/decoded.json

The JSON holds test names, counts and indices only, never the suites' texts; keep it out of
the repository anyway.  This file must stay Python 3.7 compatible.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SUITE_DIR = REPO_ROOT.parent / "shared" / "reference" / "checklist-release"
SUITES = {"sentiment": 3, "qqp": 2}  # suite -> number of classes its model predicts
# (predictor variant, n, seed): full runs, plus sampled runs to cover CheckList's
# np.random.seed/choice path (RandomState's stream is frozen across numpy versions).
# "constant" always predicts class 1 with fixed confidences (the pass-heavy paths).
RUNS = [
    ("hash", None, None),
    ("normalized", None, None),
    ("constant", None, None),
    ("hash", 200, 7),
    ("normalized", 50, 2020),
]


# --- deterministic fake predictors (identical floats on 3.7/numpy 1 and 3.11/numpy 2) -----


def _key(example: Any, normalize: bool) -> str:
    parts = list(example) if isinstance(example, (tuple, list)) else [example]
    if normalize:
        # Case/punctuation-blind and order-blind: makes many INV cases pass, so verdicts mix.
        parts = sorted(" ".join(re.findall(r"[a-z0-9]+", str(p).lower())) for p in parts)
    return json.dumps(parts, ensure_ascii=True)  # escapes non-ASCII: no Unicode-version drift


def _probs(example: Any, n_classes: int, variant: str) -> list[int]:
    if variant == "constant":
        return [1] * n_classes if n_classes < 2 else [1, 3] + [1] * (n_classes - 2)
    normalized = variant == "normalized"
    digest = hashlib.sha256((variant + "\x00" + _key(example, normalized)).encode("ascii")).digest()
    weights = [int.from_bytes(digest[2 * i : 2 * i + 2], "big") + 1 for i in range(n_classes)]
    if normalized:
        weights = [w**3 for w in weights]  # peakier: confident predictions, exact in ints
    return weights


def make_predictor(
    n_classes: int, variant: str
) -> Callable[[Sequence[Any]], tuple[np.ndarray, np.ndarray]]:
    def predict(examples: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        weights = np.array([_probs(e, n_classes, variant) for e in examples], dtype=np.float64)
        confs = weights / weights.sum(axis=1, keepdims=True)
        return np.argmax(confs, axis=1), confs

    return predict


# --- running and describing tests (same code on both sides) --------------------------------


def run_suite(suite: Any, n_classes: int) -> dict[str, Any]:
    out = {}
    for name, test in suite.tests.items():
        runs = []
        for variant, n, seed in RUNS:
            test.run(
                make_predictor(n_classes, variant), overwrite=True, verbose=False, n=n, seed=seed
            )
            stats = {
                k: (float(v) if isinstance(v, float) else int(v))
                for k, v in test.get_stats().items()
            }
            runs.append(
                {
                    "variant": variant,
                    "n": n,
                    "seed": seed,
                    "stats": stats,
                    "fail_idxs": [int(i) for i in test.fail_idxs()],
                    "filtered_idxs": [int(i) for i in test.filtered_idxs()],
                }
            )
        out[name] = runs
    return out


def shape_of(fn: Any) -> str:
    """``co_name(freevar=...)`` of a live closure tree; matches expectations.describe_record."""
    if not isinstance(fn, types.FunctionType):
        return repr(fn)
    cells = ", ".join(
        f"{n}={shape_of(c.cell_contents)}"
        for n, c in zip(fn.__code__.co_freevars, fn.__closure__ or ())
    )
    return f"{fn.__code__.co_name}({cells})"


def index_entry(name: str, test: Any, recorded: str, construction: str | None) -> dict[str, Any]:
    examples, _ = test.example_list_and_indices()
    entry = {
        "name": name,
        "capability": test.capability,
        "type": type(test).__name__,
        "n_cases": len(test.data),
        "n_examples": len(examples),
        "expect": recorded,
    }
    if construction is not None:
        entry["construction"] = construction
    return entry


def _read_member(suite_dir: Path, suite: str) -> bytes:
    with tarfile.open(str(suite_dir / f"{suite}_suite.tar.gz"), "r:gz") as tf:
        member = tf.extractfile(f"{suite}_suite.pkl")
        assert member is not None
        return member.read()


def side_native(suite_dir: Path) -> dict[str, Any]:
    from checklist.test_suite import (
        TestSuite,  # Python 3.6/3.7 only: runs the pickled code
    )

    result: dict[str, Any] = {"side": "native", "python": sys.version, "suites": {}, "index": {}}
    for suite_name, n_classes in SUITES.items():
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"{suite_name}_suite.pkl"
            path.write_bytes(_read_member(suite_dir, suite_name))
            start = time.time()
            suite = TestSuite.from_file(str(path))
            load_s = time.time() - start
        result["index"][suite_name] = [
            index_entry(n, t, shape_of(t.expect), None) for n, t in suite.tests.items()
        ]
        result["suites"][suite_name] = {"load_s": load_s, "tests": run_suite(suite, n_classes)}
    return result


def side_decoded(suite_dir: Path) -> dict[str, Any]:
    sys.path.insert(0, str(REPO_ROOT))
    from nlp_gate.suites import info_of, load_suite, locate

    result: dict[str, Any] = {"side": "decoded", "python": sys.version, "suites": {}, "index": {}}
    for suite_name, n_classes in SUITES.items():
        start = time.time()
        suite = load_suite(suite_name, locate(suite_name, [suite_dir]))
        load_s = time.time() - start
        result["index"][suite_name] = [
            index_entry(n, t, info_of(t.expect).recorded, info_of(t.expect).construction)
            for n, t in suite.tests.items()
        ]
        result["suites"][suite_name] = {"load_s": load_s, "tests": run_suite(suite, n_classes)}
    return result


def compare(native: dict[str, Any], decoded: dict[str, Any]) -> int:
    problems: list[str] = []
    compared = 0
    for suite_name in SUITES:
        n_idx = native["index"][suite_name]
        d_idx = decoded["index"][suite_name]
        if [e["name"] for e in n_idx] != [e["name"] for e in d_idx]:
            problems.append(f"{suite_name}: test names/order differ")
        for ne, de in zip(n_idx, d_idx):
            for field in ("capability", "type", "n_cases", "n_examples", "expect"):
                if ne[field] != de[field]:
                    problems.append(
                        f"{suite_name}/{ne['name']}: {field} {ne[field]!r} != {de[field]!r}"
                    )
        n_tests = native["suites"][suite_name]["tests"]
        d_tests = decoded["suites"][suite_name]["tests"]
        for name, n_runs in n_tests.items():
            compared += 1
            d_runs = d_tests.get(name)
            if d_runs != n_runs:
                problems.append(f"{suite_name}/{name}: results differ")
        n_cases, n_examples = (sum(e[k] for e in n_idx) for k in ("n_cases", "n_examples"))
        print(
            f"{suite_name}: {len(n_idx)} tests, {n_cases} cases, {n_examples} examples; load "
            f"{native['suites'][suite_name]['load_s']:.2f}s native "
            f"(py{native['python'].split()[0]}) / {decoded['suites'][suite_name]['load_s']:.2f}s decoded"
        )
        fails = sum(r["stats"].get("fails", 0) for runs in n_tests.values() for r in runs)
        print(f"  {len(RUNS)} runs per test, {fails} failing test cases in total across runs")
    for p in problems:
        print("MISMATCH", p)
    verdict = f"{len(problems)} mismatches" if problems else "identical"
    print(f"compared {compared} tests x {len(RUNS)} runs: {verdict}")
    return 1 if problems else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd")
    for cmd in ("native", "decoded"):
        p = sub.add_parser(cmd)
        p.add_argument("--suite-dir", type=Path, default=DEFAULT_SUITE_DIR)
        p.add_argument("--out", type=Path, required=True)
        p.add_argument("--index", type=Path, help="also write just the per-test index here")
    p = sub.add_parser("compare")
    p.add_argument("native", type=Path)
    p.add_argument("decoded", type=Path)
    p = sub.add_parser("all")
    p.add_argument("--py37", required=True, help="python of the 3.7 venv with checklist")
    p.add_argument(
        "--workdir", type=Path, default=Path(tempfile.gettempdir()) / "checklist-crosscheck"
    )
    p.add_argument("--suite-dir", type=Path, default=DEFAULT_SUITE_DIR)
    args = parser.parse_args(argv)

    if args.cmd in ("native", "decoded"):
        result = (side_native if args.cmd == "native" else side_decoded)(args.suite_dir)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1, sort_keys=True))
        if args.index:
            args.index.write_text(json.dumps(result["index"], indent=1))
        return 0
    if args.cmd == "compare":
        return compare(json.loads(args.native.read_text()), json.loads(args.decoded.read_text()))
    if args.cmd == "all":
        args.workdir.mkdir(parents=True, exist_ok=True)
        native_json, decoded_json = args.workdir / "native.json", args.workdir / "decoded.json"
        env = dict(os.environ, PYTHONPATH="")  # the 3.7 side must not see this repo's venv
        subprocess.run(
            [
                args.py37,
                __file__,
                "native",
                "--suite-dir",
                str(args.suite_dir),
                "--out",
                str(native_json),
                "--index",
                str(args.workdir / "index-native.json"),
            ],
            check=True,
            env=env,
        )
        decoded_json.write_text(json.dumps(side_decoded(args.suite_dir), indent=1, sort_keys=True))
        return compare(json.loads(native_json.read_text()), json.loads(decoded_json.read_text()))
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
