"""An input's words: where each is in its text, and which words two inputs differ in.

A word is a run of word characters, joined across inner apostrophes and hyphens ("don't",
"well-made"), or a run of punctuation ("...", ","): the words together are the whole text but
its whitespace, so a report can show the text again from them.  Every attribution method
scores these units, whatever the model's tokenizer makes of them (its sub-word pieces are
summed into the word whose characters they cover: ``gradients.py``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

WORD = re.compile(r"\w+(?:['’\-]\w+)*|[^\w\s]+")
ALPHANUMERIC = re.compile(r"\w")

Example = str | tuple[str, str]
# What the word functions read: also CheckList's pairs, which are lists.
Texts = str | Sequence[str]


@dataclass(frozen=True)
class Span:
    part: int  # 0: the text (a pair's first text), 1: a pair's second text
    start: int  # character offsets into that part
    end: int
    text: str

    @property
    def is_word(self) -> bool:
        """A word proper (letters or digits in it), not punctuation: what a word-level attack
        can perturb."""
        return ALPHANUMERIC.search(self.text) is not None


def parts_of(example: Texts) -> tuple[str, ...]:
    return (example,) if isinstance(example, str) else tuple(example)


def spans(example: Texts) -> list[Span]:
    """The words of ``example`` in order (a pair: the first text's, then the second's)."""
    return [
        Span(part, m.start(), m.end(), m.group())
        for part, text in enumerate(parts_of(example))
        for m in WORD.finditer(text)
    ]


def without(example: Example, span: Span) -> Example:
    """``example`` with the word ``span`` removed, and one whitespace beside it, so that no
    double space is left for a model that reads raw text."""
    texts = list(parts_of(example))
    text = texts[span.part]
    start, end = span.start, span.end
    if end < len(text) and text[end].isspace():
        end += 1
    elif start > 0 and text[start - 1].isspace():
        start -= 1
    texts[span.part] = text[:start] + text[end:]
    return texts[0] if len(texts) == 1 else (texts[0], texts[1])


def differing(original: Texts, perturbed: Texts) -> list[int]:
    """Word indices of ``perturbed`` (as ``spans`` numbers them) that are not in
    ``original``: replaced or inserted words, by ``difflib``'s longest matching blocks, part
    by part.  Deleted words have no index in ``perturbed`` and are not listed."""
    out: list[int] = []
    offset = 0
    a_parts, b_parts = parts_of(original), parts_of(perturbed)
    for part, b_text in enumerate(b_parts):
        b_words = [m.group() for m in WORD.finditer(b_text)]
        a_words = [m.group() for m in WORD.finditer(a_parts[part])] if part < len(a_parts) else []
        matcher = difflib.SequenceMatcher(None, a_words, b_words, autojunk=False)
        for tag, _, _, j1, j2 in matcher.get_opcodes():
            if tag in ("replace", "insert"):
                out.extend(range(offset + j1, offset + j2))
        offset += len(b_words)
    return out
