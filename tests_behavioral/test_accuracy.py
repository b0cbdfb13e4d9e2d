"""Table 1 as gated pytest items: each model's accuracy on its dataset's evaluation split.

Run it with ``pytest tests_behavioral -m accuracy``; the gates are ``min_accuracy`` in the
``accuracy`` section of ``thresholds.yaml``.
"""

from __future__ import annotations

import allure
import pytest

from plugins.accuracy import AccuracyCase, AccuracyRun
from plugins.eval_sets import EvalDataMissing


def test_accuracy(accuracy_case: AccuracyCase, nlp_accuracy: AccuracyRun,
                  request: pytest.FixtureRequest) -> None:
    case = accuracy_case
    allure.dynamic.epic("accuracy")
    allure.dynamic.feature(case.model.dataset)
    allure.dynamic.story(case.model.name)
    allure.dynamic.parameter("accuracy_case", case.id, mode=allure.parameter_mode.HIDDEN)
    allure.dynamic.parameter("dataset", case.model.dataset)
    allure.dynamic.parameter("model", case.model.name)

    # The data first: on a machine without the hub, say which data set is missing and how
    # to provide it, even when the models cannot be loaded either.
    data = nlp_accuracy.eval_set(case.model)
    if isinstance(data, EvalDataMissing):
        pytest.fail(f"{case.id}: {data}", pytrace=False)
    models = request.getfixturevalue("nlp_models")

    message = nlp_accuracy.measure(case, data, models[case.model.key])

    if message:
        pytest.fail(f"{case.id}: {message}", pytrace=False)
