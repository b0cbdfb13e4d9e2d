"""The reference study's items, shipped with the package.

A repository that sets ``nlp_gate_release_suites = true`` in its pytest configuration collects
``test_released.py`` on every run of its default paths; ``pytest --pyargs nlp_gate.released``
collects it on demand.
"""
