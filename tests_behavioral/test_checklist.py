"""CheckList Tables 2-3 as gated pytest items: suite test x dataset x model.

Items are parametrized by the ``nlp-gate`` plugin from the active profile and the release
suites; run a capability with ``pytest tests_behavioral -m fairness``.
"""

from __future__ import annotations

import allure
import pytest

from plugins.predictor import Classifier
from plugins.session import ChecklistCase, GateSession


def test_checklist(checklist_case: ChecklistCase, nlp_gate: GateSession,
                   nlp_models: dict[str, Classifier]) -> None:
    case = checklist_case
    allure.dynamic.epic(case.info.suite)
    allure.dynamic.feature(case.info.capability)
    allure.dynamic.story(case.info.name)
    allure.dynamic.parameter("checklist_case", case.id, mode=allure.parameter_mode.HIDDEN)
    allure.dynamic.parameter("dataset", case.model.dataset)
    allure.dynamic.parameter("model", case.model.name)
    allure.dynamic.description(case.info.description)

    verdict = nlp_gate.run_checklist(case, nlp_models[case.model.key])

    if verdict.outcome.failing:
        allure.attach("\n".join(verdict.outcome.failing), name="failing examples",
                      attachment_type=allure.attachment_type.TEXT)
    if verdict.message:
        pytest.fail(f"{case.id}: {verdict.message}", pytrace=False)
