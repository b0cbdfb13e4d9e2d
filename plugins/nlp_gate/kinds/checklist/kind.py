"""CheckList Tables 2-3 as gated items: one per released suite test x dataset x model.

The cases come from the release suites the profile's tasks call for (``nlp_gate.suites``);
each item computes its fail rate with CheckList's own ``get_stats`` and compares it with its
``checklist`` gate.  Outcomes are stored per model fingerprint, so the comparison kind and a
re-run of unchanged models reuse them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pytest

from nlp_gate.config.profiles import ModelSpec
from nlp_gate.engine.predictor import Classifier
from nlp_gate.kinds.base import Attachment, ItemKind, Labels, Models, OneModel, Verdict
from nlp_gate.kinds.checklist.gates import ChecklistGates, GateKey, Universe
from nlp_gate.kinds.checklist.run import (
    Outcome,
    PredictFn,
    examples_of,
    harness_digest,
    predict_fn,
    run_test,
)
from nlp_gate.stats import wilson_interval
from nlp_gate.suites import SuiteUnavailable, default_search_dirs
from nlp_gate.suites.catalog import SuiteCatalog, TestInfo

# CheckList's capabilities, as its suites name them; each is a marker (lower case).
CAPABILITIES = ("Vocabulary", "Taxonomy", "Robustness", "NER", "Fairness", "Temporal",
                "Negation", "Coref", "SRL", "Logic")
CAPABILITY_MARKERS = tuple(c.lower() for c in CAPABILITIES)
TYPE_MARKERS = ("mft", "inv", "dir")


def capability_marker(capability: str) -> str:
    name = capability.lower().replace(" ", "_")
    if name not in CAPABILITY_MARKERS:
        raise pytest.UsageError(f"suite capability {capability!r} has no registered marker; "
                                f"known: {', '.join(CAPABILITY_MARKERS)}")
    return name


# Task markers (``-m "fairness and entailment"``); a released suite's marker names its suite.
TASK_MARKERS = {"sentiment": "sentiment items (released suite sentiment, seed Table 2)",
                "paraphrase": "paraphrase items (QQP/MRPC; released suite qqp, seed Table 3)",
                "entailment": "entailment items (RTE)"}
RELEASED_SUITE_MARKERS = {"sentiment": "CheckList's released sentiment suite (seed Table 2)",
                          "qqp": "CheckList's released QQP suite (seed Table 3)"}


def suite_marks(info: TestInfo, task: str) -> list[pytest.MarkDecorator]:
    """The suite (released suites only), task, capability and type markers of a test's items.

    A task missing from ``TASK_MARKERS`` (a models file's own task) gets no task marker:
    markers are registered at configure, before any models file is read.
    """
    names = [info.suite] if info.suite in RELEASED_SUITE_MARKERS else []
    names += [task] if task in TASK_MARKERS else []
    names += [capability_marker(info.capability), info.type]
    return [getattr(pytest.mark, n) for n in dict.fromkeys(names)]


@dataclass(frozen=True, repr=False)
class ChecklistCase(OneModel):
    """One pytest item: a CheckList test on one dataset's model."""

    position: int
    info: TestInfo
    model: ModelSpec

    @property
    def id(self) -> str:
        return f"{self.info.suite}/{self.info.name}/{self.model.dataset}/{self.model.name}"

    @property
    def key(self) -> GateKey:
        return GateKey(self.info.suite, self.info.name, self.info.capability,
                       self.model.dataset, self.model.name)

    def marks(self) -> list[pytest.MarkDecorator]:
        # Keep a model's items on one xdist worker: one load, one prefetch.
        return [pytest.mark.checklist, *suite_marks(self.info, self.model.task.name),
                pytest.mark.xdist_group(self.model.key)]


@dataclass(frozen=True)
class ChecklistRecord:
    suite: str
    task: str
    capability: str
    test: str
    type: str
    dataset: str
    model: str
    model_id: str
    n_cases: int
    n_failed: int
    fail_rate: float | None  # percent; None when every case was filtered out
    ci_low: float | None  # percent: 95% Wilson interval of fail_rate
    ci_high: float | None
    threshold: float | None  # percent; None when no gate is configured
    passed: bool


class ChecklistKind(ItemKind[ChecklistCase]):
    name = "checklist"
    argname = "checklist_case"
    section = "checklist"
    records = "records"
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
        group.addoption("--nlp-suite-dir", type=Path, action="append", default=[],
                        help="directory holding CheckList's release suite tarballs (repeatable)")
        group.addoption("--nlp-download", action="store_true",
                        help="download missing release suites from CheckList's repository")

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._prefetched: set[str] = set()
        # Forward passes, cache hits and stored outcomes reused by CheckList items, per model
        # key: the engine's own counters also count the other kinds' items on the model.
        self._counts: dict[str, tuple[int, int, int]] = {}
        # Outcomes this process evaluated or read, per (model key, suite, test): a comparison
        # after its CheckList items (or the other way round) neither re-runs nor re-reads them.
        self._outcomes: dict[tuple[str, str, str], Outcome] = {}

    # -- configuration --------------------------------------------------------------------
    @cached_property
    def catalog(self) -> SuiteCatalog:
        options = self.session.options
        # Explicit --nlp-suite-dir replaces the defaults (../shared and the user cache).
        dirs = list(self.option.nlp_suite_dir) or default_search_dirs(options.rootdir)
        return SuiteCatalog(dirs, options.cache_dir, self.option.nlp_download)

    @cached_property
    def suites(self) -> list[str]:
        """The CheckList suites the profile's tasks call for, in profile order."""
        profile = self.session.profile
        return list(dict.fromkeys(m.task.suite for m in profile.models if m.task.suite))

    def parse_gates(self, section: Mapping[str, Any], where: str) -> ChecklistGates:
        """The ``checklist`` section, for released and native tests alike."""
        gates = ChecklistGates(section, where)
        gates.validate(self.universe(open=True))
        return gates

    def universe(self, native: Mapping[str, Mapping[str, str]] | None = None,
                 open: bool = False) -> Universe:
        """The names a ``checklist`` section may use: the released suites' tests (and the
        collected native ones), the profile's datasets and models, every capability.
        Without the released suites their names cannot be checked: they stay open."""
        profile = self.session.profile
        tests = {} if self.missing else {
            s: {t.name: t.capability for t in self.catalog.index(s)} for s in self.suites}
        return Universe(tests={**tests, **(native or {})},
                        datasets=frozenset(profile.datasets),
                        models=frozenset(profile.model_names),
                        capabilities=frozenset(CAPABILITIES), open=open or bool(self.missing))

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
            if self.session.options.release_suites:
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
            specs = self.session.profile.for_suite(suite)
            for info in self.catalog.index(suite):
                cases += [ChecklistCase(len(cases) + i, info, spec)
                          for i, spec in enumerate(specs)]
        return cases

    # -- running --------------------------------------------------------------------------
    def labels(self, case: ChecklistCase) -> Labels:
        return Labels(case.info.suite, case.info.capability, case.info.name,
                      {"dataset": case.model.dataset, "model": case.model.name},
                      case.info.description)

    def run(self, case: ChecklistCase, models: Models) -> Verdict:
        classifier = models[case.model]
        before = (classifier.forward_count, classifier.cache_hits)
        outcome, reused = self.outcome(case.info, classifier)
        spent = self._counts.get(case.model.key, (0, 0, 0))
        self._counts[case.model.key] = (
            spent[0] + classifier.forward_count - before[0],
            spent[1] + classifier.cache_hits - before[1],
            spent[2] + int(reused))
        gate = self.gates.gate(case.key)
        if gate is None:
            message: str | None = (
                f"no threshold configured for {case.id} in {self.session.options.thresholds} "
                f"(profile {self.session.profile.name!r}); add a default, capability or test "
                "entry")
        elif outcome.n_cases == 0:
            message = "every test case was filtered out by its expectation: nothing was tested"
        else:
            message = gate.fails(outcome.fail_rate)
        low: float | None = None
        high: float | None = None
        if outcome.n_cases:
            low, high = (100 * x for x in wilson_interval(outcome.n_failed, outcome.n_cases))
        if message:
            message += self.session.drift_note(case.model)
            message += f"\n{outcome.n_failed} of {outcome.n_cases} cases failed"
            if outcome.n_cases:
                message += f" (fail rate 95% CI {low:.1f}-{high:.1f}%)"
            if outcome.failing:
                message += "; first failing cases:\n" + "\n".join(outcome.failing)
        record = ChecklistRecord(
            suite=case.info.suite, task=case.model.task.name,
            capability=case.info.capability, test=case.info.name,
            type=case.info.type, dataset=case.model.dataset, model=case.model.name,
            model_id=case.model.source, n_cases=outcome.n_cases, n_failed=outcome.n_failed,
            fail_rate=outcome.fail_rate if outcome.n_cases else None,
            ci_low=low, ci_high=high,
            threshold=gate.limit if gate else None, passed=message is None,
        )
        attachments = [Attachment("failing examples", "\n".join(outcome.failing))
                       ] if outcome.failing else []
        return Verdict(asdict(record), message, attachments=attachments)

    def outcome(self, info: TestInfo, classifier: Classifier) -> tuple[Outcome, bool]:
        """The test's outcome on this model, and whether it was stored by an earlier item.

        CheckList items and comparison items share it: whichever runs a (test, model) first,
        on any worker or in an earlier run, evaluates it once; the others reuse the result.
        """
        memo = (classifier.spec.key, info.suite, info.name)
        stored = self.stored_outcome(info, classifier)
        if stored is not None:
            self._outcomes[memo] = stored
            return stored, True
        self._prefetch(classifier)
        options = self.session.options
        outcome = run_test(self.test_object(info), self.predict_fn(classifier, info),
                           options.sample, options.seed)
        if classifier.cache is not None:
            classifier.cache.put_outcome(classifier.fingerprint, classifier.spec.source,
                                         self._outcome_key(info), asdict(outcome))
        self._outcomes[memo] = outcome
        return outcome, False

    def examples(self, info: TestInfo) -> list[Any]:
        """The inputs the test (or its seeded sample) feeds a model."""
        options = self.session.options
        return examples_of(self.test_object(info), options.sample, options.seed)

    def test_object(self, info: TestInfo) -> Any:
        """CheckList's test object (MFT, INV or DIR) behind ``info``."""
        return self.catalog.test(info.suite, info.name)

    def predict_fn(self, classifier: Classifier, info: TestInfo) -> PredictFn:
        """The model as CheckList's ``predict_and_confidence_fn`` for this test."""
        return predict_fn(classifier, neutral_band=info.suite == "sentiment")

    def test_problem(self, info: TestInfo) -> str | None:
        """Why the test cannot run at all (None: it can); released tests always can."""
        return None

    def source_digest(self, info: TestInfo) -> str:
        """What identifies the test's cases: the released suite tarball's sha256."""
        return self.catalog.sha256(info.suite)

    def _prefetch(self, classifier: Classifier) -> None:
        """Predict every input of this model's selected items in one pass, deduplicated.

        Only where this process runs all of the model's items (``owns_whole_models``):
        under another xdist distribution each worker would predict every input of the
        model, most of them for items another worker runs.  There each item predicts its
        own inputs; the per-worker memo and the shared persistent cache remove the repeats.
        """
        key = classifier.spec.key
        if key in self._prefetched or not self.session.options.owns_whole_models:
            return
        self._prefetched.add(key)
        inputs: list[Any] = []
        for case in self.session.selected[self.name]:
            assert isinstance(case, self.case_type)
            # A test that cannot run (test_problem: e.g. a case no tokenizer can encode)
            # keeps its inputs out of the model's shared pass: it fails alone.
            if (case.model.key == key and self.test_problem(case.info) is None
                    and self.stored_outcome(case.info, classifier) is None):
                inputs += self.examples(case.info)
        classifier.predict_proba(inputs)

    def _outcome_key(self, info: TestInfo) -> str:
        """Everything besides the model that decides a test's outcome."""
        options = self.session.options
        return json.dumps({"suite_sha256": self.source_digest(info),
                           "test": info.name, "sample": options.sample,
                           "seed": options.seed, "harness": harness_digest()},
                          sort_keys=True)

    def stored_outcome(self, info: TestInfo, classifier: Classifier) -> Outcome | None:
        """The outcome an earlier item (in this process: memo; elsewhere: the persistent
        cache) or an earlier run computed for this model fingerprint, if any."""
        memo = self._outcomes.get((classifier.spec.key, info.suite, info.name))
        if memo is not None or classifier.cache is None:
            return memo
        stored = classifier.cache.get_outcome(classifier.fingerprint, self._outcome_key(info))
        return None if stored is None else Outcome(**stored)

    # -- reporting ------------------------------------------------------------------------
    def engine_fields(self, model_key: str) -> dict[str, Any]:
        fields = ("forward_passes", "cache_hits", "stored_outcomes")
        return {f"{self.name}_{f}": n
                for f, n in zip(fields, self._counts.get(model_key, (0, 0, 0)))}

    def metadata(self) -> dict[str, Any]:
        return {"suites": {s: self.catalog.sha256(s) for s in self.suites}}
