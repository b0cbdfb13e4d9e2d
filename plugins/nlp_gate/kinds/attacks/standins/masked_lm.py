"""The zoo's masked language model: the offline stand-in for the hub models that BAE and
BERT-Attack (``bert-base-uncased``) and CLARE (``distilroberta-base``) draw swap, insertion
and merge candidates from.

What it is: a 2-layer BERT trained with BERT's own objective on the zoo's generated training
text, with the zoo's BERT tokenizer.  It proposes the words the zoo's models were trained on,
in the contexts the zoo's data uses, and nothing beyond that vocabulary (about 2,000 word
pieces): its candidates are narrower than bert-base's, which the substitution line of every
item that uses it says.

It ships with the embedded zoo (``nlp_gate/zoo/embedded.py``): ``ensure`` copies the verified
files into place under a file lock, ``load`` reads them once per process.  ``masked_lm.json``
holds its recipe hash, the training figures and the weights' sha256.  How it is trained is the
repository's workshop (``workshop/zoo/masked_lm.py``), never installed.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

CARD = "masked_lm.json"
# What a process waits for another's build or copy of it (a build in the workshop takes
# minutes).
LOCK_TIMEOUT_S = 30 * 60


def read_card(target: Path) -> dict[str, Any] | None:
    try:
        card: dict[str, Any] = json.loads((target / CARD).read_text())
        return card
    except (OSError, ValueError):
        return None


def build_lock(target: Path) -> Path:
    """The file lock a copy or build of ``target`` holds while it writes (``fcntl.flock``, as
    ``flock(1)`` takes it): a concurrent one, or an attack item that needs it, waits on it."""
    return target.parent / f".{target.name}.lock"


def ensure(target: Path) -> dict[str, Any]:
    """The embedded stand-in at ``target``, installed there from the shipped files unless it is
    there byte for byte."""
    from nlp_gate.zoo import embedded

    embedded.install("masked-lm", target, build_lock(target))
    card = read_card(target)
    assert card is not None  # installed and verified just now
    return card


@cache
def load(target: Path) -> tuple[Any, Any]:
    """(model, tokenizer) of the stand-in, once per process.  A copy whose card says it is
    the embedded one is checked first (and copied afresh when it differs), so an installed
    copy edited since is never what an attack reads."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from nlp_gate.zoo import embedded

    shipped = read_card(embedded.WEIGHTS / "masked-lm")
    if shipped is not None and read_card(target) == shipped:
        ensure(target)

    return (
        AutoModelForMaskedLM.from_pretrained(str(target)).eval(),
        AutoTokenizer.from_pretrained(str(target), use_fast=True),
    )
