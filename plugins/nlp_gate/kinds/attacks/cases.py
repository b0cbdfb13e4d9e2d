"""Attack items: one per recipe x dataset x model of the active profile."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from nlp_gate.config.specs import ModelSpec, Profile
from nlp_gate.kinds.attacks.gates import AttackKey
from nlp_gate.kinds.attacks.recipes import Recipe
from nlp_gate.kinds.base import OneModel


@dataclass(frozen=True, repr=False)
class AttackCase(OneModel):
    kind = "attacks"  # the registered kind that runs it (not a field)
    position: int
    recipe: Recipe
    model: ModelSpec

    @property
    def id(self) -> str:
        return f"{self.recipe.name}/{self.model.dataset}/{self.model.name}"

    @property
    def key(self) -> AttackKey:
        return AttackKey(self.recipe.name, self.model.dataset, self.model.name)

    @property
    def file_stem(self) -> str:
        return self.id.replace("/", "__")

    def marks(self) -> list[pytest.MarkDecorator]:
        # Same group as the model's CheckList items: one worker, one model load.
        return [pytest.mark.adversarial, pytest.mark.xdist_group(self.model.key)]


def attack_cases(
    recipes: Sequence[Recipe], profile: Profile, datasets: Sequence[str]
) -> list[AttackCase]:
    """Recipe-major, then the datasets in the order given, then the profile's models."""
    cases: list[AttackCase] = []
    for recipe in recipes:
        for dataset in datasets:
            for spec in profile.models:
                if spec.dataset == dataset:
                    cases.append(AttackCase(len(cases), recipe, spec))
    return cases
