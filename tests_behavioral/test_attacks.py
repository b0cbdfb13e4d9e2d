"""The seed report's §4.4 as gated pytest items: every TextAttack recipe x dataset x model.

Items are parametrized by the attack plugin (``plugins/attacks``); run them with
``pytest tests_behavioral -m adversarial``, one recipe with ``-k textfooler``.
"""

from __future__ import annotations

import json

import allure
import pytest

from plugins.attacks.cases import AttackCase
from plugins.attacks.plugin import stop
from plugins.attacks.run import AttackRunner, Unavailable, format_example
from plugins.predictor import Classifier


def test_attack(attack_ready: AttackCase, nlp_attacks: AttackRunner,
                nlp_models: dict[str, Classifier]) -> None:
    case = attack_ready
    recipe = case.recipe
    allure.dynamic.epic("adversarial")
    allure.dynamic.feature(recipe.offline_variant_of or recipe.name)
    allure.dynamic.story(recipe.name)
    allure.dynamic.parameter("attack_case", case.id, mode=allure.parameter_mode.HIDDEN)
    allure.dynamic.parameter("recipe", f"{recipe.name} ({recipe.class_name})")
    allure.dynamic.parameter("dataset", case.model.dataset)
    allure.dynamic.parameter("model", case.model.name)

    verdict = nlp_attacks.run(case, nlp_models[case.model.key])
    if isinstance(verdict, Unavailable):
        stop(verdict)
        return
    record = verdict.record
    allure.dynamic.parameter("substitutes", "; ".join(record.substitutes) or "none (canonical)")
    if record.substitutes:
        allure.dynamic.description("Offline substitute mode, not the canonical recipe:\n"
                                   + "\n".join(f"- {s}" for s in record.substitutes))
    if verdict.examples:
        allure.attach("\n\n".join(format_example(e) for e in verdict.examples),
                      name="successful adversarial examples ([[changed words]])",
                      attachment_type=allure.attachment_type.TEXT)
    allure.attach(json.dumps({k: v for k, v in vars(record).items()}, indent=2),
                  name="attack record", attachment_type=allure.attachment_type.JSON)
    if verdict.summary:
        allure.attach(verdict.summary, name="TextAttack log and summary",
                      attachment_type=allure.attachment_type.TEXT)
    if verdict.message:
        pytest.fail(f"{case.id}: {verdict.message}", pytrace=False)
