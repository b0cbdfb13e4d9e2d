"""pytest's glue: every module of nlp-gate that imports pytest to run a gate, and nothing else.

``plugin`` is the entry point (``pytest11: nlp_gate = nlp_gate.pytest_plugin.plugin``), loaded
into every pytest run of the environment and inert until a run asks for it (``opt_in``); then
it registers the markers (``marks``) and the gate's hooks (``gate_hooks``), which hand off to
``options`` (the command line and ini keys, read into the run's settings), ``stash`` (the run
on ``config.stash``), ``selection`` (which runs are behavioral, which items they keep),
``validation`` (refusing a bad configuration before any item runs), ``outcome`` (an item
passed, skipped or failed by its verdict), ``interrupt`` and ``early_signals`` (stop signals),
``xdist_handoff`` / ``xdist_groups`` (records from the workers, each model's items on one
worker), ``run_end`` (the reports), ``allure_labels``, ``hypothesis_plugin``, ``path_values``
and ``terminal_progress`` (progress on pytest's terminal).

The rest of the package (the run, the engine, the zoo, the reports) does not import pytest;
the item kinds (``nlp_gate.kinds``) import it only to build parameters and marks.
"""
