"""The native behavioral suites (81 tests, one module per capability, for the sentiment,
paraphrase and entailment tasks), shipped with the package.

Each module here is a symbolic link to the repository's ``tests_behavioral/`` (a wheel holds
its contents): one source for the repository's suite and the package's.  A repository that sets
``nlp_gate_native_suites = true`` in its pytest configuration collects them on every run of its
default paths or of a whole testpath; ``pytest --pyargs nlp_gate.native_tests`` collects them
on demand.  ``lexicons.py`` and ``cases.py`` are the helpers they share.  Not to be confused
with ``nlp_gate.native``, the API every native test (these and a team's own) is written with.
"""
