"""Where the packaged suites' modules come from: their one copy is the repository's
``tests_behavioral/`` (where a reviewer reads them, and what the repository's own run
collects), and this module says which package each ships in: ``test_released.py`` in
``nlp_gate.released``, every other module (the native tests and their helpers) in
``nlp_gate.native_tests``.

Two readers.  The wheel's build (``setup.py``) copies the modules into those packages, so an
installed package holds them as files.  A checkout (an editable install: ``plugins/`` on
``sys.path``) holds only the packages' ``__init__.py``; each finds its modules in the
checkout's ``tests_behavioral/`` (``checkout_source``), so ``nlp_gate.native_tests.lexicons``
imports from either, and the plugin collects the suites from either
(``pytest_plugin/checkout_suites.py``).

Standard library only, and no import of ``nlp_gate``: ``setup.py`` loads this file by its path.
"""

from __future__ import annotations

from pathlib import Path

# The behavioral folder, relative to the repository root (the parent of ``plugins/``).
SOURCE = "tests_behavioral"
NATIVE, RELEASED = "native_tests", "released"
# The released items' module; every other module of SOURCE is a native one.
_RELEASED_MODULES = frozenset({"test_released"})


def package_of(module: Path) -> str:
    """The package (``NATIVE`` or ``RELEASED``) that ships a module of ``SOURCE``."""
    return RELEASED if module.stem in _RELEASED_MODULES else NATIVE


def shipped(source: Path) -> dict[str, list[Path]]:
    """The modules of ``source`` (a ``tests_behavioral/``) by the package that ships them;
    its ``__init__.py`` is the repository's, not shipped."""
    layout: dict[str, list[Path]] = {NATIVE: [], RELEASED: []}
    for module in sorted(source.glob("*.py")):
        if module.name != "__init__.py":
            layout[package_of(module)].append(module)
    return layout


def checkout_source(package_folder: Path) -> Path | None:
    """The checkout's ``tests_behavioral/`` when ``package_folder`` (``nlp_gate/native_tests``
    or ``nlp_gate/released``) is a checkout's, holding its ``__init__.py`` only; None in an
    installed package (the wheel holds the modules themselves)."""
    if any(p.name != "__init__.py" for p in package_folder.glob("*.py")):
        return None
    source = package_folder.parents[2] / SOURCE  # <repository>/plugins/nlp_gate/<package>
    return source if source.is_dir() else None


def modules(package_folder: Path) -> list[Path]:
    """The files of a packaged suite's modules (``__init__.py`` aside), wherever they lie: in
    the package's folder (installed), else in the checkout's ``tests_behavioral/``."""
    source = checkout_source(package_folder)
    if source is not None:
        return shipped(source)[package_folder.name]
    return sorted(p for p in package_folder.glob("*.py") if p.name != "__init__.py")
