"""The wheel's packaged suites: setuptools builds the package from pyproject.toml, and this
build step adds the behavioral test modules, whose one copy is ``tests_behavioral/``, to
``nlp_gate/native_tests/`` and ``nlp_gate/released/`` (``plugins/nlp_gate/packaged.py`` says
which module goes where).  An editable install copies nothing: there the packages find the
modules in ``tests_behavioral/`` itself.
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Callable
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
# By its path: importing nlp_gate would need the package's dependencies at build time.
_spec = importlib.util.spec_from_file_location(
    "_nlp_gate_packaged", HERE / "plugins/nlp_gate/packaged.py"
)
assert _spec is not None and _spec.loader is not None
packaged = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(packaged)


def copy_packaged_suites(
    build_lib: Path, copy: Callable[[str, str], object] = shutil.copyfile
) -> list[Path]:
    """Copy each module of ``tests_behavioral/`` into its package under ``build_lib``; the
    files made."""
    made = []
    for package, modules in packaged.shipped(HERE / packaged.SOURCE).items():
        for module in modules:
            target = build_lib / "nlp_gate" / package / module.name
            target.parent.mkdir(parents=True, exist_ok=True)
            copy(str(module), str(target))
            made.append(target)
    return made


class BuildPy(build_py):
    """setuptools' build_py, then the packaged suites' modules copied into the build."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            copy_packaged_suites(Path(self.build_lib), self.copy_file)


# setuptools' build backend (and `python setup.py`) runs this file as __main__; the guard lets
# tests/unit/test_packaged_suites.py read copy_packaged_suites without building.
if __name__ == "__main__":
    setup(cmdclass={"build_py": BuildPy})
