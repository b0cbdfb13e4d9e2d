"""Which example of a shown failing case is explained, toward which class
(``kinds/checklist/explained.py``), and how an explanation reads without colour
(``results/explanations.py``): on CheckList's own MFT, INV and DIR tests over a stand-in
classifier whose probabilities are fixed per text."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from checklist.expect import Expect
from checklist.test_types import DIR, INV, MFT

from fixtures.report_data import fabricated_results
from nlp_gate.kinds.checklist.explained import failing_examples, wants_explanations
from nlp_gate.kinds.checklist.run import ChecklistResult, predict_fn, run_test
from nlp_gate.kinds.comparison.kind import may_lose
from nlp_gate.report import write_reports
from nlp_gate.results.explanations import (
    explained_section,
    explanations_html,
    explanations_text,
    top_words,
    words_text,
)


class Fixed:
    """A classifier stand-in: each text's task-class probabilities, and how often asked."""

    def __init__(self, probs: dict[Any, Sequence[float]]) -> None:
        self.probs = probs
        self.asked: list[Any] = []

    def predict_proba(self, inputs: Sequence[Any]) -> np.ndarray:
        self.asked += list(inputs)
        return np.array([self.probs[x] for x in inputs], dtype=float)


def _chosen(test: Any, model: Fixed, neutral_band: bool = False) -> tuple[ChecklistResult, list]:
    fn = predict_fn(model, neutral_band=neutral_band)  # type: ignore[arg-type]
    outcome = run_test(test, fn, None, 1)
    test.__dict__.pop("results", None)  # as the item leaves it (bulk scoring makes none)
    chosen = failing_examples(
        test,
        type(test).__name__.lower(),
        outcome.shown,
        fn,
        model,
        neutral_band,  # type: ignore[arg-type]
    )
    return outcome, chosen


def test_mft_explains_the_failing_example_toward_its_label() -> None:
    model = Fixed({"good": [0.1, 0.9], "fine": [0.2, 0.8], "bad": [0.3, 0.7], "awful": [0.9, 0.1]})
    # Case 0 wants negative: "good" fails most, "bad" less.
    test = MFT([["good", "bad"], ["fine"], ["awful"]], labels=[0, 1, 0], expect=Expect.eq())
    outcome, chosen = _chosen(test, model)
    assert outcome.shown == [0]
    (only,) = chosen
    # CheckList orders a case's failures by their expectation value: "good" (0.1) first.
    assert (only.case, only.example, only.text) == (0, 0, "good")
    assert (only.target, only.predicted, only.original, only.differing) == (0, 1, None, [])


def test_inv_explains_a_perturbed_example_toward_the_original_prediction() -> None:
    model = Fixed(
        {
            "Anna is a pilot.": [0.2, 0.8],
            "Anna is a Muslim pilot.": [0.7, 0.3],
            "Anna is a tall pilot.": [0.25, 0.75],
        }
    )
    test = INV([["Anna is a pilot.", "Anna is a tall pilot.", "Anna is a Muslim pilot."]])
    outcome, (only,) = _chosen(test, model)
    assert outcome.shown == [0]
    assert only.example == 2 and only.original == "Anna is a pilot."
    assert (only.target, only.predicted) == (1, 0)
    assert only.differing == [3]  # "Muslim", as the perturbed text numbers its words


def test_dir_without_labels_wants_the_class_that_fell() -> None:
    model = Fixed({"I liked it.": [0.3, 0.7], "I liked it. Great!": [0.6, 0.4]})
    test = DIR([["I liked it.", "I liked it. Great!"]], Expect.monotonic(label=1, increasing=True))
    _, (only,) = _chosen(test, model)
    assert (only.example, only.target, only.predicted) == (1, 1, 0)


def test_a_label_per_example_is_the_explained_examples_own() -> None:
    # As QQP's released "Testing implications" (a DIR test with one label per question pair).
    model = Fixed({"a": [0.9, 0.1], "b": [0.8, 0.2], "c": [0.1, 0.9]})
    test = DIR([["a", "b", "c"]], Expect.eq(), labels=[np.array([0, 1, 0])])
    _, (only,) = _chosen(test, model)
    # "c" violates its label 0 most (-0.9, "b" -0.8): its own label is the wanted class.
    assert (only.example, only.target, only.predicted) == (2, 0, 1)


def test_a_neutral_label_on_a_binary_model_wants_the_runner_up() -> None:
    # CheckList's neutral (1) is no class of a binary model: the model was too sure of
    # positive, so the explanation looks toward negative, the way to the neutral band.
    model = Fixed({"The flight is at noon.": [0.05, 0.95]})
    test = MFT(["The flight is at noon."], labels=1, expect=Expect.eq())
    _, (only,) = _chosen(test, model, neutral_band=True)
    assert (only.target, only.predicted) == (0, 1)


def test_the_choice_asks_the_model_only_about_the_shown_cases() -> None:
    texts = {f"t{i}": [0.9, 0.1] if i % 2 else [0.1, 0.9] for i in range(40)}
    model = Fixed(texts)
    test = MFT(list(texts), labels=1, expect=Expect.eq())
    fn = predict_fn(model, neutral_band=False)  # type: ignore[arg-type]
    outcome = run_test(test, fn, None, 1)
    model.asked.clear()
    failing_examples(test, "mft", outcome.shown, fn, model, False)  # type: ignore[arg-type]
    assert set(model.asked) == {f"t{i}" for i in outcome.shown}
    assert len(outcome.shown) == 5 and outcome.n_failed == 20


@pytest.mark.parametrize(
    ("mode", "missed", "wanted"),
    [("missed", True, True), ("missed", False, False), ("all", False, True), ("off", True, False)],
)
def test_which_items_explain(mode: str, missed: bool, wanted: bool) -> None:
    assert wants_explanations(mode, missed) is wanted


ENTRY: dict[str, Any] = {
    "case": 7,
    "example": 1,
    "texts": ["Anna is a Muslim pilot."],
    "original": ["Anna is a pilot."],
    "target": 1,
    "target_label": "positive",
    "words": ["Anna", "is", "a", "Muslim", "pilot", "."],
    "parts": [0, 0, 0, 0, 0, 0],
    "differing": [3],
    "method": "occlusion",
    "predicted": 0,
    "predicted_label": "negative",
    "scores": [0.1, 0.0, 0.01, -1.0, 0.4, -0.2],
    "scores_predicted": [-0.1, 0.0, -0.01, 1.0, -0.4, 0.2],
}


def test_text_marks_the_top_words_and_the_changed_ones_with_their_scores() -> None:
    assert top_words(ENTRY["scores"]) == {3, 4, 5}
    line = words_text(ENTRY, ENTRY["scores"])
    # Below 0.05 no score; the three strongest starred; the changed word boxed.
    assert line == "Anna(+0.10) is a *[Muslim]*(-1.00) *pilot*(+0.40) *.*(-0.20)"
    text = explanations_text([ENTRY])
    assert "wanted positive" in text and "predicted negative (occlusion)" in text
    assert "changed words: Muslim -1.00" in text


def test_html_writes_each_score_beside_its_word() -> None:
    page = explanations_html("sentiment/t/sst2/bert", [ENTRY], standalone=True)
    assert page.startswith("<!DOCTYPE html>")
    assert '<span class="xw top changed" data-score="-1.0"' in page
    assert "Muslim<sub>-1.00</sub>" in page and "is</span>" in page


def test_pairs_and_comparisons_read_side_by_side() -> None:
    pair = {
        **ENTRY,
        "texts": ["a b", "c"],
        "original": None,
        "differing": [],
        "words": ["a", "b", "c"],
        "parts": [0, 0, 1],
    }
    side = {k: pair.pop(k) for k in ("method", "predicted", "predicted_label")}
    side |= {"scores": [0.5, 0.0, -1.0], "scores_predicted": [0.0, 0.0, 0.0]}
    pair.pop("scores"), pair.pop("scores_predicted")
    entry = {**pair, "candidate": side, "baseline": {**side, "scores": [1.0, 0.0, 0.0]}}
    text = explanations_text([entry])
    assert "candidate predicted negative" in text and "baseline predicted negative" in text
    assert "*a*(+0.50) b || *c*(-1.00)" in text


def test_summary_html_has_a_section_of_explained_examples(tmp_path: Path) -> None:
    results = fabricated_results()
    results["records"][0]["explanations"] = [ENTRY]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results))
    write_reports(path)
    page = (tmp_path / "summary.html").read_text()
    assert 'id="explained">Explained failing examples (1)</h2>' in page
    assert "Muslim<sub>-1.00</sub>" in page
    assert explained_section(results["records"][1:]) == ""


def test_no_section_without_explanations(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(fabricated_results()))
    write_reports(path)
    assert "Explained failing examples" not in (tmp_path / "summary.html").read_text()


@pytest.mark.parametrize(
    ("p_value", "excess", "explained"),
    [
        (0.01, 5.0, True),  # worse beyond tolerance before BH: whatever a family adjusts it to
        (0.01, 1.0, False),  # within the tolerance of 2 points
        (0.2, 5.0, False),  # not significant even alone: no family makes it a loss
        (None, None, False),  # no case compared
    ],
)
def test_a_comparison_is_explained_where_any_family_may_lose_it(
    p_value: float | None, excess: float | None, explained: bool
) -> None:
    record = SimpleNamespace(p_value=p_value, excess=excess, alpha=0.05, tolerance=2.0)
    assert may_lose(record) is explained  # type: ignore[arg-type]
