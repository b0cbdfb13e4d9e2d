"""Collecting the packaged suites in a checkout, where their modules are not files of the
package's folders.

An installed package holds ``nlp_gate/native_tests/test_ner.py`` as a file, and pytest
collects it as any other.  A checkout (this repository, an editable install) holds only the
packages' ``__init__.py``: the modules' one copy is ``tests_behavioral/``
(``nlp_gate/packaged.py``).  So where pytest collects a packaged suite's folder there
(``--pyargs nlp_gate.native_tests``, the ini keys, the folder's path), its modules are
collected under the folder's paths, as if they lay there: the same item ids as from an
installed package (``.../nlp_gate/native_tests/test_ner.py::...``), each module imported by
its package name (``nlp_gate.native_tests.test_ner``), which its package finds in
``tests_behavioral/``.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from pathlib import Path

import pytest

from nlp_gate.packaged import checkout_source, modules
from nlp_gate.pytest_plugin.selection import PACKAGED_SUITES


class CheckoutSuite(pytest.Package):
    """A packaged suite's folder in a checkout: its ``__init__.py``, and its modules from the
    checkout's ``tests_behavioral/`` under this folder's paths."""

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        yield from super().collect()
        for module in modules(self.path):
            # pytest's own file hook: python_files decides which are test modules (not
            # cases.py, lexicons.py), as for a folder that holds them.
            yield from self.ihook.pytest_collect_file(
                file_path=self.path / module.name, parent=self
            )


def suite_folder(path: Path, parent: pytest.Collector) -> CheckoutSuite | None:
    """``pytest_collect_directory``: a packaged suite's folder in a checkout, else None
    (pytest's own collector)."""
    if any(path == s.folder for s in PACKAGED_SUITES) and checkout_source(path) is not None:
        suite: CheckoutSuite = CheckoutSuite.from_parent(parent, path=path)
        return suite
    return None


def suite_module(module_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    """``pytest_pycollect_makemodule``: a module of a ``CheckoutSuite``, else None.  No file
    lies at its path, so its object is given: the module imported by its package name (the
    public ``obj`` attribute; pytest would import it by its path)."""
    if not isinstance(parent, CheckoutSuite):
        return None
    module: pytest.Module = pytest.Module.from_parent(parent, path=module_path)
    package = next(s.module for s in PACKAGED_SUITES if s.folder == module_path.parent)
    module.obj = importlib.import_module(f"{package}.{module_path.stem}")
    return module
