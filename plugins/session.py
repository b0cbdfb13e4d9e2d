"""The gate session: everything the plugin knows about one pytest run, kept in ``config.stash``.

``plugin.py`` only wires pytest hooks to this object.  The data flow reads top to bottom:
profile (models) and thresholds -> classifiers (one load per worker) -> CheckList suites ->
cases (pytest items) -> gate verdicts -> records for ``reports/results.json``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pytest

from fixtures.profiles import ModelSpec, Profile, load_profile
from plugins.checklist_run import Outcome, examples_of, harness_digest, predict_fn, run_test
from plugins.batching import Encodings
from plugins.predictor import (Classifier, LoadOptions, load_classifier, worker_index,
                               zoo_location)
from plugins.results import ChecklistRecord, ResultStore, package_versions
from plugins.stats import wilson_interval
from plugins.suites import SuiteCatalog, TestInfo
from plugins.thresholds import MaxFailRate, GateKey, Thresholds, Universe, load_thresholds

CAPABILITY_MARKERS = ("vocabulary", "taxonomy", "robustness", "ner", "fairness", "temporal",
                      "negation", "coref", "srl", "logic")
TYPE_MARKERS = ("mft", "inv", "dir")


@dataclass(frozen=True)
class Options:
    profile: str
    models_file: Path | None
    thresholds: Path
    sample: int | None
    seed: int
    load: LoadOptions
    results: Path
    suite_dirs: tuple[Path, ...]
    download: bool
    cache_dir: Path
    zoo_dir: Path
    # Whether this process runs every item of a model it runs any item of: true without
    # xdist and under ``--dist loadgroup`` (items carry ``xdist_group(model key)``).  Only
    # then may a worker predict all of a model's inputs up front.
    owns_whole_models: bool = True


@dataclass(frozen=True, repr=False)
class ChecklistCase:
    """One pytest item: a CheckList test on one dataset's model."""

    position: int
    info: TestInfo
    model: ModelSpec

    @property
    def id(self) -> str:
        return f"{self.info.suite}/{self.info.name}/{self.model.dataset}/{self.model.name}"

    def __repr__(self) -> str:  # allure and pytest show this
        return self.id

    @property
    def key(self) -> GateKey:
        return GateKey(self.info.suite, self.info.name, self.info.capability,
                       self.model.dataset, self.model.name)

    def marks(self) -> list[pytest.MarkDecorator]:
        return [
            pytest.mark.checklist,
            getattr(pytest.mark, self.info.suite),
            getattr(pytest.mark, capability_marker(self.info.capability)),
            getattr(pytest.mark, self.info.type),
            # Keep a model's items on one xdist worker: one load, one prefetch.
            pytest.mark.xdist_group(self.model.key),
        ]


@dataclass
class Verdict:
    outcome: Outcome
    gate: MaxFailRate | None
    message: str | None  # None when the gate passed


def capability_marker(capability: str) -> str:
    name = capability.lower().replace(" ", "_")
    if name not in CAPABILITY_MARKERS:
        raise pytest.UsageError(f"suite capability {capability!r} has no registered marker; "
                                f"known: {', '.join(CAPABILITY_MARKERS)}")
    return name


@dataclass
class GateSession:
    options: Options
    results: ResultStore = field(default_factory=ResultStore)
    # Parametrized cases of the selected items (anything with a ``model: ModelSpec``).
    selected: list[Any] = field(default_factory=list)
    classifiers: dict[str, Classifier] = field(default_factory=dict)
    _prefetched: set[str] = field(default_factory=set)
    # Forward passes, cache hits and stored outcomes reused by CheckList items, per model key:
    # the engine's own counters also include the accuracy and attack items sharing the model.
    _checklist_counts: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    # Outcomes this process evaluated or read, per (model key, suite, test): a comparison
    # after its CheckList items (or the other way round) neither re-runs nor re-reads them.
    _outcomes: dict[tuple[str, str, str], Outcome] = field(default_factory=dict)
    _zoo_card: dict[str, Any] | None = None

    # -- config ---------------------------------------------------------------------------
    @cached_property
    def profile(self) -> Profile:
        return load_profile(self.options.profile, self.options.models_file)

    @cached_property
    def encodings(self) -> Encodings:
        """Tokenizations shared by the models of one tokenizer: one pass per suite, for all
        workers, kept beside the prediction cache (``<cache>.tokens/``) and off with it."""
        cache = self.options.load.cache
        return Encodings(directory=cache.with_suffix(".tokens") if cache else None)

    @cached_property
    def catalog(self) -> SuiteCatalog:
        return SuiteCatalog(list(self.options.suite_dirs), self.options.cache_dir,
                            self.options.download)

    @cached_property
    def suites(self) -> list[str]:
        """The CheckList suites the profile's tasks call for, in profile order."""
        return list(dict.fromkeys(m.task.suite for m in self.profile.models if m.task.suite))

    @cached_property
    def thresholds(self) -> Thresholds:
        thresholds = load_thresholds(self.options.thresholds, self.profile.name)
        thresholds.validate(Universe(
            tests={s: {t.name: t.capability for t in self.catalog.index(s)} for s in self.suites},
            datasets=frozenset(self.profile.datasets),
            models=frozenset(self.profile.model_names),
        ))
        return thresholds

    # -- items ----------------------------------------------------------------------------
    def checklist_cases(self) -> list[ChecklistCase]:
        """Suite test x dataset x model, in the seed tables' order: suite, test, then the
        dataset/model columns."""
        cases: list[ChecklistCase] = []
        for suite in self.suites:
            specs = self.profile.for_suite(suite)
            for info in self.catalog.index(suite):
                cases += [ChecklistCase(len(cases) + i, info, spec)
                          for i, spec in enumerate(specs)]
        return cases

    # -- models ---------------------------------------------------------------------------
    def load_models(self, specs: Iterable[ModelSpec]) -> dict[str, Classifier]:
        specs = list(dict.fromkeys(specs))
        if any(s.is_zoo for s in specs):
            from fixtures.zoo import ensure_zoo

            ensure_zoo(self.options.zoo_dir)
        for s in specs:
            if s.key not in self.classifiers:
                self.classifiers[s.key] = load_classifier(
                    s, self.location(s), self.options.load, worker_index(), self.encodings)
        return self.classifiers

    def record_engine_stats(self) -> None:
        """Forward passes vs cache hits per model, for the summary (and the benchmark)."""
        for c in self.classifiers.values():
            if not c.unique_inputs and c.spec.key not in self._checklist_counts:
                continue  # loaded on this worker, but its items ran on another
            self.results.add("engine", self.profile.models.index(c.spec), {
                "dataset": c.spec.dataset, "model": c.spec.name, "fingerprint": c.fingerprint,
                "unique_inputs": c.unique_inputs, "forward_passes": c.forward_count,
                "cache_hits": c.cache_hits, "device": c.device,
                **dict(zip(("checklist_forward_passes", "checklist_cache_hits",
                            "checklist_stored_outcomes"),
                           self._checklist_counts.get(c.spec.key, (0, 0, 0)))),
            })

    def zoo_drift(self) -> dict[str, str]:
        """Zoo models whose built weights are not those the gates were calibrated on.

        The zoo is bit-reproducible only under the CPU numerics its recipe pins; a build
        elsewhere (another CPU architecture) may train other weights.  Naming that next to a
        gate miss tells the user the miss may come from the build, not from a regression.
        Model key -> explanation; empty before the zoo is built or without ``calibrated_on``.
        """
        calibrated = self.thresholds.calibrated_on
        card = self.zoo_card() if calibrated else None
        if card is None:
            return {}
        built = {m["path"]: m["weights_sha256"] for m in card["models"]}
        drift: dict[str, str] = {}
        for spec in self.profile.models:
            path = spec.source.removeprefix("zoo:")
            want, got = calibrated.get(path), built.get(path)
            if spec.is_zoo and want and got and not got.startswith(want):
                drift[spec.key] = (f"zoo model {path} has weights {got[:12]}, but "
                                   f"{self.options.thresholds.name} was calibrated on {want}")
        return drift

    def zoo_card(self) -> dict[str, Any] | None:
        """The zoo's ``zoo.json``, read once it exists (the header may come before the build)."""
        if self._zoo_card is None:
            path = self.options.zoo_dir / "zoo.json"
            self._zoo_card = json.loads(path.read_text()) if path.is_file() else None
        return self._zoo_card

    def location(self, spec: ModelSpec) -> str:
        return zoo_location(self.options.zoo_dir, spec) if spec.is_zoo else spec.source

    # -- running --------------------------------------------------------------------------
    def run_checklist(self, case: ChecklistCase, classifier: Classifier) -> Verdict:
        before = (classifier.forward_count, classifier.cache_hits)
        outcome, reused = self.outcome(case.info, classifier)
        spent = self._checklist_counts.get(case.model.key, (0, 0, 0))
        self._checklist_counts[case.model.key] = (
            spent[0] + classifier.forward_count - before[0],
            spent[1] + classifier.cache_hits - before[1],
            spent[2] + int(reused))
        gate = self.thresholds.gate(case.key)
        if gate is None:
            message: str | None = (
                f"no threshold configured for {case.id} in {self.options.thresholds} "
                f"(profile {self.profile.name!r}); add a default, capability or test entry"
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
            drift = self.zoo_drift().get(case.model.key)
            if drift:
                message += (f"\nnote: {drift}: this zoo was built with other numerics (README, "
                            "\"Calibrating the tiny gates\"); the miss may come from the build")
            message += f"\n{outcome.n_failed} of {outcome.n_cases} cases failed"
            if outcome.n_cases:
                message += f" (fail rate 95% CI {low:.1f}-{high:.1f}%)"
            if outcome.failing:
                message += "; first failing cases:\n" + "\n".join(outcome.failing)
        self.results.add("records", case.position, asdict(ChecklistRecord(
            suite=case.info.suite, capability=case.info.capability, test=case.info.name,
            type=case.info.type, dataset=case.model.dataset, model=case.model.name,
            model_id=case.model.source, n_cases=outcome.n_cases, n_failed=outcome.n_failed,
            fail_rate=outcome.fail_rate if outcome.n_cases else None,
            ci_low=low, ci_high=high,
            threshold=gate.limit if gate else None, passed=message is None,
        )))
        return Verdict(outcome, gate, message)

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
        test = self.catalog.test(info.suite, info.name)
        outcome = run_test(test, predict_fn(classifier, info.suite),
                           self.options.sample, self.options.seed)
        if classifier.cache is not None:
            classifier.cache.put_outcome(classifier.fingerprint, classifier.spec.source,
                                         self._outcome_key(info), asdict(outcome))
        self._outcomes[memo] = outcome
        return outcome, False

    def _prefetch(self, classifier: Classifier) -> None:
        """Predict every input of this model's selected items in one pass, deduplicated.

        Only where this process runs all of the model's items (``owns_whole_models``):
        under another xdist distribution each worker would predict every input of the
        model, most of them for items another worker runs.  There each item predicts its
        own inputs; the per-worker memo and the shared persistent cache remove the repeats.
        """
        if classifier.spec.key in self._prefetched or not self.options.owns_whole_models:
            return
        self._prefetched.add(classifier.spec.key)
        inputs: list[Any] = []
        for case in self.selected:
            if (isinstance(case, ChecklistCase) and case.model.key == classifier.spec.key
                    and self.stored_outcome(case.info, classifier) is None):
                test = self.catalog.test(case.info.suite, case.info.name)
                inputs += examples_of(test, self.options.sample, self.options.seed)
        classifier.predict_proba(inputs)

    def _outcome_key(self, info: TestInfo) -> str:
        """Everything besides the model that decides a test's outcome."""
        return json.dumps({"suite_sha256": self.catalog.sha256(info.suite),
                           "test": info.name, "sample": self.options.sample,
                           "seed": self.options.seed, "harness": harness_digest()},
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
    def run_metadata(self) -> dict[str, Any]:
        zoo = self.zoo_card()
        return {
            "profile": self.profile.name,
            "models_file": str(self.profile.source_file),
            "models": [
                {"dataset": m.dataset, "model": m.name, "model_id": m.source,
                 "revision": m.revision if not m.is_zoo else (zoo or {}).get("recipe_hash"),
                 "labels": list(m.labels), "location": self.location(m)}
                for m in self.profile.models
            ],
            "seed": self.options.seed,
            "sample": self.options.sample,
            "thresholds_file": str(self.options.thresholds),
            "suites": {s: self.catalog.sha256(s) for s in self.suites},
            "device": self.options.load.device,
            "dtype": self.options.load.dtype,
            "batch_size": self.options.load.batch_size,
            "packages": package_versions(),
        }

    def report_header(self) -> list[str]:
        lines = [
            f"nlp-gate: profile={self.profile.name} ({self.profile.source_file}) "
            f"seed={self.options.seed} sample={self.options.sample or 'all'} "
            f"thresholds={self.options.thresholds}",
        ]
        for m in self.profile.models:
            rev = f"@{m.revision}" if m.revision else ""
            lines.append(f"nlp-gate:   {m.dataset}/{m.name}: {m.source}{rev} labels={list(m.labels)}")
        drift = self.zoo_drift()
        if drift:
            lines.append(f"nlp-gate: WARNING: {len(drift)} zoo model(s) differ from the zoo the "
                         "gates were calibrated on; their gate misses may come from this build "
                         "(README, \"Calibrating the tiny gates\"):")
            lines += [f"nlp-gate:   {d}" for d in drift.values()]
        return lines

