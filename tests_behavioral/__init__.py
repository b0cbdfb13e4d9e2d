"""The behavioral suite: the 81 native tests, one module per capability (``test_fairness.py``,
``test_ner.py``, ...), with the helpers they share (``cases.py``, ``lexicons.py``), and the
released items' module (``test_released.py``: CheckList, accuracy, comparison and TextAttack
items, parametrized by the plugin from the run's profile and gates).

``pytest tests_behavioral`` (the main job, ``bash scripts/gate.sh``) collects them as ordinary
pytest files.  The same files are what the package ships to users: ``nlp_gate/native_tests/``
and ``nlp_gate/released/`` hold symbolic links to them, which a wheel stores as the files'
contents (``--pyargs nlp_gate.native_tests``, ``--pyargs nlp_gate.released``, the ini keys
``nlp_gate_native_suites`` / ``nlp_gate_release_suites``).  One source, no copy: edit them
here.  The native tests import their helpers by the installed name
(``nlp_gate.native_tests.lexicons``) so that the shared lexicons are registered once.
"""
