"""The persistent prediction cache: exact, invalidated by any fingerprint change, safe under
concurrent writers, bounded.  Uses real tiny-zoo models."""

from __future__ import annotations

import dataclasses
import multiprocessing
import shutil
import sqlite3
import tempfile
import threading
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nlp_gate.config.profiles import ModelSpec, load_profile
from nlp_gate.engine.keys import input_key
from nlp_gate.engine.loading import load_classifier, zoo_location
from nlp_gate.engine.prediction_cache import PredictionCache
from nlp_gate.engine.predictor import Classifier, LoadOptions, ModelInput
from nlp_gate.zoo import default_zoo_root, ensure_zoo

if TYPE_CHECKING:
    from multiprocessing.synchronize import Barrier

PROFILE = load_profile("tiny")
SENTIMENT = PROFILE.get("sst2", "bert")
PARAPHRASE = PROFILE.get("qqp", "albert")
# Batch composition changes float rounding (padding length, kernel blocking): predictions of
# the same input computed in different batches agree to about 1e-6, not bit for bit.
ROUNDING = 1e-5

WORDS = [
    "good",
    "bad",
    "movie",
    "not",
    "the",
    "food",
    "was",
    "great",
    "awful",
    "I",
    "think",
    "never",
    "really",
    "service",
    "plot",
    "!",
    "?",
    "é",
    "🙂",
]
texts = st.one_of(
    st.lists(st.sampled_from(WORDS), max_size=30).map(" ".join),  # repeats are likely
    st.text(max_size=60),  # any unicode, empty included
)


@pytest.fixture(scope="module")
def zoo() -> Path:
    ensure_zoo()
    return default_zoo_root()


@pytest.fixture(scope="module")
def base(zoo: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Classifier]:
    """One loaded model per task (through ``load_classifier``, with a cache file)."""
    cache = tmp_path_factory.mktemp("base") / "predictions.sqlite"
    return {
        spec.task.name: load_classifier(spec, zoo_location(zoo, spec), LoadOptions(cache=cache))
        for spec in (SENTIMENT, PARAPHRASE)
    }


def engine(base: Classifier, cache: PredictionCache | None, batch_size: int) -> Classifier:
    """A fresh engine (empty memo) over ``base``'s loaded model and fingerprint."""
    options = dataclasses.replace(base.options, batch_size=batch_size)
    return Classifier(
        base.spec, base.model, base.tokenizer, base.device, options, base.fingerprint, cache
    )


def unique(inputs: Sequence[ModelInput]) -> int:
    return len({input_key(x) for x in inputs})


@st.composite
def workloads(draw: st.DrawFn) -> tuple[str, list[ModelInput], list[ModelInput]]:
    """A task, inputs to cache, and further inputs asked later (some of them cached)."""
    task = draw(st.sampled_from(["sentiment", "paraphrase"]))
    item = st.tuples(texts, texts) if task == "paraphrase" else texts
    first = draw(st.lists(item, max_size=40))
    later = draw(st.lists(st.one_of(item, st.sampled_from(first)) if first else item, max_size=20))
    return task, first, later


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(), st.integers(1, 70), st.integers(1, 70))
def test_cached_predictions_are_the_fresh_ones(
    base: dict[str, Classifier],
    workload: tuple[str, list[ModelInput], list[ModelInput]],
    batch_size: int,
    other_batch_size: int,
) -> None:
    task, first, later = workload
    model = base[task]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "predictions.sqlite"
        fresh = engine(model, None, batch_size).predict_proba(first)
        writer = engine(model, PredictionCache(path), batch_size)
        written = writer.predict_proba(first)
        assert np.array_equal(written, fresh)  # the cache changes nothing about computing
        assert writer.forward_count == unique(first)  # one forward pass per unique input

        # A later run (new engine, new connection, other batch size) reads them back.
        reader = engine(model, PredictionCache(path), other_batch_size)
        read = reader.predict_proba(first + later)
        assert reader.cache_hits == unique(first)
        assert reader.forward_count == unique(first + later) - unique(first)
        assert read.dtype == np.float32 and read.shape == (len(first + later), 2)
        assert np.array_equal(read[: len(first)], written)  # bit for bit what was computed
        recomputed = engine(model, None, other_batch_size).predict_proba(first + later)
        np.testing.assert_allclose(read, recomputed, atol=ROUNDING)


# -- fingerprints -----------------------------------------------------------------------
INPUTS = [
    f"the {a} {b} was {c}"
    for a in ("movie", "food", "plot")
    for b in ("really", "not")
    for c in ("good", "bad", "great", "awful")
]


def _copy(zoo: Path, spec: ModelSpec, dest: Path) -> Path:
    return Path(shutil.copytree(zoo_location(zoo, spec), dest))


def _load(spec: ModelSpec, location: Path, cache: Path, **options: object) -> Classifier:
    return load_classifier(spec, str(location), LoadOptions(cache=cache, **options))  # type: ignore[arg-type]  # options: **kwargs of LoadOptions


@given(st.one_of(texts, st.tuples(texts, texts), st.lists(texts, max_size=3)))
def test_input_keys_are_the_inputs_json(x: str | tuple[str, ...] | list[str]) -> None:
    """The key is exactly ``json.dumps(x, ensure_ascii=False)``, also on its fast path for
    texts and pairs, so caches written before that path keep answering."""
    import json

    key = input_key(tuple(x) if isinstance(x, list) else x)
    assert key == json.dumps(x, ensure_ascii=False)
    assert json.loads(key) == (list(x) if isinstance(x, (tuple, list)) else x)


def test_a_copy_of_the_model_hits_and_changed_weights_miss(zoo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "predictions.sqlite"
    original = _load(SENTIMENT, Path(zoo_location(zoo, SENTIMENT)), cache)
    expected = original.predict_proba(INPUTS)

    copy = _copy(zoo, SENTIMENT, tmp_path / "copy")
    same = _load(SENTIMENT, copy, cache)
    assert same.fingerprint == original.fingerprint  # content, not location, is the key
    assert np.array_equal(same.predict_proba(INPUTS), expected)
    assert (same.forward_count, same.cache_hits) == (0, len(INPUTS))

    from safetensors.torch import load_file, save_file

    weights = copy / "model.safetensors"
    tensors = load_file(weights)
    tensors["classifier.bias"][1] += 2.0  # favour "positive" (a shift of both would cancel)
    save_file(tensors, weights, metadata={"format": "pt"})
    changed = _load(SENTIMENT, copy, cache)
    assert changed.fingerprint != original.fingerprint
    probs = changed.predict_proba(INPUTS)
    assert (changed.forward_count, changed.cache_hits) == (len(INPUTS), 0)
    assert not np.allclose(probs, expected)  # stale predictions would have hidden this


def test_label_order_changes_the_fingerprint(zoo: Path, tmp_path: Path) -> None:
    # A checkpoint with generic label names, so that either mapping loads.
    copy = _copy(zoo, SENTIMENT, tmp_path / "generic")
    import json

    config = json.loads((copy / "config.json").read_text())
    config["id2label"] = {"0": "LABEL_0", "1": "LABEL_1"}
    config["label2id"] = {"LABEL_0": 0, "LABEL_1": 1}
    (copy / "config.json").write_text(json.dumps(config))
    cache = tmp_path / "predictions.sqlite"
    right = _load(SENTIMENT, copy, cache)
    swapped_spec = dataclasses.replace(SENTIMENT, labels=tuple(reversed(SENTIMENT.labels)))
    swapped = _load(swapped_spec, copy, cache)

    probs = right.predict_proba(INPUTS)
    swapped_probs = swapped.predict_proba(INPUTS)
    assert swapped.fingerprint != right.fingerprint
    assert (swapped.forward_count, swapped.cache_hits) == (len(INPUTS), 0)
    assert np.array_equal(swapped_probs, probs[:, ::-1])  # columns follow the mapping


def test_max_length_changes_the_fingerprint(zoo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "predictions.sqlite"
    location = Path(zoo_location(zoo, SENTIMENT))
    long = _load(SENTIMENT, location, cache)
    long.predict_proba(INPUTS)
    short = _load(SENTIMENT, location, cache, max_length=4)
    assert short.fingerprint != long.fingerprint
    short.predict_proba(INPUTS)
    assert (short.forward_count, short.cache_hits) == (len(INPUTS), 0)


@pytest.mark.skipif(
    "not __import__('torch').cuda.is_available()", reason="fp16/bf16 inference needs a GPU"
)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_dtype_changes_the_fingerprint(zoo: Path, tmp_path: Path, dtype: str) -> None:
    cache = tmp_path / "predictions.sqlite"
    location = Path(zoo_location(zoo, SENTIMENT))
    full = _load(SENTIMENT, location, cache)
    full.predict_proba(INPUTS)
    half = _load(SENTIMENT, location, cache, dtype=dtype)
    assert half.fingerprint != full.fingerprint
    probs = half.predict_proba(INPUTS)
    assert (half.forward_count, half.cache_hits) == (len(INPUTS), 0)
    np.testing.assert_allclose(probs, full.predict_proba(INPUTS), atol=0.05)


def test_cache_off_reads_and_writes_nothing(zoo: Path, tmp_path: Path) -> None:
    location = Path(zoo_location(zoo, SENTIMENT))
    _load(SENTIMENT, location, tmp_path / "predictions.sqlite").predict_proba(INPUTS)
    off = load_classifier(SENTIMENT, str(location), LoadOptions(cache=None))
    off.predict_proba(INPUTS)
    assert off.cache is None
    assert (off.forward_count, off.cache_hits) == (len(INPUTS), 0)  # the filled cache unread


def test_a_rerun_answered_from_the_cache_loads_no_weights(zoo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "predictions.sqlite"
    location = Path(zoo_location(zoo, SENTIMENT))
    first = _load(SENTIMENT, location, cache)
    assert first.loaded  # a fingerprint the cache does not know: loaded, validated up front
    expected = first.predict_proba(INPUTS)

    again = _load(SENTIMENT, location, cache)
    assert not again.loaded  # these very files were loaded and validated by the first run
    assert np.array_equal(again.predict_proba(INPUTS), expected)
    assert not again.loaded and again.forward_count == 0
    again.predict_proba(["a sentence the first run never saw"])
    assert again.loaded and again.forward_count == 1  # loaded when a forward pass is needed
    assert load_classifier(SENTIMENT, str(location), LoadOptions(cache=None)).loaded


# -- concurrent writers -----------------------------------------------------------------
CONCURRENT_INPUTS = [f"{a} {b} {c}" for a in WORDS for b in WORDS[:8] for c in (".", "!")]


def _write_concurrently(
    location: str, cache: str, batch_size: int, reverse: bool, start: Barrier
) -> None:
    """One "worker": many small transactions over inputs that overlap the other's."""
    import torch

    classifier = load_classifier(
        SENTIMENT, location, LoadOptions(cache=Path(cache), batch_size=batch_size)
    )
    torch.set_num_threads(1)  # two processes, no more threads than cores (as xdist workers)
    inputs = CONCURRENT_INPUTS[::-1] if reverse else CONCURRENT_INPUTS
    start.wait()  # both write at the same time, not one after the other
    for i in range(0, len(inputs), 13):
        classifier.predict_proba(inputs[i : i + 13])


def test_two_processes_writing_at_once_leave_a_sound_cache(zoo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "predictions.sqlite"
    location = zoo_location(zoo, SENTIMENT)
    ctx = multiprocessing.get_context("spawn")  # no forked torch thread pools
    start = ctx.Barrier(2)
    workers = [
        ctx.Process(
            target=_write_concurrently, args=(location, str(cache), batch_size, reverse, start)
        )
        for batch_size, reverse in ((7, False), (16, True))
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=600)
    assert [w.exitcode for w in workers] == [0, 0]

    with closing(sqlite3.connect(cache)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = dict(db.execute("SELECT input, probs FROM predictions").fetchall())
    assert set(rows) == {input_key(x) for x in CONCURRENT_INPUTS}  # all there, no strays
    fresh = load_classifier(SENTIMENT, location, LoadOptions(cache=None))
    expected = fresh.predict_proba(CONCURRENT_INPUTS)
    stored = np.stack(
        [np.frombuffer(rows[input_key(x)], dtype=np.float32) for x in CONCURRENT_INPUTS]
    )
    np.testing.assert_allclose(stored, expected, atol=ROUNDING)
    reader = load_classifier(SENTIMENT, location, LoadOptions(cache=cache))
    assert np.array_equal(reader.predict_proba(CONCURRENT_INPUTS), stored)
    assert reader.forward_count == 0


def test_opening_a_new_file_waits_for_another_workers_write(tmp_path: Path) -> None:
    # Switching a new file to WAL mode needs exclusive access, and SQLite reports "database is
    # locked" at once there instead of applying its busy timeout: the opener has to wait.
    path = tmp_path / "predictions.sqlite"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("CREATE TABLE t (x)")  # a new file, not in WAL mode yet
    other.execute("BEGIN IMMEDIATE")  # another worker in the middle of a write
    release = threading.Timer(0.3, other.execute, ("COMMIT",))
    release.start()
    try:
        cache = PredictionCache(path)
    finally:
        release.join()
        other.close()
    cache.put("fp", "model", _rows("fp", 3))
    assert len(cache.get("fp", [k for k, _ in _rows("fp", 3)], 2)) == 3
    cache.close()


# -- bound ------------------------------------------------------------------------------
def _rows(tag: str, n: int = 300) -> list[tuple[str, np.ndarray]]:
    return [
        (input_key(f"{tag} input {i} " + "x" * 100), np.full(2, i, np.float32)) for i in range(n)
    ]


def _size(path: Path, *fingerprints: str) -> int:
    """Bytes the cache takes once every connection is closed (the WAL checkpointed)."""
    cache = PredictionCache(path)
    for fp in fingerprints:
        cache.put(fp, fp, _rows(fp))
    cache.close()
    return path.stat().st_size


def test_eviction_keeps_the_file_under_its_bound_least_recently_used_first(tmp_path: Path) -> None:
    two = _size(tmp_path / "two.sqlite", "a", "b")
    bound = int(two * 1.25)  # room for two fingerprints' rows, not three
    assert _size(tmp_path / "three.sqlite", "a", "b", "c") > bound

    path = tmp_path / "bounded.sqlite"
    cache = PredictionCache(path, max_bytes=bound)
    cache.put("a", "model a", _rows("a"))
    cache.put("b", "model b", _rows("b"))
    cache.touch("a", "model a")  # a run read a's predictions: b is now the oldest
    cache.put("c", "model c", _rows("c"))
    keys = {fp: [k for k, _ in _rows(fp)] for fp in "abc"}
    assert len(cache.get("b", keys["b"], 2)) == 0
    assert len(cache.get("a", keys["a"], 2)) == len(cache.get("c", keys["c"], 2)) == 300
    cache.close()
    assert path.stat().st_size <= bound

    # Rows of one model alone larger than the bound: the file still ends up under it.
    cache = PredictionCache(path, max_bytes=bound)
    cache.put("d", "model d", _rows("d", 3000))
    cache.close()
    assert path.stat().st_size <= bound


def test_one_eviction_drops_what_it_must_and_copies_the_file_once(tmp_path: Path) -> None:
    """A put that overflows a full cache of many models evicts them in one go, with one
    VACUUM (each VACUUM copies the whole file, and once per evicted model it took minutes on
    a 2 GiB cache and grew the log to 26 GB)."""
    one, two = _size(tmp_path / "one.sqlite", "a"), _size(tmp_path / "two.sqlite", "a", "b")
    rows, empty = two - one, 2 * one - two  # one model's rows; the file without any
    bound = int(empty + 4.5 * rows)  # room for four models' rows
    path = tmp_path / "bounded.sqlite"
    cache = PredictionCache(path, max_bytes=bound)
    for fp in "abcd":
        cache.put(fp, fp, _rows(fp))
    statements: list[str] = []
    cache._db.set_trace_callback(statements.append)  # what SQLite runs, as it runs it
    cache.put("e", "model e", _rows("e", 900))  # three models' rows: a, b and c must go
    cache._db.set_trace_callback(None)
    assert sum(s.strip().upper() == "VACUUM" for s in statements) == 1
    survivors = "".join(fp for fp in "abcde" if cache.knows(fp))
    assert survivors in ("de", "e")  # least recently used first, the new model kept
    cache.close()
    assert path.stat().st_size <= bound


# -- stored outcomes ----------------------------------------------------------------------
def test_outcomes_are_keyed_by_fingerprint_and_key_and_evicted_with_their_model(
    tmp_path: Path,
) -> None:
    outcome = {
        "n_cases": 3,
        "n_failed": 1,
        "fail_rate": 100 / 3,
        "failing": ["  case 2"],
        "case_index": [0, 1, 2],
        "passed": [True, None, False],
    }
    cache = PredictionCache(tmp_path / "predictions.sqlite")
    cache.put_outcome("a", "model a", "test 1", outcome)
    assert cache.get_outcome("a", "test 1") == outcome  # floats, None and lists round-trip
    assert cache.get_outcome("b", "test 1") is None  # another model (or a changed one)
    assert cache.get_outcome("a", "test 2") is None  # another test, sample, seed or harness
    cache.close()

    two = _size(tmp_path / "two.sqlite", "x", "y")
    bounded = PredictionCache(tmp_path / "bounded.sqlite", max_bytes=int(two * 1.25))
    bounded.put_outcome("a", "model a", "test 1", outcome)
    for fp in "bcd":  # newer models push the least recently used one, a, out
        bounded.put(fp, fp, _rows(fp))
    assert bounded.get_outcome("a", "test 1") is None
    bounded.close()


@pytest.mark.parametrize("module", ["run", "scoring"])
def test_harness_digest_changes_with_the_harness_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str
) -> None:
    from nlp_gate.kinds.checklist import run as checklist_run
    from nlp_gate.kinds.checklist import scoring

    changed = {"run": checklist_run, "scoring": scoring}[module]
    before = checklist_run.harness_digest()
    copy = tmp_path / f"checklist_{module}.py"
    copy.write_text(Path(changed.__file__).read_text() + "\n# changed\n")
    monkeypatch.setattr(changed, "__file__", str(copy))
    checklist_run.harness_digest.cache_clear()
    try:
        assert checklist_run.harness_digest() != before
    finally:
        monkeypatch.undo()
        checklist_run.harness_digest.cache_clear()
    assert checklist_run.harness_digest() == before


def _tiny_checkpoint(folder: Path, positions: int) -> Path:
    """A one-layer BERT sentiment classifier with ``positions`` positions, made here (no zoo)."""
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS[:12]]
    folder.mkdir(parents=True)
    (folder / "vocab.txt").write_text("\n".join(words) + "\n")
    BertTokenizerFast(vocab_file=str(folder / "vocab.txt")).save_pretrained(folder)
    config = BertConfig(
        vocab_size=len(words),
        hidden_size=8,
        num_hidden_layers=1,
        num_attention_heads=1,
        intermediate_size=8,
        max_position_embeddings=positions,
        id2label={0: "negative", 1: "positive"},
        label2id={"negative": 0, "positive": 1},
    )
    BertForSequenceClassification(config).save_pretrained(folder)
    return folder


def test_a_run_answered_from_the_cache_reports_the_models_max_length(tmp_path: Path) -> None:
    # Issue 50, point 5: results.json's engine max_length said the option's 128 for a process
    # whose every answer came from the cache (no forward pass narrowed it to the model's 32).
    from nlp_gate.config.profiles import cli_profile

    location = _tiny_checkpoint(tmp_path / "tiny", positions=32)
    spec = cli_profile([f"sentiment[negative,positive]={location}"]).models[0]
    cache = tmp_path / "predictions.sqlite"
    first = load_classifier(spec, str(location), LoadOptions(cache=cache))
    first.predict_proba(INPUTS)
    assert first.forward_count == len(INPUTS) and first.max_length == 32
    again = load_classifier(spec, str(location), LoadOptions(cache=cache))
    again.predict_proba(INPUTS)
    assert (again.forward_count, again.loaded) == (0, False)  # answered from the cache alone
    assert again.max_length == 32
