"""The user's cache (CheckList's released suites, shared by every repository) follows
``XDG_CACHE_HOME``; ``NLP_GATE_CACHE`` overrides it; a repository's own ``.cache/`` does not
move."""

from __future__ import annotations

from pathlib import Path

import pytest

from nlp_gate.config.paths import cache_dir, user_cache_dir
from nlp_gate.suites import default_cache_dir


@pytest.fixture(autouse=True)
def plain(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("NLP_GATE_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def test_the_user_cache_follows_xdg_cache_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert user_cache_dir() == tmp_path / "home" / ".cache" / "nlp-gate"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert user_cache_dir() == tmp_path / "xdg" / "nlp-gate"
    assert default_cache_dir() == tmp_path / "xdg" / "nlp-gate" / "checklist-release"
    monkeypatch.setenv("NLP_GATE_CACHE", str(tmp_path / "mine"))
    assert default_cache_dir() == tmp_path / "mine" / "checklist-release"


@pytest.mark.parametrize("xdg", ["", "relative/cache"])
def test_an_empty_or_relative_xdg_cache_home_is_ignored(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, xdg: str
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    assert user_cache_dir() == tmp_path / "home" / ".cache" / "nlp-gate"


def test_the_repository_cache_stays_in_the_repository(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir(tmp_path / "repo") == tmp_path / "repo" / ".cache"
