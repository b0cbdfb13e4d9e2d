"""The seed's saliency-vs-attack figure (``kinds/attacks/saliency.py``): the random baseline's
exact expectation, the perturbed words of an attack, and the report's table."""

from __future__ import annotations

import itertools
import math
from functools import cache
from typing import Any

import pytest

from nlp_gate.config.profiles import load_profile
from nlp_gate.engine.loading import load_classifier
from nlp_gate.engine.predictor import Classifier, LoadOptions
from nlp_gate.explain import explain_example
from nlp_gate.kinds.attacks.report import saliency_table
from nlp_gate.kinds.attacks.saliency import (
    AttackOverlap,
    attack_record_field,
    overlap_of,
    saliency_overlap,
    summarize,
)
from nlp_gate.zoo import embedded

ORIGINAL = "This is not a good movie, honestly."


@cache
def _classifier(dataset: str) -> Classifier:
    spec = load_profile("tiny").get(dataset, "bert")
    location = embedded.WEIGHTS / "zoo" / spec.source.removeprefix("zoo:")
    return load_classifier(spec, str(location), LoadOptions(device="cpu"))


@pytest.mark.parametrize(("n", "k"), [(1, 1), (5, 1), (6, 2), (7, 3), (4, 4)])
def test_the_random_baseline_is_the_exact_expectation(n: int, k: int) -> None:
    """Enumerating every choice of k of n words: the mean number of perturbed words chosen
    is k*k/n, and the choice is the perturbed set with probability 1/C(n, k)."""
    perturbed = set(range(k))
    choices = list(itertools.combinations(range(n), k))
    mean_hits = sum(len(perturbed & set(c)) for c in choices) / len(choices)
    exact = sum(set(c) == perturbed for c in choices) / len(choices)
    overlap = AttackOverlap(n, k, 0)
    assert overlap.random_hits == pytest.approx(mean_hits)
    assert overlap.random_all == pytest.approx(exact)


def test_the_item_figures_weigh_words_and_attacks() -> None:
    overlaps = [AttackOverlap(10, 2, 2), AttackOverlap(5, 1, 0), None]
    figure = summarize("occlusion", overlaps)
    assert (figure.attacks, figure.no_original_word, figure.perturbed_words) == (2, 1, 3)
    assert figure.hits == 2 and figure.hit_rate == pytest.approx(100 * 2 / 3, abs=0.01)
    assert figure.random_hit_rate == pytest.approx(100 * (4 / 10 + 1 / 5) / 3, abs=0.01)
    assert figure.all_in_top_k == 50.0
    assert figure.random_all_in_top_k == pytest.approx(100 * (1 / 45 + 1 / 5) / 2, abs=0.01)
    empty = summarize("occlusion", [None])
    assert empty.attacks == 0 and empty.hit_rate is None and empty.random_hit_rate is None


def test_one_attack_is_its_changed_words_against_the_top_attributed() -> None:
    classifier = _classifier("sst2")
    # "good" -> "great" and "movie" -> "film": k = 2 of the 7 words proper (not "," or ".")
    perturbed = "This is not a great film, honestly."
    overlap = overlap_of(classifier, ORIGINAL, perturbed, predicted=0, reached=1)
    assert overlap is not None and (overlap.words, overlap.perturbed) == (7, 2)
    scores = explain_example(classifier, ORIGINAL, 1, 0).toward_predicted
    top = scores.top(2, [i for i, w in enumerate(scores.words) if w not in (",", ".")])
    assert overlap.hits == len(set(top) & {4, 5})
    # punctuation is no word an attack perturbs; a pure insertion perturbs no original word
    assert overlap_of(classifier, ORIGINAL, ORIGINAL.replace(".", "!"), 0, 1) is None
    assert overlap_of(classifier, ORIGINAL, ORIGINAL + " Really", 0, 1) is None


def test_an_items_examples_on_a_pair_model() -> None:
    classifier = _classifier("rte")
    classes = list(classifier.spec.task.classes)
    examples = [
        {
            "original": ["The cat sat on the mat.", "A cat is sitting."],
            "perturbed": ["The cat sat on the mat.", "A dog is sitting."],
            "original_label": classes[0],
            "perturbed_label": classes[1],
        },
        {
            "original": ["The bridge was closed.", "The bridge was open."],
            "perturbed": ["The bridge was closed.", "The bridge was open today."],
            "original_label": classes[1],
            "perturbed_label": classes[0],
        },
    ]
    figure = saliency_overlap(classifier, classifier.spec, examples)
    assert figure.method == "integrated_gradients"
    assert (figure.attacks, figure.no_original_word, figure.perturbed_words) == (1, 1, 1)
    # one word of the 10 words proper of the first pair: the random rate is 1/10
    assert figure.random_hit_rate == pytest.approx(100 / 10, abs=0.01)
    assert figure.hit_rate in (0.0, 100.0)
    assert figure.as_record()["method"] == "integrated_gradients"


class Untouchable:
    """A classifier that must not be asked anything."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the classifier was asked for {name}")


def test_off_measures_nothing_and_no_success_has_nothing_to_measure() -> None:
    spec = _classifier("sst2").spec
    example = {
        "original": [ORIGINAL],
        "perturbed": [ORIGINAL.replace("good", "fine")],
        "original_label": "negative",
        "perturbed_label": "positive",
    }
    assert attack_record_field("off", Untouchable(), spec, [example]) is None  # type: ignore[arg-type]
    assert attack_record_field("missed", Untouchable(), spec, []) is None  # type: ignore[arg-type]
    for explain in ("missed", "all"):
        record = attack_record_field(explain, _classifier("sst2"), spec, [example])
        assert record is not None and record["attacks"] == 1 and record["perturbed_words"] == 1


def test_the_report_table_lists_the_measured_items_only() -> None:
    measured = summarize("occlusion", [AttackOverlap(10, 2, 1)]).as_record()
    records: list[dict[str, Any]] = [
        {"recipe": "deepwordbug", "dataset": "rte", "model": "bert", "saliency_overlap": measured},
        {"recipe": "pruthi", "dataset": "rte", "model": "bert", "saliency_overlap": None},
    ]
    table = saliency_table(records)
    assert table is not None and table.name == "attack_saliency" and len(table.rows) == 1
    row = {c.key: cell.text for c, cell in zip(table.columns, table.rows[0])}
    assert row["hit_rate"] == "50.0" and row["random_hit_rate"] == "20.0"
    assert row["random_all_in_top_k"] == f"{100 / math.comb(10, 2):.1f}"
    assert saliency_table(records[1:]) is None
