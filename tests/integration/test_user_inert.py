"""Installed beside a team's own tests, nlp-gate is inert until asked (issue 58).

A team's repository as most are: ``pytest.ini`` with ``testpaths = tests`` and
``--strict-markers``, its own ``slow`` (ini) and ``regression`` (conftest) markers, a conftest
fixture, a handful of unit tests.  With nlp-gate installed, its runs under ``-n 0`` and
``-n 2`` collect the same items, print the same lines and end with the same status as without,
and write nothing more.

"Without" is the same interpreter with ``-p no:nlp_gate``: pytest then never imports the
plugin (its hooks, options, import-time signal handling), which is what a run without the
package sees, while every other installed plugin stays as it is in the "with" run; only pytest's
own ``plugins:`` header line names nlp-gate, and the test checks that it does (the plugin was
loaded).  Checked once by hand against a virtual environment holding only pytest and
pytest-xdist: the same output and files (``pytest --markers`` then lacks the other plugins'
markers, nothing of ours).

Then the same repository opts in (``nlp_gate_native_suites = true``, a ``module:function``
model): it gets the behavioral items, ``-m fairness`` selects them, and ``regression`` keeps
its meaning for the team's tests (``-m nlp_regression`` selects ours).

About 45 s on a 2-core machine shared with other work (16 pytest processes, three of them with
two workers).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from fixtures.function_repo import WORD_FUNCTION

TEAM_INI = """\
[pytest]
testpaths = tests
addopts = --strict-markers
markers =
    slow: the team's slow tests
"""

TEAM_CONFTEST = """\
import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "regression: the team's regression tests")


@pytest.fixture
def numbers():
    return [3, 1, 2]
"""

TEAM_TESTS = """\
import signal
import warnings

import pytest


def test_sorted(numbers):
    assert sorted(numbers) == [1, 2, 3]


@pytest.mark.regression
def test_regression():
    assert "a".upper() == "A"


@pytest.mark.slow
def test_slow():
    assert sum(range(10)) == 45


@pytest.mark.parametrize("x", [1, 2])
def test_param(x):
    assert x > 0


@pytest.mark.skip(reason="the team's own skip")
def test_skipped():
    pass


def test_a_deprecation_warning_is_the_teams_to_see():
    # The very warning nlp-gate filters out in its own runs (CheckList's viewer's).
    warnings.warn("Importing display from IPython.core.display is deprecated", DeprecationWarning)


def test_signal_handlers_are_not_nlp_gates():
    for sig in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(sig)
        assert not str(getattr(handler, "__module__", "")).startswith("nlp_gate"), handler
"""

# Two functions for the task sentiment: a word lexicon, and a coin.
MODULE = WORD_FUNCTION + "\n\ndef coin(texts):\n    return [[0.5, 0.5] for _ in texts]\n"


def _team_repo(root: Path) -> Path:
    repo = root / "team"
    (repo / "tests").mkdir(parents=True)
    (repo / "pytest.ini").write_text(TEAM_INI)
    (repo / "conftest.py").write_text(TEAM_CONFTEST)
    (repo / "tests" / "test_unit.py").write_text(TEAM_TESTS)
    return repo


def _pytest(repo: Path, env: dict[str, str], *args: str) -> tuple[int, list[str]]:
    """``python -m pytest ARGS`` in ``repo``: its exit status and output lines, without the
    durations pytest prints."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = re.sub(r" in \d+\.\d+s\b", "", run.stdout + run.stderr)
    return run.returncode, out.splitlines()


def _clean_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a team's shell: no pytest variables of this run (xdist's worker
    ones), nlp-gate's cache and the user cache in empty folders outside the repository."""
    caches = tmp_path / "caches"
    (caches / "xdg").mkdir(parents=True)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PYTEST_") and k not in ("PYTHONPATH", "NLP_GATE_CACHE")
    }
    return {**env, "XDG_CACHE_HOME": str(caches / "xdg"), "NLP_GATE_CACHE": str(caches / "nlp")}


def _unordered(lines: list[str]) -> list[str]:
    """The lines, and the letters of pytest's progress lines (``..s.``), in sorted order."""
    progress = re.compile(r"^([.sFExX]+)(\s*\[\s*\d+%\])?$")
    return sorted(
        "".join(sorted(m.group(1))) + (m.group(2) or "") if (m := progress.match(line)) else line
        for line in lines
    )


def _files(repo: Path) -> set[str]:
    return {str(p.relative_to(repo)) for p in repo.rglob("*")}


# (arguments, -n values): the collected items, the run's own lines (fixtures shown, every
# outcome reported; under -n 2 the workers collect), the header, the markers.  A collect-only
# run is not distributed by xdist: with -n 2 it would be the -n 0 run again.
RUNS = [
    (("--co", "-q"), ("0",)),
    (("-q", "-rA", "--setup-show"), ("0", "2")),
    (("--co",), ("0",)),
    (("--markers",), ("0",)),
]


def test_a_teams_runs_are_the_same_with_and_without_nlp_gate(tmp_path: Path) -> None:
    repo = _team_repo(tmp_path)
    env = _clean_env(tmp_path)
    without = {
        (args, n): _pytest(repo, env, "-p", "no:nlp_gate", "-n", n, *args)
        for args, workers in RUNS
        for n in workers
    }
    written_without = _files(repo)
    with_it = {
        (args, n): _pytest(repo, env, "-n", n, *args) for args, workers in RUNS for n in workers
    }

    # The plugin was loaded in the "with" runs: pytest's header names it, and nothing else.
    plugins = [
        next(line for line in out if line.startswith("plugins:"))
        for _, out in (with_it[("--co",), "0"], without[("--co",), "0"])
    ]
    assert "nlp-gate" in plugins[0] and "nlp-gate" not in plugins[1], plugins
    for key, (status, out) in with_it.items():
        expected_status, expected = without[key]
        assert status == expected_status, (key, out[-20:])
        if key == (("--co",), "0"):  # the header: all but pytest's list of plugins
            out = [line for line in out if not line.startswith("plugins:")]
            expected = [line for line in expected if not line.startswith("plugins:")]
        if key[1] == "2":  # two workers finish the items in either order
            out, expected = _unordered(out), _unordered(expected)
        assert out == expected, (key, out, expected)

    # The team's run itself, as it is without nlp-gate (so the comparison above compared it):
    # every test, its own markers, the warning and the handlers seen.
    status, out = with_it[("-q", "-rA", "--setup-show"), "0"]
    assert status == 0 and "7 passed, 1 skipped, 1 warning" in out[-1], out[-20:]
    assert any("SETUP    F numbers" in line for line in out), out
    status, items = with_it[("--co", "-q"), "0"]
    assert [line for line in items if "::" in line] == [
        "tests/test_unit.py::" + name
        for name in (
            "test_sorted",
            "test_regression",
            "test_slow",
            "test_param[1]",
            "test_param[2]",
            "test_skipped",
            "test_a_deprecation_warning_is_the_teams_to_see",
            "test_signal_handlers_are_not_nlp_gates",
        )
    ]
    status, markers = with_it[("--markers",), "0"]
    assert status == 0 and not any("nlp_" in line for line in markers)

    # No file nlp-gate wrote: in the repository (.cache/, reports/), its cache, the user cache.
    assert _files(repo) == written_without
    caches = list((tmp_path / "caches").rglob("*"))
    assert caches == [tmp_path / "caches" / "xdg"], caches


def test_the_same_repository_opted_in_gets_the_gate(tmp_path: Path) -> None:
    repo = _team_repo(tmp_path)
    (repo / "pytest.ini").write_text(TEAM_INI + "nlp_gate_native_suites = true\n")
    (repo / "mymod.py").write_text(MODULE)
    env = _clean_env(tmp_path)
    one = ("--nlp-model", "sentiment=mymod:predict")
    two = (*one, "--nlp-model", "sentiment=mymod:coin")  # and compared: regression items

    def items(*args: str) -> list[str]:
        status, out = _pytest(repo, env, "-p", "no:cacheprovider", "--co", "-q", *args)
        assert status == 0, out[-20:]
        return [line for line in out if "::" in line]

    # -m fairness: the packaged native Fairness tests (the team has no fairness marker).
    fairness = items("-m", "fairness", *one)
    assert fairness and all(i.startswith("test_fairness.py::test_sentiment_") for i in fairness)
    assert all(i.endswith("[sentiment/predict]") for i in fairness), fairness
    # regression stays the team's: it selects the team's test, and of ours only what
    # nlp_fairness does (not every comparison item: those carry nlp_regression).
    assert items("tests", "-m", "regression") == ["tests/test_unit.py::test_regression"]
    mixed = items("-m", "regression or nlp_fairness", *two)
    assert "tests/test_unit.py::test_regression" in mixed
    fairness_of_two = items("-m", "fairness", *two)
    assert any("-vs-" in i for i in fairness_of_two), fairness_of_two  # compared too
    assert [i for i in mixed if not i.startswith("tests/")] == fairness_of_two
    ours = items("-m", "nlp_regression", *two)
    assert ours and all("-vs-" in i for i in ours), ours
    assert "tests/test_unit.py::test_regression" not in ours

    # A run under two workers: the gate's items run beside the team's test, and gate.
    results = tmp_path / "results.json"
    status, out = _pytest(
        repo,
        env,
        "-p",
        "no:cacheprovider",
        "-n",
        "2",
        "-q",
        "-rA",
        "-m",
        "fairness or regression",
        "--nlp-sample",
        "4",
        "--nlp-results",
        str(results),
        *one,
    )
    assert status == 0, out[-30:]
    assert "PASSED tests/test_unit.py::test_regression" in out
    assert f"{len(fairness) + 1} passed" in out[-1], out[-5:]
    assert any(line.startswith("release gate PASSED") for line in out), out[-20:]
    assert results.is_file()
