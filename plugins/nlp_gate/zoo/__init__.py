"""Offline model zoo: tiny BERT/ALBERT classifiers built from generated data.

Stands in for the ``textattack/{bert-base-uncased,albert-base-v2}-*`` hub
checkpoints under the ``tiny`` profile.  Typical use::

    from nlp_gate.zoo import ensure_zoo, model_dir
    card = ensure_zoo()                      # builds once, then cached
    path = model_dir("sst2", "albert")       # AutoModel/AutoTokenizer-loadable
"""

from nlp_gate.zoo.build import (
    ZOO_DIR_ENV,
    build_zoo,
    default_zoo_root,
    ensure_zoo,
    is_current,
    model_dir,
)
from nlp_gate.zoo.card import ModelResult, ZooCard, read_card
from nlp_gate.zoo.data import DATASETS, Example, generate, heldout_path, read_jsonl, write_heldout
from nlp_gate.zoo.recipe import ALL_DATASETS, DEFAULT_RECIPE, FAMILIES, HUB_IDS, Recipe, recipe_hash

__all__ = [
    "ALL_DATASETS",
    "DATASETS",
    "DEFAULT_RECIPE",
    "Example",
    "FAMILIES",
    "HUB_IDS",
    "ModelResult",
    "Recipe",
    "ZOO_DIR_ENV",
    "ZooCard",
    "build_zoo",
    "default_zoo_root",
    "ensure_zoo",
    "generate",
    "heldout_path",
    "is_current",
    "model_dir",
    "read_card",
    "read_jsonl",
    "recipe_hash",
    "write_heldout",
]
