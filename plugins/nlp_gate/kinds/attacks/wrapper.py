"""The project's ``Classifier`` as a TextAttack model: attacks share the predictor (and its
memo) with the CheckList items instead of loading the checkpoint a second time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from textattack.models.wrappers import HuggingFaceModelWrapper, ModelWrapper

from nlp_gate.engine.predictor import Classifier, ModelInput


class ClassifierWrapper(ModelWrapper):  # type: ignore[misc]  # TextAttack is untyped: its base is Any
    """Probabilities in the task's class order, so TextAttack's label ids are task class ids.

    ``model`` and ``tokenizer`` are what TextAttack inspects (goal-function compatibility,
    A2T's maximum length); gradients (A2T's word importance) come from TextAttack's own
    Hugging Face wrapper over the same model, whose loss uses the model's own argmax and so
    does not depend on the class order.
    """

    def __init__(self, classifier: Classifier) -> None:
        self.classifier = classifier
        self.model = classifier.model
        self.tokenizer = classifier.tokenizer
        # A prediction-function model has no tokenizer and no gradients: black-box recipes
        # attack it; a recipe that needs gradients (A2T's word importance) errors saying so.
        self._gradients = (
            HuggingFaceModelWrapper(classifier.model, classifier.tokenizer)
            if classifier.tokenizer is not None
            else None
        )

    def __call__(self, text_input_list: Sequence[ModelInput], **kwargs: Any) -> np.ndarray:
        # TextAttack passes a str per single-text input and a tuple per multi-column one.
        return self.classifier.predict_proba(list(text_input_list))

    def get_grad(self, text_input: str) -> dict[str, Any]:
        grad: dict[str, Any] = self._hugging_face().get_grad(text_input)
        return grad

    def _tokenize(self, inputs: Sequence[str]) -> list[list[str]]:
        tokens: list[list[str]] = self._hugging_face()._tokenize(inputs)
        return tokens

    def _hugging_face(self) -> HuggingFaceModelWrapper:
        if self._gradients is None:
            raise TypeError(
                f"{self.classifier.spec.key} is a prediction function: this recipe "
                "needs a model's gradients or tokenizer"
            )
        return self._gradients
