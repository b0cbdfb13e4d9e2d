"""A native behavioral test: its declaration, and building its CheckList test object."""

from __future__ import annotations

import inspect
import random
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nlp_gate.checklist_viewer import load_checklist
from nlp_gate.native.cases import NativeTestError, read_cases
from nlp_gate.native.search_space import SearchSpace

__all__ = ["NativeTest", "NativeTestError", "behavioral_test", "definition_of"]

TYPES = ("mft", "inv", "dir")
ATTRIBUTE = "__nlp_native__"  # where the test function keeps its NativeTest


@dataclass(frozen=True)
class NativeTest:
    name: str  # the test function's name without its test_ prefix
    suite: str
    task: str
    capability: str
    type: str  # mft | inv | dir
    description: str
    build: Callable[[], Any]  # returns CheckList's MFT / INV / DIR
    module_file: Path
    cases_file: Path | None  # committed cases, used instead of the generated ones
    search: SearchSpace | None = None  # the space its cases come from (the search kind's)

    @property
    def where(self) -> str:
        return f"{self.module_file}::{self.name}"

    def generate(self, seed: int) -> Any:
        """The CheckList test, built with the random generators seeded from ``seed`` and the
        test's name (so every process builds the same cases) and restored afterwards."""
        load_checklist()  # CheckList without its notebook viewer (and torch)
        from checklist.abstract_test import AbstractTest

        states = np.random.get_state(), random.getstate()
        derived = zlib.crc32(f"{seed}/{self.suite}/{self.name}".encode())
        np.random.seed(derived)
        random.seed(derived)
        try:
            with ordered_template_slots():
                test = self.build()
        finally:
            np.random.set_state(states[0])
            random.setstate(states[1])
        if not isinstance(test, AbstractTest):
            raise NativeTestError(
                f"{self.where} must return a CheckList test (MFT, INV or "
                f"DIR from checklist.test_types), got {type(test).__name__}"
            )
        if type(test).__name__.lower() != self.type:
            raise NativeTestError(
                f"{self.where} is declared type={self.type!r} but returns {type(test).__name__}"
            )
        if self.cases_file is not None:
            test.data, test.labels, test.meta = read_cases(self.cases_file)
        if not test.data:
            raise NativeTestError(f"{self.where} has no test cases")
        test.name, test.capability, test.description = (
            self.name,
            self.capability,
            self.description,
        )
        return test


@contextmanager
def ordered_template_slots() -> Iterator[None]:
    """Make ``Editor.template`` draw its slots in sorted order.

    CheckList collects a template's slot names in a ``set`` and samples one slot after the
    other in that set's order, which follows Python's per-process hash seed: the same seed
    gave other cases in each xdist worker and each run (measured: three hash seeds, two
    different case lists).  Sorting the names is the only change; the sampling is CheckList's.
    """
    load_checklist()
    import checklist.editor as checklist_editor

    original = checklist_editor.find_all_keys
    checklist_editor.find_all_keys = lambda obj: sorted(original(obj))
    try:
        yield
    finally:
        checklist_editor.find_all_keys = original


def behavioral_test(
    *,
    capability: str,
    type: str,
    task: str,
    suite: str | None = None,
    cases: str | Path | None = None,
    search: SearchSpace | None = None,
) -> Callable[[Callable[[], Any]], Any]:
    """Declare a native behavioral test; the decorated function returns its CheckList test.

    ``capability``: one of CheckList's (Vocabulary, Taxonomy, Robustness, NER, Fairness,
    Temporal, Negation, Coref, SRL, Logic); ``type``: mft, inv or dir; ``task``: the task of
    the models file whose models it runs on; ``suite``: its gates' and tables' suite name
    (default ``native_<task>``); ``cases``: a committed case file (JSONL as the run writes to
    ``reports/cases/<suite>/<test>.jsonl``), relative to the test module, read instead of the
    generated cases -- the test's type and expectation still come from the function;
    ``search``: the space an INV or DIR test's cases come from (``SearchSpace``), searched
    for a counterexample by the test's ``search`` items (``-m search``, with the test's own
    expectation).
    """
    # Here, not at module level: any ``nlp_gate.kinds`` module runs the kinds' registry
    # first, whose native kind imports this module.
    from nlp_gate.kinds.checklist.marks import CAPABILITIES

    if capability not in CAPABILITIES:
        raise NativeTestError(
            f"unknown capability {capability!r}; valid: {', '.join(CAPABILITIES)}"
        )
    if type.lower() not in TYPES:
        raise NativeTestError(f"unknown test type {type!r}; valid: {', '.join(TYPES)}")
    if search is not None and not isinstance(search, SearchSpace):
        raise NativeTestError(f"search= takes a SearchSpace, got {search!r}")
    if search is not None and type.lower() == "mft":
        raise NativeTestError(
            "search= needs an INV or DIR test: an MFT has no perturbation to search"
        )

    def declare(build: Callable[[], Any]) -> Any:
        module_file = Path(inspect.getfile(build)).resolve()
        definition = NativeTest(
            name=build.__name__.removeprefix("test_"),
            suite=suite or f"native_{task}",
            task=task,
            capability=capability,
            type=type.lower(),
            description=inspect.cleandoc(build.__doc__ or ""),
            build=build,
            module_file=module_file,
            cases_file=module_file.parent / cases if cases is not None else None,
            search=search,
        )

        # What pytest runs: the native kind parametrizes ``native_case`` from the definition.
        # Not functools.wraps: pytest would read the builder's signature through __wrapped__.
        def test(native_case: Any, nlp_check: Any) -> None:
            nlp_check(native_case)

        test.__name__, test.__qualname__ = build.__name__, build.__qualname__
        test.__module__, test.__doc__ = build.__module__, build.__doc__
        setattr(test, ATTRIBUTE, definition)
        return test

    return declare


def definition_of(function: Callable[..., Any]) -> NativeTest | None:
    return getattr(function, ATTRIBUTE, None)
