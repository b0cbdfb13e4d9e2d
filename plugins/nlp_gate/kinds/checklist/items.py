"""A CheckList test on one model as a gated item, whichever kind's test it is: the case, the
record, and ``ChecklistItems``, which runs a test through CheckList's own ``get_stats``,
judges its fail rate against the ``checklist`` gates and stores its outcome per model
fingerprint, so a comparison of the same test (or a re-run of unchanged models) reuses it.

The ``checklist`` kind (released suites) and the ``native`` kind (the user's test functions)
each hold one, over their own ``TestSource``: the harness is theirs alike, and neither kind
knows the other.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Protocol, TypeVar

import pytest

from nlp_gate.config.specs import ModelSpec
from nlp_gate.engine.predictor import Classifier
from nlp_gate.kinds.base import Attachment, ItemKind, Labels, Models, OneModel, Verdict
from nlp_gate.kinds.checklist.explained import (
    FailingExample,
    explain,
    failing_examples,
    wants_explanations,
)
from nlp_gate.kinds.checklist.gates import ChecklistGates, GateKey
from nlp_gate.kinds.checklist.marks import suite_marks
from nlp_gate.kinds.checklist.run import (
    ChecklistResult,
    PredictFn,
    examples_of,
    harness_digest,
    predict_fn,
    run_test,
)
from nlp_gate.kinds.context import CheckListTests, KindContext
from nlp_gate.native.search_space import SearchSpace
from nlp_gate.results.explanations import (
    description_html,
    explanations_html,
    explanations_text,
)
from nlp_gate.results.records import ModelRecordHead, model_head
from nlp_gate.stats import wilson_interval
from nlp_gate.suites.catalog import TestInfo


@dataclass(frozen=True, repr=False)
class OnModelTest(OneModel):
    """A CheckList test on one dataset's model: what a CheckList or native item runs."""

    kind: ClassVar[str]  # each case type's own: ``checklist``, ``native``
    position: int
    info: TestInfo
    model: ModelSpec

    @property
    def id(self) -> str:
        return f"{self.info.suite}/{self.info.name}/{self.model.dataset}/{self.model.name}"

    @property
    def key(self) -> GateKey:
        return GateKey(
            self.info.suite,
            self.info.name,
            self.info.capability,
            self.model.dataset,
            self.model.name,
        )

    def marks(self) -> list[pytest.MarkDecorator]:
        raise NotImplementedError  # each kind's items carry their own marker


@dataclass(frozen=True, repr=False)
class ChecklistCase(OnModelTest):
    """One pytest item of a released CheckList test."""

    kind = "checklist"  # the registered kind that runs it (not a field)

    def marks(self) -> list[pytest.MarkDecorator]:
        # Keep a model's items on one xdist worker: one load, one prefetch.
        return [
            pytest.mark.checklist,
            *suite_marks(self.info, self.model.task.name),
            pytest.mark.xdist_group(self.model.key),
        ]


@dataclass(frozen=True)
class ChecklistRecord(ModelRecordHead):
    n_cases: int
    n_failed: int
    fail_rate: float | None  # percent; None when every case was filtered out
    ci_low: float | None  # percent: 95% Wilson interval of fail_rate
    ci_high: float | None
    threshold: float | None  # percent; None when no gate is configured
    passed: bool
    # The shown failing examples explained (``--nlp-explain``; ``explained.py``): none
    # unless the item missed its gate (``missed``) or every item explains (``all``).
    explanations: list[dict[str, Any]]


class TestSource(Protocol):
    """Where a kind's CheckList tests come from (released suites, native test functions)."""

    def test_object(self, info: TestInfo) -> Any: ...
    def test_problem(self, info: TestInfo) -> str | None: ...
    def source_digest(self, info: TestInfo) -> str: ...
    def search_space(self, info: TestInfo) -> SearchSpace | None: ...
    def where(self, info: TestInfo) -> str: ...
    def names(self) -> Mapping[str, Mapping[str, str]]: ...


class ChecklistItems:
    """Runs one kind's CheckList tests (``CheckListTests`` for the kinds that build on them)."""

    def __init__(
        self,
        context: KindContext,
        kind: str,
        source: TestSource,
        gates: Callable[[], ChecklistGates],
    ) -> None:
        self.context = context
        self.kind = kind  # its kind's name: its selected cases, its engine fields
        self.source = source
        self.gates = gates
        self._prefetched: set[str] = set()
        # Forward passes, cache hits and stored outcomes reused by these items, per model
        # key: the engine's own counters also count the other kinds' items on the model.
        self._counts: dict[str, tuple[int, int, int]] = {}
        # Outcomes this process evaluated or read, per (model key, suite, test): a comparison
        # after its CheckList items (or the other way round) neither re-runs nor re-reads them.
        self._outcomes: dict[tuple[str, str, str], ChecklistResult] = {}

    # -- the test, from its source -----------------------------------------------------------
    def test_object(self, info: TestInfo) -> Any:
        return self.source.test_object(info)

    def test_problem(self, info: TestInfo) -> str | None:
        return self.source.test_problem(info)

    def search_space(self, info: TestInfo) -> SearchSpace | None:
        return self.source.search_space(info)

    def where(self, info: TestInfo) -> str:
        return self.source.where(info)

    def names(self) -> Mapping[str, Mapping[str, str]]:
        return self.source.names()

    # -- running ----------------------------------------------------------------------------
    def labels(self, case: OnModelTest) -> Labels:
        return Labels(
            case.info.suite,
            case.info.capability,
            case.info.name,
            {"dataset": case.model.dataset, "model": case.model.name},
            case.info.description,
        )

    def run(self, case: OnModelTest, models: Models) -> Verdict:
        classifier = models[case.model]
        before = (classifier.forward_count, classifier.cache_hits)
        outcome, reused = self.outcome(case.info, classifier)
        spent = self._counts.get(case.model.key, (0, 0, 0))
        self._counts[case.model.key] = (
            spent[0] + classifier.forward_count - before[0],
            spent[1] + classifier.cache_hits - before[1],
            spent[2] + int(reused),
        )
        gate = self.gates().gate(case.key)
        if gate is None:
            message: str | None = (
                f"no threshold configured for {case.id} in {self.context.options.thresholds} "
                f"(profile {self.context.profile.name!r}); add a default, capability or test "
                "entry"
            )
        elif outcome.n_cases == 0:
            message = "every test case was filtered out by its expectation: nothing was tested"
        else:
            message = gate.fails(outcome.fail_rate)
        low: float | None = None
        high: float | None = None
        if outcome.n_cases:
            low, high = (100 * x for x in wilson_interval(outcome.n_failed, outcome.n_cases))
        if message:
            message += self.context.drift_note(case.model)
            message += f"\n{outcome.n_failed} of {outcome.n_cases} cases failed"
            if outcome.n_cases:
                message += f" (fail rate 95% CI {low:.1f}-{high:.1f}%)"
            if outcome.failing:
                message += "; first failing cases:\n" + "\n".join(outcome.failing)
        record = ChecklistRecord(
            **model_head(case.info, case.model),
            n_cases=outcome.n_cases,
            n_failed=outcome.n_failed,
            fail_rate=outcome.fail_rate if outcome.n_cases else None,
            ci_low=low,
            ci_high=high,
            threshold=gate.limit if gate else None,
            passed=message is None,
            explanations=self.explanations(case, classifier, outcome, missed=message is not None),
        )
        attachments = (
            [Attachment("failing examples", "\n".join(outcome.failing))] if outcome.failing else []
        )
        if record.explanations:
            attachments += [
                Attachment("explained failing examples", explanations_text(record.explanations)),
                Attachment(
                    "explained failing examples (HTML)",
                    explanations_html(case.id, record.explanations, standalone=True),
                    kind="html",
                ),
            ]
        return Verdict(
            asdict(record),
            message,
            attachments=attachments,
            description_html=(
                description_html(case.info.description, case.id, record.explanations)
                if record.explanations
                else None
            ),
        )

    def explanations(
        self, case: OnModelTest, classifier: Classifier, outcome: ChecklistResult, missed: bool
    ) -> list[dict[str, Any]]:
        """The ``explanations`` of the item's shown failing examples, where ``--nlp-explain``
        asks for them; a stored outcome's too (recomputed: the same scores every time)."""
        if not outcome.shown or not wants_explanations(self.context.options.explain, missed):
            return []
        return explain(classifier, self.failing_examples(case.info, classifier, outcome.shown))

    def failing_examples(
        self, info: TestInfo, classifier: Classifier, shown: list[int]
    ) -> list[FailingExample]:
        """The failing example of each of the ``shown`` cases on this model, with the class
        its expectation wanted (``explained.failing_examples``)."""
        return failing_examples(
            self.test_object(info),
            info.type,
            shown,
            self.predict_fn(classifier, info),
            classifier,
            neutral_band=info.suite == "sentiment",
        )

    def outcome(self, info: TestInfo, classifier: Classifier) -> tuple[ChecklistResult, bool]:
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
        options = self.context.options
        test = self.test_object(info)
        fn = self.predict_fn(classifier, info)
        outcome = run_test(test, fn, options.sample, options.seed, scoring=options.scoring)
        # The outcome is all a run reads of it: CheckList's per-case results (predictions,
        # confidences, expectation results; ~45 MiB over the two released suites) would stay
        # on the suite's test until the next model's run replaced them.  (Bulk scoring
        # leaves none.)
        test.__dict__.pop("results", None)
        if classifier.cache is not None:
            classifier.cache.put_outcome(
                classifier.fingerprint,
                classifier.spec.source,
                self._outcome_key(info),
                outcome.stored(),
            )
        self._outcomes[memo] = outcome
        return outcome, False

    def examples(self, info: TestInfo) -> list[Any]:
        """The inputs the test (or its seeded sample) feeds a model."""
        options = self.context.options
        return examples_of(self.test_object(info), options.sample, options.seed)

    def predict_fn(self, classifier: Classifier, info: TestInfo) -> PredictFn:
        """The model as CheckList's ``predict_and_confidence_fn`` for this test."""
        return predict_fn(classifier, neutral_band=info.suite == "sentiment")

    def _prefetch(self, classifier: Classifier) -> None:
        """Predict every input of this model's selected items in one pass, deduplicated.

        Only where this process runs all of the model's items (``owns_whole_models``):
        under another xdist distribution each worker would predict every input of the
        model, most of them for items another worker runs.  There each item predicts its
        own inputs; the per-worker memo and the shared persistent cache remove the repeats.
        """
        key = classifier.spec.key
        if key in self._prefetched or not self.context.options.owns_whole_models:
            return
        self._prefetched.add(key)
        inputs: list[Any] = []
        for case in self.context.selected[self.kind]:
            assert isinstance(case, OnModelTest)
            # A test that cannot run (test_problem: e.g. a case no tokenizer can encode)
            # keeps its inputs out of the model's shared pass: it fails alone.
            if (
                case.model.key == key
                and self.test_problem(case.info) is None
                and self.stored_outcome(case.info, classifier) is None
            ):
                inputs += self.examples(case.info)
        classifier.predict_proba(inputs)

    def _outcome_key(self, info: TestInfo) -> str:
        """Everything besides the model that decides a test's outcome."""
        options = self.context.options
        return json.dumps(
            {
                "suite_sha256": self.source.source_digest(info),
                "test": info.name,
                "sample": options.sample,
                "seed": options.seed,
                "scoring": options.scoring,
                "harness": harness_digest(),
            },
            sort_keys=True,
        )

    def stored_outcome(self, info: TestInfo, classifier: Classifier) -> ChecklistResult | None:
        """The outcome an earlier item (in this process: memo; elsewhere: the persistent
        cache) or an earlier run computed for this model fingerprint, if any."""
        memo = self._outcomes.get((classifier.spec.key, info.suite, info.name))
        if memo is not None or classifier.cache is None:
            return memo
        stored = classifier.cache.get_outcome(classifier.fingerprint, self._outcome_key(info))
        return None if stored is None else ChecklistResult.from_stored(stored)

    # -- reporting --------------------------------------------------------------------------
    def engine_fields(self, model_key: str) -> dict[str, Any]:
        """Its kind's forward passes, cache hits and stored outcomes on the model."""
        fields = ("forward_passes", "cache_hits", "stored_outcomes")
        return {
            f"{self.kind}_{f}": n for f, n in zip(fields, self._counts.get(model_key, (0, 0, 0)))
        }


T = TypeVar("T", bound=OnModelTest)


class ChecklistTestKind(ItemKind[T]):
    """A kind whose items are CheckList tests on a model, run by its ``ChecklistItems``
    (the ``checklist`` and ``native`` kinds: each is the ``TestSource`` of its own)."""

    items: ChecklistItems

    def labels(self, case: T) -> Labels:
        return self.items.labels(case)

    def run(self, case: T, models: Models) -> Verdict:
        return self.items.run(case, models)

    def checklist_tests(self) -> CheckListTests:
        return self.items

    def engine_fields(self, model_key: str) -> dict[str, Any]:
        return self.items.engine_fields(model_key)
