"""The accuracy and comparison sections of thresholds.yaml: resolution and validation."""

from __future__ import annotations

from typing import Any

import pytest

from nlp_gate.config.thresholds import ThresholdsError
from nlp_gate.kinds.accuracy.kind import AccuracyGates
from nlp_gate.kinds.comparison.gates import parse_config
from nlp_gate.kinds.comparison.kind import ComparisonConfig

DATASETS = {"sst2", "rte"}
MODELS = {"bert", "albert"}
CAPABILITIES = {"Robustness", "Fairness"}


def _accuracy(section: dict[str, Any]) -> AccuracyGates:
    return AccuracyGates(section, DATASETS, MODELS, "thresholds.yaml (profile 'tiny')")


def _comparison(
    section: dict[str, Any], baseline: str | None = None, candidate: str | None = None
) -> ComparisonConfig | None:
    return parse_config(section, baseline, candidate, MODELS, CAPABILITIES, "thresholds.yaml")


def test_most_specific_accuracy_gate_wins_and_names_its_rule() -> None:
    gates = _accuracy(
        {
            "min_accuracy": 80,
            "datasets": {"rte": 60},
            "overrides": [
                {"model": "albert", "min_accuracy": 85},
                {"dataset": "rte", "model": "albert", "min_accuracy": 65},
            ],
        }
    )
    assert gates.gate("sst2", "bert").limit == 80
    assert gates.gate("rte", "bert").limit == 60
    assert gates.gate("sst2", "albert").limit == 85
    gate = gates.gate("rte", "albert")
    assert gate is not None and gate.limit == 65
    assert gate.fails(65.0) is None
    message = gate.fails(64.9)
    assert message and "64.90%" in message and "accuracy.overrides[1]" in message


def test_model_without_accuracy_gate_has_none() -> None:
    assert _accuracy({"datasets": {"rte": 60}}).gate("sst2", "bert") is None


@pytest.mark.parametrize(
    "section, needle",
    [
        (
            {"min_acuracy": 80},
            "unknown key 'min_acuracy' in the accuracy section; valid: min_accuracy",
        ),
        ({"datasets": {"sst-2": 80}}, "unknown accuracy dataset 'sst-2'; valid: rte, sst2"),
        (
            {"overrides": [{"model": "roberta", "min_accuracy": 1}]},
            "unknown accuracy overrides[0] model 'roberta'; valid: albert, bert",
        ),
        ({"overrides": [{"model": "bert"}]}, "min_accuracy (required)"),
        ({"min_accuracy": 0.9}, None),  # a proportion is a valid (if lax) percentage
        ({"min_accuracy": 120}, "a min_accuracy must be a percentage in [0, 100], got 120"),
    ],
)
def test_accuracy_section_is_validated_with_valid_names(section: dict, needle: str | None) -> None:
    if needle is None:
        _accuracy(section)
        return
    with pytest.raises(ThresholdsError, match="profile 'tiny'") as err:
        _accuracy(section)
    assert needle in str(err.value)


def test_comparison_from_the_file_and_the_command_line() -> None:
    section = {
        "baseline": "bert",
        "candidate": "albert",
        "alpha": 0.1,
        "tolerance": {"default": 2, "capabilities": {"Fairness": 0}},
    }
    config = _comparison(section)
    assert config == ComparisonConfig("bert", "albert", 0.1, 2.0, {"Fairness": 0.0})
    assert config.tolerance("Fairness") == (0.0, "comparison.tolerance.capabilities.Fairness")
    assert config.tolerance("Robustness") == (2.0, "comparison.tolerance.default")
    swapped = _comparison(section, baseline="albert", candidate="bert")
    assert swapped and (swapped.baseline, swapped.candidate) == ("albert", "bert")
    plain = _comparison({}, baseline="bert", candidate="albert")
    assert plain == ComparisonConfig("bert", "albert", 0.05, 0.0, {})
    assert _comparison({"tolerance": 3}, "bert", "albert").tolerance_default == 3.0  # type: ignore[union-attr]  # not None here (else the test fails)


def test_reseeds_are_declared_by_name() -> None:
    config = _comparison(
        {"baseline": "bert", "candidate": "albert", "reseeds": ["bert"]} | {"reseeds": []},
        None,
        None,
    )
    assert config is not None and config.reseeds == ()
    models = MODELS | {"bert-2", "bert-3"}
    config = parse_config(
        {"reseeds": ["bert-2", "bert-3"]}, "bert", "albert", models, CAPABILITIES, "thresholds.yaml"
    )
    assert config is not None and config.reseeds == ("bert-2", "bert-3")


def test_no_baseline_and_no_candidate_means_no_comparisons() -> None:
    assert _comparison({"alpha": 0.05}) is None


@pytest.mark.parametrize(
    "section, args, needle",
    [
        ({"baseline": "bert"}, {}, "no candidate declared: pass --nlp-candidate"),
        (
            {},
            {"baseline": "roberta", "candidate": "bert"},
            "unknown baseline model 'roberta'; valid: albert, bert",
        ),
        ({"baseline": "bert", "candidate": "albert", "alpha": 1}, {}, "alpha must be in (0, 1)"),
        (
            {"baseline": "bert", "candidate": "albert", "tolerance": {"capabilities": {"Fair": 1}}},
            {},
            "unknown comparison.tolerance capability 'Fair'; valid: Fairness, Robustness",
        ),
        (
            {"baseline": "bert", "candidate": "albert", "tolerance": {"default": -1}},
            {},
            "percentage points in [0, 100], got -1",
        ),
        (
            {"baseline": "bert", "candidate": "albert", "tolerence": 1},
            {},
            "unknown key 'tolerence' in the comparison section",
        ),
        (
            {"baseline": "bert", "candidate": "albert", "reseeds": "bert2"},
            {},
            "comparison.reseeds must be a list of model names, got 'bert2'",
        ),
        (
            {"baseline": "bert", "candidate": "albert", "reseeds": ["bert2"]},
            {},
            "unknown reseed model 'bert2'; valid: albert, bert",
        ),
        (
            {"baseline": "bert", "candidate": "albert", "reseeds": ["albert"]},
            {},
            "comparison.reseeds names the candidate 'albert'",
        ),
    ],
)
def test_comparison_section_is_validated(section: dict, args: dict, needle: str) -> None:
    with pytest.raises(ThresholdsError) as err:
        _comparison(section, **args)
    assert needle in str(err.value)
