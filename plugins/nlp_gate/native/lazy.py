"""CheckList's names, imported when a native test is first built rather than when its module
is collected.

Importing ``checklist.test_types`` takes 2.1 s (its notebook viewer pulls in IPython), and
``checklist.editor`` brings torch and transformers: collecting the behavioral suite must not
pay that (it imports no heavy library, ``tests/integration/test_start_up.py``).  These proxies
forward every call and attribute to CheckList's own object, loaded on first use -- nothing of
CheckList is re-implemented.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

from nlp_gate.checklist_viewer import load_checklist


class Lazy:
    """A CheckList object (class, module-level object) loaded on first use."""

    def __init__(self, module: str, name: str, load: Callable[[], Any] | None = None) -> None:
        self._where = f"{module}.{name}"
        self._load = load or (lambda: getattr(import_module(module), name))
        self._target: Any = None

    def target(self) -> Any:
        if self._target is None:
            load_checklist()  # CheckList without its notebook viewer (and torch)
            self._target = self._load()
        return self._target

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # pytest probes every module global for fixture markers
            raise AttributeError(name)
        return getattr(self.target(), name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.target()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<{self._where}, loaded on first use>"


class LazyEditor(Lazy):
    """One shared ``checklist.editor.Editor``; lexicons added before it exists are kept and
    added to it when it is made (a shared lexicon module registers them at import)."""

    def __init__(self) -> None:
        super().__init__("checklist.editor", "Editor", self._make)
        self._pending: list[tuple[str, list[Any], bool]] = []

    def _make(self) -> Any:
        from checklist.editor import Editor

        editor = Editor()
        for name, values, overwrite in self._pending:
            editor.add_lexicon(name, values, overwrite=overwrite)
        return editor

    def add_lexicon(self, name: str, values: list[Any], overwrite: bool = False) -> None:
        if self._target is None:
            self._pending.append((name, list(values), overwrite))
        else:
            self._target.add_lexicon(name, values, overwrite=overwrite)
