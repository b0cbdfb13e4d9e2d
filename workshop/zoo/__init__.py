"""The embedded zoo's recipe: generated data, tiny BERT/ALBERT training, shipping a rebuild.

Building the default recipe's zoo installs the shipped files (``nlp_gate.zoo``); another
recipe's (the project's own tests shrink it) is trained, cached under its recipe hash::

    from workshop.zoo import DEFAULT_RECIPE, build_zoo, ensure_zoo
    card = build_zoo(root, recipe=DEFAULT_RECIPE)   # trains anew (minutes)
"""

from workshop.zoo.build import build_zoo, ensure_zoo, is_current
from workshop.zoo.data import DATASETS, Example, generate, heldout_path, read_jsonl, write_heldout
from workshop.zoo.recipe import (
    ALL_DATASETS,
    DEFAULT_RECIPE,
    FAMILIES,
    HUB_IDS,
    Recipe,
    recipe_hash,
)

__all__ = [
    "ALL_DATASETS",
    "DATASETS",
    "DEFAULT_RECIPE",
    "Example",
    "FAMILIES",
    "HUB_IDS",
    "Recipe",
    "build_zoo",
    "ensure_zoo",
    "generate",
    "heldout_path",
    "is_current",
    "read_jsonl",
    "recipe_hash",
    "write_heldout",
]
