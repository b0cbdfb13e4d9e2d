"""The embedded default is the recipe's current output, and the tiny gates were calibrated on
it: the workshop's side of ``nlp_gate/zoo/embedded.py`` (``workshop/zoo/ship.py``).

An edit to the recipe or to a module that shapes the weights without shipping a rebuild, or a
rebuild shipped without calibrating the gates anew, fails here; so does a runtime copy of the
recipe's facts (the datasets' label names) that no longer matches it.  Nothing here trains.
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest
import yaml

from nlp_gate.config.profiles import DEFAULT_MODELS_FILE, load_profile
from nlp_gate.zoo import embedded, read_card
from nlp_gate.zoo.__main__ import TRAIN_MOVED
from nlp_gate.zoo.__main__ import main as zoo_cli
from nlp_gate.zoo.build import LABELS
from tests.unit.test_embedded import weights  # noqa: F401  # a fixture, used by name
from workshop.zoo import ALL_DATASETS, DATASETS, DEFAULT_RECIPE, ship

REPO = Path(__file__).resolve().parents[2]


def test_the_shipped_zoo_is_the_current_recipes() -> None:
    """An edit to the recipe or to a module that shapes the weights, without shipping a
    rebuild (``python -m workshop.zoo train --ship``), fails here."""
    described = embedded.description()
    assert described["recipe"] == DEFAULT_RECIPE.to_json()
    assert described["training_digest"] == ship.training_digest()
    card = read_card(embedded.WEIGHTS / "zoo")
    assert card is not None and card.recipe == DEFAULT_RECIPE.to_json()


def test_the_tiny_gates_were_calibrated_on_the_shipped_weights() -> None:
    thresholds = yaml.safe_load((REPO / "thresholds.yaml").read_text())
    calibrated = thresholds["profiles"]["tiny"]["calibrated_on"]
    card = read_card(embedded.WEIGHTS / "zoo")
    assert card is not None
    shipped = {m.path: m.weights_sha256 for m in card.models}
    assert set(calibrated) == set(shipped)
    assert all(shipped[path].startswith(digest) for path, digest in calibrated.items())


def test_the_runtime_knows_the_recipes_datasets_and_their_labels() -> None:
    """The runtime reads the zoo's held-out sets without the generators: its table of label
    names is the recipe's, and every zoo model of the tiny profile maps them to its task."""
    assert {name: spec.labels for name, spec in DATASETS.items()} == LABELS
    assert tuple(LABELS) == ALL_DATASETS
    specs = [s for s in load_profile("tiny", DEFAULT_MODELS_FILE).models if s.is_zoo]
    assert {s.dataset for s in specs} == set(ALL_DATASETS)
    for spec in specs:
        assert spec.task.class_names(list(LABELS[spec.dataset])) is not None, spec


def test_training_points_to_the_workshop(capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m nlp_gate.zoo train`` (before 0.6) says where training went."""
    assert zoo_cli(["train", "--ship"]) == 2
    assert (
        capsys.readouterr().err.strip()
        == f"zoo: training is not installed with nlp-gate: {TRAIN_MOVED}"
    )


def test_the_package_imports_nothing_of_the_workshop() -> None:
    """The wheel does not hold the workshop: no module of ``nlp_gate`` may import it."""
    importers = []
    for path in sorted((REPO / "plugins" / "nlp_gate").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            if any(n.split(".")[0] == "workshop" for n in names):
                importers.append(path.relative_to(REPO).as_posix())
    assert importers == []


def test_ship_rewrites_only_what_changed(weights: Path, tmp_path: Path) -> None:
    zoo, lm = tmp_path / "zoo", tmp_path / "masked-lm"
    shutil.copytree(weights / "zoo", zoo)
    shutil.copytree(weights / "masked-lm", lm)
    described = embedded.description()
    assert ship.ship(zoo, lm, described["recipe"], described["versions"]) == []
    assert ship.compare("zoo", zoo) == []
    (zoo / "rte" / "bert" / "model.safetensors").write_bytes(b"other weights")
    assert ship.compare("zoo", zoo) == [
        "zoo/rte/bert/model.safetensors: "
        f"{embedded.sha256(zoo / 'rte/bert/model.safetensors')[:16]}"
        f" instead of {embedded.verified()['zoo/rte/bert/model.safetensors'][:16]}"
    ]
    assert ship.ship(zoo, lm, described["recipe"], described["versions"]) == [
        "zoo/rte/bert/model.safetensors"
    ]
    assert embedded.verified()["zoo/rte/bert/model.safetensors"] == embedded.sha256(
        zoo / "rte" / "bert" / "model.safetensors"
    )
    assert json.loads((weights / embedded.DESCRIPTION).read_text())["training_digest"] == (
        ship.training_digest()
    )
