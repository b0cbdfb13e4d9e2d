"""The recipe registry: every recipe TextAttack ships becomes items; none is silently absent."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from nlp_gate.config.profiles import load_profile
from nlp_gate.kinds.attacks.cases import attack_cases
from nlp_gate.kinds.attacks.recipes import (
    NEEDS,
    NOT_APPLICABLE,
    OFFLINE_SUFFIX,
    OFFLINE_VARIANTS,
    exported_recipes,
    registered_names,
    registry,
)

PACKAGE = Path(next(iter(importlib.util.find_spec("textattack").submodule_search_locations)))


def test_every_registered_and_exported_recipe_is_enumerated() -> None:
    registered = registered_names(PACKAGE)
    recipes = registry()
    assert len(registered) >= 20  # textattack 0.3.11 registers 21
    assert {r.name for r in recipes} >= set(registered)
    covered = {r.class_name for r in recipes}
    assert set(exported_recipes(PACKAGE)) <= covered
    assert {"FrenchRecipe", "SpanishRecipe", "ChineseRecipe"} <= covered
    # class paths resolve to the registry's entries
    assert {r.name: r.class_path for r in recipes if r.name in registered} == registered


def test_each_registered_recipe_is_either_described_or_not_applicable() -> None:
    """A recipe a new TextAttack adds still gets items; this test asks for its table entry."""
    for name in registered_names(PACKAGE):
        assert (name in NEEDS) != (name in NOT_APPLICABLE), name


def test_offline_variants_build_the_canonical_class_with_its_arguments() -> None:
    recipes = {r.name: r for r in registry()}
    variants = {r.name: r for r in registry() if r.offline_variant_of}
    assert set(variants) == {f"{n}{OFFLINE_SUFFIX}" for n in OFFLINE_VARIANTS}
    for variant in variants.values():
        canonical = recipes[variant.offline_variant_of]
        assert variant.class_path == canonical.class_path
        assert variant.build_args == canonical.build_args
        assert not canonical.not_applicable
    assert variants["textfooler-offline"].class_path.endswith("TextFoolerJin2019")


def test_at_least_14_of_the_21_english_recipes_can_run_offline() -> None:
    """Offline here: from PyPI, Debian and the zoo (the variants' stand-ins, the Debian data),
    not from S3 or a model hub."""
    from nlp_gate.kinds.attacks import resources as r

    local = {r.STOPWORDS, r.WORDNET, r.MINILM, r.ZOO_MASKED_LM, r.HOMOGLYPH_TABLE}
    english = [
        rec
        for rec in registry()
        if not rec.offline_variant_of and "language recipe" not in (rec.not_applicable or "")
    ]
    assert len(english) == 21
    runnable = {
        rec.offline_variant_of or rec.name
        for rec in registry()
        if not rec.not_applicable and set(rec.needs) <= local
    }
    assert len(runnable) >= 14, sorted(runnable)
    assert {"bae", "bert-attack", "clare", "textbugger", "a2t"} <= runnable


@pytest.mark.parametrize("profile", ["tiny", "paper"])
def test_cases_are_recipe_x_model_with_model_specs_and_positions(profile: str) -> None:
    prof = load_profile(profile)
    cases = attack_cases(registry(), prof, ["rte"])
    assert len(cases) == 2 * len(registry())
    assert [c.position for c in cases] == list(range(len(cases)))
    assert {c.model.key for c in cases} == {"rte-bert", "rte-albert"}
    first = cases[0]
    assert first.id == f"{registry()[0].name}/rte/bert"
    marks = {m.name: m for m in first.marks()}
    assert "adversarial" in marks and marks["xdist_group"].args == ("rte-bert",)
