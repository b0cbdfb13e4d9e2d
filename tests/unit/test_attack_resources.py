"""Resource detection reads the disk only; the Debian builder yields NLTK-readable data; a
stand-in another process is building is waited for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nlp_gate.kinds.attacks import fetch, offline
from nlp_gate.kinds.attacks import resources as r
from nlp_gate.kinds.attacks.bundle import Bundle
from nlp_gate.kinds.attacks.recipes import registry
from nlp_gate.kinds.attacks.standins import homoglyphs
from nlp_gate.kinds.attacks.standins.masked_lm import build_lock


def test_textattack_file_is_found_only_in_the_bundle_cache(tmp_path: Path) -> None:
    bundle = Bundle(tmp_path)
    assert not r.COUNTER_FITTED.present(bundle)
    (bundle.textattack / "word_embeddings" / "paragramcf").mkdir(parents=True)
    assert r.COUNTER_FITTED.present(bundle)


def test_nltk_data_is_searched_in_the_bundle_first(tmp_path: Path) -> None:
    bundle = Bundle(tmp_path)
    corpus = r.NltkData("corpora/nlp_gate_probe", "nlp_gate_probe", "probe")
    assert not corpus.present(bundle)
    (bundle.nltk_data / "corpora" / "nlp_gate_probe").mkdir(parents=True)
    assert corpus.present(bundle)
    assert corpus.locate(bundle) == str(bundle.nltk_data / "corpora" / "nlp_gate_probe")


def test_missing_names_each_resource_and_the_command_providing_it(tmp_path: Path) -> None:
    bundle = Bundle(tmp_path)
    iga = next(rec for rec in registry() if rec.name == "iga")
    absent = r.missing(iga.needs, bundle)
    assert r.COUNTER_FITTED in absent
    text = r.describe_missing("iga", absent, bundle)
    assert "textattack:word_embeddings/paragramcf" in text
    assert "python scripts/fetch_attack_resources.py --recipe iga DIR" in text
    assert "--nlp-resources DIR" in text
    pip = r.describe_missing("textfooler", [r.TENSORFLOW_HUB], bundle)
    assert "`pip install tensorflow-hub`" in pip


def test_every_recipe_can_be_fetched_or_installed(tmp_path: Path) -> None:
    """The fetcher knows how to provide every resource a recipe lists."""
    needed = fetch.needs_of([])
    assert r.STOPWORDS in needed and r.USE in needed and r.HOMOGLYPHS in needed
    fetchable = (
        r.NltkData,
        r.TextAttackFile,
        r.HubModel,
        r.FlairModel,
        r.TfHubModule,
        r.PackageFile,
        r.PythonModule,
        r.StandIn,
    )
    assert all(isinstance(res, fetchable) for res in needed)
    with pytest.raises(fetch.FetchError, match="unknown recipe"):
        fetch.needs_of(["textfool"])


@pytest.fixture(autouse=True)
def _restore_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Bundle.activate`` and ``import_textattack`` change process-wide settings."""
    import nltk

    for var in ("NLTK_DATA", "TA_CACHE_DIR", "HF_HUB_CACHE", "FLAIR_CACHE_ROOT", "TFHUB_CACHE_DIR"):
        if var in os.environ:
            monkeypatch.setenv(var, os.environ[var])  # restored to this value afterwards
        else:
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))


def test_from_debian_builds_wordnet_stopwords_and_homoglyphs(tmp_path: Path) -> None:
    if not all(
        p.exists()
        for p in (fetch.WORDNET_DIR / "data.noun", fetch.STOPWORDS_PM, homoglyphs.CONFUSABLES)
    ):
        pytest.fail("Debian packages missing: apt-get install " + " ".join(r.DEBIAN_PACKAGES))
    from nltk.corpus.reader import WordListCorpusReader, WordNetCorpusReader

    bundle = Bundle(tmp_path)
    fetch.from_debian(bundle)
    bundle.activate()  # NLTK reads corpora only under its search path
    wordnet = WordNetCorpusReader(str(bundle.nltk_data / "corpora" / "wordnet"), None)
    dog = wordnet.synsets("dog")[0]
    assert dog.lexname() == "noun.animal"
    assert "felicitous" in {lemma.name() for s in wordnet.synsets("happy") for lemma in s.lemmas()}
    words = WordListCorpusReader(
        str(bundle.nltk_data / "corpora" / "stopwords"), ["english"]
    ).words("english")
    assert {"the", "and", "ourselves"} <= set(words) and "dog" not in words
    provenance = bundle.provenance()
    assert provenance[r.STOPWORDS.key]["substitute_for"] == "NLTK stopwords corpus (english)"
    assert provenance[r.WORDNET.key]["substitute_for"] is None
    assert r.local_stopwords(bundle) is not None  # results will name the substitute
    # The homoglyph table, in intentional.txt's format: TextAttack reads offsets 3 and 7.
    table = r.HOMOGLYPH_TABLE.path(bundle).read_text(encoding="utf-8").splitlines()
    pairs = {
        (data[3], data[7])
        for line in table
        if not line.startswith("#")
        for data in [line.replace("#*", "#").split("#", 1)[1]]
    }
    assert len(pairs) == len(table) - 1 > 500
    assert ("a", "\u0430") in pairs and ("o", "\u03bf") in pairs  # Cyrillic a, Greek omicron
    assert all(k.isascii() and not v.isascii() for k, v in pairs)
    assert "Unicode intentional.txt" in provenance[r.HOMOGLYPH_TABLE.key]["substitute_for"]


def test_offline_stand_in_for_nltk_download_answers_from_disk(tmp_path: Path) -> None:
    bundle = Bundle(tmp_path)
    assert offline._nltk_download_offline("no-such-package") is False
    (bundle.nltk_data / "corpora" / "stopwords").mkdir(parents=True)
    (bundle.nltk_data / "corpora" / "stopwords" / "english").write_text("the\n")
    bundle.activate()
    assert offline._nltk_download_offline("stopwords") is True


def test_guard_turns_a_textattack_download_into_a_named_missing_resource(tmp_path: Path) -> None:
    bundle = Bundle(tmp_path)
    (bundle.nltk_data / "corpora" / "stopwords").mkdir(parents=True)
    (bundle.nltk_data / "corpora" / "stopwords" / "english").write_text("the\na\n")
    bundle.activate()
    textattack = offline.import_textattack(bundle)
    with offline.offline_guard(), pytest.raises(r.MissingResources) as err:
        textattack.shared.utils.download_from_s3("nlp-gate/no/such/file")
    assert [m.key for m in err.value.missing] == ["textattack:nlp-gate/no/such/file"]


def _builder(
    lock: Path, marker: Path | None, seconds: float, card: str = "{}"
) -> subprocess.Popen[str]:
    """Another process building a stand-in: holds its build lock for ``seconds``, then
    writes ``card`` into its ``marker`` (None: the build fails, nothing written)."""
    script = "\n".join(
        [
            "import pathlib, time",
            "from filelock import FileLock",
            f"with FileLock({str(lock)!r}):",
            "    print('held', flush=True)",
            f"    time.sleep({seconds})",
            *(
                [
                    f"    m = pathlib.Path({str(marker)!r})",
                    "    m.parent.mkdir(parents=True, exist_ok=True)",
                    f"    m.write_text({card!r})",
                ]
                if marker
                else []
            ),
        ]
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_an_item_waits_for_a_stand_in_another_process_is_building(tmp_path: Path) -> None:
    """The main job trains the masked LM beside the test run: an attack item that needs it
    while the build holds its lock waits for the build and finds it; with no build under way
    nothing waits (and no lock file is made); a build that outlasts the wait leaves it
    missing, for the item to skip naming it; a rebuild under way is waited for even though a
    stale one is there."""
    bundle = Bundle(tmp_path)
    stand_in = r.ZOO_MASKED_LM
    stand_in.await_build(bundle, timeout=60)
    assert not stand_in.present(bundle) and not bundle.stand_ins.exists()

    lock = build_lock(stand_in.path(bundle))
    lock.parent.mkdir(parents=True)
    stuck = _builder(lock, None, 3)
    stand_in.await_build(bundle, timeout=0.5)
    assert not stand_in.present(bundle)
    assert stuck.wait() == 0

    marker = bundle.stand_ins / stand_in.marker
    building = _builder(lock, marker, 2, card='{"recipe_hash": "old"}')
    stand_in.await_build(bundle, timeout=60)
    assert stand_in.present(bundle)
    assert building.wait() == 0

    rebuilding = _builder(lock, marker, 2, card='{"recipe_hash": "new"}')
    stand_in.await_build(bundle, timeout=60)
    assert marker.read_text() == '{"recipe_hash": "new"}'
    assert rebuilding.wait() == 0
