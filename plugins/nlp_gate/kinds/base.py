"""The item-kind interface: what every kind of gated pytest item provides to the core.

A kind turns the run's configuration into cases (one pytest item each), runs a case on the
models it names and judges the result against its section of ``thresholds.yaml``.  The core
(``nlp_gate.run``) does everything around that for every kind alike: options group,
markers, parametrization, start-up validation as a usage error, model loading, Allure
labels, results.json records and their xdist hand-off, failing or skipping the item, the
terminal summary.  What the report makes of a kind's records (its tables, its part of the
verdict) is its ``report`` (``nlp_gate.kinds.report_part``).  Kinds are registered in one
place: ``nlp_gate.kinds.KINDS``.

A kind sees the run through its ``KindContext`` (``nlp_gate.kinds.context``) and other kinds
only through this interface, by name: the comparison kind pairs the outcomes of whichever
kind's tests a case names (``checklist_tests``), and a native test function carries the
comparison and search kinds' items for it (``cases_for_test``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from argparse import Namespace
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, Self, TypeVar

import pytest

from nlp_gate.config.specs import ModelSpec
from nlp_gate.kinds.context import Case, CheckListTests, KindContext
from nlp_gate.kinds.report_part import ReportPart

if TYPE_CHECKING:
    from nlp_gate.engine.predictor import Classifier
    from nlp_gate.suites.catalog import TestInfo

__all__ = ["Attachment", "Case", "ItemKind", "Labels", "Models", "OneModel", "Verdict"]


class OneModel:
    """What a case on a single model (``model``) shares: its ``models`` and its repr."""

    model: ModelSpec

    @property
    def id(self) -> str:
        raise NotImplementedError  # each case names itself

    def __repr__(self) -> str:  # allure and pytest show this
        return self.id

    @property
    def models(self) -> tuple[ModelSpec, ...]:
        return (self.model,)


class Models(Protocol):
    """The loaded models of the run, by spec; loading happens on first access."""

    def __getitem__(self, spec: ModelSpec) -> Classifier: ...


@dataclass(frozen=True)
class Attachment:
    name: str
    body: str
    kind: str = "text"  # text | json | html


@dataclass(frozen=True)
class Labels:
    """How the Allure report files an item."""

    epic: str
    feature: str
    story: str
    parameters: Mapping[str, str] = field(default_factory=dict)
    description: str | None = None


@dataclass(frozen=True)
class Verdict:
    """What running a case gives the core."""

    record: Mapping[str, Any] | None  # this item's results.json record (None: none)
    message: str | None = None  # why the item fails (or skips); None: passed
    skip: bool = False  # the message is a skip reason, verbatim
    attachments: Sequence[Attachment] = ()
    parameters: Mapping[str, str] = field(default_factory=dict)  # learnt while running
    description: str | None = None
    # Shown in place of the description where HTML is read (Allure): e.g. the explained
    # failing examples, highlighted, without a click on an attachment.
    description_html: str | None = None


C = TypeVar("C", bound=Case)


class ItemKind(ABC, Generic[C]):
    """A kind of gated item.  One instance per process, built by the core at configure."""

    name: ClassVar[str]  # e.g. "accuracy"
    argname: ClassVar[str]  # the parametrized argument of its test functions
    section: ClassVar[str]  # its section of thresholds.yaml
    records: ClassVar[str]  # its key in results.json
    # Its section's report (tables, figures, verdict part), from results.json alone; kinds
    # whose records share a section share one.
    report: ClassVar[ReportPart]
    markers: ClassVar[Mapping[str, str]]  # marker -> help line
    case_type: ClassVar[type]  # the type of its cases

    def __init__(self, context: KindContext) -> None:
        self.context = context

    @classmethod
    def add_options(cls, group: pytest.OptionGroup) -> None:
        """Its ``--nlp-*`` options, in the ``nlp-gate`` group."""

    @classmethod
    def create(cls, context: KindContext, option: Namespace) -> Self:
        """The kind, with its options (those ``add_options`` declared) read from pytest's
        namespace into its own typed settings: the one place a kind sees the namespace."""
        return cls(context)

    @abstractmethod
    def parse_gates(self, section: Mapping[str, Any], where: str) -> Any:
        """Parse and validate its thresholds section; raise ``ThresholdsError``."""

    @cached_property
    def gates(self) -> Any:
        thresholds = self.context.thresholds
        return self.parse_gates(thresholds.section(self.section), thresholds.where)

    @abstractmethod
    def cases(self) -> list[C]:
        """Every case of the run's configuration; validates what they depend on."""

    def unavailable(self) -> Exception | None:
        """Why no test function asking for this kind's items can get them here (e.g. the
        released suites are absent), else None.  Checked at start for the test modules the
        run will collect, so a run that cannot make its items stops before any worker starts."""
        return None

    def params_for(self, function: Callable[..., Any]) -> list[Any]:
        """The parametrization of its argument in ``function`` (``pytest.param`` per case);
        most kinds give every test function that asks for it all their cases."""
        problem = self.unavailable()
        if problem is not None:
            raise problem
        return [pytest.param(c, id=c.id, marks=c.marks()) for c in self.cases()]

    def validate_collected(self) -> None:
        """After collection, check what only the collected test modules tell; raise a
        ``ConfigurationError``."""

    def prepare(self, case: C) -> Verdict | None:
        """A verdict reached in the item's setup, before any model loads: a named skip, or
        an error (its message verbatim).  None: the item runs."""
        return None

    def labels(self, case: C) -> Labels | None:
        return None

    @abstractmethod
    def run(self, case: C, models: Models) -> Verdict:
        """Run one case and judge it."""

    def summary_lines(self, records: list[dict[str, Any]]) -> list[str]:
        """Its terminal summary section (controller only; nothing: no section)."""
        return []

    def engine_fields(self, model_key: str) -> dict[str, Any]:
        """Per-model figures it adds to results.json's ``engine`` records."""
        return {}

    def metadata(self) -> dict[str, Any]:
        """What it adds to results.json's ``run`` block (e.g. suite checksums)."""
        return {}

    # -- what other kinds build on ---------------------------------------------------------
    def checklist_tests(self) -> CheckListTests | None:
        """The CheckList tests its items run, for the kinds that pair or search their
        outcomes (a comparison case names its source kind); None: it runs none."""
        return None

    def cases_for_test(
        self, source: str, info: TestInfo, specs: Sequence[ModelSpec], first: int
    ) -> list[Case]:
        """Its items for one test of kind ``source`` on ``specs`` (positions from ``first``),
        parametrized with that test's own function (a native test carries its comparisons
        and searches); none by default."""
        return []
