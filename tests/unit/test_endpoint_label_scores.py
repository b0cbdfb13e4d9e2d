"""Label/score answers of a served model (``nlp_gate.engine.endpoint.label_scores``): what
MLflow's scoring server returns for a transformers text-classification pipeline, mapped to
probability rows in the model's label order, or refused when no honest row can be made."""

from __future__ import annotations

import pytest

from nlp_gate.config.profiles import ModelSpec, Task
from nlp_gate.engine.endpoint import label_scores
from nlp_gate.engine.function_model import PredictionError

SENTIMENT = Task("sentiment", ("negative", "positive"), "sentiment")
SPEC = ModelSpec(
    "sst2", "served", SENTIMENT, "http://127.0.0.1:9/invocations", None, ("negative", "positive")
)
SHOWN = "http://127.0.0.1:9/invocations"


def test_every_labels_score_becomes_a_row_in_the_models_label_order() -> None:
    # MLflow's answer for top_k=None: per input, the pairs sorted by score, keyed "0", "1".
    rows = [
        {"0": {"label": "positive", "score": 0.9}, "1": {"label": "negative", "score": 0.1}},
        [{"label": "NEGATIVE", "score": 0.75}, {"label": "POSITIVE", "score": 0.25}],
    ]
    assert label_scores(SPEC, SHOWN, rows) == [[0.1, 0.9], [0.75, 0.25]]
    reversed_spec = ModelSpec("sst2", "served", SENTIMENT, SHOWN, None, ("positive", "negative"))
    assert label_scores(reversed_spec, SHOWN, rows[:1]) == [[0.9, 0.1]]


def test_probability_rows_pass_as_they_are() -> None:
    assert label_scores(SPEC, SHOWN, [[0.2, 0.8]]) == [[0.2, 0.8]]


def test_a_pipeline_answering_its_top_label_only_is_refused_with_the_fix() -> None:
    with pytest.raises(
        PredictionError,
        match=r"one label and its score per input.*"
        r"model_config=\{'top_k': None\}",
    ):
        label_scores(SPEC, SHOWN, [{"label": "positive", "score": 0.9}])


@pytest.mark.parametrize(
    "pairs",
    [
        [{"label": "LABEL_0", "score": 0.4}, {"label": "LABEL_1", "score": 0.6}],  # no names
        [{"label": "positive", "score": 0.4}, {"label": "positive", "score": 0.6}],  # twice
        [{"label": "positive", "score": 1.0}],  # one missing
    ],
)
def test_labels_that_are_not_the_models_are_refused(pairs: list[dict[str, object]]) -> None:
    with pytest.raises(PredictionError, match=r"labels.*\['negative', 'positive'\]"):
        label_scores(SPEC, SHOWN, [pairs])
