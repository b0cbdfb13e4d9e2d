"""The embedded default (``nlp_gate/zoo/embedded.py``): the shipped zoo and masked LM are what
the gates were calibrated on, they are the recipe's current output, and a damaged or edited
file is refused, never used.  Nothing here depends on the CPU: no test trains or predicts."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from nlp_gate.zoo import DEFAULT_RECIPE, embedded, ensure_zoo, is_current, read_card
from nlp_gate.zoo.__main__ import main as zoo_cli

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def weights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the shipped files the module reads instead, free to damage."""
    copy = tmp_path / "weights"
    shutil.copytree(embedded.WEIGHTS, copy)
    monkeypatch.setattr(embedded, "WEIGHTS", copy)
    embedded.verified.cache_clear()
    yield copy
    embedded.verified.cache_clear()


def test_every_shipped_file_is_listed_and_matches_its_sha256() -> None:
    embedded.verified.cache_clear()
    sums = embedded.verified()
    on_disk = {
        p.relative_to(embedded.WEIGHTS).as_posix()
        for p in embedded.WEIGHTS.rglob("*")
        if p.is_file()
    }
    assert on_disk == set(sums) | {embedded.SUMS, embedded.DESCRIPTION}
    card = read_card(embedded.WEIGHTS / "zoo")
    assert card is not None and len(card.models) == 12
    for model in card.models:  # the card's digests are the shipped weights'
        assert sums[f"zoo/{model.path}/model.safetensors"] == model.weights_sha256
    assert "masked-lm/model.safetensors" in sums


def test_the_shipped_zoo_is_the_current_recipes() -> None:
    """An edit to the recipe or to a module that shapes the weights, without shipping a
    rebuild (``python -m nlp_gate.zoo train --ship``), fails here."""
    described = embedded.description()
    assert described["recipe"] == DEFAULT_RECIPE.to_json()
    assert described["training_digest"] == embedded.training_digest()
    card = read_card(embedded.WEIGHTS / "zoo")
    assert card is not None and card.recipe == DEFAULT_RECIPE.to_json()


def test_the_tiny_gates_were_calibrated_on_the_shipped_weights() -> None:
    thresholds = yaml.safe_load((REPO / "thresholds.yaml").read_text())
    calibrated = thresholds["profiles"]["tiny"]["calibrated_on"]
    card = read_card(embedded.WEIGHTS / "zoo")
    assert card is not None
    shipped = {m.path: m.weights_sha256 for m in card.models}
    assert set(calibrated) == set(shipped)
    assert all(shipped[path].startswith(digest) for path, digest in calibrated.items())


def test_install_copies_once_and_repairs_an_edited_copy(tmp_path: Path) -> None:
    root = tmp_path / "zoo"
    card = ensure_zoo(root)
    assert card == read_card(embedded.WEIGHTS / "zoo") and is_current(root)
    weights = root / "sst2" / "bert" / "model.safetensors"
    stamp = weights.stat().st_mtime_ns
    assert not embedded.install("zoo", root, tmp_path / ".lock")  # in place: nothing copied
    assert weights.stat().st_mtime_ns == stamp
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1
    weights.write_bytes(bytes(data))  # the installed copy edited: never used as it is
    assert not is_current(root)
    ensure_zoo(root, datasets=["sst2"])  # a subset asked for: the whole zoo, as shipped
    assert embedded.sha256(weights) == embedded.verified()["zoo/sst2/bert/model.safetensors"]
    assert not list(tmp_path.glob(".zoo.*-*"))  # no private folder left behind


def test_a_damaged_shipped_file_is_refused_with_one_message(
    weights: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = weights / "zoo" / "mrpc" / "albert" / "model.safetensors"
    data = bytearray(shipped.read_bytes())
    data[100] ^= 1
    shipped.write_bytes(bytes(data))
    with pytest.raises(
        embedded.EmbeddedError,
        match=r"mrpc/albert/model\.safetensors has "
        r"sha256 [0-9a-f]{16}, not the shipped",
    ):
        ensure_zoo(tmp_path / "zoo")
    assert not (tmp_path / "zoo").exists()  # nothing of it was copied
    assert zoo_cli(["build", "--root", str(tmp_path / "zoo")]) == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "damaged or edited" in err[0]


def test_a_missing_shipped_file_is_refused(weights: Path, tmp_path: Path) -> None:
    (weights / "masked-lm" / "model.safetensors").unlink()
    with pytest.raises(embedded.EmbeddedError, match="masked-lm/model.safetensors is missing"):
        ensure_zoo(tmp_path / "zoo")


def test_ship_rewrites_only_what_changed(weights: Path, tmp_path: Path) -> None:
    zoo, lm = tmp_path / "zoo", tmp_path / "masked-lm"
    shutil.copytree(weights / "zoo", zoo)
    shutil.copytree(weights / "masked-lm", lm)
    described = embedded.description()
    assert embedded.ship(zoo, lm, described["recipe"], described["versions"]) == []
    assert embedded.compare("zoo", zoo) == []
    (zoo / "rte" / "bert" / "model.safetensors").write_bytes(b"other weights")
    assert embedded.compare("zoo", zoo) == [
        "zoo/rte/bert/model.safetensors: "
        f"{embedded.sha256(zoo / 'rte/bert/model.safetensors')[:16]}"
        f" instead of {embedded.verified()['zoo/rte/bert/model.safetensors'][:16]}"
    ]
    assert embedded.ship(zoo, lm, described["recipe"], described["versions"]) == [
        "zoo/rte/bert/model.safetensors"
    ]
    assert embedded.verified()["zoo/rte/bert/model.safetensors"] == embedded.sha256(
        zoo / "rte" / "bert" / "model.safetensors"
    )
    assert json.loads((weights / embedded.DESCRIPTION).read_text())["training_digest"] == (
        embedded.training_digest()
    )


def test_sha256sum_checks_the_shipped_files() -> None:
    """The sums are in ``sha256sum``'s format: anyone can check them without Python."""
    if shutil.which("sha256sum") is None:
        pytest.skip("no sha256sum on this machine")
    run = subprocess.run(
        ["sha256sum", "--check", "--quiet", embedded.SUMS],
        cwd=embedded.WEIGHTS,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
