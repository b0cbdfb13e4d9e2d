"""CheckList's modules, imported without its notebook viewer.

``checklist.abstract_test``, ``checklist.test_suite`` and ``checklist.editor`` import the
viewer's Jupyter widgets at module level (``checklist.viewer.*``), only for their
``visual_summary`` / ``visual_suggest`` methods.  The viewer imports ipywidgets, IPython and
spaCy, and spaCy's thinc imports torch whenever it is installed: every run that built a
native test or decoded a released suite paid about 2 s and the whole of torch for widgets a
pytest run never shows (and a core install, without [hf], cannot afford torch at all).

So ``load_checklist`` imports those three modules with stand-ins in place of the viewer's
three modules; everything else is CheckList's own, and every later ``import checklist...``
finds them loaded.  The stand-ins leave ``sys.modules`` right after, so a notebook that
imports the viewer itself still gets the real one.  nlp-gate calls this before each of its
imports of CheckList (``native``, ``suites``).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any, NoReturn

# The viewer's modules that CheckList's core modules import, and the widget each provides.
VIEWER = {
    "checklist.viewer.test_summarizer": "TestSummarizer",
    "checklist.viewer.suite_summarizer": "SuiteSummarizer",
    "checklist.viewer.template_editor": "TemplateEditor",
}
# The CheckList modules that import the viewer; its other modules import one of these or none.
CORE = ("checklist.abstract_test", "checklist.test_suite", "checklist.editor")


def load_checklist() -> None:
    """Import CheckList's core modules, without the viewer if they are not loaded yet."""
    if all(name in sys.modules for name in CORE):
        return
    stand_ins = {
        name: _stand_in(name, widget) for name, widget in VIEWER.items() if name not in sys.modules
    }
    sys.modules.update(stand_ins)
    try:
        for name in CORE:
            importlib.import_module(name)
    finally:
        for name, module in stand_ins.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]


def _stand_in(module: str, widget: str) -> types.ModuleType:
    def unavailable(*args: Any, **kwargs: Any) -> NoReturn:
        raise RuntimeError(
            f"{module}.{widget} (CheckList's notebook viewer) is not loaded in "
            "an nlp-gate run; show a test's results in a notebook instead"
        )

    stand_in = types.ModuleType(module, "stand-in for CheckList's notebook viewer (nlp-gate)")
    setattr(stand_in, widget, unavailable)
    return stand_in
