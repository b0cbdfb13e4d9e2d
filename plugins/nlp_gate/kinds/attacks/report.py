"""The report of attack records (results.json ``attacks``): the attack table, each record's
attack success rate against its gate, how many attack items ran (a skipped one passes no gate)
and the run gate ``attacks.min_ran`` of thresholds.yaml (recorded in the ``run`` block as
``attack_requirements``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nlp_gate.kinds.report_part import (
    MISSING_NOTE,
    NOT_RUN,
    RECORDED_GATE,
    Cell,
    Column,
    Figures,
    Put,
    Record,
    ReportPart,
    Table,
    at_least,
    bold_extreme,
    pct,
)
from nlp_gate.results.records import Section


def _substitutes(value: Any) -> str:
    """Whether an attack ran with local substitutes for the canonical recipe's resources."""
    if not value:
        return "no"
    if value is True:
        return "yes"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {v}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return str(value)


def _count(value: int | None) -> str:
    return NOT_RUN if value is None else str(value)


def attack_table(records: list[Record]) -> Table | None:
    if not records:
        return None
    groups: dict[tuple[str, str], list[int]] = {}
    for i, r in enumerate(records):
        groups.setdefault((r["recipe"], r["dataset"]), []).append(i)
    # More robust = lower success rate, higher accuracy under attack; bold it within a
    # recipe x dataset, like the fail-rate pairs of Tables 2-3.
    success_bold = [False] * len(records)
    accuracy_bold = [False] * len(records)
    for members in groups.values():
        for i, b in zip(
            members, bold_extreme([records[i].get("attack_success_rate") for i in members], min)
        ):
            success_bold[i] = b
        for i, b in zip(
            members, bold_extreme([records[i].get("accuracy_under_attack") for i in members], max)
        ):
            accuracy_bold[i] = b
    rows = [
        [
            Cell(r["recipe"]),
            Cell(r["dataset"]),
            Cell(r["model"]),
            Cell(str(r.get("status", "ran"))),
            Cell(_substitutes(r.get("substitutes"))),
            Cell(pct(r.get("attack_success_rate")), success_bold[i]),
            Cell(pct(r.get("accuracy_under_attack")), accuracy_bold[i]),
            Cell(pct(r.get("avg_perturbed_word_pct"))),
            Cell(pct(r.get("avg_queries"))),
            *(Cell(_count(r.get(k))) for k in ("successful", "failed", "skipped")),
            Cell(r.get("reason") or ""),
        ]
        for i, r in enumerate(records)
    ]
    return Table(
        name="attacks",
        title="Adversarial attacks (TextAttack recipes, seed §4.4)",
        columns=[
            Column("recipe", "Recipe", stub=True),
            Column("dataset", "Dataset", stub=True),
            Column("model", "Model", stub=True),
            Column("status", "Status", stub=True),
            Column("substitutes", "Substitutes", stub=True),
            Column("attack_success_rate", "Success rate %"),
            Column("accuracy_under_attack", "Accuracy under attack %"),
            Column("avg_perturbed_word_pct", "Perturbed words %"),
            Column("avg_queries", "Avg queries"),
            Column("successful", "Successful", csv_only=True),
            Column("failed", "Failed", csv_only=True),
            Column("skipped", "Skipped", csv_only=True),
            Column("reason", "Reason", csv_only=True, stub=True),
        ],
        rows=rows,
        notes=[
            "Per recipe and dataset, the lower success rate and the higher accuracy under "
            "attack in bold. Substitutes: local stand-ins for the recipe's canonical "
            "resources (not the canonical recipe when set). A skipped recipe's reason "
            "names the missing resource (attacks.csv, results.json).",
            MISSING_NOTE,
        ],
        terminal=True,
    )


def saliency_table(records: list[Record]) -> Table | None:
    """Per recipe x model with successful attacks: how often the perturbed words are the
    original's top-attributed words, beside a random choice (``saliency.py``)."""
    measured = [r for r in records if r.get("saliency_overlap")]
    if not measured:
        return None
    rows = []
    for r in measured:
        o = r["saliency_overlap"]
        rows.append(
            [
                Cell(r["recipe"]),
                Cell(r["dataset"]),
                Cell(r["model"]),
                Cell(str(o["method"])),
                Cell(str(o["attacks"])),
                Cell(str(o["perturbed_words"])),
                Cell(pct(o.get("hit_rate"))),
                Cell(pct(o.get("random_hit_rate"))),
                Cell(pct(o.get("all_in_top_k"))),
                Cell(pct(o.get("random_all_in_top_k"))),
                Cell(str(o["hits"])),
                Cell(str(o["no_original_word"])),
            ]
        )
    return Table(
        name="attack_saliency",
        title="Perturbed words vs attributed words (successful attacks)",
        columns=[
            Column("recipe", "Recipe", stub=True),
            Column("dataset", "Dataset", stub=True),
            Column("model", "Model", stub=True),
            Column("method", "Attribution", stub=True),
            Column("attacks", "Attacks"),
            Column("perturbed_words", "Perturbed words"),
            Column("hit_rate", "In top k %"),
            Column("random_hit_rate", "Random %"),
            Column("all_in_top_k", "All in top k %"),
            Column("random_all_in_top_k", "Random all %"),
            Column("hits", "Hits", csv_only=True),
            Column("no_original_word", "No original word", csv_only=True),
        ],
        rows=rows,
        notes=[
            "For each successful attack, the k words of the original input the recipe "
            "perturbed against the k words attributed most toward the original prediction "
            "(integrated gradients on a checkpoint, occlusion otherwise). In top k: "
            "perturbed words among the top k, over all perturbed words; all in top k: "
            "attacks whose perturbed words are exactly the top k. Random: the same for k "
            "words drawn uniformly (exact hypergeometric expectation). Not measured with "
            "--nlp-explain off.",
        ],
    )


def _ran(records: list[Record]) -> int:
    return sum(r.get("status") == "ran" for r in records)


class AttackReport(ReportPart):
    section = Section("attacks", "attack")
    verdict_order = 1
    table_order = 2

    def tables(self, results: Record) -> list[Table]:
        records = self.records(results)
        tables = [attack_table(records), saliency_table(records)]
        return [t for t in tables if t is not None]

    def figures(self, record: Record) -> Figures:
        """The attack success rate against ``max_attack_success_rate``."""
        gates = record.get("threshold") or {}
        extra = {"recipe": record.get("recipe")}
        if "min_accuracy_under_attack" in gates:
            extra["accuracy_under_attack"] = record.get("accuracy_under_attack")
            extra["min_accuracy_under_attack"] = gates["min_accuracy_under_attack"]
        return Figures(
            str(record.get("recipe")),
            f"{record.get('dataset')}/{record.get('model')}",
            "adversarial",
            record.get("attack_success_rate"),
            gates.get("max_attack_success_rate"),
            extra,
        )

    def recorded(self, record: Mapping[str, Any]) -> bool:
        """An attack whose only gate is an attack success rate of 100."""
        if record.get("passed") is not True:
            return False
        gates = record.get("threshold") or {}
        return set(gates) == {"max_attack_success_rate"} and at_least(
            gates["max_attack_success_rate"], RECORDED_GATE
        )

    def verdict_notes(self, results: Record) -> list[str]:
        records = self.records(results)
        if not records:
            return []
        # A skipped attack passes no gate: say how many attacked anything at all.
        return [f"{_ran(records)} of {len(records)} attack items ran"]

    def run_problems(self, results: Record) -> list[str]:
        if results.get("refused"):
            return []
        required = (results.get("run", {}).get("attack_requirements") or {}).get("min_ran")
        records = self.records(results)
        if not required or not records:
            return []
        needed = min(required, len(records))  # a narrower selection must run all it selected
        ran = _ran(records)
        if ran >= needed:
            return []
        return [
            (
                f"only {ran} attack items ran, {needed} required (thresholds.yaml "
                f"attacks.min_ran: {required}; the skipped items name what is missing)"
            )
        ]

    def metrics(self, records: list[Record], put: Put) -> None:
        for r in records:
            if r.get("status") == "ran":
                for name in ("attack_success_rate", "accuracy_under_attack"):
                    put(r.get(name), name, r["dataset"], r["model"], r["recipe"])


REPORT = AttackReport()
