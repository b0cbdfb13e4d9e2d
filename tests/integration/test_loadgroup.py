"""Under ``-n 2 --dist loadgroup`` each model's items run on one xdist worker, with pytest 9.2
too (issue 31).

pytest 9.2 ignores the node-id suffix through which pytest-xdist 3.8 groups items
(pytest-xdist#1386): without the plugin's own hand-over of the groups
(``nlp_gate.pytest_plugin.xdist_groups``)
a model's items spread over both workers, each of which then loads the model and predicts
all of its inputs.  Each run is a user's repository (``fixtures/function_repo.py``) with two
function models and three native tests, once under this environment's pytest and once under
pytest 9.2, which scripts/setup.sh installs into a folder of its own (``.venv/pytest-next``)
that comes first on ``PYTHONPATH``.  The worker of each item is read from ``-v``
(``[gw0] ... PASSED <id>``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from importlib.metadata import distributions
from pathlib import Path

import pytest

from fixtures.function_repo import WORD_FUNCTION, function_repo

PYTEST_92 = "9.2"
# Where scripts/setup.sh installs it (PYTEST_NEXT there), beside the environment's own pytest.
PYTEST_NEXT = Path(sys.prefix) / "pytest-next"
MODELS = ("predict", "predict_too")

THREE_TESTS = """
from nlp_gate.native import MFT, behavioral_test

WORDS = ["good", "great", "bad", "awful"]


def _plain_words():
    data = [f"The {thing} was {word}." for thing in ("food", "film", "room") for word in WORDS]
    return MFT(data, labels=[int(text.split()[-1].rstrip(".") in ("good", "great"))
                             for text in data])
""" + "".join(
    f'''

@behavioral_test(capability="Vocabulary", type="mft", task="sentiment")
def test_words_{n}():
    """Plain words, copy {n}."""
    return _plain_words()
'''
    for n in range(3)
)

# A second model: another function (its own predictions, its own engine record).
SECOND_FUNCTION = """

def predict_too(texts):
    return [[0.2, 0.8] if "good" in text or "great" in text else [0.8, 0.2] for text in texts]
"""

_RAN = re.compile(r"^\[(gw\d+)\] \[\s*\d+%\] \w+ (\S+)")


@pytest.fixture(scope="session")
def pytest_92() -> tuple[Path, str]:
    """The folder holding pytest 9.2 alone (no dependencies: this environment's pluggy and
    others serve), and its version: scripts/setup.sh installs it there, so no test needs
    the network."""
    found = [
        dist.version
        for dist in distributions(path=[str(PYTEST_NEXT)])
        if dist.metadata["Name"] == "pytest"
    ]
    assert len(found) == 1 and found[0].startswith(f"{PYTEST_92}."), (
        f"pytest {PYTEST_92} is not in {PYTEST_NEXT} (found {found}): `bash scripts/setup.sh` "
        "installs it there, and says why when it cannot"
    )
    return PYTEST_NEXT, found[0]


def _workers(out: str) -> dict[str, set[str]]:
    """Model -> the workers its items ran on, from ``-v`` lines."""
    ran: dict[str, set[str]] = defaultdict(set)
    for line in out.splitlines():
        match = _RAN.match(line)
        if match:
            worker, nodeid = match.groups()
            model = nodeid.split("[", 1)[1].split("]", 1)[0].rsplit("/", 1)[-1]
            ran[model].add(worker)
    return dict(ran)


def _run(repo: Path, pythonpath: Path | None) -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NLP_GATE_CACHE", "PYTHONPATH", "PYTEST_ADDOPTS")
        and not k.startswith("PYTEST_XDIST")
    }
    if pythonpath is not None:  # before site-packages: this pytest wins
        env["PYTHONPATH"] = str(pythonpath)
    models = [f"--nlp-model=sentiment=mymod:{m}" for m in MODELS]
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            *models,
            "-n",
            "2",
            "--dist",
            "loadgroup",
            "-v",
            "-m",
            "not regression",
        ],  # no comparison of the two models
        cwd=repo,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.parametrize("version", ["installed", PYTEST_92])
def test_each_models_items_run_on_one_worker(
    tmp_path: Path, version: str, request: pytest.FixtureRequest
) -> None:
    repo = function_repo(tmp_path, WORD_FUNCTION + SECOND_FUNCTION, {"test_three.py": THREE_TESTS})
    folder, exact = request.getfixturevalue("pytest_92") if version == PYTEST_92 else (None, "")
    run = _run(repo, folder)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-3000:]
    if version == PYTEST_92:
        # The condition of pytest-xdist#1386: xdist's group suffix is absent from the ids.
        assert f"pytest-{exact}" in out, out[:1000]
        assert "]@" not in out, out[-3000:]
    workers = _workers(run.stdout)
    assert set(workers) == set(MODELS), out[-3000:]
    assert all(len(w) == 1 for w in workers.values()), workers
    # One engine record per model: a single worker loaded it and predicted its inputs.
    results = json.loads((repo / "reports" / "results.json").read_text())
    assert sorted(e["model"] for e in results["engine"]) == sorted(MODELS)
