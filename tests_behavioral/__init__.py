"""This repository's own behavioral tests: the folder a team keeps next to the packaged suites.

The suites the main job gates come from the package, turned on in ``pyproject.toml``
(``nlp_gate_release_suites = true``: the released CheckList suites, accuracy, comparison and
TextAttack items; ``nlp_gate_native_suites = true``: the 81 native tests), and join every run
of this folder (``pytest tests_behavioral``, ``bash scripts/gate.sh``).  A team's own native
tests go here as ``test_*.py`` modules (docs/guide/writing-tests.md); this repository adds
none, so that the main job's items stay exactly the packaged ones.
"""
