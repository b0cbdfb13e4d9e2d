"""Word attributions (``nlp_gate.explain``) on the embedded zoo's real checkpoints: words and
sub-word pieces, pairs, normalisation, determinism, integrated gradients' completeness, and
occlusion that depends on predictions alone (a function model of a checkpoint's predictions
is explained exactly as the checkpoint)."""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

import numpy as np
import pytest

from nlp_gate import extras
from nlp_gate.config import ConfigurationError
from nlp_gate.config.profiles import load_profile
from nlp_gate.config.specs import ModelSpec
from nlp_gate.engine.function_model import FunctionClassifier
from nlp_gate.engine.loading import load_classifier
from nlp_gate.engine.predictor import Classifier, LoadOptions
from nlp_gate.explain import (
    differing_words,
    explain_example,
    gradients_available,
    normalised,
    words_of,
)
from nlp_gate.explain import gradients as ig
from nlp_gate.explain import words as segmentation
from nlp_gate.zoo import embedded

PROFILE = load_profile("tiny")
NEGATED = "This is not a good movie, honestly."
PAIR = ("How do I learn Python quickly?", "What is the best way to learn Python?")


def _spec(dataset: str, family: str) -> ModelSpec:
    return PROFILE.get(dataset, family)


def _fresh(dataset: str, family: str) -> Classifier:
    spec = _spec(dataset, family)
    location = embedded.WEIGHTS / "zoo" / spec.source.removeprefix("zoo:")
    return load_classifier(spec, str(location), LoadOptions(device="cpu"))


@cache
def _classifier(dataset: str, family: str) -> Classifier:
    return _fresh(dataset, family)


def test_words_are_the_text_without_its_whitespace() -> None:
    words = words_of("I don't like the well-made , dull film...")
    assert words.words == ["I", "don't", "like", "the", "well-made", ",", "dull", "film", "..."]
    assert words.parts == [0] * 9 and words.scores == [0.0] * 9
    pair = words_of(("a b.", "c"))
    assert (pair.words, pair.parts) == (["a", "b", ".", "c"], [0, 0, 0, 1])


def test_differing_words_index_the_perturbed_input() -> None:
    assert differing_words("This is a good movie.", "This is a great film.") == [3, 4]
    # part by part; an inserted word counts, a deleted one has no index in the perturbed text
    assert differing_words(("a b", "c d"), ("a x", "c d e")) == [1, 4]
    assert differing_words("a b c", "a c") == []
    assert differing_words(["a", "b"], ("a", "b")) == []  # CheckList's list pairs


def test_a_removed_word_takes_one_whitespace_with_it() -> None:
    spans = segmentation.spans(("not good", "very bad"))
    assert segmentation.without(("not good", "very bad"), spans[0]) == ("good", "very bad")
    assert segmentation.without(("not good", "very bad"), spans[3]) == ("not good", "very")


@pytest.mark.parametrize("family", ["bert", "albert"])
def test_pieces_are_summed_into_the_word_they_lie_in(family: str) -> None:
    """A word the tokenizer splits into several pieces owns each of them; special tokens and
    the pair's separator own none; every word of an untruncated input owns a piece."""
    tokenizer = _classifier("qqp", family).tokenizer
    example = ("Is unbelievably overpriced coffee worth it?", "Why do people buy it?")
    spans = segmentation.spans(example)
    encoded = tokenizer(*example, return_offsets_mapping=True)
    sequence = encoded.sequence_ids(0)
    owners = ig.token_words(encoded["offset_mapping"], sequence, spans)
    assert [o for o, s in zip(owners, sequence) if s is None] == [-1] * sequence.count(None)
    assert sorted(set(owners) - {-1}) == list(range(len(spans)))
    split = spans.index(next(s for s in spans if s.text == "unbelievably"))
    pieces = [t for t, o in enumerate(owners) if o == split]
    assert len(pieces) > 1  # the zoo's small vocabularies split it
    text = example[0]
    rebuilt = "".join(text[a:b] for a, b in (encoded["offset_mapping"][t] for t in pieces))
    assert rebuilt.replace("▁", "").strip().lower() == "unbelievably"
    # each piece of the second text belongs to a word of the second text
    assert {spans[o].part for o, s in zip(owners, sequence) if s == 1 and o >= 0} == {1}


@pytest.mark.parametrize("method", ["integrated_gradients", "occlusion"])
def test_scores_are_signed_normalised_and_rounded(method: str) -> None:
    classifier = _classifier("sst2", "bert")
    explanation = explain_example(classifier, NEGATED, target=1, predicted=0, method=method)
    assert explanation.method == method
    assert (explanation.target, explanation.predicted) == (1, 0)
    for scores in (explanation.toward_target, explanation.toward_predicted):
        assert scores.words == words_of(NEGATED).words
        assert max(abs(s) for s in scores.scores) == 1.0
        assert all(s == round(s, 4) for s in scores.scores)
    signs = {np.sign(s) for s in explanation.toward_predicted.scores}
    assert {-1.0, 1.0} <= signs or method == "occlusion"  # IG is signed here: "not" vs "good"
    # two classes: what pushes toward one pushes away from the other, by the same amount
    assert explanation.toward_target.scores == [
        -s + 0.0 for s in explanation.toward_predicted.scores
    ]
    record = explanation.as_record()
    assert record["words"] == scores.words and record["toward_target"] == (
        explanation.toward_target.scores
    )


def test_normalisation_of_nothing_moving_is_zeros() -> None:
    assert normalised(np.zeros(3)) == [0.0, 0.0, 0.0]
    assert normalised(np.array([-2.0, 1.0, 0.00001])) == [-1.0, 0.5, 0.0]
    assert normalised(np.array([])) == []


@pytest.mark.parametrize("family", ["bert", "albert"])
def test_a_pair_is_scored_in_both_texts(family: str) -> None:
    classifier = _classifier("qqp", family)
    predicted = int(classifier.predict_proba([PAIR])[0].argmax())
    for method in ("integrated_gradients", "occlusion"):
        explanation = explain_example(classifier, PAIR, 1 - predicted, predicted, method)
        scores = explanation.toward_predicted
        assert scores.parts == [0] * 7 + [1] * 9
        second = [s for s, p in zip(scores.scores, scores.parts) if p == 1]
        assert any(s != 0 for s in second)  # the second text's words are attributed too


@pytest.mark.parametrize("method", ["integrated_gradients", "occlusion"])
def test_explanations_are_deterministic(method: str) -> None:
    """The same input gives the same scores again, from another loaded copy of the model, and
    whatever the process's torch thread count (a worker of ``-n 2`` has fewer threads)."""
    import torch

    first = explain_example(_classifier("sst2", "albert"), NEGATED, 1, 0, method)
    assert explain_example(_classifier("sst2", "albert"), NEGATED, 1, 0, method) == first
    threads = torch.get_num_threads()
    torch.set_num_threads(max(1, threads // 2) if threads > 1 else 2)
    try:
        assert explain_example(_fresh("sst2", "albert"), NEGATED, 1, 0, method) == first
    finally:
        torch.set_num_threads(threads)


def test_integrated_gradients_are_complete() -> None:
    """The attributions of the words sum to the change of the class probability from the
    baseline (all text tokens padding) to the input: Captum's path integral, not a stand-in;
    the special tokens are not words and carry no attribution (the baseline keeps them)."""
    classifier = _classifier("sst2", "bert")
    spans = segmentation.spans(NEGATED)
    toward_negative, toward_positive = ig.integrated_gradients(classifier, NEGATED, spans, [0, 1])
    tokenizer = classifier.tokenizer
    encoded = tokenizer(NEGATED, return_tensors="pt")
    baseline = encoded["input_ids"].clone()
    baseline[0, 1:-1] = tokenizer.pad_token_id
    import torch

    with torch.no_grad():
        probabilities = [
            torch.softmax(
                classifier.model(input_ids=ids, attention_mask=encoded["attention_mask"]).logits,
                -1,
            )[0].numpy()
            for ids in (encoded["input_ids"], baseline)
        ]
    change = probabilities[0] - probabilities[1]
    assert toward_negative.sum() == pytest.approx(change[0], abs=0.02 * abs(change[0]) + 1e-3)
    assert toward_positive.sum() == pytest.approx(change[1], abs=0.02 * abs(change[1]) + 1e-3)


def test_words_past_the_truncation_score_zero() -> None:
    classifier = _classifier("sst2", "bert")
    long = "good " * 80 + "terrible"
    explanation = explain_example(classifier, long, 0, 1, "integrated_gradients")
    assert explanation.toward_target.scores[-1] == 0.0  # cut off at the 64-token position table


def test_occlusion_goes_through_the_engine_memo() -> None:
    classifier = _fresh("sst2", "bert")
    explain_example(classifier, NEGATED, 1, 0, "occlusion")
    assert classifier.forward_count == len(words_of(NEGATED).words) + 1
    again = explain_example(classifier, NEGATED, 1, 0, "occlusion")
    assert classifier.forward_count == len(words_of(NEGATED).words) + 1  # all from the memo
    assert again.method == "occlusion"


@pytest.mark.parametrize(("dataset", "example"), [("sst2", NEGATED), ("qqp", PAIR)])
def test_a_function_of_the_same_predictions_gets_the_same_occlusion(
    dataset: str, example: str | tuple[str, str]
) -> None:
    """A prediction function returning the checkpoint's probabilities (float64, in the
    opposite label order, which its models-file entry declares) is explained, by default,
    with occlusion, and the scores equal the checkpoint's occlusion scores exactly."""
    checkpoint = _fresh(dataset, "bert")
    spec = checkpoint.spec
    function_spec = dataclasses.replace(
        spec, source="predict:tests.same:predict", labels=tuple(reversed(spec.task.classes))
    )

    def predict(batch: list[Any]) -> np.ndarray:
        rows = _classifier(dataset, "bert").predict_proba(batch)
        return np.asarray(rows, dtype=np.float64)[:, ::-1]

    function = FunctionClassifier(function_spec, predict, LoadOptions(), None)
    assert not gradients_available(function) and gradients_available(checkpoint)
    predicted = int(checkpoint.predict_proba([example])[0].argmax())
    by_function = explain_example(function, example, 1 - predicted, predicted)
    assert by_function.method == "occlusion"
    by_checkpoint = explain_example(checkpoint, example, 1 - predicted, predicted, "occlusion")
    assert by_function == by_checkpoint


def test_without_captum_a_checkpoint_falls_back_and_asking_for_gradients_says_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    absent = extras.Feature("integrated gradients", "explain", ("nlp_gate_test_no_captum",))
    monkeypatch.setattr(extras, "EXPLAIN", absent)
    classifier = _classifier("sst2", "bert")
    assert not gradients_available(classifier)
    assert explain_example(classifier, NEGATED, 1, 0).method == "occlusion"
    with pytest.raises(ConfigurationError) as refused:
        explain_example(classifier, NEGATED, 1, 0, "integrated_gradients")
    assert str(refused.value) == (
        "nlp-gate: integrated gradients were asked for, which needs the [explain] extra: "
        "pip install 'nlp-gate[explain]' (missing: nlp_gate_test_no_captum)"
    )


def test_an_unknown_method_is_refused() -> None:
    with pytest.raises(ValueError, match="one of integrated_gradients, occlusion"):
        explain_example(_classifier("sst2", "bert"), NEGATED, 1, 0, "saliency")
