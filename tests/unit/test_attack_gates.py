"""The `attacks` section of thresholds.yaml: resolution order and validation."""

from __future__ import annotations

import pytest

from nlp_gate.config.thresholds import ThresholdsError
from nlp_gate.kinds.attacks.gates import AttackGates, AttackKey
from nlp_gate.report.verdict import verdict

NAMES = (["textfooler", "iga", "iga-offline"], ["rte"], ["bert", "albert"])
KEY = AttackKey("iga", "rte", "albert")


def gates_of(section: dict) -> dict[str, tuple[float, str]]:
    gates = AttackGates(section, "thresholds.yaml")
    gates.validate(*NAMES)
    return {g.key: (g.limit, g.source) for g in gates.gates(KEY)}


def test_most_specific_rule_wins_per_metric() -> None:
    section = {
        "default": {"max_attack_success_rate": 90, "min_accuracy_under_attack": 5},
        "models": {"albert": {"max_attack_success_rate": 80}},
        "recipes": {"iga": {"max_attack_success_rate": 70}},
        "overrides": [
            {"recipe": "iga", "model": "bert", "max_attack_success_rate": 10},
            {"recipe": "iga", "dataset": "rte", "model": "albert", "min_accuracy_under_attack": 20},
        ],
    }
    assert gates_of(section) == {
        "max_attack_success_rate": (70.0, "recipes.iga"),
        "min_accuracy_under_attack": (20.0, "overrides[1]"),
    }
    assert gates_of(
        {
            "default": {"max_attack_success_rate": 90},
            "models": {"albert": {"max_attack_success_rate": 80}},
        }
    ) == {"max_attack_success_rate": (80.0, "models.albert")}
    assert gates_of({}) == {}


def test_gate_messages_name_metric_value_limit_and_rule() -> None:
    gates = AttackGates(
        {"recipes": {"iga": {"max_attack_success_rate": 50, "min_accuracy_under_attack": 40}}},
        "t.yaml",
    )
    by_key = {g.key: g for g in gates.gates(KEY)}
    metrics = {"attack_success_rate": 75.0, "accuracy_under_attack": 40.0}
    assert by_key["max_attack_success_rate"].fails(metrics) == (
        "attack success rate 75.0% exceeds the maximum 50.0% (thresholds.yaml attacks: recipes.iga)"
    )
    assert by_key["min_accuracy_under_attack"].fails(metrics) is None  # equal is fine
    assert by_key["min_accuracy_under_attack"].fails({"accuracy_under_attack": 39.9})
    assert by_key["max_attack_success_rate"].fails({"attack_success_rate": 50.0}) is None


@pytest.mark.parametrize(
    ("section", "expected"),
    [
        (
            {"recipes": {"textfool": {"max_attack_success_rate": 5}}},
            "unknown recipe 'textfool'; valid: iga, iga-offline, textfooler",
        ),
        (
            {"models": {"roberta": {"max_attack_success_rate": 5}}},
            "unknown model 'roberta'; valid: albert, bert",
        ),
        (
            {"overrides": [{"dataset": "sst2", "max_attack_success_rate": 5}]},
            "unknown overrides[0] dataset 'sst2'; valid: rte",
        ),
        (
            {"default": {"max_success": 5}},
            "unknown key(s) ['max_success']; valid: max_attack_success_rate, "
            "min_accuracy_under_attack",
        ),
        ({"default": {"max_attack_success_rate": 150}}, "must be a percentage in [0, 100]"),
        ({"overrides": [{"recipe": "iga"}]}, "names no gate"),
        (
            {"recipe": {}},
            "unknown key(s) ['recipe'] in attacks; valid: min_ran, default, models, recipes",
        ),
        ({"min_ran": -1}, "attacks.min_ran: expected a whole number of attack items >= 0, got -1"),
        ({"min_ran": "all"}, "attacks.min_ran: expected a whole number"),
        ({"min_ran": True}, "attacks.min_ran: expected a whole number"),
    ],
)
def test_invalid_sections_are_rejected_with_the_valid_names(section: dict, expected: str) -> None:
    with pytest.raises(ThresholdsError) as err:
        AttackGates(section, "t.yaml").validate(*NAMES)
    assert expected in str(err.value)


def _results(statuses: list[str], min_ran: int | None) -> dict:
    attacks = [
        {"recipe": f"r{i}", "status": s, "passed": True if s == "ran" else None}
        for i, s in enumerate(statuses)
    ]
    return {
        "run": {"attack_requirements": {"min_ran": min_ran, "offline": "skip"}},
        "attacks": attacks,
    }


def test_verdict_says_how_many_attack_items_ran() -> None:
    gate = verdict(_results(["ran", "skipped", "skipped"], None))
    assert gate.passed
    assert gate.line() == (
        "release gate PASSED: 0 of 3 attack items over their gate; 1 of 3 attack items ran"
    )


@pytest.mark.parametrize(
    ("statuses", "min_ran", "passed"),
    [
        (["skipped", "skipped"], 1, False),  # attacked nothing
        (["ran", "skipped", "skipped"], 2, False),
        (["ran", "ran", "skipped"], 2, True),
        (["ran", "ran"], 40, True),  # a narrower selection must run all it selected
        (["ran", "skipped"], 40, False),
        (["skipped"], 0, True),
    ],
)
def test_min_ran_fails_a_run_that_attacked_too_little(
    statuses: list[str], min_ran: int, passed: bool
) -> None:
    gate = verdict(_results(statuses, min_ran))
    assert gate.passed is passed
    if not passed:
        ran = statuses.count("ran")
        assert (
            f"only {ran} attack items ran, {min(min_ran, len(statuses))} required "
            f"(thresholds.yaml attacks.min_ran: {min_ran}"
        ) in gate.line()
        assert gate.line().startswith("release gate FAILED")
