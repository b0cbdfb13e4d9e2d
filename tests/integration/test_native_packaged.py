"""The native suites ship in the package (issue 31): a user's repository without a clone of
this one gets them by the ini key ``nlp_gate_native_suites = true`` or by ``--pyargs
nlp_gate.native_tests``, at ``-n 0`` and ``-n 2``, with the reports in *its* rootdir; with
neither, it runs only its own tests.

The repositories are ``fixtures/function_repo.py``'s: a ``module:function`` classifier beside
``pytest.ini`` and a team's own native test in ``tests_behavioral/``.  The package is this
environment's (an editable install, outside the user's repository), and once a copy inside
the repository's ``.venv``, as a wheel install puts it (the folder pytest's walk skips).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fixtures.function_repo import function_repo
from fixtures.user_repo import package_environment
from nlp_gate.native.definition import definition_of

MODEL = "sentiment=mymod:predict"
# The packaged Vocabulary tests of the sentiment task (the function is a sentiment model).
VOCABULARY = {
    "sentiment_positive_words",
    "sentiment_negative_words",
    "sentiment_intensifier_keeps_confidence",
}
OWN_TEST = "plain_words"  # fixtures/function_repo.py's PLAIN_WORDS_TEST


def _packaged_test_names() -> set[str]:
    """The names of every packaged native test (81), as results.json's ``test`` has them."""
    import importlib

    from nlp_gate.packaged import modules
    from nlp_gate.pytest_plugin.plugin import NATIVE_ITEMS

    names = set()
    for path in (m for m in modules(NATIVE_ITEMS) if m.name.startswith("test_")):
        module = importlib.import_module(f"nlp_gate.native_tests.{path.stem}")
        names |= {d.name for f in vars(module).values() if (d := definition_of(f)) is not None}
    return names


def _repo(tmp_path: Path, ini: str = "") -> Path:
    repo = function_repo(tmp_path)
    (repo / "pytest.ini").write_text(
        f"[pytest]\ntestpaths = tests_behavioral\nnlp_gate_paths = tests_behavioral\n{ini}"
    )
    return repo


def _pytest(
    repo: Path, *args: str, python: str = sys.executable
) -> subprocess.CompletedProcess[str]:
    """``python -P -m pytest`` in ``repo``: like the ``pytest`` command, without the working
    directory on ``sys.path``; no results path given, so the reports go to the rootdir's."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NLP_GATE_CACHE", "PYTHONPATH", "PYTEST_ADDOPTS")
        and not k.startswith("PYTEST_XDIST")
    }
    return subprocess.run(
        [python, "-P", "-m", "pytest", "-p", "no:cacheprovider", "--nlp-model", MODEL, *args],
        cwd=repo,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _collected(run: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in run.stdout.splitlines() if "::" in line]


def _function(nodeid: str) -> str:
    return nodeid.split("::")[-1].split("[")[0].removeprefix("test_")


def _results(repo: Path) -> dict[str, Any]:
    return json.loads((repo / "reports" / "results.json").read_text())


HOW = {
    "ini": ("nlp_gate_native_suites = true\n", ()),
    "pyargs": ("", ("--pyargs", "nlp_gate.native_tests")),
}


@pytest.mark.parametrize("how", HOW)
def test_the_81_native_tests_are_collected_from_the_package(tmp_path: Path, how: str) -> None:
    ini, args = HOW[how]
    repo = _repo(tmp_path, ini)
    run = _pytest(repo, "--co", "-q", *args)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    packaged = [i for i in _collected(run) if "tests_behavioral/" not in i]
    expected = _packaged_test_names()
    assert len(expected) == 81
    assert {_function(i) for i in packaged} == expected
    # The ini adds them to a run of the suite, beside the team's own test; a run naming the
    # package runs what it names.
    own = [i for i in _collected(run) if "tests_behavioral/test_words.py" in i]
    assert bool(own) == (how == "ini"), _collected(run)[:5]


@pytest.mark.parametrize("workers", ["0", "2"])
@pytest.mark.parametrize("how", HOW)
def test_a_function_model_is_gated_by_the_packaged_vocabulary_tests(
    tmp_path: Path, how: str, workers: str
) -> None:
    ini, args = HOW[how]
    repo = _repo(tmp_path, ini)
    run = _pytest(repo, "-m", "native and vocabulary", "-n", workers, *args)
    assert run.returncode in (0, 1), run.stdout[-3000:] + run.stderr[-2000:]
    results = _results(repo)
    tests = {r["test"] for r in results["records"]}
    assert tests >= VOCABULARY, tests
    assert (OWN_TEST in tests) == (how == "ini")
    assert {r["model"] for r in results["records"]} == {"predict"}
    assert all(r["n_cases"] > 0 for r in results["records"])
    # The reports are the user's: its rootdir's reports/, with the cases of every test.
    assert (repo / "reports" / "tables").is_dir()
    written = {p.stem for p in (repo / "reports" / "cases" / "native_sentiment").glob("*.jsonl")}
    assert written >= VOCABULARY, written
    assert "release gate" in run.stdout


def test_without_the_ini_key_or_pyargs_no_packaged_native_item_is_collected(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    run = _pytest(repo, "--co", "-q")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert [_function(i) for i in _collected(run)] == [OWN_TEST]
    # Nor in a run of the team's folder by name.
    named = _pytest(repo, "--co", "-q", "tests_behavioral")
    assert [_function(i) for i in _collected(named)] == [OWN_TEST]


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_run_of_the_packaged_suites_that_selects_nothing_stops(
    tmp_path: Path, workers: str
) -> None:
    repo = _repo(tmp_path)
    run = _pytest(repo, "--pyargs", "nlp_gate.native_tests", "-k", "no_such_test", "-n", workers)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.stdout[-3000:]
    assert "this run selects no nlp-gate item to gate" in run.stderr, run.stderr[-2000:]
    assert "nlp_gate_native_suites = true" in run.stderr
    if workers == "0":  # under xdist the controller's summary line still says it
        assert "no tests ran" not in run.stdout


def test_the_ini_key_reaches_a_copy_of_the_package_inside_the_repositorys_venv(
    tmp_path: Path,
) -> None:
    """Where a wheel install puts them: ``.venv`` inside the repository, a folder pytest's
    walk of the rootdir skips (``pyvenv.cfg``, ``norecursedirs``)."""
    repo = _repo(tmp_path, "nlp_gate_native_suites = true\n")
    python = package_environment(repo / ".venv")
    where = subprocess.run(
        [
            str(python),
            "-P",
            "-c",
            "import nlp_gate.pytest_plugin.plugin as p; print(p.NATIVE_ITEMS)",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(repo / ".venv"), where
    run = _pytest(repo, "-m", "native and vocabulary", python=str(python))
    assert run.returncode in (0, 1), run.stdout[-3000:] + run.stderr[-2000:]
    assert VOCABULARY | {OWN_TEST} == {r["test"] for r in _results(repo)["records"]}
    summary = run.stdout.strip().splitlines()[-1]
    assert "error" not in summary, summary  # nothing else of the environment was collected
