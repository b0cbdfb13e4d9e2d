"""Native behavioral tests as gated items: one per test function x dataset x model.

A native test (``nlp_gate.native.behavioral_test``) is a pytest function in a test module that
returns a CheckList test; this kind parametrizes it over the profile's models of its task and,
when a baseline and candidate are declared, with its comparison items; when it declares a
search space, with its search items (those kinds make them: ``cases_for_test``).  The kind is
a source of CheckList tests; everything after the test object is the harness the released
tests run on too (``kinds/checklist/items.py``): CheckList's ``get_stats`` computes the fail
rate, the ``checklist`` gates judge it under the test's suite name, outcomes are stored per
model fingerprint, records go to results.json's ``records`` with the released ones.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from nlp_gate.config.specs import ModelSpec
from nlp_gate.engine.predictor import unencodable
from nlp_gate.kinds.base import Verdict
from nlp_gate.kinds.checklist.gates import ChecklistGates, universe
from nlp_gate.kinds.checklist.items import ChecklistItems, ChecklistTestKind, OnModelTest
from nlp_gate.kinds.checklist.marks import TASK_MARKERS, suite_marks
from nlp_gate.kinds.checklist.report import REPORT
from nlp_gate.kinds.context import KindContext
from nlp_gate.native.cases import cases_folder, write_cases
from nlp_gate.native.definition import NativeTest, NativeTestError, definition_of
from nlp_gate.native.search_space import SearchSpace
from nlp_gate.suites import RELEASE_SUITES
from nlp_gate.suites.catalog import TestInfo

# Native records share results.json's ``records`` (and comparisons ``comparisons``) with the
# released items, which take positions from 0: native positions start far above them, in
# the order the tests were collected, so ``-n 0`` and ``-n 2`` list records alike.
FIRST_POSITION = 1 << 20
POSITIONS_PER_TEST = 1 << 8
# The kinds whose items a native test function carries besides its own, in this order.
COMPANIONS = ("comparison", "search")


@dataclass(frozen=True, repr=False)
class NativeCase(OnModelTest):
    """One pytest item: a native test on one dataset's model (``info`` from its definition)."""

    kind = "native"  # the registered kind that runs it (not a field)

    def marks(self) -> list[pytest.MarkDecorator]:
        # A model's items on one xdist worker, with its CheckList items: one load.
        return [
            pytest.mark.native,
            *suite_marks(self.info, self.model.task.name),
            pytest.mark.xdist_group(self.model.key),
        ]


class NativeKind(ChecklistTestKind[NativeCase]):
    """The user's test functions as a source of CheckList tests, run by the same harness as
    the released ones (``ChecklistItems``) and gated by the same ``checklist`` section."""

    name = "native"
    argname = "native_case"
    section = "checklist"
    report = REPORT
    records = REPORT.key
    case_type = NativeCase
    markers = {
        "native": "a native behavioral test item (nlp_gate.native.behavioral_test)",
        **TASK_MARKERS,
    }

    def __init__(self, context: KindContext) -> None:
        super().__init__(context)
        # The native tests this process parametrized, in collection order.
        self.definitions: dict[tuple[str, str], NativeTest] = {}
        self._built: dict[tuple[str, str], Any] = {}
        self._digests: dict[tuple[str, str], str] = {}
        self._written: set[tuple[str, str]] = set()
        self.items = ChecklistItems(context, self.name, self, lambda: self.gates)

    # -- configuration --------------------------------------------------------------------
    def parse_gates(self, section: Mapping[str, Any], where: str) -> ChecklistGates:
        """The CheckList kind's gates: one ``checklist`` section for both."""
        gates = self.context.kind("checklist").gates
        assert isinstance(gates, ChecklistGates)
        return gates

    def register(self, definition: NativeTest) -> TestInfo:
        key = (definition.suite, definition.name)
        known = self.definitions.setdefault(key, definition)
        if known.module_file != definition.module_file:
            raise NativeTestError(
                f"native test {definition.name!r} of suite {definition.suite!r} is defined "
                f"twice: {known.where} and {definition.where}; rename one (gates, records "
                "and stored outcomes are keyed by suite and test name)"
            )
        if definition.suite in RELEASE_SUITES:
            raise NativeTestError(
                f"{definition.where}: suite {definition.suite!r} is a "
                "released CheckList suite; name the native suite otherwise"
            )
        self.definitions[key] = definition  # a re-import (pytester) brings a new builder
        self._built.pop(key, None)
        self._digests.pop(key, None)
        return self.info(key)

    def info(self, key: tuple[str, str]) -> TestInfo:
        """What collection needs.  The test is built when an item first runs: building
        imports CheckList (2 s), which collection must not (``nlp_gate.native.lazy``)."""
        d = self.definitions[key]
        return TestInfo(
            suite=d.suite,
            name=d.name,
            capability=d.capability,
            type=d.type,
            n_cases=0,
            description=d.description,
        )  # n_cases: not built yet

    def specs(self, definition: NativeTest) -> list[ModelSpec]:
        return [m for m in self.context.profile.models if m.task.name == definition.task]

    def params_for(self, function: Callable[..., Any]) -> list[Any]:
        """The test function's items: one per model of its task, then its comparisons, then
        (a declared search space) one search per model.  The comparison and search items are
        those kinds' own (``cases_for_test``): the core runs each case by the kind it names
        (``kind``), so the one test function serves all three without a second function per
        test."""
        definition = definition_of(function)
        if definition is None:
            raise NativeTestError(
                f"{function.__module__}.{function.__name__} asks for native_case but is not "
                "declared with @nlp_gate.native.behavioral_test"
            )
        info = self.register(definition)
        specs = self.specs(definition)
        if not specs:
            reason = (
                f"profile {self.context.profile.name!r} has no model of task {definition.task!r}"
            )
            return [
                pytest.param(
                    None, id="no-model", marks=[pytest.mark.native, pytest.mark.skip(reason=reason)]
                )
            ]
        first = FIRST_POSITION + POSITIONS_PER_TEST * list(self.definitions).index(
            (definition.suite, definition.name)
        )
        cases: list[Any] = [NativeCase(first + i, info, s) for i, s in enumerate(specs)]
        for companion in COMPANIONS:
            cases += self.context.kind(companion).cases_for_test(self.name, info, specs, first)
        # The function names the test: an item's id only adds dataset and model(s).
        return [
            pytest.param(c, id=c.id.removeprefix(f"{info.suite}/{info.name}/"), marks=c.marks())
            for c in cases
        ]

    def cases(self) -> list[NativeCase]:
        """The cases of the native tests parametrized so far (none before collection)."""
        return [
            NativeCase(0, self.info(k), s)
            for k, d in self.definitions.items()
            for s in self.specs(d)
        ]

    def validate_collected(self) -> None:
        """Check the gates' names again, now that the native tests are known."""
        released = self.context.kind("checklist")
        tests = released.checklist_tests()
        known = {**(tests.names() if tests else {}), **self.names()}
        self.gates.validate(
            universe(self.context.profile, known, open=released.unavailable() is not None)
        )

    def names(self) -> Mapping[str, Mapping[str, str]]:
        """Suite -> test -> capability of the native tests parametrized so far."""
        native: dict[str, dict[str, str]] = {}
        for (suite, name), d in self.definitions.items():
            native.setdefault(suite, {})[name] = d.capability
        return native

    # -- running: the harness, over the native tests ------------------------------------
    def prepare(self, case: NativeCase) -> Verdict | None:
        problem = self.test_problem(case.info)
        return None if problem is None else Verdict(None, problem)

    def test_problem(self, info: TestInfo) -> str | None:
        """Why the test function builds no CheckList test, if so: its items (and comparison
        items) error in their setup with that message, before any model loads."""
        key = (info.suite, info.name)
        try:
            test = self.built(key)
        except NativeTestError as exc:
            return str(exc)
        # Text that is not valid Unicode (a lone surrogate) reaches no model: this test fails
        # naming the case, the model's other tests run.
        for i, case in enumerate(test.data):
            text = unencodable(case)
            if text is not None:
                return (
                    f"{self.definitions[key].where}: case {i} ({case!r}) holds text that is "
                    f"not valid Unicode ({text!r}: a lone surrogate cannot be encoded as "
                    "UTF-8), so no model can be asked about it; fix or drop the case"
                )
        return None

    def built(self, key: tuple[str, str]) -> Any:
        if key not in self._built:
            self._built[key] = self.definitions[key].generate(self.context.options.seed)
        return self._built[key]

    def test_object(self, info: TestInfo) -> Any:
        """The built test; its cases are written for review on first use in this process."""
        key = (info.suite, info.name)
        test = self.built(key)
        if key not in self._written:
            self._written.add(key)
            d = self.definitions[key]
            # The case file is for review, not for the verdict: the test runs on its cases in
            # memory.  The run's header says once that none is written
            # (``Run.report_header``), rather than every native item erroring.
            with contextlib.suppress(OSError):
                write_cases(
                    cases_folder(self.context.options.results) / d.suite / f"{d.name}.jsonl",
                    {
                        "suite": d.suite,
                        "test": d.name,
                        "capability": d.capability,
                        "type": d.type,
                        "task": d.task,
                        "seed": self.context.options.seed,
                        "source": self.relative(d.cases_file or d.module_file),
                    },
                    test,
                )
        return test

    def relative(self, path: Path) -> str:
        """``path`` relative to the rootdir where it lies in it: case files stay the same on
        another checkout."""
        root = self.context.options.rootdir
        return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)

    def source_digest(self, info: TestInfo) -> str:
        """The cases (generated or read from a committed file) and the module that defines
        the expectation: an edit of either re-evaluates the test instead of reusing a stored
        outcome."""
        key = (info.suite, info.name)
        if key not in self._digests:
            test, d = self.built(key), self.definitions[key]
            h = hashlib.sha256(json.dumps([test.data, test.labels], default=str).encode())
            h.update(d.module_file.read_bytes())
            self._digests[key] = h.hexdigest()
        return self._digests[key]

    def search_space(self, info: TestInfo) -> SearchSpace | None:
        return self.definitions[(info.suite, info.name)].search

    def where(self, info: TestInfo) -> str:
        return self.definitions[(info.suite, info.name)].where
