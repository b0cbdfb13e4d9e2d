"""Put the embedded zoo in place, and locate it.

Layout under the zoo root (the shipped ``weights/zoo/``, copied)::

    zoo.json                       card: recipe, accuracies, weights' digests, versions
    <dataset>/heldout.jsonl        held-out split the accuracies refer to
    <dataset>/<family>/            save_pretrained() model + tokenizer

Concurrency: pytest-xdist workers (and CI jobs sharing a cache) may all call ``ensure_zoo``
at once.  The copy happens under an exclusive file lock next to the root, into a private
temporary directory renamed into place only when complete (``embedded.install``), so no
process ever sees half a zoo; a process that waited for the lock finds it in place.  Nothing
here trains: the recipe that made the shipped files is the repository's workshop
(``workshop/zoo``), which builds other recipes' zoos the same way.
"""

from __future__ import annotations

from pathlib import Path

from nlp_gate.config.paths import zoo_dir
from nlp_gate.zoo import embedded
from nlp_gate.zoo.card import ZooCard, read_card

ZOO_DIR_ENV = "NLP_GATE_ZOO_DIR"
# The zoo's datasets and each one's label names by id, as its recipe generated them (the
# models' id2label; workshop/zoo/data.py, tests/unit/test_zoo_recipe.py holds them equal).
LABELS: dict[str, tuple[str, ...]] = {
    "rotten_tomatoes": ("negative", "positive"),
    "yelp_polarity": ("negative", "positive"),
    "sst2": ("negative", "positive"),
    "qqp": ("not_duplicate", "duplicate"),
    "mrpc": ("not_equivalent", "equivalent"),
    "rte": ("entailment", "not_entailment"),
}


def default_zoo_root() -> Path:
    """The zoo of the working directory (the repository root): where the pytest plugin's
    default, ``<rootdir>/.cache/zoo``, looks for it; ``$NLP_GATE_ZOO_DIR`` overrides."""
    return zoo_dir(Path.cwd()).resolve()


def model_dir(dataset: str, family: str, root: Path | None = None) -> Path:
    return (root or default_zoo_root()) / dataset / family


def lock_path(root: Path) -> Path:
    """The file lock of the zoo at ``root``, held while one is put in place there."""
    return root.parent / f".{root.name}.lock"


def is_current(root: Path) -> bool:
    """Whether ``root`` holds the embedded zoo, every file byte for byte."""
    return embedded.holds(root, "zoo")


def ensure_zoo(root: Path | None = None) -> ZooCard:
    """The embedded zoo at ``root``, installed there from the shipped files (all its models)
    when it is not there byte for byte."""
    root = (root or default_zoo_root()).resolve()
    embedded.install("zoo", root, lock_path(root))
    card = read_card(root)
    assert card is not None  # installed and verified just now
    return card
