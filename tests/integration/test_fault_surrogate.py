"""Text no tokenizer can encode fails only the test that holds it (issue #29, point 7).

A lone surrogate ('\\ud800') in one native test's cases used to reach the model's shared,
batched pass (the prediction cache could not encode its key): every item of the model that
shared the pass failed.  Now that test fails alone, naming the case, before any model sees it;
the model's other tests run as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.function_repo import PLAIN_WORDS_TEST, function_repo, run_repo
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
    repo = function_repo(tmp_path, tests={"test_words.py": PLAIN_WORDS_TEST,
                                          "test_z_odd.py": ODD_TEXT_TEST})
    run = run_repo(repo, "--nlp-model", f"sentiment=mymod:predict{fingerprint}")
    out = run.out
    assert run.fail_counts() == {("plain_words", "predict"): (0, 24)}, out[-3000:]
    assert "1 passed, 1 error" in out
    assert ("test_z_odd.py::odd_text: case 1 ('The food was good \\ud800.') holds text that is not "
            "valid Unicode ('The food was good \\ud800.'") in out, out[-3000:]
    assert "UnicodeEncodeError" not in out and "Traceback" not in out


def test_the_engine_never_sends_such_text_to_a_model_or_the_cache() -> None:
    spec = cli_profile(["sentiment=mymod:predict"], lambda _: None).models[0]
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
