"""The native behavioral suites (81 tests, one module per capability, for the sentiment,
paraphrase and entailment tasks), shipped with the package.

Their one copy is the repository's ``tests_behavioral/``: the wheel's build copies them here
(``setup.py``), and in a checkout (an editable install) this package finds them there
(``nlp_gate/packaged.py``).  A repository that sets ``nlp_gate_native_suites = true`` in its
pytest configuration collects them on every run of its default paths or of a whole testpath;
``pytest --pyargs nlp_gate.native_tests`` collects them on demand.  ``lexicons.py`` and
``cases.py`` are the helpers they share.  Not to be confused with ``nlp_gate.native``, the API
every native test (these and a team's own) is written with.
"""

from pathlib import Path

from nlp_gate.packaged import checkout_source

# In a checkout the modules are imported from tests_behavioral/ under this package's name.
_source = checkout_source(Path(__file__).parent)
if _source is not None:
    __path__.append(str(_source))
