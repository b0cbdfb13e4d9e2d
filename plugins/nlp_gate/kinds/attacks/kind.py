"""The attack item kind: every TextAttack recipe x dataset x model, gated by ``attacks``.

The work happens in ``AttackRunner`` (``run.py``); this module only adapts it to the
``ItemKind`` interface: options, cases, the runner built once per process.
"""

from __future__ import annotations

import json
from argparse import Namespace
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pytest

from nlp_gate import extras
from nlp_gate.config import at_least
from nlp_gate.kinds.attacks.bundle import Bundle
from nlp_gate.kinds.attacks.cases import AttackCase, attack_cases
from nlp_gate.kinds.attacks.gates import AttackGates
from nlp_gate.kinds.attacks.recipes import names, registry
from nlp_gate.kinds.attacks.report import REPORT
from nlp_gate.kinds.attacks.run import (
    SECTION,
    AttackRunner,
    AttackSettings,
    Unavailable,
    format_example,
)
from nlp_gate.kinds.base import Attachment, ItemKind, Labels, Models, Verdict
from nlp_gate.kinds.context import KindContext

DEFAULT_DATASETS = ("rte",)  # the seed report attacks its RTE models
# TextAttack's default budget is unlimited, and its genetic recipes (iga, faster-alzantot, pso,
# alzantot) then make thousands of queries per example; a budget bounds an item's cost.
DEFAULT_QUERY_BUDGET = 500


@dataclass(frozen=True)
class AttackOptions:
    settings: AttackSettings  # how each attack runs
    datasets: tuple[str, ...]  # --nlp-attack-dataset; none: DEFAULT_DATASETS in the profile
    resources: Path | None  # --nlp-resources; None: <cache>/attack-resources
    offline: str  # --nlp-offline: skip | strict


class AttackKind(ItemKind[AttackCase]):
    name = "attacks"
    argname = "attack_case"
    section = SECTION
    report = REPORT
    records = REPORT.key
    case_type = AttackCase
    markers = {"adversarial": "a TextAttack recipe attacking a model"}

    @classmethod
    def add_options(cls, group: pytest.OptionGroup) -> None:
        group.addoption(
            "--nlp-attack-examples",
            type=at_least(1),
            default=10,
            help="examples attacked per recipe and model (default: %(default)s, "
            "as the seed report)",
        )
        group.addoption(
            "--nlp-attack-seed",
            type=int,
            default=765,
            help="TextAttack's random seed (default: %(default)s, TextAttack's own)",
        )
        group.addoption(
            "--nlp-attack-query-budget",
            type=at_least(0, " (0: unlimited)"),
            default=DEFAULT_QUERY_BUDGET,
            help="model queries allowed per attacked example (default: "
            "%(default)s; 0: unlimited, TextAttack's default and the seed's)",
        )
        group.addoption(
            "--nlp-attack-batch-size",
            type=at_least(1),
            default=32,
            help="inputs per model call inside an attack (default: %(default)s)",
        )
        group.addoption(
            "--nlp-attack-dataset",
            action="append",
            default=[],
            help="dataset of the profile to attack (repeatable; default: rte)",
        )
        group.addoption(
            "--nlp-resources",
            type=Path,
            default=None,
            help="resource bundle for offline attacks: TextAttack cache, NLTK data, "
            "hub caches (default: .cache/attack-resources); build one with "
            "scripts/fetch_attack_resources.py",
        )
        group.addoption(
            "--nlp-offline",
            choices=("skip", "strict"),
            default="skip",
            help="a recipe whose resource is missing: skip it (default) or, strict, fail it",
        )

    @classmethod
    def create(cls, context: KindContext, option: Namespace) -> AttackKind:
        settings = AttackSettings(
            examples=option.nlp_attack_examples,
            seed=option.nlp_attack_seed,
            query_budget=option.nlp_attack_query_budget or None,
            batch_size=option.nlp_attack_batch_size,
            strict=option.nlp_offline == "strict",
            explain=context.options.explain,  # saliency_overlap unless --nlp-explain off
        )
        return cls(
            context,
            AttackOptions(
                settings, tuple(option.nlp_attack_dataset), option.nlp_resources, option.nlp_offline
            ),
        )

    def __init__(self, context: KindContext, options: AttackOptions) -> None:
        super().__init__(context)
        self.options = options
        resources = options.resources or context.options.cache_dir / "attack-resources"
        self.bundle = Bundle(resources.resolve())
        self.bundle.activate()  # before NLTK, flair or the hubs are imported

    @property
    def reports_dir(self) -> Path:
        return self.context.options.results.parent / "attacks"

    def parse_gates(self, section: Mapping[str, Any], where: str) -> AttackGates:
        profile = self.context.profile
        gates = AttackGates(section, where)
        # The recipes are those of the installed TextAttack.  Without it (no [attacks] extra)
        # no attack item is made (a run that asks for one stops at start: ``unavailable``),
        # so the gates' recipe names are left unchecked, not refused.
        recipes = names() if extras.ATTACKS.available else gates.named_recipes()
        gates.validate(recipes, profile.datasets, profile.model_names)
        return gates

    @cached_property
    def runner(self) -> AttackRunner:
        return AttackRunner(
            self.options.settings, self.bundle, self.gates, self.context.eval_set, self.reports_dir
        )

    def datasets(self) -> list[str]:
        """The datasets to attack."""
        profile = self.context.profile
        explicit = list(self.options.datasets)
        # The default (RTE) is attacked when the profile has it; a user's models file without
        # it simply has no attack items.  A dataset asked for by name must exist.
        datasets = explicit or [d for d in DEFAULT_DATASETS if d in profile.datasets]
        unknown = sorted(set(datasets) - set(profile.datasets))
        if unknown:
            raise pytest.UsageError(
                f"--nlp-attack-dataset {', '.join(unknown)}: not a dataset of profile "
                f"{profile.name!r}; valid: {', '.join(profile.datasets)}"
            )
        return datasets

    def cases(self) -> list[AttackCase]:
        _ = self.gates  # validate the attack gates first, as before any case exists
        datasets = self.datasets()
        if not datasets or not extras.ATTACKS.available:  # nothing to attack, or no TextAttack
            return []
        return attack_cases(registry(), self.context.profile, datasets)

    def unavailable(self) -> Exception | None:
        # Without TextAttack (no [attacks] extra) the items are not made, but whether the run
        # needs them is for the selection to say (``params_for``): -m 'not adversarial' runs.
        return None

    def params_for(self, function: Callable[..., Any]) -> list[Any]:
        datasets = self.datasets()
        if datasets and not extras.ATTACKS.available:
            # TextAttack names the recipes: without it one item stands for them all, with
            # their marker, and a selection that keeps it is refused once before any item runs.
            return [
                pytest.param(
                    extras.Unmade(extras.attack_need(datasets)),
                    id="textattack-missing",
                    marks=[pytest.mark.adversarial],
                )
            ]
        return super().params_for(function)

    def labels(self, case: AttackCase) -> Labels:
        recipe = case.recipe
        return Labels(
            "adversarial",
            recipe.offline_variant_of or recipe.name,
            recipe.name,
            {
                "recipe": f"{recipe.name} ({recipe.class_name})",
                "dataset": case.model.dataset,
                "model": case.model.name,
            },
        )

    def prepare(self, case: AttackCase) -> Verdict | None:
        """Whether the recipe can run here, before any model loads: otherwise a skip naming
        what is missing or, under --nlp-offline=strict, an error."""
        problem = self.runner.unavailable(case)
        return None if problem is None else _stopped(problem)

    def run(self, case: AttackCase, models: Models) -> Verdict:
        result = self.runner.run(case, models[case.model])
        if isinstance(result, Unavailable):  # found only while running (e.g. no data)
            return _stopped(result)
        record = result.record
        attachments = []
        if result.examples:
            attachments.append(
                Attachment(
                    "successful adversarial examples ([[changed words]])",
                    "\n\n".join(format_example(e) for e in result.examples),
                )
            )
        attachments.append(Attachment("attack record", json.dumps(vars(record), indent=2), "json"))
        if result.summary:
            attachments.append(Attachment("TextAttack log and summary", result.summary))
        return Verdict(
            asdict(record),
            result.message,
            attachments=attachments,
            parameters={"substitutes": "; ".join(record.substitutes) or "none (canonical)"},
            description=(
                "Offline substitute mode, not the canonical recipe:\n"
                + "\n".join(f"- {s}" for s in record.substitutes)
                if record.substitutes
                else None
            ),
        )

    def metadata(self) -> dict[str, Any]:
        # What the verdict needs to judge the run from results.json alone.
        return {
            "attack_requirements": {"min_ran": self.gates.min_ran, "offline": self.options.offline}
        }

    def summary_lines(self, records: list[dict[str, Any]]) -> list[str]:
        if not records:
            return []
        ran = [r for r in records if r["status"] == "ran"]
        over = [r for r in ran if not r["passed"]]
        lines = [
            f"{len(records)} attack items: {len(ran)} ran ({len(over)} over their gate), "
            f"{len(records) - len(ran)} skipped; examples under {self.reports_dir}"
        ]
        lines.append(_recipes_line(records))
        if ran:
            seconds = sum(r["wall_time_s"] or 0 for r in ran)
            slowest = max(ran, key=lambda r: r["wall_time_s"] or 0)
            exhausted = sum(r.get("budget_exhausted") or 0 for r in ran)
            lines.append(
                f"attack time: {seconds:.0f} s over {len(ran)} items (slowest: "
                f"{slowest['recipe']}/{slowest['model']} {slowest['wall_time_s']:.0f} s);"
                f" {exhausted} attacked examples stopped at the query budget"
            )
        return lines


def _recipes_line(records: list[dict[str, Any]]) -> str:
    """Per canonical recipe: did it (or its offline variant) attack every model it was
    selected for; the others split into skipped (something missing) and not applicable."""
    models: dict[str, set[str]] = {}
    attacked: dict[str, set[str]] = {}
    inapplicable = set()
    for r in records:
        name = r["canonical_recipe"]
        models.setdefault(name, set()).add(f"{r['dataset']}/{r['model']}")
        if r["status"] == "ran":
            attacked.setdefault(name, set()).add(f"{r['dataset']}/{r['model']}")
        elif r["status"] == "not_applicable":
            inapplicable.add(name)
    complete = {n for n in models if attacked.get(n) == models[n]}
    skipped = sorted(set(models) - complete - inapplicable)
    return (
        f"recipes that attacked every model: {len(complete)} of {len(models)} (canonical "
        f"or offline stand-in); skipped: {', '.join(skipped) or 'none'}; not applicable: "
        f"{', '.join(sorted(inapplicable)) or 'none'}"
    )


def _stopped(problem: Unavailable) -> Verdict:
    return Verdict(asdict(problem.record), problem.message, skip=not problem.error)
