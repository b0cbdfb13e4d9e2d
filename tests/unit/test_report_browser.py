"""The single-file Allure report, opened over file:// in a real headless Chromium.

Builds a report the way the main job does (plugin report files + allure-pytest results ->
scripts/allure_html.sh), then asserts what a reviewer sees: the summary entry's Table 2 cell,
a failing item's gate message, no analytics script.  Saves a screenshot under reports/.
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

import pytest

from fixtures.chromium import NEEDS_BROWSER, chromium
from fixtures.report_data import fabricated_results
from nlp_gate.report import write_reports

REPO = Path(__file__).resolve().parents[2]
SCREENSHOT = REPO / "reports" / "allure-summary.png"
# A cell no random fill produces: Table 2, protected: race, sst2 (bert 12.3 bold vs albert 45.6).
KNOWN = {
    ("sentiment", "protected: race", "sst2", "bert"): 12.3,
    ("sentiment", "protected: race", "sst2", "albert"): 45.6,
}

pytestmark = [
    *NEEDS_BROWSER,
    pytest.mark.skipif(
        shutil.which("npx") is None,
        reason="Node.js not installed (Debian: apt-get install nodejs npm); CI installs it",
    ),
]

FAILING_ITEM = """
import allure, pytest

def test_protected_race_sst2_albert():
    allure.dynamic.epic("sentiment")
    allure.dynamic.feature("Fairness")
    allure.dynamic.story("protected: race")
    allure.attach("Anna is a Muslim pilot. -> negative", name="failing examples",
                  attachment_type=allure.attachment_type.TEXT)
    pytest.fail("sentiment/protected: race/sst2/albert: fail rate 45.6% exceeds the gate 30.0%",
                pytrace=False)
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A reports folder with results.json, allure-results and the generated allure-report."""
    reports = tmp_path_factory.mktemp("reports")
    alluredir = reports / "allure-results"
    alluredir.mkdir()
    (reports / "test_item.py").write_text(FAILING_ITEM)
    # A real allure-pytest result for a failing gate item, written by a plain pytest run.
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(reports),
            str(reports / "test_item.py"),
            "--alluredir",
            str(alluredir),
        ],
        cwd=reports,
        capture_output=True,
        timeout=300,
    )
    (reports / "results.json").write_text(json.dumps(fabricated_results(fixed=KNOWN)))
    write_reports(reports / "results.json", alluredir=alluredir)
    for _ in range(2):  # twice: the second run must find the first in the history
        subprocess.run(
            ["bash", str(REPO / "scripts" / "allure_html.sh"), str(reports)],
            cwd=REPO,
            check=True,
            capture_output=True,
            timeout=300,
            env={**os.environ, "NLP_GATE_PYTHON_BIN": sys.executable},
        )
    return reports


def result_id(report: Path, name_prefix: str) -> str:
    by_id = json.loads((report / "allure-report" / "test-results.json").read_text())["byId"]
    return next(i for i, r in by_id.items() if r["name"].startswith(name_prefix))


def test_single_file_report_without_analytics(report: Path) -> None:
    files = sorted(p.name for p in (report / "allure-report").iterdir())
    assert "index.html" in files and not any(p.endswith((".js", ".css")) for p in files)
    page = (report / "allure-report" / "index.html").read_text()
    assert "googletagmanager" not in page and "gtag(" not in page


def test_history_is_kept_across_runs(report: Path) -> None:
    lines = (report / "allure-history.jsonl").read_text().splitlines()
    assert len(lines) == 2


def test_summary_tables_render_in_chromium(report: Path, tmp_path: Path) -> None:
    url = (
        (report / "allure-report" / "index.html").as_uri()
        + "#/"
        + result_id(report, "Release gate summary")
    )
    dom = chromium("--dump-dom", url, profile=tmp_path / "profile").stdout
    # Allure renders the description (our tables) into a sandboxed iframe's srcdoc.
    frames = [html.unescape(m) for m in re.findall(r'srcdoc="([^"]*)"', dom)]
    description = next(f for f in frames if "Table 2" in f)
    race = re.search(r"<tr>(?:(?!</tr>).)*protected: race(?:(?!</tr>).)*</tr>", description)
    assert race is not None
    assert "<b>12.3</b>" in race.group(0) and ">45.6<" in race.group(0)
    assert "Table 3: CheckList test suite for QQP" in description
    assert description.count('<img class="plot"') == 4  # the plots, inline
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    SCREENSHOT.unlink(missing_ok=True)
    chromium(
        "--window-size=1400,2600", f"--screenshot={SCREENSHOT}", url, profile=tmp_path / "profile"
    )
    assert SCREENSHOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_failing_item_shows_its_gate_message(report: Path, tmp_path: Path) -> None:
    url = (
        (report / "allure-report" / "index.html").as_uri()
        + "#/"
        + result_id(report, "test_protected_race_sst2_albert")
    )
    dom = chromium("--dump-dom", url, profile=tmp_path / "profile").stdout
    assert "fail rate 45.6% exceeds the gate 30.0%" in html.unescape(dom)
    assert "failing examples" in dom
