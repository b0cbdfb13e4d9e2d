"""results.json's ``explanations`` entries as a reviewer reads them: plain text (the item's
Allure text attachment) and HTML (the item's Allure HTML attachment,
summary.html's section of explained failing examples).

Both read without colour: every word that moves the class by at least ``SHOWN`` is followed
by its signed score, the ``TOP`` words with the largest magnitude are bold and underlined
(``*word*`` in text), and the words a perturbation changed (INV/DIR) are boxed (``[word]`` in
text).  In HTML a word's background says the same in colour: blue pushes toward the class the
expectation wanted, red pushes away from it.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

TOP = 3  # words marked bold and underlined, by |score|
SHOWN = 0.05  # a word's score is written beside it from this magnitude on

Entry = Mapping[str, Any]

STYLE = """
div.nlp-explained { margin: 0.4em 0 0.8em; font-size: 13px; }
div.nlp-explained p { margin: 0.15em 0; }
span.xw { padding: 0 2px; border-radius: 2px; }
span.xw sub { font-size: 9px; color: #333; }
span.xw.top { font-weight: bold; text-decoration: underline; }
span.xw.changed { outline: 1px dashed #333; }
p.xw-legend { font-size: 11px; color: #555; }
"""

LEGEND = (
    "Each word's signed score toward the class the expectation wanted follows it (from "
    f"±{SHOWN}; +1 pushes hardest toward it, −1 away from it); the {TOP} strongest words are "
    "bold and underlined; words the perturbation changed are boxed."
)


def top_words(scores: Sequence[float], k: int = TOP) -> set[int]:
    """The ``k`` words with the largest |score| (ties: the earlier word), each at least
    ``SHOWN``: a word that barely moves the class is not marked."""
    ranked = sorted(range(len(scores)), key=lambda i: (-abs(scores[i]), i))
    return {i for i in ranked[:k] if abs(scores[i]) >= SHOWN}


def _signed(score: float) -> str:
    return f"{score:+.2f}"


def words_text(entry: Entry, scores: Sequence[float]) -> str:
    """The explained example's words with ``scores``: ``*top*[+0.83]``, ``[changed]``."""
    words, parts = entry["words"], entry["parts"]
    top, changed = top_words(scores), set(entry.get("differing") or [])
    out: list[str] = []
    for i, (word, score) in enumerate(zip(words, scores)):
        if i and parts[i] != parts[i - 1]:
            out.append("||")  # the second text of a pair
        shown = f"[{word}]" if i in changed else word
        shown = f"*{shown}*" if i in top else shown
        if abs(score) >= SHOWN:
            shown += f"({_signed(score)})"
        out.append(shown)
    return " ".join(out)


def _quoted(texts: Sequence[str] | None) -> str:
    return " || ".join(repr(t) for t in texts or [])


def _sides(entry: Entry) -> list[tuple[str, Mapping[str, Any]]]:
    """(who, attribution) of an entry: one model's, or a comparison's two side by side."""
    if "candidate" in entry:
        return [("candidate", entry["candidate"]), ("baseline", entry["baseline"])]
    return [("", entry)]


def entry_text(entry: Entry) -> str:
    lines = [f"case {entry['case']}, example {entry['example']}: wanted {entry['target_label']}"]
    if entry.get("original"):
        lines.append(f"  original:  {_quoted(entry['original'])}")
    lines.append(f"  explained: {_quoted(entry['texts'])}")
    for who, side in _sides(entry):
        name = f"{who} " if who else ""
        lines.append(
            f"  {name}predicted {side['predicted_label']} ({side['method']}); "
            f"toward {entry['target_label']}: {words_text(entry, side['scores'])}"
        )
        changed = entry.get("differing") or []
        if changed:
            lines.append(
                f"  {name}changed words: "
                + ", ".join(f"{entry['words'][i]} {_signed(side['scores'][i])}" for i in changed)
            )
    return "\n".join(lines)


def explanations_text(entries: Sequence[Entry]) -> str:
    """An item's entries as its Allure text attachment."""
    return LEGEND + "\n\n" + "\n\n".join(entry_text(e) for e in entries) + "\n"


def _background(score: float) -> str:
    alpha = min(1.0, abs(score)) * 0.55
    rgb = "37, 99, 235" if score > 0 else "220, 38, 38"
    return f"rgba({rgb}, {alpha:.2f})"


def words_html(entry: Entry, scores: Sequence[float]) -> str:
    words, parts = entry["words"], entry["parts"]
    top, changed = top_words(scores), set(entry.get("differing") or [])
    out: list[str] = []
    for i, (word, score) in enumerate(zip(words, scores)):
        if i and parts[i] != parts[i - 1]:
            out.append("<span class='xw-sep'>‖</span>")
        classes = ["xw", *(["top"] * (i in top)), *(["changed"] * (i in changed))]
        label = html.escape(word)
        if abs(score) >= SHOWN:
            label += f"<sub>{_signed(score)}</sub>"
        out.append(
            f'<span class="{" ".join(classes)}" data-score="{score}" '
            f'style="background: {_background(score)}">{label}</span>'
        )
    return " ".join(out)


def entry_html(entry: Entry) -> str:
    esc = html.escape
    rows = [
        f"<p><b>case {entry['case']}</b>, example {entry['example']}: wanted "
        f"<b>{esc(entry['target_label'])}</b></p>"
    ]
    if entry.get("original"):
        rows.append(f"<p>original: <q>{esc(' ‖ '.join(entry['original']))}</q></p>")
    for who, side in _sides(entry):
        name = f"{who}: " if who else ""
        rows.append(
            f'<p class="xw-line" data-model="{who or "model"}">{esc(name)}predicted '
            f"<b>{esc(side['predicted_label'])}</b> ({esc(side['method'])}): "
            f"{words_html(entry, side['scores'])}</p>"
        )
    return '<div class="nlp-explained">' + "".join(rows) + "</div>\n"


def explanations_html(title: str, entries: Sequence[Entry], standalone: bool = False) -> str:
    """An item's entries as HTML: a fragment (summary.html), or with ``standalone`` a page of
    its own (the item's Allure attachment, shown in a frame without the report's styles)."""
    body = f"<h3>{html.escape(title)}</h3>\n" + "".join(entry_html(e) for e in entries)
    if not standalone:
        return body
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><style>{STYLE}'
        "body { font-family: sans-serif; }</style></head><body>"
        f'<p class="xw-legend">{html.escape(LEGEND)}</p>{body}</body></html>\n'
    )


def description_html(description: str | None, title: str, entries: Sequence[Entry]) -> str:
    """An item's Allure description with its explained examples below the test's own
    description: shown on the item's page, no attachment to open.  Allure renders it in a
    sandboxed frame whose sanitizer keeps a ``<style>`` after the first element."""
    first = f"<p>{html.escape(description)}</p>" if description else ""
    return (
        f'{first}<p class="xw-legend">{html.escape(LEGEND)}</p><style>{STYLE}</style>'
        + explanations_html(title, entries)
    )


def item_title(record: Mapping[str, Any]) -> str:
    """The item an explained record belongs to, as the reports name it."""
    model = (
        f"{record['candidate']}-vs-{record['baseline']}"
        if "candidate" in record
        else record.get("model", "")
    )
    return f"{record['suite']}/{record['test']}/{record['dataset']}/{model}"


def explained_section(records: Sequence[Mapping[str, Any]]) -> str:
    """summary.html's section: every record with explanations, in results.json's order."""
    explained = [r for r in records if r.get("explanations")]
    if not explained:
        return ""
    n = sum(len(r["explanations"]) for r in explained)
    return (
        f'<h2 id="explained">Explained failing examples ({n})</h2>\n'
        f'<p class="xw-legend">{html.escape(LEGEND)}</p>\n'
        + "".join(explanations_html(item_title(r), r["explanations"]) for r in explained)
    )
