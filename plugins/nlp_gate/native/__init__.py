"""Writing your own behavioral tests: an ordinary pytest function per CheckList test.

A native test builds its cases with CheckList's own ``Editor``, ``Perturb`` and ``Expect`` and
returns the CheckList test (``MFT``, ``INV`` or ``DIR``), all imported from here: they are
CheckList's objects, loaded on first use so that collecting a test module stays fast.
``behavioral_test`` turns the function into a pytest test function that the ``native`` item
kind parametrizes over every model of the active profile whose task matches -- one item per
test x dataset x model, plus candidate-vs-baseline comparison items -- gated by the
``checklist`` section of ``thresholds.yaml`` under its suite name (``native_<task>`` unless
given)::

    from nlp_gate.native import INV, behavioral_test, editor

    @behavioral_test(capability="Fairness", type="inv", task="sentiment")
    def test_city_does_not_change_sentiment():
        \"\"\"Naming another city keeps the prediction.\"\"\"
        t = editor.template("The food in {city} was {adj}.", adj=["great", "awful"])
        return INV([[s, s.replace(c, "Paris")] for s, c in zip(t.data, t.meta)])

The function runs once per process, with NumPy's and Python's random generators seeded from
``--nlp-seed`` and the test's name, so every worker and every run builds the same cases.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from nlp_gate.native.definition import NativeTest, behavioral_test
from nlp_gate.native.lazy import Lazy, LazyEditor
from nlp_gate.native.search_space import SearchSpace

__all__ = [
    "DIR",
    "INV",
    "MFT",
    "Expect",
    "NativeTest",
    "Perturb",
    "SearchSpace",
    "behavioral_test",
    "editor",
]

# CheckList's own objects, loaded when a test is first built (see nlp_gate.native.lazy).
MFT = Lazy("checklist.test_types", "MFT")
INV = Lazy("checklist.test_types", "INV")
DIR = Lazy("checklist.test_types", "DIR")
Expect = Lazy("checklist.expect", "Expect")
# One shared Editor (its lexicons take 0.6 s to load).  Its language-model suggestions need
# a hub model: native tests use explicit lexicons (CheckList's own and add_lexicon), offline.
editor = LazyEditor()


def offline_perturb() -> Any:
    """CheckList's ``Perturb``, also where NLTK's WordNet data is missing.

    ``checklist.perturb`` imports ``pattern.en`` at module level, and ``pattern.en`` downloads
    NLTK's wordnet, wordnet_ic and sentiwordnet when it is imported: offline that import fails,
    and with it every ``Perturb`` function.  Only the spaCy-based ones (``add_negation``) call
    ``pattern``; the string-level ones (``add_typos``, ``contractions``) do not.  So without
    the data the import is done with a stand-in ``pattern.en`` that raises if called.
    """
    if "checklist.perturb" not in sys.modules and "pattern.en" not in sys.modules:
        import nltk

        try:
            for corpus in ("wordnet", "wordnet_ic", "sentiwordnet"):
                nltk.data.find(f"corpora/{corpus}")
        except LookupError:

            def unavailable(*args: Any, **kwargs: Any) -> Any:
                raise RuntimeError(
                    "pattern.en is unavailable offline: NLTK's wordnet data "
                    "is missing (python -m nltk.downloader wordnet)"
                )

            stand_in = types.ModuleType("pattern.en")
            stand_in.tenses = stand_in.conjugate = unavailable  # type: ignore[attr-defined]  # a stand-in module
            sys.modules["pattern.en"] = stand_in
            try:
                import checklist.perturb  # noqa: F401  # imported for its side effect, with the stand-in
            finally:
                del sys.modules["pattern.en"]
    from checklist.perturb import Perturb

    return Perturb


Perturb = Lazy("checklist.perturb", "Perturb", offline_perturb)
