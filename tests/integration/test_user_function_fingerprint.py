"""Fingerprints that cannot go stale (issue #28, point 1).

A ``module:function`` model's answers persist across runs only under a fingerprint its user
declared (``--nlp-model TASK=module:function@FINGERPRINT``, the models file's ``fingerprint``):
nothing else can tell that the function was edited.  Without one, an edited function is
recomputed (the summary says why, in one line); with one, the answers are reused until the
declared fingerprint changes.  A checkpoint's fingerprint hashes its files: a weight edited in
place is recomputed too."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

from fixtures.function_repo import WORD_FUNCTION, function_repo, run_repo
from fixtures.gate_run import RunGate
from fixtures.user_repo import LABELS, write_gates, write_models
from nlp_gate.config.profiles import ProfileError, cli_profile

TEST = ("plain_words", "predict")
SWAPPED = WORD_FUNCTION.replace("rows.append([1 - p, p])", "rows.append([p, 1 - p])")
NOTICE = (
    "nlp-gate: sentiment/predict (mymod:predict) has no declared fingerprint: "
    "predictions memoised for this run only"
)


def _model(fingerprint: str | None) -> list[str]:
    return ["--nlp-model", "sentiment=mymod:predict" + (f"@{fingerprint}" if fingerprint else "")]


def test_an_edited_function_without_a_fingerprint_is_recomputed(tmp_path: Path) -> None:
    repo = function_repo(tmp_path)
    first = run_repo(repo, *_model(None), run="first")
    assert first.fail_counts()[TEST] == (0, 24), first.out[-3000:]
    assert NOTICE in first.out  # said once, in the summary
    assert first.out.count("has no declared fingerprint") == 1

    (repo / "mymod.py").write_text(SWAPPED)
    second = run_repo(repo, *_model(None), run="second")
    assert second.fail_counts()[TEST] == (24, 24), second.out[-3000:]
    engine = second.engine("predict")
    assert engine["forward_passes"] > 0 and engine["native_stored_outcomes"] == 0
    assert engine["fingerprint_source"] == "none"
    assert not list((repo / ".cache").glob("predictions.sqlite*"))  # nothing was stored


def test_a_declared_fingerprint_is_reused_until_it_changes(tmp_path: Path) -> None:
    repo = function_repo(tmp_path)
    first = run_repo(repo, *_model("v1"), run="first")
    assert first.fail_counts()[TEST] == (0, 24), first.out[-3000:]
    assert "has no declared fingerprint" not in first.out

    # The user edits the function but keeps declaring v1: their declaration is what counts.
    (repo / "mymod.py").write_text(SWAPPED)
    again = run_repo(repo, *_model("v1"), run="again")
    assert again.fail_counts()[TEST] == (0, 24), again.out[-3000:]
    engine = again.engine("predict")
    assert (engine["forward_passes"], engine["native_stored_outcomes"]) == (0, 1)
    assert engine["fingerprint_source"] == "declared"

    bumped = run_repo(repo, *_model("v2"), run="bumped")
    assert bumped.fail_counts()[TEST] == (24, 24), bumped.out[-3000:]
    engine = bumped.engine("predict")
    assert engine["forward_passes"] > 0 and engine["native_stored_outcomes"] == 0


def test_the_models_file_fingerprint_is_the_declared_one(tmp_path: Path) -> None:
    repo = function_repo(tmp_path)
    entry = {"predict": "mymod:predict", "labels": LABELS}
    write_models(repo / "models.yaml", {"mine": entry})
    write_gates(repo / "gates.yaml", {"checklist": {"default": 100}})
    args = ["--nlp-models-file", "models.yaml", "--nlp-thresholds", "gates.yaml"]
    first = run_repo(repo, *args, run="first")
    assert first.engine("mine")["fingerprint_source"] == "none", first.out[-3000:]
    assert "sst2/mine (mymod:predict) has no declared fingerprint" in first.out

    write_models(repo / "models.yaml", {"mine": {**entry, "fingerprint": "2026-01"}})
    run_repo(repo, *args, run="stored")
    reused = run_repo(repo, *args, run="reused")
    assert reused.engine("mine")["forward_passes"] == 0, reused.out[-3000:]
    assert "has no declared fingerprint" not in reused.out


def test_the_at_suffix_is_a_functions_fingerprint_or_a_hub_revision(tmp_path: Path) -> None:
    function, hub = cli_profile(
        [
            "sentiment=mymod:predict@v3",
            "sentiment[negative,positive]=textattack/bert-base-uncased-SST-2@5a1b2c",
        ]
    ).models
    assert (function.source, function.revision, function.name) == (
        "predict:mymod:predict",
        "v3",
        "predict",
    )
    assert (hub.source, hub.revision) == ("textattack/bert-base-uncased-SST-2", "5a1b2c")
    (plain,) = cli_profile(["sentiment=mymod:predict"]).models
    assert plain.revision is None
    # A directory whose name holds an '@' is that directory, not a revision.
    folder = tmp_path / "model@2"
    folder.mkdir()
    (local,) = cli_profile([f"sentiment[negative,positive]={folder}"]).models
    assert (local.source, local.revision) == (str(folder), None)


def test_an_empty_fingerprint_in_the_models_file_is_refused(tmp_path: Path) -> None:
    from nlp_gate.config.profiles import load_profile

    path = write_models(
        tmp_path / "models.yaml",
        {"mine": {"predict": "mymod:predict", "labels": LABELS, "fingerprint": " "}},
    )
    with pytest.raises(ProfileError, match="'fingerprint' is empty"):
        load_profile("tiny", path)


def _flip_one_float(weights: Path) -> None:
    """Change one float32 of the first tensor in place: same size, same header."""
    data = bytearray(weights.read_bytes())
    start = 8 + struct.unpack("<Q", data[:8])[0]  # safetensors: u64 header length, header
    value = struct.unpack_from("<f", data, start)[0]
    struct.pack_into("<f", data, start, value + 1.0)
    weights.write_bytes(bytes(data))


def test_a_checkpoint_weight_edited_in_place_is_recomputed(
    run_gate: RunGate, zoo: Path, tmp_path: Path
) -> None:
    """The checkpoint's fingerprint hashes its files (weights, tokenizer, config) and the
    torch, transformers and tokenizers versions: one float changed is another model."""
    model = Path(shutil.copytree(zoo / "sst2" / "bert", tmp_path / "bert"))
    args = [
        "--nlp-model",
        f"sentiment={model}",
        "--nlp-sample",
        "10",
        "--nlp-prediction-cache",
        str(tmp_path / "cache.sqlite"),
        "-m",
        "native and vocabulary",
    ]
    first = run_gate(*args)
    assert first.json["engine"][0]["forward_passes"] > 0, first.result.stdout.str()[-3000:]
    again = run_gate(*args)
    engine = again.json["engine"]
    assert sum(r["forward_passes"] for r in engine) == 0  # unchanged: all from the cache

    _flip_one_float(model / "model.safetensors")
    edited = run_gate(*args)
    out = edited.result.stdout.str()
    engine = edited.json["engine"]
    assert sum(r["forward_passes"] for r in engine) > 0, out[-3000:]
    assert sum(r["cache_hits"] for r in engine) == 0
    assert sum(r.get("native_stored_outcomes", 0) for r in engine) == 0
