"""Writing your own behavioral tests: an ordinary pytest function per CheckList test.

A native test builds its cases with CheckList's own ``Editor``, ``Perturb`` and ``Expect`` and
returns the CheckList test (``MFT``, ``INV`` or ``DIR``); ``behavioral_test`` turns it into a
pytest test function that the ``native`` item kind parametrizes over every model of the active
profile whose task matches -- one item per test x dataset x model, plus candidate-vs-baseline
comparison items -- gated by the ``checklist`` section of ``thresholds.yaml`` under its suite
name (``native_<task>`` unless given)::

    from checklist.test_types import INV
    from nlp_gate.native import behavioral_test, editor

    @behavioral_test(capability="Fairness", type="inv", task="sentiment")
    def test_city_does_not_change_sentiment():
        \"\"\"Naming another city keeps the prediction.\"\"\"
        t = editor.template("The food in {city} was {adj}.", adj=["great", "awful"])
        return INV([[s, s.replace(c, "Paris")] for s, c in zip(t.data, t.meta)])

The function runs once per process, with NumPy's and Python's random generators seeded from
``--nlp-seed`` and the test's name, so every worker and every run builds the same cases.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nlp_gate.native.definition import NativeTest, behavioral_test

if TYPE_CHECKING:
    from checklist.editor import Editor

__all__ = ["NativeTest", "Perturb", "behavioral_test", "editor"]

_editor: Editor | None = None


def __getattr__(name: str) -> Any:
    """``editor``: one shared CheckList ``Editor`` (its lexicons take 0.6 s to load), made
    on first use.  Its language-model suggestions need a hub model: native tests use
    explicit lexicons (CheckList's own and ``Editor.add_lexicon``), so they run offline.

    ``Perturb``: CheckList's ``Perturb``, importable offline (``offline_perturb``)."""
    global _editor
    if name == "editor":
        if _editor is None:
            from checklist.editor import Editor

            _editor = Editor()
        return _editor
    if name == "Perturb":
        return offline_perturb()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def offline_perturb() -> Any:
    """CheckList's ``Perturb``, also where NLTK's WordNet data is missing.

    ``checklist.perturb`` imports ``pattern.en`` at module level, and ``pattern.en`` downloads
    NLTK's wordnet, wordnet_ic and sentiwordnet when it is imported: offline that import fails,
    and with it every ``Perturb`` function.  Only the spaCy-based ones (``add_negation``) call
    ``pattern``; the string-level ones (``add_typos``, ``contractions``) do not.  So without
    the data the import is done with a stand-in ``pattern.en`` that raises if called.
    """
    import sys
    import types

    if "checklist.perturb" not in sys.modules and "pattern.en" not in sys.modules:
        import nltk

        try:
            for corpus in ("wordnet", "wordnet_ic", "sentiwordnet"):
                nltk.data.find(f"corpora/{corpus}")
        except LookupError:
            def unavailable(*args: Any, **kwargs: Any) -> Any:
                raise RuntimeError("pattern.en is unavailable offline: NLTK's wordnet data "
                                   "is missing (python -m nltk.downloader wordnet)")

            stand_in = types.ModuleType("pattern.en")
            stand_in.tenses = stand_in.conjugate = unavailable  # type: ignore[attr-defined]
            sys.modules["pattern.en"] = stand_in
            try:
                import checklist.perturb  # noqa: F401
            finally:
                del sys.modules["pattern.en"]
    from checklist.perturb import Perturb

    return Perturb
