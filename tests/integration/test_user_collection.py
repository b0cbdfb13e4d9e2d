"""The packaged items are collected in a user's repository whatever its layout and however the
run names them, and a run that would gate nothing says so (issue #28, points 2, 3 and 6).

Each test builds a user's repository with a real virtual environment (``python -m venv``)
holding a *copy* of the nlp_gate package in its site-packages, so ``nlp_gate/released`` lies
inside that environment as with a wheel install; the project's environment lends it the
other packages (a ``.pth`` file).  The runs use ``python -P -m pytest``: like the ``pytest``
command, it does not put the working directory on ``sys.path``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.gate_run import SHARED_SUITES
from fixtures.user_repo import copy_package, package_environment

pytestmark = pytest.mark.slow  # pytest runs in subprocesses
FAIRNESS_ITEMS = "4 passed"  # CheckList's 4 sentiment Fairness tests x the one model

USER_MODULE = '''
def predict(texts):
    """[P(negative), P(positive)]: a text with an exclamation mark is positive."""
    return [[0.2, 0.8] if "!" in text else [0.7, 0.3] for text in texts]
'''


def _repo(tmp_path: Path, venv: str) -> tuple[Path, Path]:
    """A user's repository (pytest.ini with the released items on, ``mymod.py`` beside it)
    and the python of its environment at ``venv`` (relative to the repository or not)."""
    repo = tmp_path / "their-repo"
    repo.mkdir()
    (repo / "pytest.ini").write_text(
        f"[pytest]\nnlp_gate_release_suites = true\naddopts = --nlp-suite-dir {SHARED_SUITES}\n"
    )
    (repo / "mymod.py").write_text(USER_MODULE)
    folder = repo / venv if not venv.startswith("/") else tmp_path / venv.lstrip("/")
    if venv != "conda-env":
        return repo, package_environment(folder)
    # A conda environment has no pyvenv.cfg, but conda-meta/history (what pytest looks for):
    # its site-packages comes first on the project's interpreter's path, through the
    # environment's own python (a wrapper script).
    (folder / "conda-meta").mkdir(parents=True)
    (folder / "conda-meta" / "history").write_text("")
    purelib = (
        folder
        / "lib"
        / f"python{sys.version_info.major}.{sys.version_info.minor}"
        / "site-packages"
    )
    copy_package(purelib / "nlp_gate")
    python = folder / "bin" / "python"
    python.parent.mkdir()
    python.write_text(f'#!/bin/sh\nPYTHONPATH={purelib} exec {sys.executable} "$@"\n')
    python.chmod(0o755)
    return repo, python


def _pytest(repo: Path, python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NLP_GATE_CACHE", "PYTHONPATH", "PYTEST_ADDOPTS")
    }
    return subprocess.run(
        [str(python), "-P", "-m", "pytest", "-p", "no:cacheprovider", "--nlp-sample", "5", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _released(python: Path) -> Path:
    out = subprocess.run(
        [
            str(python),
            "-P",
            "-c",
            "import nlp_gate.pytest_plugin.plugin as p; print(p.RELEASED_ITEMS)",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return Path(out)


@pytest.mark.parametrize("venv", [".venv", "venv", "conda-env", "/outside-venv"])
def test_released_items_are_collected_in_every_layout(tmp_path: Path, venv: str) -> None:
    repo, python = _repo(tmp_path, venv)
    released = _released(python)
    assert released.is_relative_to(python.parent.parent), released  # the environment's copy
    run = _pytest(repo, python, "--nlp-model", "sentiment=mymod:predict", "-m", "fairness")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    summary = run.stdout.strip().splitlines()[-1]
    assert FAIRNESS_ITEMS in summary and "error" not in summary  # no other package came in


@pytest.mark.parametrize("how", ["path", "pyargs"])
def test_released_items_named_explicitly_are_collected(tmp_path: Path, how: str) -> None:
    repo, python = _repo(tmp_path, ".venv")
    named = [str(_released(python))] if how == "path" else ["--pyargs", "nlp_gate.released"]
    run = _pytest(repo, python, "--nlp-model", "sentiment=mymod:predict", "-m", "fairness", *named)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert FAIRNESS_ITEMS in run.stdout


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_marker_typo_names_the_markers_that_exist(tmp_path: Path, workers: str) -> None:
    repo, python = _repo(tmp_path, ".venv")
    run = _pytest(
        repo, python, "--nlp-model", "sentiment=mymod:predict", "-m", "fairnes", "-n", workers
    )
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.stdout[-3000:]
    assert "-m 'fairnes' names no known marker: fairnes; nlp-gate's markers are " in run.stderr
    assert "fairness, " in run.stderr and "robustness" in run.stderr


def test_a_selection_of_nothing_to_gate_stops_the_run(tmp_path: Path) -> None:
    repo, python = _repo(tmp_path, ".venv")
    run = _pytest(
        repo,
        python,
        "--nlp-model",
        "sentiment=mymod:predict",
        "-m",
        "fairness",
        "-k",
        "no-such-test",
    )
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.stdout[-3000:]
    assert "this run selects no nlp-gate item to gate" in run.stderr
    assert "no tests ran" not in run.stdout


@pytest.mark.parametrize("how", ["default", "path", "pyargs"])
def test_an_unimportable_function_stops_every_run_shape_at_start_up(
    tmp_path: Path, how: str
) -> None:
    repo, python = _repo(tmp_path, ".venv")
    named = {
        "default": [],
        "path": [str(_released(python))],
        "pyargs": ["--pyargs", "nlp_gate.released"],
    }[how]
    run = _pytest(repo, python, "--nlp-model", "sentiment=mymodd:predict", "-m", "fairness", *named)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.stdout[-3000:]
    out = run.stdout + run.stderr
    assert out.count("cannot import mymodd:predict: No module named 'mymodd'") == 1, out[-3000:]
    assert "ERROR: 1 model(s) given with --nlp-model cannot be tested" in run.stderr
    # the folder it was looked for in: the rootdir, not the packaged models file's
    assert f"install its package or put the module in {repo}" in run.stderr
    assert "models file" not in run.stderr
    assert "Traceback" not in out and "passed" not in out
