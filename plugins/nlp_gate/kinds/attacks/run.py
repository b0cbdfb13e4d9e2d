"""Running one attack item: availability, the attack itself, TextAttack's metrics, the gate.

One ``AttackRunner`` per process (kept in ``config.stash``).  TextAttack is imported on the
first item that runs, after the resource checks, pointed at the bundle.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nlp_gate.config.specs import ModelSpec
from nlp_gate.engine.predictor import Classifier
from nlp_gate.eval_sets import EvalDataMissing, EvalSet, hub_split
from nlp_gate.kinds.attacks import offline, resources
from nlp_gate.kinds.attacks.bundle import Bundle
from nlp_gate.kinds.attacks.cases import AttackCase
from nlp_gate.kinds.attacks.gates import AttackGate, AttackGates, thresholds_record
from nlp_gate.kinds.attacks.resources import MissingResources
from nlp_gate.kinds.attacks.saliency import attack_record_field
from nlp_gate.kinds.attacks.speedups import empty, lazy, memo, order

SECTION = "attacks"
SHOWN_EXAMPLES = 3  # adversarial examples quoted in a failure message


@dataclass(frozen=True)
class AttackSettings:
    examples: int  # examples attacked per item (TextAttack's --num-examples)
    seed: int  # TextAttack's --random-seed
    query_budget: int | None  # model queries per example (TextAttack's --query-budget)
    batch_size: int  # the goal function's model batch size
    strict: bool  # --nlp-offline=strict: a missing resource is an error, not a skip
    # --nlp-explain: anything but "off" measures the saliency overlap of the successful
    # attacks (``saliency.py``)
    explain: str = "missed"


@dataclass(frozen=True)
class Unavailable:
    message: str
    error: bool  # True: fail the item (strict mode), False: skip it
    record: AttackRecord  # saying why, for results.json


@dataclass
class AttackRecord:
    """One ``attacks`` entry of results.json; metric names and values as TextAttack's summary."""

    recipe: str
    canonical_recipe: str
    dataset: str
    model: str
    model_id: str
    seed: int
    num_examples: int
    query_budget: int | None
    build_args: dict[str, Any]
    substitutes: list[str]
    status: str  # ran | skipped | not_applicable | error (no evaluation data)
    reason: str | None = None
    data: str | None = None
    successful: int | None = None
    failed: int | None = None
    skipped: int | None = None
    original_accuracy: float | None = None
    accuracy_under_attack: float | None = None
    attack_success_rate: float | None = None
    avg_perturbed_word_pct: float | None = None
    avg_words_per_input: float | None = None
    avg_queries: float | None = None
    budget_exhausted: int | None = None  # examples whose search stopped at the query budget
    wall_time_s: float | None = None
    threshold: dict[str, float] | None = None
    passed: bool | None = None
    examples_file: str | None = None
    textattack_log: str | None = None
    missing: list[str] = field(default_factory=list)
    # The successful attacks' perturbed words vs the original's top attributed words
    # (``saliency.SaliencyOverlap``); None: not measured (no successful attack, or
    # --nlp-explain off)
    saliency_overlap: dict[str, Any] | None = None


@dataclass
class AttackVerdict:
    record: AttackRecord
    examples: list[dict[str, Any]]  # successful adversarial examples
    summary: str  # TextAttack's own log of the run (results and summary table)
    message: str | None  # None when every gate passed


class AttackRunner:
    def __init__(
        self,
        settings: AttackSettings,
        bundle: Bundle,
        gates: AttackGates,
        eval_set: Callable[[ModelSpec], EvalSet | EvalDataMissing],
        reports_dir: Path,
    ) -> None:
        self.settings = settings
        self.bundle = bundle
        self.gates = gates
        self.eval_set = eval_set  # the session's: read once per dataset for every kind
        self.reports_dir = reports_dir

    # -- availability ---------------------------------------------------------------------
    def unavailable(self, case: AttackCase) -> Unavailable | None:
        """Why the case cannot run here (and the record saying so), or None."""
        recipe = case.recipe
        if recipe.not_applicable:
            message = (
                f"{recipe.name} ({recipe.class_name}) is not applicable: {recipe.not_applicable}"
            )
            return Unavailable(message, False, self._base(case, "not_applicable", message))
        for need in recipe.needs:  # one another process is building: wait for it first
            if isinstance(need, resources.StandIn):
                need.await_build(self.bundle)
        absent = resources.missing(recipe.needs, self.bundle)
        if not absent:
            return None
        return self._missing(case, absent)

    def _missing(self, case: AttackCase, absent: Sequence[resources.Resource]) -> Unavailable:
        message = resources.describe_missing(case.recipe.name, absent, self.bundle)
        if self.settings.strict:
            message += "\n(--nlp-offline=strict: a missing resource is an error)"
        record = self._base(case, "skipped", message)
        record.missing = [r.key for r in absent]
        return Unavailable(message, self.settings.strict, record)

    # -- running --------------------------------------------------------------------------
    def run(self, case: AttackCase, classifier: Classifier) -> AttackVerdict | Unavailable:
        textattack = offline.import_textattack(self.bundle)
        from nlp_gate.kinds.attacks.wrapper import ClassifierWrapper

        examples = self.eval_set(case.model)
        if isinstance(examples, EvalDataMissing):  # e.g. GLUE RTE for the paper profile, offline
            return Unavailable(str(examples), True, self._base(case, "error", str(examples)))
        start = time.perf_counter()
        with memo.memoized():  # through the examples' marked texts, which ask again
            try:
                with offline.offline_guard():
                    attack, substitutions = self._build(case, ClassifierWrapper(classifier))
                    attack.goal_function.batch_size = self.settings.batch_size
                    _stop_at_budget(attack.search_method)
                    lazy.install(attack)
                    order.install(attack)
                    empty.install(attack)
                    log, summary_json = self._log_paths(case)
                    attacker = textattack.Attacker(
                        attack,
                        _dataset(textattack, examples, case.model),
                        self._attack_args(len(examples.inputs), log, summary_json),
                    )
                    results = attacker.attack_dataset()
            except MissingResources as exc:  # a need the tables did not list
                return self._missing(case, exc.missing)
            shown = [_example(r, case.model) for r in results if _is_success(r)]
        wall = time.perf_counter() - start
        record = self._base(case, "ran", None)
        record.substitutes = [str(s) for s in substitutions] + _stopword_note(self.bundle, attack)
        record.data = examples.source
        record.wall_time_s = round(wall, 3)
        record.textattack_log = str(log)
        _fill_metrics(record, results)
        record.budget_exhausted = _budget_exhausted(results, self.settings.query_budget)
        record.examples_file = str(self._write_examples(case, shown))
        record.saliency_overlap = attack_record_field(
            self.settings.explain, classifier, case.model, shown
        )
        gates = self.gates.gates(case.key)
        record.threshold = thresholds_record(gates)
        message = _judge(case, record, gates, shown)
        record.passed = message is None
        return AttackVerdict(record, shown, log.read_text() if log.exists() else "", message)

    def _build(self, case: AttackCase, wrapper: Any) -> tuple[Any, list[Any]]:
        recipe = case.recipe
        recipe_class = recipe.load_class()
        if recipe.offline_variant_of:
            from nlp_gate.kinds.attacks.substitutes import build_offline

            return build_offline(recipe_class, wrapper, self.bundle, recipe.build_args)
        return recipe_class.build(wrapper, **recipe.build_args), []

    def _attack_args(self, n_rows: int, log: Path, summary_json: Path) -> Any:
        import textattack

        return textattack.AttackArgs(
            num_examples=min(self.settings.examples, n_rows),
            random_seed=self.settings.seed,
            query_budget=self.settings.query_budget,
            log_to_txt=str(log),
            log_summary_to_json=str(summary_json),
            disable_stdout=True,
            silent=True,
        )

    # -- files and records ----------------------------------------------------------------
    def _log_paths(self, case: AttackCase) -> tuple[Path, Path]:
        self.reports_dir.mkdir(parents=True, exist_ok=True)
        stem = self.reports_dir / case.file_stem
        for path in (stem.with_suffix(".txt"), stem.with_suffix(".summary.json")):
            path.unlink(missing_ok=True)  # TextAttack appends to an existing log
        return stem.with_suffix(".txt"), stem.with_suffix(".summary.json")

    def _write_examples(self, case: AttackCase, shown: list[dict[str, Any]]) -> Path:
        path = self.reports_dir / f"{case.file_stem}.jsonl"
        path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in shown))
        return path

    def _base(self, case: AttackCase, status: str, reason: str | None) -> AttackRecord:
        recipe = case.recipe
        return AttackRecord(
            recipe=recipe.name,
            canonical_recipe=recipe.offline_variant_of or recipe.name,
            dataset=case.model.dataset,
            model=case.model.name,
            model_id=case.model.source,
            seed=self.settings.seed,
            num_examples=self.settings.examples,
            query_budget=self.settings.query_budget,
            build_args=dict(recipe.build_args),
            substitutes=[],
            status=status,
            reason=reason,
        )


def _dataset(textattack: Any, examples: EvalSet, spec: ModelSpec) -> Any:
    # Column names as in the hub dataset (GLUE's sentence1/sentence2 for RTE): recipes treat
    # only "premise"/"hypothesis" specially, so RTE is attacked on both sentences as in the seed.
    columns = hub_split(spec).columns
    if isinstance(examples.inputs[0], tuple) != (len(columns) == 2):
        columns = ("text_a", "text_b") if isinstance(examples.inputs[0], tuple) else ("text",)
    return textattack.datasets.Dataset(
        list(zip(examples.inputs, examples.gold)),
        input_columns=list(columns),
        label_names=list(spec.task.classes),
    )


def _fill_metrics(record: AttackRecord, results: list[Any]) -> None:
    """The numbers of TextAttack's summary table, from the metric classes it uses for it."""
    from textattack.metrics import AttackQueries, AttackSuccessRate, WordsPerturbed

    success = AttackSuccessRate().calculate(results)
    words = WordsPerturbed().calculate(results)
    queries = AttackQueries().calculate(results)
    record.successful = int(success["successful_attacks"])
    record.failed = int(success["failed_attacks"])
    record.skipped = int(success["skipped_attacks"])
    record.original_accuracy = _number(success["original_accuracy"])
    record.accuracy_under_attack = _number(success["attack_accuracy_perc"])
    record.attack_success_rate = _number(success["attack_success_rate"])
    record.avg_perturbed_word_pct = _number(words["avg_word_perturbed_perc"])
    record.avg_words_per_input = _number(words["avg_word_perturbed"])
    record.avg_queries = _number(queries["avg_num_queries"])


def _stop_at_budget(search_method: Any) -> None:
    """TextAttack 0.3.11's ``DifferentialEvolution`` (bad-characters) takes the first of the
    goal function's results, which are empty once the query budget is spent: an IndexError
    then ends the whole item.  Answering with the last result instead lets scipy finish its
    remaining iterations without a model call, and the example ends as any search that hit
    the budget does: with the best text found, counted in ``budget_exhausted``."""
    from textattack.search_methods import DifferentialEvolution

    if not isinstance(search_method, DifferentialEvolution):
        return
    get_results = search_method.get_goal_results  # set by textattack.Attack
    last: list[Any] = []

    def get_goal_results(texts: list[Any]) -> tuple[list[Any], bool]:
        results, exhausted = get_results(texts)
        if results:
            last[:] = results[-1:]
        elif exhausted and last:
            return [last[0]] * len(texts), exhausted
        return results, exhausted

    search_method.get_goal_results = get_goal_results


def _budget_exhausted(results: list[Any], budget: int | None) -> int:
    """Examples whose search TextAttack stopped at the query budget: it then returns the
    best text found so far, a failed (or maximized) attack, not an error."""
    from textattack.attack_results import SkippedAttackResult

    if budget is None:
        return 0
    return sum(
        not isinstance(r, SkippedAttackResult) and r.perturbed_result.num_queries >= budget
        for r in results
    )


def _number(value: Any) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value  # nan: no successful attack to average over


def _is_success(result: Any) -> bool:
    from textattack.attack_results import MaximizedAttackResult, SuccessfulAttackResult

    return isinstance(result, (SuccessfulAttackResult, MaximizedAttackResult))


def _example(result: Any, spec: ModelSpec) -> dict[str, Any]:
    """Original and perturbed input with labels, confidences and the changed words marked
    [[like this]] (TextAttack's own diff, its "file" colouring)."""
    classes = spec.task.classes
    original, perturbed = result.original_result, result.perturbed_result
    marked_original, marked_perturbed = result.diff_color(color_method="file")
    columns = original.attacked_text.column_labels
    return {
        "columns": list(columns),
        "original": _texts(original.attacked_text),
        "perturbed": _texts(perturbed.attacked_text),
        "marked_original": marked_original,
        "marked_perturbed": marked_perturbed,
        "ground_truth": classes[int(original.ground_truth_output)],
        "original_label": classes[int(original.output)],
        "original_confidence": round(float(original.raw_output[original.output]), 4),
        "perturbed_label": classes[int(perturbed.output)],
        "perturbed_confidence": round(float(perturbed.raw_output[perturbed.output]), 4),
        "num_queries": int(perturbed.num_queries),
    }


def _texts(attacked_text: Any) -> list[str]:
    inputs = attacked_text.tokenizer_input
    return list(inputs) if isinstance(inputs, tuple) else [inputs]


def _stopword_note(bundle: Bundle, attack: Any) -> list[str]:
    """Name the Debian stop list when the attack filters with NLTK's list and that list is
    the local substitute (textfooler brings its own list, CheckList2020 uses none)."""
    note = resources.local_stopwords(bundle)
    if note is None:
        return []
    import nltk
    from textattack.constraints.pre_transformation import StopwordModification

    nltk_list = set(nltk.corpus.stopwords.words("english"))
    uses = any(
        isinstance(c, StopwordModification) and c.stopwords == nltk_list
        for c in attack.pre_transformation_constraints
    )
    return [note] if uses else []


def _judge(
    case: AttackCase, record: AttackRecord, gates: list[AttackGate], shown: list[dict[str, Any]]
) -> str | None:
    if not gates:
        return (
            f"no attack gate configured for {case.id}; add attacks.default (or a recipe or "
            "model entry) to thresholds.yaml"
        )
    failures = [m for m in (g.fails(asdict(record)) for g in gates) if m]
    if not failures:
        return None
    lines = failures + [
        (
            f"{record.successful} successful / {record.failed} failed / "
            f"{record.skipped} skipped attacks; {record.budget_exhausted} stopped "
            f"at the query budget ({record.query_budget})"
        )
    ]
    if record.substitutes:
        lines.append("substitutes: " + "; ".join(record.substitutes))
    if shown:
        lines.append("first successful adversarial examples:")
        lines += [format_example(e) for e in shown[:SHOWN_EXAMPLES]]
    return "\n".join(lines)


def format_example(example: dict[str, Any]) -> str:
    return (
        f"  {example['original_label']} ({example['original_confidence']:.0%}) -> "
        f"{example['perturbed_label']} ({example['perturbed_confidence']:.0%})\n"
        f"    original:  {' | '.join(example['marked_original'].splitlines())}\n"
        f"    perturbed: {' | '.join(example['marked_perturbed'].splitlines())}"
    )
