"""The reference study's items, shipped with the package.

``test_released.py`` is a symbolic link to the repository's ``tests_behavioral/test_released.py``
(a wheel holds its contents): one source for the repository's suite and the package's.  A
repository that sets ``nlp_gate_release_suites = true`` in its pytest configuration collects it
on every run of its default paths; ``pytest --pyargs nlp_gate.released`` collects it on demand.
"""
