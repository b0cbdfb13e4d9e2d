"""The reference study's items, shipped with the package.

``test_released.py``'s one copy is the repository's ``tests_behavioral/test_released.py``:
the wheel's build copies it here (``setup.py``), and in a checkout (an editable install) this
package finds it there (``nlp_gate/packaged.py``).  A repository that sets
``nlp_gate_release_suites = true`` in its pytest configuration collects it on every run of its
default paths; ``pytest --pyargs nlp_gate.released`` collects it on demand.
"""

from pathlib import Path

from nlp_gate.packaged import checkout_source

# In a checkout the module is imported from tests_behavioral/ under this package's name.
_source = checkout_source(Path(__file__).parent)
if _source is not None:
    __path__.append(str(_source))
