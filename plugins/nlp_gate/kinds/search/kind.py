"""Counterexample search as gated items (``-m search``): one per native INV/DIR test that
declares a search space (``behavioral_test(search=SearchSpace(...))``) x model of its task.

Its own kind, not part of the native test's item: a search answers another question than the
fixed sample's gate.  The native item asks "is the fail rate of these sampled cases under the
gate?"; the search asks "does any case of the declared space violate the expectation?" -- one
counterexample fails it, whatever the rate.  It has its own budget (``--nlp-search-examples``),
its own verdict and record (results.json ``searches``), and users select or deselect it on its
own (``-m search``, ``-m "not search"``) without changing what the gate of the sample means.

The items come from the native test function itself (the native kind asks this kind for
them, ``cases_for_test``, as it asks the comparison kind), so a search needs no second test
function.  The case is judged as the test's own cases are: a one-case CheckList test of the
test's type with the test's own expectation, run through the CheckList harness's prediction
path (``run_test``) with the test's own ``predict_fn``, both reached through the native
kind's ``CheckListTests``.  Hypothesis
searches, shrinks and keeps the counterexample in its example database under
``<cache>/hypothesis/`` (``nlp_gate.native.search_space``), so the next run replays it first.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from argparse import Namespace
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nlp_gate.config.specs import ModelSpec
from nlp_gate.config.thresholds import raise_problems
from nlp_gate.engine.predictor import Classifier
from nlp_gate.kinds.base import Attachment, Case, ItemKind, Labels, Models, OneModel, Verdict
from nlp_gate.kinds.checklist.items import OnModelTest
from nlp_gate.kinds.checklist.marks import suite_marks
from nlp_gate.kinds.checklist.run import run_test
from nlp_gate.kinds.context import CheckListTests, KindContext
from nlp_gate.kinds.search.report import REPORT
from nlp_gate.native.definition import NativeTestError
from nlp_gate.native.search_space import Candidate, SearchSpace, SearchSpaceError, search
from nlp_gate.results.records import ModelRecordHead, model_head
from nlp_gate.suites.catalog import TestInfo

SOURCE = "native"  # the kind whose tests declare search spaces


def _examples(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (off) or a positive count, got {value}")
    return value


@dataclass(frozen=True, repr=False)
class SearchCase(OneModel):
    """One pytest item: a native test's search space on one dataset's model."""

    kind = "search"  # the registered kind that runs it (not a field)

    position: int
    info: TestInfo
    model: ModelSpec

    @property
    def id(self) -> str:
        return f"{self.info.suite}/{self.info.name}/search/{self.model.dataset}/{self.model.name}"

    def marks(self) -> list[pytest.MarkDecorator]:
        # Not ``native``: ``-m native`` runs the fixed samples, ``-m search`` the searches.
        return [
            pytest.mark.search,
            *suite_marks(self.info, self.model.task.name),
            pytest.mark.xdist_group(self.model.key),
        ]


@dataclass(frozen=True)
class SearchRecord(ModelRecordHead):
    template: Any  # the space's template (a text, or two for a pair task)
    slot: str  # the perturbed slot
    examples: int  # the budget: cases Hypothesis may generate
    tried: int  # cases judged up to the first violating one (all of them when none)
    found: bool
    counterexample: dict[str, Any] | None  # original, perturbed, slot, from, to, predictions
    replayed: bool  # replayed from the example database rather than found by a new search
    seed: int  # --nlp-seed
    hypothesis_seed: int  # derived from it, the test and the model: Hypothesis's @seed
    database: str  # this search's example database folder
    passed: bool


class SearchKind(ItemKind[SearchCase]):
    name = "search"
    argname = "search_case"  # asked for by no function: the native test functions carry it
    section = "search"  # none needed: a counterexample fails the item; kept empty
    report = REPORT
    records = REPORT.key
    case_type = SearchCase
    markers = {
        "search": "a counterexample search of a native test's declared space "
        "(--nlp-search-examples N)"
    }

    @classmethod
    def add_options(cls, group: pytest.OptionGroup) -> None:
        group.addoption(
            "--nlp-search-examples",
            type=_examples,
            default=0,
            metavar="N",
            help="search each declared space of a native INV/DIR test for a "
            "counterexample with up to N Hypothesis examples (-m search; "
            "default 0: the search items skip)",
        )

    @classmethod
    def create(cls, context: KindContext, option: Namespace) -> SearchKind:
        return cls(context, int(option.nlp_search_examples))

    def __init__(self, context: KindContext, examples: int) -> None:
        super().__init__(context)
        self.examples = examples  # --nlp-search-examples; 0: the items skip

    @property
    def native(self) -> CheckListTests:
        tests = self.context.kind(SOURCE).checklist_tests()
        assert tests is not None
        return tests

    def parse_gates(self, section: Mapping[str, Any], where: str) -> None:
        raise_problems(
            where,
            [
                f"the search section takes no keys (a counterexample fails its "
                f"item), got {sorted(section)}"
            ]
            if section
            else [],
        )

    def cases(self) -> list[SearchCase]:
        """The search cases of the native tests parametrized so far (none before collection)."""
        cases = [c for c in self.context.kind(SOURCE).cases() if isinstance(c, OnModelTest)]
        return [
            SearchCase(0, c.info, c.model)
            for c in cases
            if self.native.search_space(c.info) is not None
        ]

    def cases_for_test(
        self, source: str, info: TestInfo, specs: Sequence[ModelSpec], first: int
    ) -> list[Case]:
        """A native test's searches, one per model, when it declares a space."""
        tests = self.context.kind(source).checklist_tests()
        if tests is None or tests.search_space(info) is None:
            return []
        return [SearchCase(first + i, info, s) for i, s in enumerate(specs)]

    def params_for(self, function: Callable[..., Any]) -> list[Any]:
        raise NativeTestError(
            f"{function.__module__}.{function.__name__} asks for search_case: search items "
            "come with the native test that declares them, "
            "@behavioral_test(..., search=SearchSpace(...))"
        )

    # -- running --------------------------------------------------------------------------
    def prepare(self, case: SearchCase) -> Verdict | None:
        if not self.examples:
            return Verdict(
                None,
                "search off: pass --nlp-search-examples N to search up to N "
                "cases of this test's space for a counterexample",
                skip=True,
            )
        problem = self.native.test_problem(case.info)
        return None if problem is None else Verdict(None, problem)

    def labels(self, case: SearchCase) -> Labels:
        return Labels(
            f"{case.info.suite} search",
            case.info.capability,
            case.info.name,
            {"dataset": case.model.dataset, "model": case.model.name},
            case.info.description,
        )

    def space(self, case: SearchCase) -> SearchSpace:
        space = self.native.search_space(case.info)
        assert space is not None  # only tests declaring one get search items
        return space

    def hypothesis_seed(self, case: SearchCase) -> int:
        """--nlp-seed, the test and the model: the same seed searches the same cases."""
        text = f"{self.context.options.seed}/{case.info.suite}/{case.info.name}/{case.model.key}"
        return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")

    def database(self, case: SearchCase, classifier: Classifier, space_digest: str) -> Path:
        """This search's example database: one folder per test, model weights and space,
        so a counterexample is replayed only where it was found."""
        key = json.dumps([case.info.suite, case.info.name, classifier.fingerprint, space_digest])
        return (
            self.context.options.cache_dir
            / "hypothesis"
            / hashlib.sha256(key.encode()).hexdigest()[:16]
        )

    def run(self, case: SearchCase, models: Models) -> Verdict:
        classifier = models[case.model]
        test = self.native.test_object(case.info)
        fn = self.native.predict_fn(classifier, case.info)
        space = self.space(case)
        labels = test.labels if not isinstance(test.labels, list) else None

        def judged(original: Any, perturbed: Any) -> Any:
            """The pair as a one-case test of the test's type and expectation, run."""
            one = type(test)(
                [[original, perturbed]], expect=test.expect, agg_fn=test.agg_fn, labels=labels
            )
            # The reference path: describe() reads CheckList's results of the test.
            outcome = run_test(one, fn, None, self.context.options.seed, scoring="checklist")
            return one if outcome.n_failed else None

        try:
            lexicons = space.lexicons()
        except SearchSpaceError as exc:
            where = self.native.where(case.info)
            return Verdict(None, f"{where}: {exc}")
        seed = self.hypothesis_seed(case)
        database = self.database(case, classifier, space.digest(lexicons))
        result = search(
            space,
            lambda o, p: judged(o, p) is not None,
            examples=self.examples,
            seed=seed,
            database=database,
        )
        found = result.counterexample
        counterexample = (
            None
            if found is None
            else self.describe(
                found, judged(found.original, found.perturbed), case.model.task.classes
            )
        )
        record = SearchRecord(
            **model_head(case.info, case.model),
            template=space.template,
            slot=space.perturb,
            examples=self.examples,
            tried=result.tried,
            found=found is not None,
            counterexample=counterexample,
            replayed=result.replayed,
            seed=self.context.options.seed,
            hypothesis_seed=seed,
            database=str(database),
            passed=found is None,
        )
        body = json.dumps(asdict(record), indent=2)
        parameters = {"examples": str(self.examples), "tried": str(result.tried)}
        if counterexample is None:
            return Verdict(
                asdict(record),
                None,
                parameters=parameters,
                attachments=[Attachment("search", body, kind="json")],
            )
        return Verdict(
            asdict(record),
            self.message(record, counterexample),
            attachments=[Attachment("counterexample", body, kind="json")],
            parameters=parameters,
        )

    @staticmethod
    def describe(found: Candidate, run: Any, classes: tuple[str, ...]) -> dict[str, Any]:
        """The counterexample as results.json records it, with both predictions."""
        predictions = []
        if run is not None:  # None: no longer failing when judged again (a flaky model)
            for pred, conf in zip(run.results.preds[0], run.results.confs[0]):
                probabilities = np.asarray(conf, dtype=float).round(4).tolist()
                predictions.append(
                    {
                        "label": classes[int(pred)] if int(pred) < len(classes) else int(pred),
                        "probabilities": probabilities,
                    }
                )
        return {
            "original": found.original,
            "perturbed": found.perturbed,
            "slot": found.slot,
            "from": found.value,
            "to": found.replacement,
            "predictions": predictions,
        }

    def message(self, record: SearchRecord, counterexample: Mapping[str, Any]) -> str:
        how = (
            "replayed from the example database"
            if record.replayed
            else f"found after {record.tried} of up to {record.examples} examples"
        )
        lines = [
            f"counterexample to the test's expectation (shrunk by Hypothesis), {how} "
            f"(--nlp-seed {record.seed}, Hypothesis seed {record.hypothesis_seed}):"
        ]
        rows = zip(
            ("original", "perturbed"),
            (counterexample["original"], counterexample["perturbed"]),
            counterexample["predictions"] or [None, None],
        )
        for role, text, prediction in rows:
            said = (
                ""
                if prediction is None
                else (f"  -> {prediction['label']} {prediction['probabilities']}")
            )
            lines.append(f"  {role + ':':<10} {text!r}{said}")
        lines.append(
            f"  slot {counterexample['slot']}: {counterexample['from']!r} -> "
            f"{counterexample['to']!r}"
        )
        lines.append(f"  example database: {record.database}")
        return "\n".join(lines)

    # -- reporting ------------------------------------------------------------------------
    def summary_lines(self, records: list[dict[str, Any]]) -> list[str]:
        if not records:
            return []
        found = [r for r in records if r["found"]]
        n = len(records)
        lines = [
            f"{n} search{'es' * (n != 1)}, {len(found)} found a counterexample"
            f" ({sum(r['replayed'] for r in found)} replayed from the example database)"
        ]
        for r in found:
            c = r["counterexample"]
            lines.append(
                f"  {r['suite']}/{r['test']} {r['dataset']}/{r['model']}: "
                f"{c['original']!r} -> {c['perturbed']!r} (tried {r['tried']})"
            )
        return lines
