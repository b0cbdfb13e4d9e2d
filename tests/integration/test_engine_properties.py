"""CheckList verdicts do not depend on how the engine batches or orders its work.

The engine sorts inputs by length, deduplicates them and (in a single process) predicts a
model's inputs ahead of its tests; none of that may change a fail rate.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nlp_gate import suites as checklist_release
from nlp_gate.config.profiles import load_profile
from nlp_gate.engine import pair_encoding, producer
from nlp_gate.engine.batching import Encodings, encode, padded_batches
from nlp_gate.engine.keys import input_key
from nlp_gate.engine.loading import load_classifier, zoo_location
from nlp_gate.engine.predictor import Classifier, LoadOptions
from nlp_gate.kinds.checklist.run import examples_of, predict_fn, run_test
from nlp_gate.zoo import default_zoo_root, ensure_zoo

REPO = Path(__file__).resolve().parents[2]
SAMPLE, SEED = 30, 1
PROFILE = load_profile("tiny")
MODELS = {"sentiment": PROFILE.get("sst2", "albert"), "qqp": PROFILE.get("qqp", "bert")}
# An MFT, a DIR and an INV test of each suite (INV/DIR compare confidences across inputs).
TESTS = [
    ("sentiment", "single positive words"),
    ("sentiment", "intensifiers"),
    ("sentiment", "add random urls and handles"),
    ("qqp", "Order does not matter for comparison"),
    ("qqp", "Change first and last name in one of the questions"),
    ("qqp", "Symmetry: f(a, b) = f(b, a)"),
]


@pytest.fixture(scope="module")
def suites() -> dict[str, Any]:
    dirs = checklist_release.default_search_dirs(REPO)
    loaded = {}
    for name in MODELS:  # an absent suite fails, saying where it looked (../shared first)
        loaded[name] = checklist_release.load_suite(name, checklist_release.locate(name, dirs))
    return loaded


@pytest.fixture(scope="module")
def models() -> dict[str, Classifier]:
    ensure_zoo()
    return {
        suite: load_classifier(
            spec, zoo_location(default_zoo_root(), spec), LoadOptions(cache=None)
        )
        for suite, spec in MODELS.items()
    }


def engine(base: Classifier, batch_size: int, token_budget: int | None = None) -> Classifier:
    """A fresh engine (empty memo, no persistent cache) over ``base``'s loaded model."""
    options = dataclasses.replace(base.options, batch_size=batch_size, token_budget=token_budget)
    return Classifier(
        base.spec, base.model, base.tokenizer, base.device, options, base.fingerprint, None
    )


def verdict(suite: Any, suite_name: str, test_name: str, classifier: Classifier) -> tuple:
    fn = predict_fn(classifier, neutral_band=suite_name == "sentiment")
    outcome = run_test(suite.tests[test_name], fn, SAMPLE, SEED)
    # Everything but the readable failing examples (they print confidences rounded).
    return (
        outcome.n_cases,
        outcome.n_failed,
        outcome.fail_rate,
        outcome.case_index,
        outcome.passed,
    )


@pytest.fixture(scope="module")
def reference(suites: dict[str, Any], models: dict[str, Classifier]) -> dict[tuple, tuple]:
    """Each test's verdict with CheckList asking the engine directly, default batch size."""
    return {
        (s, t): verdict(suites[s], s, t, engine(models[s], LoadOptions.batch_size))
        for s, t in TESTS
    }


@settings(
    max_examples=20,
    deadline=None,
    # monkeypatch: each example sets the same two names anew.
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.sampled_from(TESTS),
    st.integers(1, 100),
    st.none() | st.integers(1, 2000),
    st.integers(1, 200),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_fail_rates_do_not_depend_on_batch_size_or_prefetch_order(
    suites: dict[str, Any],
    models: dict[str, Classifier],
    reference: dict[tuple, tuple],
    monkeypatch: pytest.MonkeyPatch,
    case: tuple[str, str],
    batch_size: int,
    budget: int | None,
    part: int,
    ahead: bool,
    rng: random.Random,
) -> None:
    """... nor on the token budget, the parts a pass is tokenized in, nor whether a producer
    thread makes the batches ahead (as on a GPU)."""
    suite_name, test_name = case
    suite = suites[suite_name]
    monkeypatch.setattr(producer, "PASS_PART", part)
    monkeypatch.setattr(producer, "runs_ahead", lambda device: ahead)
    classifier = engine(models[suite_name], batch_size, budget)
    inputs = examples_of(suite.tests[test_name], SAMPLE, SEED)
    rng.shuffle(inputs)
    classifier.predict_proba(inputs)  # the session's prefetch, in another order

    assert verdict(suite, suite_name, test_name, classifier) == reference[case]
    # CheckList's own run was answered from the prefetched memo alone.
    assert classifier.forward_count == len({input_key(x) for x in inputs})
    assert 1 <= classifier.largest_batch_rows <= batch_size
    if budget is not None:  # only an input longer than the budget may exceed it, alone
        assert classifier.largest_batch_tokens is not None
        assert classifier.largest_batch_tokens <= max(budget, classifier.max_length)


TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(sorted(MODELS)),
    st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=30),
    st.integers(1, 12),
    st.integers(4, 40),
    st.sampled_from(["right", "left"]),
    st.none() | st.integers(1, 200),
)
def test_padded_batches_are_what_the_tokenizer_pads(
    models: dict[str, Classifier],
    suite_name: str,
    pairs: list[tuple[str, str]],
    batch_size: int,
    max_length: int,
    side: str,
    budget: int | None,
) -> None:
    """The engine tokenizes once and pads per batch itself; every batch must be exactly the
    tokenizer's own padded encoding of its inputs (ids, token types, attention mask), and
    hold at most ``batch_size`` rows and ``budget`` padded tokens (one longer input alone)."""
    tokenizer = copy.deepcopy(models[suite_name].tokenizer)
    tokenizer.padding_side = side
    inputs: list[Any] = pairs if suite_name == "qqp" else [a for a, _ in pairs]
    seen: list[int] = []
    for idx, batch in padded_batches(tokenizer, inputs, max_length, batch_size, None, budget):
        assert len(idx) <= batch_size
        if budget is not None and len(idx) > 1:
            assert batch["input_ids"].size <= budget
        chosen = [inputs[i] for i in idx]
        args = (
            ([x[0] for x in chosen], [x[1] for x in chosen]) if suite_name == "qqp" else (chosen,)
        )
        expected = tokenizer(
            *args, padding=True, truncation=True, max_length=max_length, return_tensors="np"
        )
        assert set(batch) == {k for k in tokenizer.model_input_names if k in expected}
        for name, array in batch.items():
            assert array.tolist() == expected[name].tolist(), name
        seen += idx.tolist()
    assert sorted(seen) == list(range(len(inputs)))  # every input once
    # The count of cut inputs the report shows: those the tokenizer alone makes longer.
    whole = (
        tokenizer([a for a, _ in pairs], [b for _, b in pairs])
        if suite_name == "qqp"
        else tokenizer(inputs)
    )["input_ids"]
    assert encode(tokenizer, inputs, max_length).truncated == sum(
        len(ids) > max_length for ids in whole
    )


@pytest.fixture(scope="module")
def pair_tokenizers() -> dict[str, Any]:
    """The tokenizers of the zoo's two QQP models (WordPiece and Unigram)."""
    from transformers import AutoTokenizer

    ensure_zoo()
    return {
        family: AutoTokenizer.from_pretrained(
            zoo_location(default_zoo_root(), PROFILE.get("qqp", family))
        )
        for family in ("bert", "albert")
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["bert", "albert"]),
    st.lists(TEXT, min_size=1, max_size=8),
    st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), min_size=1, max_size=40),
    st.integers(4, 40),
    st.sampled_from(["right", "left"]),
)
def test_pairs_tokenized_text_by_text_are_the_backends_pairs(
    pair_tokenizers: dict[str, Any],
    family: str,
    texts: list[str],
    picks: list[tuple[int, int]],
    max_length: int,
    side: str,
) -> None:
    """A pass of pairs tokenizes each distinct text once and cuts and joins the pairs itself
    (``pair_encoding.encode_pairs``): the same packed tokens, token types, lengths and count of
    cut inputs as the backend's own encoding of the pairs, with repeated texts, either text
    the longer, cut at either end."""
    tokenizer = copy.deepcopy(pair_tokenizers[family])
    tokenizer.truncation_side = side
    inputs = [(texts[i % len(texts)], texts[j % len(texts)]) for i, j in picks]
    joined: list[int] = []
    own = pair_encoding.encode_pairs
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pair_encoding, "PAIRS_FROM", 1)
        patch.setattr(pair_encoding, "encode_pairs", lambda *a: joined.append(1) or own(*a))
        by_text = encode(tokenizer, inputs, max_length)
    assert joined == [1]  # the text-by-text path was taken
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pair_encoding, "PAIRS_FROM", len(inputs) + 1)
        by_pair = encode(tokenizer, inputs, max_length)
    assert by_text.lengths.tolist() == by_pair.lengths.tolist()
    assert by_text.starts.tolist() == by_pair.starts.tolist()
    assert by_text.truncated == by_pair.truncated
    assert set(by_text.flat) == set(by_pair.flat)
    for name, array in by_pair.flat.items():
        assert by_text.flat[name].dtype == array.dtype, name
        assert by_text.flat[name].tolist() == array.tolist(), name


def test_models_with_one_tokenizer_share_its_encodings() -> None:
    """Fine-tunes of one base model tokenize alike: a process tokenizes a suite's inputs once
    for all of them, and never shares tokens across vocabularies, truncations or inputs."""
    from transformers import AutoTokenizer

    ensure_zoo()
    tokenizers = {
        key: AutoTokenizer.from_pretrained(
            zoo_location(default_zoo_root(), PROFILE.get(*key.split("-")))
        )
        for key in ("sst2-bert", "rotten_tomatoes-bert", "sst2-albert")
    }
    memo = Encodings(keep=8, min_inputs=1)
    inputs: list[Any] = ["a good movie", "not bad at all, really", "the plot was awful"]
    first = memo.encode(tokenizers["sst2-bert"], inputs, 64)
    shared = memo.encode(tokenizers["rotten_tomatoes-bert"], inputs, 64)
    assert shared is first and memo.reused == 1
    for idx_batch, own in zip(
        padded_batches(tokenizers["rotten_tomatoes-bert"], inputs, 64, 2, shared),
        padded_batches(tokenizers["rotten_tomatoes-bert"], inputs, 64, 2),
    ):
        assert idx_batch[0].tolist() == own[0].tolist()
        assert {k: v.tolist() for k, v in idx_batch[1].items()} == {
            k: v.tolist() for k, v in own[1].items()
        }
    assert memo.encode(tokenizers["sst2-albert"], inputs, 64) is not first  # other vocabulary
    assert memo.encode(tokenizers["sst2-bert"], inputs, 4) is not first  # other truncation
    left = copy.deepcopy(tokenizers["sst2-bert"])
    left.truncation_side = "left"
    assert memo.encode(left, inputs, 64) is not first  # truncates the other end
    assert memo.encode(tokenizers["sst2-bert"], inputs[::-1], 64) is not first  # other inputs
    pairs = [("a", "good movie"), ("not bad", "at all, really")]
    assert memo.encode(tokenizers["sst2-bert"], pairs, 64) is not memo.encode(
        tokenizers["sst2-bert"], ["a good movie", "not bad at all, really"], 64
    )
    assert memo.reused == 1


def test_workers_share_encodings_through_their_directory(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two workers (two ``Encodings`` over one directory): the second reads the first one's
    tokens instead of tokenizing; files are bounded and a broken one is tokenized again."""
    from transformers import AutoTokenizer

    ensure_zoo()
    tokenizer = AutoTokenizer.from_pretrained(
        zoo_location(default_zoo_root(), PROFILE.get("qqp", "bert"))
    )
    pairs: list[Any] = [
        ("how do i learn python?", "what is the best way to learn python?"),
        ("is it raining", "will it rain today in paris, france?"),
    ] * 3
    from nlp_gate.engine import batching

    built: list[int] = []
    make = batching._truncating_backend
    monkeypatch.setattr(
        batching, "_truncating_backend", lambda *args: built.append(1) or make(*args)
    )
    small = Encodings(directory=tmp_path)
    for _ in range(3):  # an attack's queries: a few inputs each, many calls
        small.encode(tokenizer, pairs, 64)
    assert not list(tmp_path.iterdir())  # not kept
    assert len(built) == 1  # the tokenizer's truncating copy is made once, not per call
    first, second = (
        Encodings(directory=tmp_path, min_inputs=1),
        Encodings(directory=tmp_path, min_inputs=1),
    )
    written = first.encode(tokenizer, pairs, 64)
    read = second.encode(tokenizer, pairs, 64)
    assert (first.loaded, second.loaded) == (0, 1)
    own = encode(tokenizer, pairs, 64)
    for got in (written, read):
        assert got.lengths.tolist() == own.lengths.tolist()
        assert got.starts.tolist() == own.starts.tolist()
        assert got.truncated == own.truncated
        assert {k: (v.dtype, v.tolist()) for k, v in got.flat.items()} == {
            k: (v.dtype, v.tolist()) for k, v in own.flat.items()
        }
    bounded = Encodings(directory=tmp_path, keep_files=2, min_inputs=1)
    for n in (1, 2, 3):
        bounded.encode(tokenizer, pairs[:n], 64)
    assert len(list(tmp_path.glob("*.npz"))) == 2
    for path in tmp_path.glob("*.npz"):
        path.write_bytes(b"torn")
    again = Encodings(directory=tmp_path, min_inputs=1).encode(tokenizer, pairs[:3], 64)
    assert again.lengths.tolist() == own.lengths[:3].tolist()


def test_fused_activation_predicts_what_the_checkpoints_own_does(
    suites: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ALBERT's gelu_new runs as transformers' fused gelu_pytorch_tanh (FUSED_ACTIVATIONS):
    the same probabilities to float32 rounding, and a fingerprint of its own so that cached
    predictions of one never answer for the other."""
    from nlp_gate.engine import checkpoint

    spec = MODELS["sentiment"]
    location = zoo_location(default_zoo_root(), spec)
    fused = load_classifier(spec, location, LoadOptions(cache=None))
    monkeypatch.setattr(checkpoint, "FUSED_ACTIVATIONS", {})
    own = load_classifier(spec, location, LoadOptions(cache=None))
    assert (fused.model.config.hidden_act, own.model.config.hidden_act) == (
        "gelu_pytorch_tanh",
        "gelu_new",
    )
    assert fused.fingerprint != own.fingerprint
    inputs: list[Any] = []
    for test in suites["sentiment"].tests.values():
        inputs += examples_of(test, 20, SEED)
    p, q = fused.predict_proba(inputs), own.predict_proba(inputs)
    assert np.abs(p - q).max() < 1e-5
    assert (p.argmax(axis=1) == q.argmax(axis=1)).all()
    # BERT's exact gelu is a fused kernel already: nothing to swap, fingerprint unchanged.
    assert checkpoint.fused_activation({"hidden_act": "gelu"}) == {}


@pytest.mark.parametrize("suite", sorted(MODELS))
def test_pruned_last_layer_predicts_what_the_whole_model_does(
    suite: str,
    suites: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """BERT and ALBERT compute their last layer after self-attention at position 0 only
    (nlp_gate/engine/pruning.py): the probabilities of the whole model, padded batches included,
    and a fingerprint of their own."""
    import torch

    from nlp_gate.engine import pruning

    spec = MODELS[suite]
    location = zoo_location(default_zoo_root(), spec)
    pruned = load_classifier(spec, location, LoadOptions(cache=None))
    monkeypatch.setattr(pruning, "RULES", {})
    whole = load_classifier(spec, location, LoadOptions(cache=None))
    assert pruned.fingerprint != whole.fingerprint

    # The feed-forward block of the last layer sees one position, and only when pruned.
    widths: dict[str, list[int]] = {"pruned": [], "whole": []}
    for name, c in (("pruned", pruned), ("whole", whole)):
        base = getattr(c.model, c.model.config.model_type)
        ffn = (
            base.encoder.layer[-1].intermediate
            if hasattr(base.encoder, "layer")
            else base.encoder.albert_layer_groups[-1].albert_layers[-1].ffn
        )
        ffn.register_forward_hook(
            lambda m, args, out, seen=widths[name]: seen.append(args[0].shape[1])
        )
    inputs: list[Any] = []
    for test in suites[suite].tests.values():
        inputs += examples_of(test, 20, SEED)
    p, q = pruned.predict_proba(inputs), whole.predict_proba(inputs)
    assert np.abs(p - q).max() < 1e-6
    assert widths["pruned"][-1] == 1 and min(widths["whole"]) > 1

    # Padded rows of unequal length (the engine's length sorting mostly avoids them).
    texts = [x if isinstance(x, str) else x[0] for x in inputs[::37][:24]]
    batch = pruned.tokenizer(
        texts, padding=True, truncation=True, max_length=64, return_tensors="pt"
    )
    assert batch["attention_mask"].min() == 0
    with torch.inference_mode():
        cut, full = pruned.model(**batch).logits, whole.model(**batch).logits
    assert cut.shape == full.shape and torch.allclose(cut, full, atol=1e-6)
