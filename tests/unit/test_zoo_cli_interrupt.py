"""Ctrl-C during `python -m nlp_gate.zoo build` (the main job's zoo stage) ends it with one
line and exit 130, not a traceback (the guide: a fault is never a traceback)."""

from __future__ import annotations

from typing import Any

import pytest

from nlp_gate.zoo import __main__ as cli


def test_ctrl_c_during_the_build_is_one_line_and_exit_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*_: Any, **__: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "ensure_zoo", interrupted)
    assert cli.main(["build"]) == 130
    err = capsys.readouterr().err
    assert err.strip() == (
        "zoo: interrupted; nothing of this build was kept (the next run puts it in place anew)"
    )
