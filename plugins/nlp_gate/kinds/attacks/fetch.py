"""Populating a resource bundle (``scripts/fetch_attack_resources.py`` is the command line).

Two sources:

* ``fetch`` -- on a connected machine: every resource the selected recipes need, downloaded by
  the library that will later read it (NLTK's downloader, TextAttack's S3 helper, the Hugging
  Face hub client, TF Hub), into the bundle's layout.
* ``from_debian`` -- offline, from Debian packages (``apt-get install wordnet-base
  wordnet-sense-index liblingua-stopwords-perl python3-confusable-homoglyphs``): WordNet 3.0,
  the same data NLTK distributes, laid out as NLTK reads it; the Snowball English stop list as
  NLTK's ``stopwords`` corpus, recorded in PROVENANCE.json as a substitute so results say so;
  and the homoglyph table of the offline variants, from Debian's Unicode confusables.
* ``stand_ins`` -- offline, from the zoo: the masked LM of the offline variants.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

from nlp_gate.kinds.attacks import offline
from nlp_gate.kinds.attacks import resources as r
from nlp_gate.kinds.attacks.bundle import Bundle
from nlp_gate.kinds.attacks.standins import homoglyphs, masked_lm

WORDNET_DIR = Path("/usr/share/wordnet")
STOPWORDS_PM = Path("/usr/share/perl5/Lingua/StopWords/EN.pm")
# The database files of NLTK's wordnet package, all in Debian's wordnet-base/-sense-index.
WORDNET_FILES = (
    "adj.exc",
    "adv.exc",
    "cntlist.rev",
    "data.adj",
    "data.adv",
    "data.noun",
    "data.verb",
    "index.adj",
    "index.adv",
    "index.noun",
    "index.sense",
    "index.verb",
    "noun.exc",
    "verb.exc",
)
# WordNet 3.0's lexicographer files in file-number order (lexnames(5WN)); Debian does not
# ship the `lexnames` file NLTK's reader opens, so it is written from this list.
LEXNAMES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute "
    "noun.body noun.cognition noun.communication noun.event noun.feeling noun.food noun.group "
    "noun.location noun.motive noun.object noun.person noun.phenomenon noun.plant "
    "noun.possession noun.process noun.quantity noun.relation noun.shape noun.state "
    "noun.substance noun.time verb.body verb.change verb.cognition verb.communication "
    "verb.competition verb.consumption verb.contact verb.creation verb.emotion verb.motion "
    "verb.perception verb.possession verb.social verb.stative verb.weather adj.ppl"
).split()
SYNTACTIC_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


class FetchError(RuntimeError):
    pass


# -- offline, from Debian ---------------------------------------------------------------------
def from_debian(bundle: Bundle) -> list[str]:
    """Build NLTK's wordnet and stopwords corpora and the homoglyph table from installed
    Debian packages."""
    missing = [
        str(p)
        for p in (
            WORDNET_DIR / "data.noun",
            WORDNET_DIR / "index.sense",
            STOPWORDS_PM,
            homoglyphs.CONFUSABLES,
        )
        if not p.exists()
    ]
    if missing:
        raise FetchError(
            f"not installed: {', '.join(missing)}; run `apt-get install "
            f"{' '.join(r.DEBIAN_PACKAGES)}` first"
        )
    return [
        _wordnet_from_debian(bundle),
        _stopwords_from_debian(bundle),
        _homoglyphs_from_debian(bundle),
    ]


def stand_ins(bundle: Bundle) -> list[str]:
    """Install the embedded masked LM into the bundle (shipped with the zoo, sha256 checked)."""
    target = r.ZOO_MASKED_LM.path(bundle)
    card = masked_lm.ensure(target)
    return [
        f"{target}  (held-out masked-token accuracy {card['heldout_masked_accuracy']:.3f},"
        f" perplexity {card['heldout_perplexity']})"
    ]


def _homoglyphs_from_debian(bundle: Bundle) -> str:
    target = r.HOMOGLYPH_TABLE.path(bundle)
    pairs = homoglyphs.rebuild(target)
    bundle.record_provenance(
        r.HOMOGLYPH_TABLE.key,
        f"{pairs} pairs of Unicode confusables.txt, Debian {homoglyphs.DEBIAN_PACKAGE} "
        f"({_debian_version(homoglyphs.DEBIAN_PACKAGE)})",
        substitute_for="Unicode intentional.txt (textattack/shared/intentional_homoglyphs.txt)",
    )
    return str(target)


def _wordnet_from_debian(bundle: Bundle) -> str:
    target = bundle.nltk_data / "corpora" / "wordnet"
    target.mkdir(parents=True, exist_ok=True)
    for name in WORDNET_FILES:
        shutil.copyfile(WORDNET_DIR / name, target / name)
    (target / "lexnames").write_text(
        "".join(
            f"{i:02d}\t{name}\t{SYNTACTIC_CATEGORY[name.split('.')[0]]}\n"
            for i, name in enumerate(LEXNAMES)
        )
    )
    bundle.record_provenance(
        r.WORDNET.key,
        f"Debian wordnet-base/wordnet-sense-index ({_debian_version('wordnet-base')})",
    )
    return str(target)


def _stopwords_from_debian(bundle: Bundle) -> str:
    # EN.pm returns the Snowball English stop words as one qw( ... ) list from _stopwords().
    block = re.search(
        r"sub _stopwords.*?qw\((.*?)\)", STOPWORDS_PM.read_text(encoding="utf-8"), re.S
    )
    if block is None:
        raise FetchError(f"no word list found in {STOPWORDS_PM}")
    words = block.group(1).split()
    target = bundle.nltk_data / "corpora" / "stopwords"
    target.mkdir(parents=True, exist_ok=True)
    (target / "english").write_text("\n".join(words) + "\n")
    bundle.record_provenance(
        r.STOPWORDS.key,
        f"Snowball English stop list, Debian liblingua-stopwords-perl "
        f"({_debian_version('liblingua-stopwords-perl')}), {len(words)} words",
        substitute_for="NLTK stopwords corpus (english)",
    )
    return str(target / "english")


def _debian_version(package: str) -> str:
    out = subprocess.run(
        ["dpkg-query", "-W", "-f", "${Version}", package],
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout.strip() or "version unknown"


# -- connected machine ------------------------------------------------------------------------
def fetch(bundle: Bundle, needed: Iterable[r.Resource]) -> list[str]:
    """Download every needed resource into the bundle; returns what was done, per resource."""
    prepare_dirs(bundle)
    bundle.activate(force=True)  # fill this bundle, whatever caches the environment names
    done = []
    # NLTK first: importing TextAttack (for its S3 helper) needs the stopwords.
    for resource in sorted(set(needed), key=lambda x: not isinstance(x, r.NltkData)):
        if resource.present(bundle):
            done.append(f"present: {resource.key}")
            continue
        _fetch_one(bundle, resource)
        done.append(f"fetched: {resource.key}")
    return done


def _fetch_one(bundle: Bundle, resource: r.Resource) -> None:
    if isinstance(resource, r.NltkData):
        import nltk

        if not nltk.download(
            resource.package, download_dir=str(bundle.nltk_data), raise_on_error=True
        ):
            raise FetchError(f"nltk.download({resource.package!r}) failed")
        bundle.record_provenance(resource.key, f"nltk.download({resource.package!r})")
    elif isinstance(resource, r.TextAttackFile):
        textattack = offline.import_textattack(bundle)
        textattack.shared.utils.download_from_s3(resource.path)
    elif isinstance(resource, r.HubModel):
        from huggingface_hub import snapshot_download

        snapshot_download(
            resource.repo_id,
            cache_dir=bundle.hub,
            allow_patterns=["*.json", "*.txt", "*.model", "*.safetensors"],
        )
    elif isinstance(resource, r.FlairModel):
        from huggingface_hub import hf_hub_download

        hf_hub_download(resource.repo_id, "pytorch_model.bin", cache_dir=resource.cache_dir())
    elif isinstance(resource, r.TfHubModule):
        import tensorflow_hub

        tensorflow_hub.resolve(resource.url)  # downloads into TFHUB_CACHE_DIR
    elif isinstance(resource, r.PackageFile):
        import requests

        reply = requests.get(resource.url, timeout=60)
        reply.raise_for_status()
        resource.location().write_bytes(reply.content)
    elif resource == r.ZOO_MASKED_LM:
        stand_ins(bundle)
    elif resource == r.HOMOGLYPH_TABLE:
        if not homoglyphs.CONFUSABLES.exists():
            raise FetchError(f"{resource.key}: {resource.remedy(bundle)}")
        _homoglyphs_from_debian(bundle)
    else:
        raise FetchError(f"{resource.key} cannot be downloaded: {resource.remedy(bundle)}")


def prepare_dirs(bundle: Bundle) -> None:
    """Create the caches the bundle holds, so that ``activate`` points the libraries at them."""
    for path in (bundle.textattack, bundle.nltk_data, bundle.hub, bundle.flair, bundle.tfhub):
        path.mkdir(parents=True, exist_ok=True)


def needs_of(recipe_names: Sequence[str]) -> list[r.Resource]:
    from nlp_gate.kinds.attacks.recipes import registry

    chosen = [rec for rec in registry() if not recipe_names or rec.name in recipe_names]
    unknown = set(recipe_names) - {rec.name for rec in chosen}
    if unknown:
        raise FetchError(
            f"unknown recipe(s) {sorted(unknown)}; valid: "
            f"{', '.join(rec.name for rec in registry())}"
        )
    return list(
        dict.fromkeys([*r.IMPORT_REQUIREMENTS, *(res for rec in chosen for res in rec.needs)])
    )
