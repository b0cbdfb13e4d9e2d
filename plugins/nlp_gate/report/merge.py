"""``python -m nlp_gate.report merge SHARD_DIR... --out DIR``: the outputs of ``--nlp-shard``
runs joined into one ``results.json``, one set of reports and one release-gate verdict.

Each shard folder holds a run's ``results.json`` and, if the run had ``--alluredir``, its
``allure-results/``.  The shards must be the N parts of one split (1/N .. N/N, each once) of
one configuration (profile, models, seed, sample): a missing or repeated shard is an error,
not a smaller gate.  Records go back into one order by their ``position``; what spans the run
is computed again over all of it: what a kind judges over all its records
(``ReportPart.merged``: the comparisons' Benjamini-Hochberg family, which a shard adjusted
over its own comparisons only) and every summary, table and plot.  The Allure
results are copied into one folder with one release-gate summary entry.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from nlp_gate.config import ConfigurationError
from nlp_gate.report import Reports, write_reports
from nlp_gate.report.parts import report_parts
from nlp_gate.report.verdict import exit_status, verdict, with_verdict
from nlp_gate.results import ResultStore, write_atomically

# What must agree between the shards of one run (run block keys).
SAME = ("profile", "seed", "sample", "models")


class MergeError(ConfigurationError):
    """Shard outputs that do not make one run."""


def _load(folder: Path) -> dict[str, Any]:
    path = folder / "results.json"
    if not path.is_file():
        raise MergeError(f"{path} not found: is {folder} the --nlp-results folder of a shard?")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def shard_problems(runs: dict[Path, dict[str, Any]]) -> list[str]:
    """The shard labels, in order; raises when they are not one complete split of one run."""
    labels = {folder: results["run"].get("shard") for folder, results in runs.items()}
    if None in labels.values():
        plain = [str(f) for f, label in labels.items() if label is None]
        raise MergeError(f"not a shard's results (run without --nlp-shard): {', '.join(plain)}")
    counts = {label.split("/")[1] for label in labels.values()}
    if len(counts) != 1:
        raise MergeError(f"shards of different splits: {', '.join(sorted(labels.values()))}")
    n = int(counts.pop())
    given = sorted(labels.values(), key=lambda label: int(label.split("/")[0]))
    expected = [f"{k}/{n}" for k in range(1, n + 1)]
    if given != expected:
        missing = sorted(set(expected) - set(given), key=expected.index)
        repeated = sorted({g for g in given if given.count(g) > 1})
        raise MergeError(
            f"shards {', '.join(given)} given; "
            + "; ".join(
                [f"missing {', '.join(missing)}"] * bool(missing)
                + [f"repeated {', '.join(repeated)}"] * bool(repeated)
            )
        )
    first = next(iter(runs.values()))["run"]
    for folder, results in runs.items():
        differing = [k for k in SAME if results["run"].get(k) != first.get(k)]
        if differing:
            raise MergeError(
                f"{folder}/results.json is of another run than the first shard "
                f"(differs in: {', '.join(differing)})"
            )
    return given


def merged_results(
    runs: dict[Path, dict[str, Any]],
) -> tuple[ResultStore, dict[str, Any], bool, int]:
    """(records by section, the run block, interrupted, exit status) of the whole run."""
    shards = shard_problems(runs)
    store = ResultStore()
    sections = {s for r in runs.values() for s, v in r.items() if isinstance(v, list)}
    parts = {part.key: part for part in report_parts()}
    for section in sorted(sections):
        rows = [row for r in runs.values() for row in r.get(section, [])]
        if section in parts:
            rows = parts[section].merged(rows)
        for i, row in enumerate(rows):
            row = dict(row)
            store.add(section, row.pop("position", i), row)
    run = {**next(iter(runs.values()))["run"], "shard": None, "merged_shards": shards}
    interrupted = any(r.get("interrupted") for r in runs.values())
    return store, run, interrupted, next(filter(None, map(_outside_gates, runs.values())), 0)


def _outside_gates(results: dict[str, Any]) -> int:
    """A shard's exit status when it says more than its records: no verdict (3, or pytest's
    2, 4, 5; a shard of an earlier version: 1 while every gate held), else 0.  A shard that
    failed a gate exited 1 for it, and the merged records judge that again (a comparison
    may be judged otherwise over the whole Benjamini-Hochberg family)."""
    status = int(results.get("exitstatus") or 0)
    if status == 1 and verdict(results).status == "failed":
        return 0
    return status


def merge(folders: list[Path], out: Path) -> tuple[Reports, int]:
    """Write ``out/results.json``, its reports and, when the shards have them, the Allure
    results into ``out/allure-results``; return the reports and the shards' exit status."""
    runs = {folder: _load(folder) for folder in folders}
    store, run, interrupted, status = merged_results(runs)
    results = out / "results.json"
    body = store.body(run, interrupted=interrupted, exitstatus=status)
    # What the merge exits with, by the merged verdict, as a run's results.json records it.
    body["exitstatus"] = exit_status(status, verdict(body, status).status)
    write_atomically(results, json.dumps(with_verdict(body), indent=2) + "\n")
    alluredir = None
    sources = [f / "allure-results" for f in folders if (f / "allure-results").is_dir()]
    if sources:
        alluredir = out / "allure-results"
        alluredir.mkdir(parents=True, exist_ok=True)
        for source in sources:  # uuid-named files: no two shards write the same name
            for path in source.iterdir():
                if path.is_file():
                    shutil.copy2(path, alluredir / path.name)
    reports = write_reports(results, out, alluredir=alluredir, exitstatus=status)
    return reports, status
