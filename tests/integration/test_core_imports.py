"""A core install's run imports none of the extras' libraries (issue 31): a user's repository
gating a pure-Python ``module:function`` classifier with CheckList's released items and its
own native tests (CheckList's Editor, Perturb, MFT and INV) never imports torch,
transformers, textattack, datasets or flair, in any process of the run -- so it runs where
only ``pip install nlp-gate`` was done.

The repository's conftest writes each process's ``sys.modules`` at its end (the xdist
workers' too).  Its fast tests: ``tests/unit/test_extras.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.function_repo import (
    PLAIN_WORDS_TEST,
    WORD_FUNCTION,
    function_repo,
    run_repo,
)
from fixtures.gate_run import SHARED_SUITES

# The extras' libraries; spaCy too: CheckList's notebook viewer imports it, and its thinc
# imports torch whenever torch is installed (nlp_gate/checklist_viewer.py).
EXTRAS_LIBRARIES = {"torch", "transformers", "textattack", "datasets", "flair", "spacy", "mlflow"}

# Every process of the run (the controller and each xdist worker) writes the names of the
# modules it imported once it is done: pytest_unconfigure is its last hook.
RECORD_MODULES = """
import os, sys
from pathlib import Path

def pytest_unconfigure(config):
    folder = Path(__file__).parent / "modules"
    folder.mkdir(exist_ok=True)
    (folder / f"{os.getpid()}.txt").write_text("\\n".join(sorted(sys.modules)))
"""

TYPOS_TEST = '''
from nlp_gate.native import INV, Perturb, behavioral_test, editor


@behavioral_test(capability="Robustness", type="inv", task="sentiment")
def test_typos():
    """A typo or two does not change the prediction."""
    t = editor.template("The {thing} was {word}.", thing=["food", "film", "room"],
                        word=["good", "great", "bad", "dull"])
    return INV(Perturb.perturb(t.data, Perturb.add_typos, nsamples=8).data)
'''


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_function_model_run_imports_no_extras_library(tmp_path: Path, workers: str) -> None:
    repo = function_repo(
        tmp_path, WORD_FUNCTION, {"test_words.py": PLAIN_WORDS_TEST, "test_typos.py": TYPOS_TEST}
    )
    (repo / "pytest.ini").write_text(
        "[pytest]\ntestpaths = tests_behavioral\nnlp_gate_paths = tests_behavioral\n"
        "nlp_gate_release_suites = true\n"
        f"addopts = --nlp-suite-dir {SHARED_SUITES}\n"
    )
    (repo / "conftest.py").write_text(RECORD_MODULES)
    # The released Fairness items and both native tests, on a small sample.
    run = run_repo(
        repo,
        "--nlp-model",
        "sentiment=mymod:predict",
        "--nlp-sample",
        "4",
        "-m",
        "fairness or native",
        "-n",
        workers,
    )
    assert run.process.returncode in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), run.out[
        -3000:
    ]
    tests = {r["test"] for r in run.json["records"]}
    assert {"plain_words", "typos", "protected: race"} <= tests, tests

    files = sorted((repo / "modules").glob("*.txt"))
    assert len(files) == (1 if workers == "0" else 3)  # the controller and its two workers
    processes = [set(f.read_text().split()) for f in files]
    imported = set().union(*processes)
    assert {"nlp_gate.native", "checklist.test_types", "checklist.perturb"} <= imported
    for modules in processes:
        assert not {m.split(".")[0] for m in modules} & EXTRAS_LIBRARIES, sorted(
            {m.split(".")[0] for m in modules} & EXTRAS_LIBRARIES
        )
