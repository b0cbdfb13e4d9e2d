"""A key given twice in one mapping of thresholds.yaml or a models file is an error naming
both lines (PyYAML alone keeps the last one without a word); the shipped files have none."""

from __future__ import annotations

from pathlib import Path

import pytest

from nlp_gate.config import ConfigurationError, read_yaml
from nlp_gate.config.profiles import DEFAULT_MODELS_FILE, ProfileError, load_profile
from nlp_gate.config.thresholds import ThresholdsError, load_thresholds

THRESHOLDS = """\
profiles:
  tiny:
    checklist:
      default: 30
      capabilities:
        Vocabulary: 30
        Negation: 50
        Vocabulary: 10
"""

MODELS = """\
tasks:
  sentiment: {classes: [negative, positive], suite: sentiment}
profiles:
  mine:
    datasets:
      sst2:
        task: sentiment
        models:
          bert: {predict: "m:f", labels: [negative, positive]}
          bert: {predict: "m:g", labels: [positive, negative]}
"""


def test_a_duplicate_gate_names_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "thresholds.yaml"
    path.write_text(THRESHOLDS)
    with pytest.raises(ThresholdsError) as error:
        load_thresholds(path, "tiny", ["checklist"])
    message = str(error.value)
    assert f"{path}:8:9: not valid YAML (duplicate key 'Vocabulary': also at line 6)" in message
    assert "\n" not in message


def test_a_duplicate_model_names_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "models.yaml"
    path.write_text(MODELS)
    with pytest.raises(ProfileError, match=r"models.yaml:10:11: .*'bert': also at line 9"):
        load_profile("mine", path)


def test_the_same_key_in_two_mappings_and_a_merge_override_are_not_duplicates(
    tmp_path: Path,
) -> None:
    path = tmp_path / "models.yaml"
    path.write_text(
        MODELS.replace('bert: {predict: "m:g"', 'albert: {predict: "m:g"')
        + "  other:\n    base: &base {task: sentiment}\n"
        "    datasets:\n      sst2: {<<: *base, task: sentiment, models: "
        '{bert: {predict: "m:f", labels: [negative, positive]}}}\n'
    )
    assert [m.name for m in load_profile("mine", path).models] == ["bert", "albert"]
    assert [m.name for m in load_profile("other", path).models] == ["bert"]


@pytest.mark.parametrize(
    "path", [DEFAULT_MODELS_FILE, Path(__file__).parents[2] / "thresholds.yaml"]
)
def test_the_shipped_files_have_no_duplicate_keys(path: Path) -> None:
    assert read_yaml(path, "file", ConfigurationError)["profiles"]
