"""The behavioral suite: the 81 native tests, one module per capability (``test_fairness.py``,
``test_ner.py``, ...), with the helpers they share (``cases.py``, ``lexicons.py``), and the
released items' module (``test_released.py``: CheckList, accuracy, comparison and TextAttack
items, parametrized by the plugin from the run's profile and gates).

``pytest tests_behavioral`` (the main job, ``bash scripts/gate.sh``) collects them as ordinary
pytest files.  The same files are what the package ships to users: the wheel's build copies
them into ``nlp_gate/native_tests/`` and ``nlp_gate/released/`` (``setup.py``,
``nlp_gate/packaged.py``), and in a checkout those packages import them from here
(``--pyargs nlp_gate.native_tests``, ``--pyargs nlp_gate.released``, the ini keys
``nlp_gate_native_suites`` / ``nlp_gate_release_suites``).  One copy, no link: edit them
here.  The native tests import their helpers by the installed name
(``nlp_gate.native_tests.lexicons``) so that the shared lexicons are registered once.
"""
