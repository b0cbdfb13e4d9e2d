"""Text no tokenizer can encode fails only the test that holds it (issue #29, point 7).

A lone surrogate ('\\ud800') in one native test's cases used to reach the model's shared,
batched pass (the prediction cache could not encode its key): every item of the model that
shared the pass failed.  Now that test fails alone, naming the case, before any model sees it;
the model's other tests run as before."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import pytest

from fixtures.function_repo import PLAIN_WORDS_TEST, WORD_FUNCTION, function_repo, run_repo
from nlp_gate.config.profiles import cli_profile
from nlp_gate.engine.function_model import FunctionClassifier
from nlp_gate.engine.predictor import LoadOptions, UnencodableInput

# Collected after test_words.py: the model's shared pass starts with the healthy test.
ODD_TEXT_TEST = '''
from nlp_gate.native import MFT, behavioral_test


@behavioral_test(capability="Robustness", type="mft", task="sentiment")
def test_odd_text():
    """A stray character keeps the polarity."""
    return MFT(["The food was good.", "The food was good \\ud800.", "The room was bad."],
               labels=[1, 1, 0])
'''


@pytest.mark.parametrize("fingerprint", ["", "@v1"])  # without and with the persistent cache
def test_a_lone_surrogate_fails_only_its_own_test(tmp_path: Path, fingerprint: str) -> None:
    repo = function_repo(
        tmp_path, tests={"test_words.py": PLAIN_WORDS_TEST, "test_z_odd.py": ODD_TEXT_TEST}
    )
    run = run_repo(repo, "--nlp-model", f"sentiment=mymod:predict{fingerprint}")
    out = run.out
    assert run.fail_counts() == {("plain_words", "predict"): (0, 24)}, out[-3000:]
    assert "1 passed, 1 error" in out
    assert (
        "test_z_odd.py::odd_text: case 1 ('The food was good \\ud800.') holds text that is not "
        "valid Unicode ('The food was good \\ud800.'"
    ) in out, out[-3000:]
    assert "UnicodeEncodeError" not in out and "Traceback" not in out


def test_the_engine_never_sends_such_text_to_a_model_or_the_cache() -> None:
    spec = cli_profile(["sentiment=mymod:predict"]).models[0]
    asked: list[str] = []

    def predict(texts: list[str]) -> list[list[float]]:
        asked.extend(texts)
        return [[0.5, 0.5] for _ in texts]

    engine = FunctionClassifier(spec, predict, LoadOptions(), None)
    with pytest.raises(UnencodableInput, match=r"input 'bad \\ud800' is not valid Unicode"):
        engine.predict_proba(["fine", "bad \ud800"])
    with pytest.raises(UnencodableInput):
        engine.predict_proba([("fine", "pair \udfff")])
    assert asked == []
    assert engine.predict_proba(["fine", "ünïcödé ✓"]).shape == (2, 2)


# Issue 50, point 1: two models of the task, so that every native test also has a comparison
# item.  The comparisons of the whole run are computed together (Benjamini-Hochberg needs all
# of them): the first one used to predict every selected comparison's cases in one batch, the
# odd test's too, and the engine refused that batch, failing the clean tests' comparisons.
TWO_FUNCTIONS = (
    WORD_FUNCTION
    + """

def predict_soft(texts):
    return [[0.2, 0.8] if row[1] > 0.5 else [0.7, 0.3] for row in predict(texts)]
"""
)

# A second clean test: with the plain-words test, two clean native tests beside the odd one.
PLAIN_MFT_TEST = PLAIN_WORDS_TEST.replace("test_plain_words", "test_plain_mft")


def _outcomes(junit: Path) -> dict[str, str]:
    """Item name -> passed, failed, error or skipped, from pytest's JUnit XML."""
    outcomes = {}
    for case in ElementTree.parse(junit).iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        outcomes[case.get("name", "")] = {
            "failure": "failed",
            "error": "error",
            "skipped": "skipped",
        }.get(kinds[0] if kinds else "", "passed")
    return outcomes


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_lone_surrogate_changes_no_other_tests_comparison(tmp_path: Path, workers: str) -> None:
    clean = {"test_words.py": PLAIN_WORDS_TEST, "test_mft.py": PLAIN_MFT_TEST}
    runs = {}
    for name, tests in (("alone", clean), ("beside", {**clean, "test_z_odd.py": ODD_TEXT_TEST})):
        repo = function_repo(tmp_path / name, module=TWO_FUNCTIONS, tests=tests)
        junit = tmp_path / f"{name}.xml"
        run = run_repo(
            repo,
            "-n",
            workers,
            f"--junitxml={junit}",
            "--nlp-model",
            "sentiment=mymod:predict",
            "--nlp-model",
            "sentiment=mymod:predict_soft",
        )
        runs[name] = (run, _outcomes(junit))
    (_, alone), (beside_run, beside) = runs["alone"], runs["beside"]
    assert any("-vs-" in name for name in alone), alone  # the clean tests have comparisons
    odd = {name: outcome for name, outcome in beside.items() if name.startswith("test_odd_text")}
    assert {name: beside[name] for name in alone} == alone, beside_run.out[-4000:]
    assert odd and set(odd.values()) == {"error"}, odd
    out = beside_run.out
    assert "UnencodableInput" not in out and "Traceback" not in out, out[-4000:]
