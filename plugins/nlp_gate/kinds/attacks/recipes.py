"""TextAttack's recipe registry, enumerated from the installed package, and what each recipe needs.

The registry is read from the package's source (``ATTACK_RECIPE_NAMES`` in ``attack_args.py``,
the table behind ``textattack attack --recipe``, plus the recipe classes that
``textattack.attack_recipes`` exports without registering them) instead of being imported:
``import textattack`` needs NLTK data and takes seconds, and collection has to list every
recipe, and say what is missing, even on a machine where it cannot be imported.

What each recipe needs is knowledge about TextAttack 0.3.11 kept in the tables below; a recipe
a later TextAttack adds still gets its items (no entry: no known needs), and the offline guard
turns any TextAttack download it attempts into a named skip.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from nlp_gate.kinds.attacks import resources as r

# Recipes that also run offline as "<name>-offline", with local stand-ins for what they would
# download (substitutes.py), and the stand-ins each variant needs.  The seed's three come
# first; the others are those whose only missing pieces are an embedding, a sentence
# encoder, a masked LM, a language-model constraint, a tagger or the homoglyph table.
OFFLINE_VARIANTS: dict[str, tuple[r.Resource, ...]] = {
    "textfooler": (r.MINILM,),
    "iga": (r.MINILM,),
    "faster-alzantot": (r.MINILM,),
    "alzantot": (r.MINILM,),
    "kuleshov": (r.MINILM,),
    "a2t": (r.MINILM,),
    "bae": (r.ZOO_MASKED_LM, r.MINILM),
    "bert-attack": (r.ZOO_MASKED_LM, r.MINILM),
    "clare": (r.ZOO_MASKED_LM, r.MINILM),
    "textbugger": (r.HOMOGLYPH_TABLE, r.MINILM),
    "bad-characters": (r.HOMOGLYPH_TABLE,),
}
OFFLINE_SUFFIX = "-offline"

NEEDS: dict[str, tuple[r.Resource, ...]] = {
    "alzantot": (r.COUNTER_FITTED, r.GOOGLE_LM, r.TENSORFLOW),
    "bae": (r.BERT_BASE, r.POS_TAGGER, r.UNIVERSAL_TAGSET, r.TENSORFLOW, r.TENSORFLOW_HUB, r.USE),
    "bert-attack": (r.BERT_BASE, r.TENSORFLOW, r.TENSORFLOW_HUB, r.USE),
    "faster-alzantot": (r.COUNTER_FITTED, r.LEARNING_TO_WRITE),
    "kuleshov": (r.COUNTER_FITTED, r.GPT2),
    "textbugger": (r.HOMOGLYPHS, r.COUNTER_FITTED, r.TENSORFLOW, r.TENSORFLOW_HUB, r.USE),
    "textfooler": (
        r.COUNTER_FITTED,
        r.POS_TAGGER,
        r.UNIVERSAL_TAGSET,
        r.TENSORFLOW,
        r.TENSORFLOW_HUB,
        r.USE,
    ),
    "pwws": (r.WORDNET,),
    "iga": (r.COUNTER_FITTED,),
    "pso": (r.HOWNET, r.FLAIR_UPOS),
    "checklist": (r.FLAIR_NER,),
    "clare": (r.DISTILROBERTA, r.FLAIR_UPOS, r.TENSORFLOW, r.TENSORFLOW_HUB, r.USE),
    "a2t": (
        r.COUNTER_FITTED,
        r.POS_TAGGER,
        r.UNIVERSAL_TAGSET,
        r.SENTENCE_TRANSFORMERS,
        r.SBERT_STSB,
    ),
    "leap": (r.WORDNET,),
    "bad-characters": (r.HOMOGLYPHS,),
    # Character-level or deletion recipes: nothing beyond what `import textattack` needs.
    "deepwordbug": (),
    "input-reduction": (),
    "pruthi": (),
}

NOT_APPLICABLE: dict[str, str] = {
    "hotflip": "its WordSwapGradientBased transformation accepts only TextAttack's own "
    "word-level LSTM/CNN models, not a transformers classifier",
    "morpheus": "its goal function (MinimizeBleu) attacks text-to-text models, not classifiers",
    "seq2sick": "its goal function (NonOverlappingOutput) attacks text-to-text models, "
    "not classifiers",
}

# build() arguments beyond the model wrapper.  BadCharacters2021.build has no default goal and
# no untargeted classification goal: the targeted one towards class 0 is used, skipping
# examples already of that class (allow_skip) so they do not count as free successes.
BUILD_ARGS: dict[str, dict[str, Any]] = {
    "bad-characters": {
        "goal_function_type": "targeted_classification",
        "target_class": 0,
        "allow_skip": True,
    },
}


@dataclass(frozen=True)
class Recipe:
    name: str  # the registry name, e.g. "textfooler"; "-offline" for a substitute variant
    class_path: str  # "textattack.attack_recipes.TextFoolerJin2019"
    needs: tuple[r.Resource, ...] = ()
    not_applicable: str | None = None
    build_args: Mapping[str, Any] = field(default_factory=dict)
    offline_variant_of: str | None = None  # the canonical recipe this variant substitutes

    @property
    def class_name(self) -> str:
        return self.class_path.rsplit(".", 1)[1]

    def load_class(self) -> Any:
        module, name = self.class_path.rsplit(".", 1)
        return getattr(importlib.import_module(module), name)


def _package_dir() -> Path:
    spec = importlib.util.find_spec("textattack")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("textattack is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def registered_names(package: Path) -> dict[str, str]:
    """``ATTACK_RECIPE_NAMES`` of the installed TextAttack: name -> class path."""
    tree = ast.parse((package / "attack_args.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            getattr(t, "id", None) == "ATTACK_RECIPE_NAMES" for t in node.targets
        ):
            return dict(ast.literal_eval(node.value))
    raise RuntimeError(f"no ATTACK_RECIPE_NAMES in {package / 'attack_args.py'}")


def exported_recipes(package: Path) -> list[str]:
    """Class names ``textattack.attack_recipes`` imports from its recipe modules."""
    tree = ast.parse((package / "attack_recipes" / "__init__.py").read_text())
    return [
        alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module != "attack_recipe"
        for alias in node.names
    ]


@cache
def registry() -> tuple[Recipe, ...]:
    """Every recipe TextAttack ships, in registry order, then its unregistered language
    recipes, then the offline variants."""
    package = _package_dir()
    names = registered_names(package)
    recipes = [
        Recipe(n, path, NEEDS.get(n, ()), NOT_APPLICABLE.get(n), BUILD_ARGS.get(n, {}))
        for n, path in names.items()
    ]
    registered = {path.rsplit(".", 1)[1] for path in names.values()}
    for cls in exported_recipes(package):
        if cls not in registered:  # FrenchRecipe, SpanishRecipe, ChineseRecipe
            language = cls.removesuffix("Recipe")
            recipes.append(
                Recipe(
                    language.lower(),
                    f"textattack.attack_recipes.{cls}",
                    not_applicable=f"{language}-language recipe; the profile's "
                    "datasets are English",
                )
            )
    by_name = {rec.name: rec for rec in recipes}
    recipes += [
        Recipe(
            f"{n}{OFFLINE_SUFFIX}",
            by_name[n].class_path,
            needs=needs,
            build_args=by_name[n].build_args,
            offline_variant_of=n,
        )
        for n, needs in OFFLINE_VARIANTS.items()
        if n in by_name
    ]
    return tuple(recipes)


def names() -> list[str]:
    return [rec.name for rec in registry()]
