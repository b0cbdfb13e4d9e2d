"""The embedded default (``nlp_gate/zoo/embedded.py``): the shipped zoo and masked LM are
listed with their digests, put in place once, and a damaged or edited file is refused, never
used.  That they are the recipe's current output and what the gates were calibrated on is
``test_zoo_recipe.py``'s.  Nothing here depends on the CPU: no test trains or predicts."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from nlp_gate.zoo import embedded, ensure_zoo, is_current, read_card
from nlp_gate.zoo.__main__ import main as zoo_cli


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
    # A subset asked for: the whole zoo, as shipped.
    assert zoo_cli(["build", "--root", str(root), "--datasets", "sst2", "--quiet"]) == 0
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
