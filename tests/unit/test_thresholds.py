"""thresholds.yaml: resolution order, validation with the valid names, no silent pass."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from nlp_gate.config.thresholds import ThresholdsError, load_thresholds
from nlp_gate.kinds.checklist.gates import ChecklistGates, GateKey, Universe

SECTIONS = ("checklist", "accuracy", "comparison", "attacks")

UNIVERSE = Universe(
    tests={
        "sentiment": {"Typos": "Robustness", "Race": "Fairness"},
        "qqp": {"Typos": "Robustness"},
    },
    datasets=frozenset({"sst2", "qqp"}),
    models=frozenset({"bert", "albert"}),
    capabilities=frozenset({"Robustness", "Fairness"}),
)


def _load(tmp_path: Path, checklist: dict, profile: str = "tiny") -> ChecklistGates:
    path = tmp_path / "thresholds.yaml"
    path.write_text(yaml.safe_dump({"profiles": {"tiny": {"checklist": checklist}}}))
    thresholds = load_thresholds(path, profile, SECTIONS)
    return ChecklistGates(thresholds.section("checklist"), thresholds.where)


def key(
    test: str = "Typos",
    suite: str = "sentiment",
    capability: str = "Robustness",
    dataset: str = "sst2",
    model: str = "bert",
) -> GateKey:
    return GateKey(suite, test, capability, dataset, model)


def test_most_specific_rule_wins(tmp_path: Path) -> None:
    t = _load(
        tmp_path,
        {
            "default": 50,
            "capabilities": {"Robustness": 30},
            "tests": {"sentiment": {"Typos": 20}},
            "overrides": [
                {"model": "albert", "test": "Typos", "max_fail_rate": 25},
                {"model": "albert", "dataset": "sst2", "max_fail_rate": 35},
            ],
        },
    )
    t.validate(UNIVERSE)
    assert t.gate(key()).limit == 20
    assert t.gate(key(suite="qqp", dataset="qqp")).limit == 30
    assert t.gate(key("Race", capability="Fairness")).limit == 50
    assert t.gate(key(model="albert")).limit == 35  # last matching override
    assert t.gate(key(model="albert", dataset="qqp", suite="qqp")).limit == 25


def test_gate_fails_only_above_its_limit_and_names_its_rule(tmp_path: Path) -> None:
    gate = _load(tmp_path, {"capabilities": {"Robustness": 10}}).gate(key())
    assert gate is not None
    assert gate.fails(10.0) is None
    message = gate.fails(10.1)
    assert message and "10.1%" in message and "capabilities.Robustness" in message


def test_missing_threshold_is_none_not_a_pass(tmp_path: Path) -> None:
    assert _load(tmp_path, {"capabilities": {"Fairness": 5}}).gate(key()) is None


@pytest.mark.parametrize(
    "checklist, needle",
    [
        (
            {"capabilities": {"Fairnes": 5}},
            "unknown capability 'Fairnes'; valid: Fairness, Robustness",
        ),
        ({"tests": {"sentiment": {"Typo": 5}}}, "unknown sentiment test 'Typo'"),
        ({"tests": {"imdb": {}}}, "unknown suite 'imdb'; valid: qqp, sentiment"),
        ({"overrides": [{"dataset": "sst-2", "max_fail_rate": 5}]}, "valid: qqp, sst2"),
        ({"overrides": [{"model": "roberta", "max_fail_rate": 5}]}, "valid: albert, bert"),
        ({"overrides": [{"model": "bert"}]}, "max_fail_rate (required)"),
        ({"default": 150}, "percentage in [0, 100]"),
    ],
)
def test_validation_names_the_problem_and_the_valid_names(
    tmp_path: Path, checklist: dict, needle: str
) -> None:
    with pytest.raises(ThresholdsError) as exc:
        _load(tmp_path, checklist).validate(UNIVERSE)
    assert needle in str(exc.value)


def test_profile_without_gates_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ThresholdsError, match="no gates for profile 'paper'.*tiny"):
        _load(tmp_path, {"default": 5}, profile="paper")


@pytest.mark.parametrize("profile", ["tiny", "paper"])
def test_shipped_thresholds_parse_for_both_profiles(profile: str) -> None:
    t = load_thresholds(Path("thresholds.yaml"), profile, SECTIONS)
    assert ChecklistGates(t.section("checklist"), t.where).gate(key()) is not None


@pytest.mark.parametrize("digest", ["62caef20380238", 1234, "not-hex!", "62ca"])
def test_calibrated_on_takes_leading_hex_digits_of_the_weights(
    tmp_path: Path, digest: object
) -> None:
    path = tmp_path / "thresholds.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "profiles": {
                    "tiny": {"checklist": {"default": 5}, "calibrated_on": {"sst2/bert": digest}}
                }
            }
        )
    )
    if digest == "62caef20380238":
        assert load_thresholds(path, "tiny", SECTIONS).calibrated_on == {"sst2/bert": digest}
    else:
        with pytest.raises(
            ThresholdsError, match="calibrated_on 'sst2/bert': expected the leading hex digits"
        ):
            load_thresholds(path, "tiny", SECTIONS)


def test_unknown_section_names_the_valid_ones(tmp_path: Path) -> None:
    path = tmp_path / "thresholds.yaml"
    path.write_text(yaml.safe_dump({"profiles": {"tiny": {"checklits": {"default": 5}}}}))
    with pytest.raises(
        ThresholdsError,
        match=r"unknown section\(s\) \['checklits'\].*valid: "
        "checklist, accuracy, comparison, attacks",
    ):
        load_thresholds(path, "tiny", SECTIONS)
