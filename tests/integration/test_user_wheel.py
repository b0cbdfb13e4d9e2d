"""The README's "Use it in your repository", exactly as a new user runs it: the package built
as a wheel (not an editable install), installed into a virtual environment at ``.venv``
*inside* the user's repository, a classifier of the user's own (a pure-Python one, not the
project's lexicon model) as ``module:function`` beside ``pytest.ini``, the plain ``pytest``
command; then the function is edited and the gate run again.

What the gate must not do there (issue #28): collect nothing because the packaged items lie
inside ``.venv``; fail to import a module that sits beside ``pytest.ini``; answer the edited
function with the previous function's stored predictions.

The environment holds only the wheel; the heavy dependencies (torch, transformers, CheckList)
come from this project's environment through a ``.pth`` line, so that the test costs seconds,
not a 2 GB install.  The wheel's ``nlp_gate`` is found first (the test asserts it).
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fixtures.gate_run import REPO, SHARED_SUITES

# A user's classifier: smoothed counts of cue words, negation swaps the counts.  Deliberately
# unlike fixtures/lexicon_model.py (a logistic squash of a signed score).
CLASSIFIER = '''\
POSITIVE = ("good", "great", "love", "excellent", "happy", "enjoy", "nice", "amazing", "fun")
NEGATIVE = ("bad", "terrible", "hate", "awful", "poor", "sad", "boring", "worst", "ugly")


def predict(texts):
    """[P(negative), P(positive)] per text."""
    rows = []
    for text in texts:
        words = [w.strip(".,!?") for w in text.lower().split()]
        pos = sum(w in POSITIVE for w in words)
        neg = sum(w in NEGATIVE for w in words)
        if "not" in words or "never" in words or "n't" in text:
            pos, neg = neg, pos
        p = (1 + pos) / (2 + pos + neg)
        rows.append(__ROW__)
    return rows
'''
ROW = "[1 - p, p]"
SWAPPED = "[p, 1 - p]"  # the user's edit: the two output columns exchanged

PYTEST_INI = f"""\
[pytest]
nlp_gate_release_suites = true
addopts = --nlp-suite-dir {SHARED_SUITES}
"""

MODEL = "sentiment=mymod:predict"


def _site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3.*/site-packages"))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # From a copy of the sources: setuptools builds in the source tree's build/, whose files
    # of an earlier build (a module since removed) would otherwise ride along in the wheel.
    # What the build reads: setup.py copies tests_behavioral/'s modules into the packaged
    # suites (nlp_gate/packaged.py), MANIFEST.in names them for an sdist.
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "setup.py", "MANIFEST.in"):
        shutil.copy(REPO / name, source / name)
    for folder in ("plugins", "tests_behavioral"):
        shutil.copytree(
            REPO / folder,
            source / folder,
            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"),
        )
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return next(out.glob("nlp_gate-*.whl"))


@pytest.fixture
def their_repo(tmp_path: Path, wheel: Path) -> Path:
    """A fresh repository with the wheel installed into its own ``.venv``."""
    repo = tmp_path / "their-repo"
    repo.mkdir()
    venv = repo / ".venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "--no-deps",
            "-q",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    # The dependencies, from this project's environment (after the venv's own packages).
    (_site_packages(venv) / "deps-from-project.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n"
    )
    # The `pytest` command: the project environment's own script, started by this venv's
    # Python (as pip would have written it had pytest been installed here).
    script = venv / "bin" / "pytest"
    body = (Path(sys.executable).parent / "pytest").read_text().split("\n", 1)[1]
    script.write_text(f"#!{venv / 'bin' / 'python'}\n{body}")
    script.chmod(0o755)
    (repo / "pytest.ini").write_text(PYTEST_INI)
    (repo / "mymod.py").write_text(CLASSIFIER.replace("__ROW__", ROW))
    return repo


def _gate(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("NLP_GATE_", "PYTEST_", "PYTHONPATH"))
    }
    return subprocess.run(
        [str(repo / ".venv" / "bin" / "pytest"), "-p", "no:cacheprovider", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def _rates(repo: Path) -> dict[str, Any]:
    results = json.loads((repo / "reports" / "results.json").read_text())
    return {r["test"]: r["fail_rate"] for r in results["records"]}


def test_the_wheel_is_what_runs(their_repo: Path) -> None:
    python = their_repo / ".venv" / "bin" / "python"
    where = subprocess.run(
        [str(python), "-c", "import nlp_gate; print(nlp_gate.__file__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert Path(where.strip()).is_relative_to(their_repo / ".venv"), where


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_users_function_gated_then_edited(their_repo: Path, workers: str) -> None:
    first = _gate(
        their_repo, "--nlp-model", MODEL, "-m", "vocabulary", "--nlp-sample", "40", "-n", workers
    )
    out = first.stdout + first.stderr
    # Collected from inside .venv, the module beside pytest.ini imported, a verdict given.
    assert "no tests ran" not in out, out[-3000:]
    assert first.returncode in (0, 1), out[-3000:]
    assert "release gate" in out, out[-3000:]
    before = _rates(their_repo)
    assert before and all(r is not None for r in before.values()), before

    (their_repo / "mymod.py").write_text(CLASSIFIER.replace("__ROW__", SWAPPED))
    second = _gate(
        their_repo, "--nlp-model", MODEL, "-m", "vocabulary", "--nlp-sample", "40", "-n", workers
    )
    after = _rates(their_repo)
    truth = _gate(
        their_repo,
        "--nlp-model",
        MODEL,
        "-m",
        "vocabulary",
        "--nlp-sample",
        "40",
        "-n",
        workers,
        "--nlp-prediction-cache",
        "off",
    )
    # The edited function is what was tested: its rates are the cache-free run's, and no
    # stored outcome of the previous function answered it.
    assert after == _rates(their_repo), (second.stdout[-2000:], truth.stdout[-2000:])
    assert after != before
    assert (
        "stored outcomes reused" not in second.stdout or "0 stored outcomes reused" in second.stdout
    ), second.stdout[-3000:]
