"""CheckList Tables 2-3 as gated items: one per released suite test x dataset x model.

The cases come from the release suites the profile's tasks call for (``nlp_gate.suites``);
each item computes its fail rate with CheckList's own ``get_stats`` and compares it with its
``checklist`` gate (``items.ChecklistItems``, the harness this kind shares with the native
kind).  Outcomes are stored per model fingerprint, so the comparison kind and a re-run of
unchanged models reuse them.
"""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pytest

from nlp_gate.kinds.checklist.gates import ChecklistGates, Universe, universe
from nlp_gate.kinds.checklist.items import ChecklistCase, ChecklistItems, ChecklistTestKind
from nlp_gate.kinds.checklist.marks import (
    CAPABILITY_MARKERS,
    RELEASED_SUITE_MARKERS,
    TASK_MARKERS,
    TYPE_MARKERS,
)
from nlp_gate.kinds.checklist.report import REPORT
from nlp_gate.kinds.context import KindContext
from nlp_gate.native.search_space import SearchSpace
from nlp_gate.suites import SuiteUnavailable, default_search_dirs
from nlp_gate.suites.catalog import SuiteCatalog, TestInfo


@dataclass(frozen=True)
class ChecklistOptions:
    suite_dirs: tuple[Path, ...]  # --nlp-suite-dir; none: the default search folders
    download: bool  # --nlp-download


class ChecklistKind(ChecklistTestKind[ChecklistCase]):
    name = "checklist"
    argname = "checklist_case"
    section = "checklist"
    report = REPORT
    records = REPORT.key
    case_type = ChecklistCase
    markers = {
        **{m: f"CheckList capability {m}" for m in CAPABILITY_MARKERS},
        **{m: f"CheckList test type {m.upper()}" for m in TYPE_MARKERS},
        "checklist": "a CheckList test item",
        **RELEASED_SUITE_MARKERS,
        **TASK_MARKERS,
    }

    @classmethod
    def add_options(cls, group: pytest.OptionGroup) -> None:
        group.addoption(
            "--nlp-suite-dir",
            type=Path,
            action="append",
            default=[],
            help="directory holding CheckList's release suite tarballs (repeatable)",
        )
        group.addoption(
            "--nlp-download",
            action="store_true",
            help="download missing release suites from CheckList's repository",
        )

    @classmethod
    def create(cls, context: KindContext, option: Namespace) -> ChecklistKind:
        return cls(
            context, ChecklistOptions(tuple(option.nlp_suite_dir), bool(option.nlp_download))
        )

    def __init__(self, context: KindContext, options: ChecklistOptions) -> None:
        super().__init__(context)
        self.options = options
        self.items = ChecklistItems(context, self.name, self, lambda: self.gates)

    # -- configuration --------------------------------------------------------------------
    @cached_property
    def catalog(self) -> SuiteCatalog:
        run = self.context.options
        # Explicit --nlp-suite-dir replaces the defaults (../shared and the user cache).
        dirs = list(self.options.suite_dirs) or default_search_dirs(run.rootdir)
        return SuiteCatalog(dirs, run.cache_dir, self.options.download)

    @cached_property
    def suites(self) -> list[str]:
        """The CheckList suites the profile's tasks call for, in profile order."""
        profile = self.context.profile
        return list(dict.fromkeys(m.task.suite for m in profile.models if m.task.suite))

    def parse_gates(self, section: Mapping[str, Any], where: str) -> ChecklistGates:
        """The ``checklist`` section, for released and native tests alike."""
        gates = ChecklistGates(section, where)
        gates.validate(self.universe())
        return gates

    def universe(self) -> Universe:
        """The names a ``checklist`` section may use, checked at start-up: native tests are
        known only once collected (``NativeKind.validate_collected`` checks again), so
        names outside the released tests stay open.  Without the released suites their
        names cannot be checked either."""
        return universe(self.context.profile, self.names(), open=True)

    def names(self) -> Mapping[str, Mapping[str, str]]:
        """The released suites' tests (none without the suites)."""
        return (
            {}
            if self.missing
            else {s: {t.name: t.capability for t in self.catalog.index(s)} for s in self.suites}
        )

    @cached_property
    def missing(self) -> SuiteUnavailable | None:
        """Why the released suites cannot be read (absent, or not the released bytes), if so.

        A run that collects released items stops on it (a usage error naming the file and the
        fix); a repository that runs only its own native tests does not need the tarballs.
        """
        try:
            for suite in self.suites:
                self.catalog.index(suite)
        except SuiteUnavailable as exc:
            if self.context.options.release_suites:
                raise  # the packaged released items are on: they are this run's items
            return exc
        return None

    def unavailable(self) -> Exception | None:
        return self.missing

    def cases(self) -> list[ChecklistCase]:
        """Suite test x dataset x model, in the seed tables' order: suite, test, then the
        dataset/model columns."""
        if self.missing:
            return []
        cases: list[ChecklistCase] = []
        for suite in self.suites:
            specs = self.context.profile.for_suite(suite)
            for info in self.catalog.index(suite):
                cases += [ChecklistCase(len(cases) + i, info, spec) for i, spec in enumerate(specs)]
        return cases

    # -- the released tests, as the harness's TestSource ---------------------------------
    def test_object(self, info: TestInfo) -> Any:
        """CheckList's test object (MFT, INV or DIR) behind ``info``."""
        return self.catalog.test(info.suite, info.name)

    def test_problem(self, info: TestInfo) -> str | None:
        return None  # released tests always can run

    def source_digest(self, info: TestInfo) -> str:
        """What identifies the test's cases: the released suite tarball's sha256."""
        return self.catalog.sha256(info.suite)

    def search_space(self, info: TestInfo) -> SearchSpace | None:
        return None  # a released test declares none

    def where(self, info: TestInfo) -> str:
        return f"released suite {info.suite!r}"

    # -- reporting ------------------------------------------------------------------------
    def metadata(self) -> dict[str, Any]:
        return {"suites": {s: self.catalog.sha256(s) for s in self.suites}}
