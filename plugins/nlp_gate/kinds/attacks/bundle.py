"""The bundle: the one directory the attack recipes' resources live in, and the process's
libraries pointed at it.

Its layout (``--nlp-resources DIR``, default ``.cache/attack-resources``; filled on a
connected machine by ``python scripts/fetch_attack_resources.py DIR``)::

    textattack/        TextAttack's cache (TA_CACHE_DIR): embeddings, language models, HowNet
    nltk_data/         NLTK data, searched before NLTK's default locations
    hub/               Hugging Face hub cache for the recipes' hub models (used when present)
    flair/             flair's cache (FLAIR_CACHE_ROOT): the taggers some recipes use
    tfhub/             TensorFlow Hub cache (TFHUB_CACHE_DIR): the Universal Sentence Encoder
    stand-ins/         local stand-ins of the offline variants: the zoo's masked LM, the
                       homoglyph table rebuilt from Debian (``--stand-ins``, ``--from-debian``)
    PROVENANCE.json    where each entry came from; marks local substitutes (Debian stopwords)

Separate from the resources themselves (``nlp_gate.kinds.attacks.resources``: what each
recipe needs and whether it is present) because this is only the place: its paths, the
environment that points the libraries' caches at it, and its provenance file.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Bundle"]


@dataclass(frozen=True)
class Bundle:
    root: Path

    @property
    def textattack(self) -> Path:
        return self.root / "textattack"

    @property
    def nltk_data(self) -> Path:
        return self.root / "nltk_data"

    @property
    def hub(self) -> Path:
        return self.root / "hub"

    @property
    def flair(self) -> Path:
        return self.root / "flair"

    @property
    def tfhub(self) -> Path:
        return self.root / "tfhub"

    @property
    def stand_ins(self) -> Path:
        return self.root / "stand-ins"

    @property
    def provenance_file(self) -> Path:
        return self.root / "PROVENANCE.json"

    def activate(self, force: bool = False) -> None:
        """Point the libraries' caches at the bundle.  Called from ``pytest_configure``,
        before any of them is imported: they read these variables once, at import.
        ``force``: also over variables the environment sets (the fetcher fills this bundle)."""
        nltk_paths = [str(self.nltk_data), os.environ.get("NLTK_DATA", "")]
        os.environ["NLTK_DATA"] = os.pathsep.join(p for p in nltk_paths if p)
        if "nltk" in sys.modules:  # imported already (an in-process test): tell it directly
            import nltk

            if str(self.nltk_data) not in nltk.data.path:
                nltk.data.path.insert(0, str(self.nltk_data))
        # Caches the user may keep elsewhere: the bundle's copy is used only when it exists,
        # and an explicit environment variable still wins.
        for var, path in (
            ("HF_HUB_CACHE", self.hub),
            ("FLAIR_CACHE_ROOT", self.flair),
            ("TFHUB_CACHE_DIR", self.tfhub),
        ):
            if force:
                os.environ[var] = str(path)
            elif path.is_dir():
                os.environ.setdefault(var, str(path))

    def provenance(self) -> dict[str, dict[str, Any]]:
        if not self.provenance_file.exists():
            return {}
        provenance: dict[str, dict[str, Any]] = json.loads(self.provenance_file.read_text())
        return provenance

    def record_provenance(self, key: str, source: str, substitute_for: str | None = None) -> None:
        entries = self.provenance()
        entries[key] = {"source": source, "substitute_for": substitute_for}
        self.root.mkdir(parents=True, exist_ok=True)
        self.provenance_file.write_text(json.dumps(entries, indent=2, sort_keys=True) + "\n")
