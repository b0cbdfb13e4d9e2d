"""The explained failing examples as a reviewer sees them, in a real headless Chromium: a gate
run whose gate is set to miss (``default: 0`` on one zoo item), its Allure report built as
the main job builds it (``scripts/allure_html.sh``) and its ``summary.html``.

Asserts that the item's Allure page draws the highlighted words with their signed scores
(results.json's own words and scores), that ``summary.html`` has the section, and that the
item's HTML attachment, rendered and screenshotted, has highlighted pixels (under
``reports/explained-examples.png``).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from PIL import Image

from fixtures.chromium import NEEDS_BROWSER, chromium
from fixtures.gate_run import RunGate

REPO = Path(__file__).resolve().parents[2]
SCREENSHOT = REPO / "reports" / "explained-examples.png"
ITEM = "sentiment/protected: race/sst2/bert"

pytestmark = NEEDS_BROWSER


@pytest.fixture
def explained_run(run_gate: RunGate, zoo: Path, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """The reports folder of a run whose one item misses its gate, with the Allure report."""
    gates = tmp_path / "gates.yaml"
    gates.write_text(yaml.safe_dump({"profiles": {"tiny": {"checklist": {"default": 0}}}}))
    alluredir = tmp_path / "allure-results"
    run = run_gate(
        "--nlp-thresholds",
        str(gates),
        "-m",
        "fairness and not native",
        "-k",
        "race and sst2 and bert and not albert",
        "--nlp-sample",
        "30",
        "--alluredir",
        str(alluredir),
    )
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    folder = run.results_path.parent
    shutil.copytree(alluredir, folder / "allure-results")
    subprocess.run(
        ["bash", str(REPO / "scripts" / "allure_html.sh"), str(folder)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=300,
        env={**os.environ, "NLP_GATE_PYTHON_BIN": sys.executable},
    )
    (record,) = run.records
    assert not record["passed"] and record["explanations"]
    return folder, record


def _drawn(entry: dict[str, Any]) -> list[str]:
    """The words of an entry that carry their score, as the HTML writes them."""
    return [
        f"{html.escape(w)}<sub>{s:+.2f}</sub>"
        for w, s in zip(entry["words"], entry["scores"])
        if abs(s) >= 0.05
    ]


def test_explained_examples_are_drawn_in_allure_and_summary(
    explained_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder, record = explained_run
    entry = record["explanations"][0]
    by_id = json.loads((folder / "allure-report" / "test-results.json").read_text())["byId"]
    item = next(i for i, r in by_id.items() if ITEM in r["name"])
    url = (folder / "allure-report" / "index.html").as_uri() + "#/" + item
    dom = chromium("--dump-dom", url, profile=tmp_path / "profile").stdout
    # Allure renders the item's description into a sandboxed frame's srcdoc.
    frames = [html.unescape(m) for m in re.findall(r'srcdoc="([^"]*)"', dom)]
    page = next(f for f in frames if "nlp-explained" in f)
    assert "<style>" in page and "span.xw.top" in page  # the styles survived the sanitizer
    for word in _drawn(entry):
        assert word in page
    assert 'class="xw top' in page
    assert "explained failing examples (HTML)" in dom  # the attachment, listed

    summary = chromium(
        "--dump-dom", (folder / "summary.html").as_uri(), profile=tmp_path / "profile"
    ).stdout
    assert f"Explained failing examples ({len(record['explanations'])})" in summary
    for word in _drawn(entry):
        assert word in summary

    # The item's HTML attachment, opened alone: the highlighted words drawn in colour.
    results = [json.loads(p.read_text()) for p in (folder / "allure-results").glob("*-result.json")]
    item = next(r for r in results if ITEM in r["name"])
    source = next(
        a["source"] for a in item["attachments"] if a["name"] == "explained failing examples (HTML)"
    )
    assert next(a for a in item["attachments"] if a["name"] == "explained failing examples")
    attachment = folder / "allure-results" / source
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    SCREENSHOT.unlink(missing_ok=True)
    chromium(
        "--window-size=1000,700",
        f"--screenshot={SCREENSHOT}",
        attachment.as_uri(),
        profile=tmp_path / "profile",
    )
    pixels = np.asarray(Image.open(SCREENSHOT).convert("RGB"), dtype=int)
    r, g, b = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    # The highlight colours (blue toward the wanted class, red away from it) blended on
    # white: pixels clearly bluer or redder than grey text and white paper.
    tinted = int(((b - np.maximum(r, g) > 25) | (r - np.maximum(g, b) > 25)).sum())
    assert tinted > 200, f"no highlighted word drawn in {SCREENSHOT} ({tinted} tinted pixels)"
