"""Candidate vs baseline as gated pytest items: one per CheckList test and dataset.

``pytest tests_behavioral -m "fairness and regression"`` is the fairness release gate: it fails
where the candidate is significantly worse than the baseline (paired exact McNemar test,
Benjamini-Hochberg across the run) by more than the capability's tolerance.
"""

from __future__ import annotations

import allure
import pytest

from plugins.comparison import ComparisonCase, ComparisonRun
from plugins.predictor import Classifier


def test_comparison(comparison_case: ComparisonCase, nlp_comparison: ComparisonRun,
                    nlp_models: dict[str, Classifier]) -> None:
    case = comparison_case
    allure.dynamic.epic(f"{case.info.suite} regression")
    allure.dynamic.feature(case.info.capability)
    allure.dynamic.story(case.info.name)
    allure.dynamic.parameter("comparison_case", case.id, mode=allure.parameter_mode.HIDDEN)
    allure.dynamic.parameter("dataset", case.model.dataset)
    allure.dynamic.parameter("candidate", case.model.name)
    allure.dynamic.parameter("baseline", case.baseline.name)
    allure.dynamic.description(case.info.description)

    comparison = nlp_comparison.compare(case, nlp_models)

    if comparison.record.passed is None:  # no evidence either way: say so, don't gate
        pytest.skip(f"{case.id}: {comparison.message}")
    if comparison.message:
        pytest.fail(f"{case.id}: {comparison.message}", pytrace=False)
