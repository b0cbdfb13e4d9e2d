"""TextBugger's and Bad Characters' homoglyph table, rebuilt offline from Debian.

TextAttack 0.3.11 reads Unicode's ``intentional.txt`` from ``textattack/shared/
intentional_homoglyphs.txt``, a file its wheel does not ship, so both recipes fail to build.
Debian has no copy of ``intentional.txt``; what it has is ``python3-confusable-homoglyphs``
(``confusables.json``, generated from Unicode's ``confusables.txt``, of which the intentional
pairs are a curated subset).  The stand-in keeps the pairs that fit what TextAttack reads from
the file (one code point for one code point) and that matter for English text: an ASCII letter
or digit mapped to a non-ASCII look-alike.  It is written in ``intentional.txt``'s own line
format, so TextAttack's parser reads it unchanged.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

DEBIAN_PACKAGE = "python3-confusable-homoglyphs"
CONFUSABLES = Path("/usr/lib/python3/dist-packages/confusable_homoglyphs/confusables.json")
FILE_NAME = "intentional_homoglyphs.txt"


def pairs(confusables: dict[str, list[dict[str, str]]]) -> list[tuple[str, str]]:
    """(ASCII letter or digit, single non-ASCII look-alike), sorted."""
    found = {
        (key, entry["c"])
        for key, entries in confusables.items()
        if len(key) == 1 and key.isascii() and key.isalnum()
        for entry in entries
        if len(entry["c"]) == 1 and not entry["c"].isascii()
    }
    return sorted(found)


def line(key: str, value: str) -> str:
    # intentional.txt: "0041 ;\t0391 #* ( A → Α ) LATIN CAPITAL LETTER A → GREEK ...".
    # TextAttack takes the characters at offsets 3 and 7 after the '#'.
    names = f"{unicodedata.name(key, '?')} → {unicodedata.name(value, '?')}"
    return f"{ord(key):04X} ;\t{ord(value):04X} #* ( {key} → {value} ) {names}\n"


def rebuild(target: Path, source: Path = CONFUSABLES) -> int:
    """Write the table to ``target``; returns the number of pairs."""
    found = pairs(json.loads(source.read_text(encoding="utf-8")))
    if not found:
        raise ValueError(f"{source}: no single-character confusables of ASCII letters")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    tmp.write_text(
        f"# Built by nlp-gate from {source} (Debian {DEBIAN_PACKAGE}); "
        "stand-in for Unicode intentional.txt\n" + "".join(line(k, v) for k, v in found),
        encoding="utf-8",
    )
    tmp.replace(target)  # readers never see half a table
    return len(found)
