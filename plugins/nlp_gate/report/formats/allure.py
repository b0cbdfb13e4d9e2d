"""Allure (with ``--alluredir``): what the Allure report needs beyond allure-pytest's own
results, written into the alluredir.

* a synthetic "Release gate summary" result carrying the HTML tables (also as its description,
  so they show without a click) and the PNG plots as attachments;
* ``environment.properties``: run metadata (profile, model ids and revisions, seeds, versions);
* ``categories.json``: gate failures apart from infrastructure errors (the rules live in
  ``nlp_gate/report/categories.json``; ``allurerc.mjs`` gives Allure 3 the same file).

It attaches the Markdown tables the Markdown format wrote before it.

``strip_analytics`` removes the third-party analytics script Allure's single-file page embeds.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import uuid
from pathlib import Path
from typing import Any

from nlp_gate.report.formats.base import ReportInput
from nlp_gate.report.formats.html_pages import img, outcome_html, to_html
from nlp_gate.report.verdict import ReleaseVerdict

SUMMARY_NAME = "Release gate summary"
SUMMARY_KEY = "nlp-gate.summary"  # stable: Allure keeps the summary's history across runs

# One rule set for both report generations: allurerc.mjs reads this file for Allure 3's
# awesome report, and it is copied into the alluredir as categories.json for Allure 2/classic.
# messageRegex is wrapped in [\s\S]*: Java matches the whole message, JavaScript searches
# it, and both then match across the message's lines.
CATEGORIES = Path(__file__).parent.parent / "categories.json"
ALLURE_HTML = "allure-report/index.html"  # written by scripts/allure_html.sh

# For the Allure description frame (narrow): smaller type, long test names wrap.
COMPACT_STYLE = """
table.nlp-gate { font-size: 12px; border-collapse: collapse; margin-top: 1em; }
table.nlp-gate caption { text-align: left; font-weight: bold; }
table.nlp-gate th, table.nlp-gate td { padding: 1px 6px; }
table.nlp-gate td.stub { max-width: 22em; white-space: normal; }
table.nlp-gate td.num { text-align: right; white-space: nowrap; }
p.note { font-size: 11px; margin: 0.1em 0; }
img.plot { max-width: 100%; }
"""


def _property(text: str) -> str:
    """Escape for a Java .properties file (keys and values)."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("=", "\\=").replace(":", "\\:")


def environment(run: dict[str, Any]) -> dict[str, str]:
    env = {
        "profile": str(run.get("profile")),
        "models_file": str(run.get("models_file")),
        "seed": str(run.get("seed")),
        "sample": str(run.get("sample") or "all"),
        "device": str(run.get("device")),
        "dtype": str(run.get("dtype")),
        "thresholds_file": str(run.get("thresholds_file")),
    }
    for m in run.get("models", []):
        revision = f"@{m['revision']}" if m.get("revision") else ""
        env[f"model.{m['dataset']}.{m['model']}"] = f"{m['model_id']}{revision}"
    for suite, sha in run.get("suites", {}).items():
        env[f"suite.{suite}.sha256"] = sha
    for package, version in run.get("packages", {}).items():
        env[f"version.{package}"] = version
    return env


def _attach(alluredir: Path, name: str, content: bytes, mime: str, ext: str) -> dict[str, str]:
    source = f"{uuid.uuid4()}-attachment.{ext}"
    (alluredir / source).write_bytes(content)
    return {"name": name, "source": source, "type": mime}


def _remove_old_summary(alluredir: Path) -> int | None:
    """Regenerating reports (``python -m nlp_gate.report --alluredir``) replaces the summary
    rather than adding a second one.  Returns the earliest start of the other results."""
    starts: list[int] = []
    for path in alluredir.glob("*-result.json"):
        try:
            result = json.loads(path.read_text())
        except (OSError, ValueError):
            continue  # not ours to judge
        if result.get("fullName") == SUMMARY_KEY:
            for attachment in result.get("attachments", []):
                (alluredir / attachment["source"]).unlink(missing_ok=True)
            path.unlink()
        elif isinstance(result.get("start"), int):
            starts.append(result["start"])
    return min(starts, default=None)


def summary_result(
    alluredir: Path, verdict: ReleaseVerdict, tables_html: str, attachments: list[tuple[str, Path]]
) -> Path:
    """Write the summary result; ``attachments`` are (name, file) pairs (HTML, Markdown, PNG)."""
    run_start = _remove_old_summary(alluredir)
    mimes = {
        ".html": ("text/html", "html"),
        ".md": ("text/markdown", "md"),
        ".png": ("image/png", "png"),
        ".csv": ("text/csv", "csv"),
    }
    files = [_attach(alluredir, "tables (HTML)", tables_html.encode(), "text/html", "html")]
    files += [
        _attach(alluredir, name, path.read_bytes(), *mimes[path.suffix])
        for name, path in attachments
    ]
    now = int(time.time() * 1000)
    # Spanning the whole run puts the summary first in Allure's default (earliest) order.
    start = now if run_start is None else min(run_start - 1, now)
    history = hashlib.md5(SUMMARY_KEY.encode()).hexdigest()
    result = {
        "uuid": str(uuid.uuid4()),
        "historyId": history,
        "testCaseId": history,
        "fullName": SUMMARY_KEY,
        "name": f"{SUMMARY_NAME}: gate {verdict.word}",
        # The summary itself always renders; the verdict is in its name and description, so
        # it adds no failure of its own to the report's counts.
        "status": "passed",
        "stage": "finished",
        "start": start,
        "stop": now,
        "description": verdict.line(),
        # Allure shows the description in a sandboxed frame with its own styles; a <style>
        # after the first element survives its sanitizer and keeps the wide tables compact.
        "descriptionHtml": f"<p><b>{verdict.line()}</b></p><style>{COMPACT_STYLE}</style>"
        f"{tables_html}",
        "labels": [
            {"name": "epic", "value": "Summary"},
            {"name": "feature", "value": "Tables and plots"},
            {"name": "story", "value": SUMMARY_NAME},
            {"name": "suite", "value": "Summary"},
        ],
        "attachments": files,
    }
    path = alluredir / f"{result['uuid']}-result.json"
    path.write_text(json.dumps(result, indent=1))
    return path


def write_allure_files(
    alluredir: Path,
    results: dict[str, Any],
    verdict: ReleaseVerdict,
    tables_html: str,
    attachments: list[tuple[str, Path]],
) -> None:
    alluredir.mkdir(parents=True, exist_ok=True)
    env = environment(results.get("run", {}))
    (alluredir / "environment.properties").write_text(
        "".join(f"{_property(k)}={_property(v)}\n" for k, v in env.items())
    )
    (alluredir / "categories.json").write_text(CATEGORIES.read_text())
    summary_result(alluredir, verdict, tables_html, attachments)


class Allure:
    table_files: tuple[str, ...] = ()
    report_files: tuple[str, ...] = ()
    elsewhere = True

    def write(self, report: ReportInput) -> dict[str, Path]:
        if report.alluredir is None:
            return {}
        attachments = [(f"{t.name}.md", report.table_dir / f"{t.name}.md") for t in report.tables]
        attachments += [(p.stem, p) for p in report.plots]
        inline = (
            outcome_html(report.results)
            + "".join(to_html(t) for t in report.tables)
            + "".join(img(p, True) for p in report.plots)
        )
        write_allure_files(report.alluredir, report.results, report.verdict, inline, attachments)
        return {
            "allure results": report.alluredir,
            "allure HTML (bash scripts/allure_html.sh)": report.out_dir / ALLURE_HTML,
        }


_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script>\s*", re.S)


def strip_analytics(page: str) -> tuple[str, int]:
    """Drop scripts that load from another host or feed a tracker (Allure's gtag snippet).
    The report's own code is inlined as data: URIs and stays.  Returns (page, tags removed)."""
    removed = 0

    def drop(match: re.Match[str]) -> str:
        nonlocal removed
        attrs, body = match.group(1), match.group(2)
        if re.search(r"""src=["']?(https?:)?//""", attrs) or "gtag(" in body:
            removed += 1
            return ""
        return match.group(0)

    return _SCRIPT.sub(drop, page), removed
