"""What an item kind sees of the run: its ``KindContext``.

A kind gets this narrow, typed view instead of the run's core: the run's options, profile
and gates, the selected cases, the evaluation sets, and the other kinds by name as ``Peer``s
(the interface, never a concrete kind).  The core (``nlp_gate.run.Run``) implements
it; no kind imports the core or another kind (``tests/unit/test_import_graph.py``).  A kind's own
command-line options reach it parsed (``ItemKind.create``); the models it asked for reach
``ItemKind.run`` as ``Models``; its records reach results.json as its verdicts' records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import pytest

from nlp_gate.config.specs import ModelSpec

if TYPE_CHECKING:
    from nlp_gate.config.options import Options
    from nlp_gate.config.specs import Profile
    from nlp_gate.config.thresholds import Thresholds
    from nlp_gate.engine.predictor import Classifier
    from nlp_gate.eval_sets import EvalDataMissing, EvalSet
    from nlp_gate.kinds.checklist.explained import FailingExample
    from nlp_gate.kinds.checklist.run import ChecklistResult, PredictFn
    from nlp_gate.native.search_space import SearchSpace
    from nlp_gate.suites.catalog import TestInfo


class Case(Protocol):
    """One pytest item's parameter."""

    @property
    def position(self) -> int:
        """Its index in the kind's parametrization: records are written in this order."""

    @property
    def id(self) -> str:
        """The pytest id, e.g. ``sentiment/Typos/sst2/bert``."""

    @property
    def models(self) -> tuple[ModelSpec, ...]:
        """Every model the item runs; the core loads them (all selected ones, once)."""

    @property
    def kind(self) -> str:
        """The name of the registered kind that runs it: the core hands the case to that
        kind (a native test function's items are native, comparison and search cases)."""

    def marks(self) -> list[pytest.MarkDecorator]: ...


class CheckListTests(Protocol):
    """A kind's CheckList tests, as the kinds that build on them use them: the comparison
    kind pairs two models' outcomes of a test, the search kind searches a test's declared
    space, the native kind checks the gates' names against every known test."""

    def outcome(self, info: TestInfo, classifier: Classifier) -> tuple[ChecklistResult, bool]:
        """The test's outcome on the model, and whether it was stored by an earlier item."""

    def stored_outcome(self, info: TestInfo, classifier: Classifier) -> ChecklistResult | None: ...

    def examples(self, info: TestInfo) -> list[Any]:
        """The inputs the test (or its seeded sample) feeds a model."""

    def test_problem(self, info: TestInfo) -> str | None:
        """Why the test cannot run at all (None: it can)."""

    def test_object(self, info: TestInfo) -> Any:
        """CheckList's test object (MFT, INV or DIR)."""

    def predict_fn(self, classifier: Classifier, info: TestInfo) -> PredictFn: ...

    def failing_examples(
        self, info: TestInfo, classifier: Classifier, shown: list[int]
    ) -> list[FailingExample]:
        """The failing example of each ``shown`` case on the model, what its expectation
        wanted and what the model predicted (what ``--nlp-explain`` explains)."""

    def search_space(self, info: TestInfo) -> SearchSpace | None:
        """The space the test declares for a counterexample search, if any."""

    def where(self, info: TestInfo) -> str:
        """Where the test is defined, for messages."""

    def names(self) -> Mapping[str, Mapping[str, str]]:
        """Suite -> test name -> capability of every test it knows."""


class Peer(Protocol):
    """Another registered kind, as a kind may use it (``KindContext.kind``)."""

    @property
    def gates(self) -> Any: ...

    def cases(self) -> Sequence[Case]: ...

    def unavailable(self) -> Exception | None: ...

    def checklist_tests(self) -> CheckListTests | None: ...

    def cases_for_test(
        self, source: str, info: TestInfo, specs: Sequence[ModelSpec], first: int
    ) -> list[Case]: ...


class KindContext(Protocol):
    """The run, as an item kind sees it."""

    @property
    def options(self) -> Options:
        """The run's settings: seed, sample, rootdir, cache and results paths."""

    @property
    def profile(self) -> Profile: ...

    @property
    def thresholds(self) -> Thresholds: ...

    @property
    def selected(self) -> Mapping[str, Sequence[Case]]:
        """The selected items' cases, by kind name: what to prefetch, what BH adjusts over."""

    def eval_set(self, spec: ModelSpec) -> EvalSet | EvalDataMissing:
        """The model's evaluation split, read once per dataset for every kind."""

    def drift_note(self, spec: ModelSpec) -> str:
        """What to append to a gate miss of a zoo model built with other numerics."""

    def kind(self, name: str) -> Peer:
        """The registered kind ``name``."""
