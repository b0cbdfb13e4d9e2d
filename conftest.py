"""This repository's own pytest defaults.

The gate itself is the ``nlp_gate`` package (``plugins/nlp_gate``), which pytest loads through
its ``pytest11`` entry point once installed (``scripts/setup.sh`` installs it editable into
``.venv``).  Everything else this repository sets — testpaths, ``--dist loadgroup`` — is in
``pyproject.toml``; ``thresholds.yaml`` and ``reports/`` are found at the rootdir like in any
user's repository.
"""

import pytest


def pytest_configure(config: pytest.Config) -> None:
    # A pytest from another environment would run tests_behavioral without the plugin and
    # fail on every missing fixture; say what to do instead.
    if not config.pluginmanager.has_plugin("nlp_gate"):
        raise pytest.UsageError(
            "the nlp_gate plugin is not installed in this Python: run "
            "`bash scripts/setup.sh` (installs it into .venv) or "
            "`pip install -e .`"
        )
