"""Model profiles: the label mapping is declared, validated, never guessed."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from nlp_gate.config.profiles import DEFAULT_MODELS_FILE, ProfileError, load_profile

SEED_DATASETS = ["rotten_tomatoes", "yelp_polarity", "sst2", "qqp", "mrpc", "rte"]


@pytest.mark.parametrize("profile", ["paper", "tiny"])
def test_shipped_profiles_cover_the_seed_datasets_for_both_families(profile: str) -> None:
    p = load_profile(profile)
    assert p.datasets == SEED_DATASETS
    assert p.model_names == ["bert", "albert"]
    assert [m.dataset for m in p.for_suite("sentiment")] == ["rotten_tomatoes"] * 2 + [
        "yelp_polarity"
    ] * 2 + ["sst2"] * 2
    assert {m.dataset for m in p.for_suite("qqp")} == {"qqp", "mrpc"}


def test_paper_profile_uses_the_classifier_repos_not_the_fill_mask_ones() -> None:
    ids = [m.source for m in load_profile("paper").models]
    assert "textattack/bert-base-uncased-rotten-tomatoes" in ids
    assert not [i for i in ids if "rotten_tomatoes" in i]
    assert len(ids) == 12


def _write(tmp_path: Path, labels: object) -> Path:
    doc = {
        "tasks": {"sentiment": {"classes": ["negative", "positive"], "suite": "sentiment"}},
        "profiles": {
            "mine": {
                "datasets": {
                    "sst2": {
                        "task": "sentiment",
                        "models": {"candidate": {"id": "some/model", "labels": labels}},
                    }
                }
            }
        },
    }
    path = tmp_path / "models.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_user_models_file_maps_output_indices_to_task_classes(tmp_path: Path) -> None:
    spec = load_profile("mine", _write(tmp_path, ["positive", "negative"])).models[0]
    assert spec.labels == ("positive", "negative")
    assert spec.class_index() == [1, 0]  # task order (negative, positive) -> model outputs


@pytest.mark.parametrize(
    "labels",
    [
        None,
        ["LABEL_0", "LABEL_1"],
        ["positive", "positive"],
        ["negative"],
        ["negative", "positive", "neutral"],
    ],
)
def test_labels_must_name_each_task_class_once(tmp_path: Path, labels: object) -> None:
    with pytest.raises(ProfileError, match="labels"):
        load_profile("mine", _write(tmp_path, labels))


def test_unknown_profile_lists_the_valid_ones() -> None:
    with pytest.raises(ProfileError, match="valid profiles: paper, tiny"):
        load_profile("nope")


def test_mrpc_aliases_are_accepted_as_paraphrase_classes(tmp_path: Path) -> None:
    doc = yaml.safe_load(DEFAULT_MODELS_FILE.read_text())
    doc["profiles"]["tiny"]["datasets"]["mrpc"]["models"]["bert"]["labels"] = [
        "not_equivalent",
        "equivalent",
    ]
    path = tmp_path / "m.yaml"
    path.write_text(yaml.safe_dump(doc))
    assert load_profile("tiny", path).get("mrpc", "bert").labels == ("not_duplicate", "duplicate")
