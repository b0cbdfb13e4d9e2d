"""Why a shown failing example failed (``--nlp-explain``): for each case an item shows
(``ChecklistResult.shown``), which of its examples failed, the class the expectation wanted
and the class the model predicted, and the word attributions of ``nlp_gate.explain`` for it,
as results.json's ``explanations`` entries.

Which example of a case failed is CheckList's own answer: the test's expectation is run again
over the shown cases only (a copy of the test holding those cases), through the same
``predict_and_confidence_fn`` as the item, so the classifier's memo (or the prediction cache,
for an outcome stored by an earlier run) answers without a new forward pass.  The example
whose expectation value is lowest (CheckList's own order of failures) is explained; for an
INV or DIR case the original (its first example) is never the one explained.

The class the expectation wanted (``target``), in the model's task classes:

* MFT: the case's label;
* INV: the model's prediction on the original (the prediction should not have changed);
* DIR: the case's label where the test gives one; else the class whose probability the
  perturbation lowered most: the released DIR expectations ask a class's confidence not to
  fall (``Expect.monotonic``, "positive should not go down"), so the class that fell is the
  one the expectation protected;
* a label that is no task class (CheckList's *neutral* on a binary sentiment model, read
  through the neutral band) or no label at all: the model's runner-up class on the example,
  the direction in which the model would have had to move.

``predicted`` is the model's argmax over its task classes on the explained example.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nlp_gate.engine.predictor import Classifier
from nlp_gate.explain import Explanation, differing_words, explain_example
from nlp_gate.kinds.checklist.run import PredictFn

# --nlp-explain: which items explain their shown failing examples.
EXPLAIN_MODES = ("missed", "all", "off")
DEFAULT_EXPLAIN = "missed"

Example = str | tuple[str, str]


@dataclass(frozen=True)
class FailingExample:
    """One shown case's failing example, what was wanted of it and what the model said."""

    case: int  # index into test.data
    example: int  # index of the explained example within the case (0: a one-example case)
    text: Example
    original: Example | None  # INV/DIR: the case's first example, the unperturbed one
    target: int  # task-class index the expectation wanted
    predicted: int  # task-class index the model predicted

    @property
    def differing(self) -> list[int]:
        """Word indices of the explained example that differ from the original (INV/DIR)."""
        return [] if self.original is None else differing_words(self.original, self.text)


def wants_explanations(mode: str, missed: bool) -> bool:
    """Whether an item explains its shown examples: every one under ``all``; under
    ``missed`` only an item that misses its gate (a comparison the candidate loses)."""
    return mode == "all" or (mode == "missed" and missed)


def _as_example(x: Any) -> Example:
    """A CheckList example as ``nlp_gate.explain`` takes it: a text or a pair (a tuple)."""
    if isinstance(x, (tuple, list)):
        first, second = x
        return (str(first), str(second))
    return str(x)


def _case_examples(data: Any) -> list[Any]:
    # CheckList's own test of a multi-example case (``example_list_and_indices``).
    return list(data) if type(data) in (list, np.ndarray) else [data]


def _subset(values: Any, shown: Sequence[int]) -> Any:
    """A per-case attribute (labels, meta) restricted to the shown cases; a value shared by
    every case (one label, None) stays as it is."""
    if isinstance(values, (list, np.ndarray)):
        return [values[i] for i in shown]
    return values


def expect_results(test: Any, shown: Sequence[int], fn: PredictFn) -> list[list[float | None]]:
    """CheckList's expectation values of each example of the shown cases (> 0 pass, <= 0
    fail, None filtered), from a copy of ``test`` restricted to them: the item's test object
    (shared by every model's item) is left untouched."""
    sub = copy.copy(test)
    sub.data = [test.data[i] for i in shown]
    sub.labels = _subset(test.labels, shown)
    sub.meta = _subset(getattr(test, "meta", None), shown)
    sub.run(fn, overwrite=True, verbose=False)
    values: list[list[float | None]] = []
    for result in sub.results.expect_results:
        flat = (
            np.atleast_1d(np.asarray(result, dtype=object)).tolist() if result is not None else []
        )
        values.append([None if v is None else float(v) for v in flat])
    return values


def _worst(values: list[float | None], first: int, n: int) -> int:
    """The example CheckList orders first among the case's failures (the lowest value) from
    index ``first`` on; the first such index where none reads as failed."""
    candidates = [(v, i) for i, v in enumerate(values) if i >= first and v is not None and v <= 0]
    if candidates:
        return min(candidates)[1]
    return min(first, n - 1)


def _label_class(label: Any, neutral_band: bool, n_classes: int) -> int | None:
    """A CheckList label as a task-class index; None where it names none (no label; neutral
    on a binary model read through the neutral band)."""
    if label is None:
        return None
    value = int(label)
    if neutral_band:  # CheckList's 0 negative, 1 neutral, 2 positive; the model's 0, 1
        return {0: 0, 2: 1}.get(value)
    return value if 0 <= value < n_classes else None


def _runner_up(probs: np.ndarray) -> int:
    order = np.argsort(-probs, kind="stable")
    return int(order[1]) if len(order) > 1 else int(order[0])


def failing_examples(
    test: Any,
    test_type: str,
    shown: Sequence[int],
    fn: PredictFn,
    classifier: Classifier,
    neutral_band: bool,
) -> list[FailingExample]:
    """The failing example of each shown case, in ``shown``'s order (``failing``'s)."""
    if not shown:
        return []
    values = expect_results(test, shown, fn)
    pairwise = test_type in ("inv", "dir")
    chosen: list[FailingExample] = []
    for k, case in enumerate(shown):
        examples = _case_examples(test.data[case])
        first = 1 if pairwise and len(examples) > 1 else 0
        j = _worst(values[k] if k < len(values) else [], first, len(examples))
        text = _as_example(examples[j])
        original = _as_example(examples[0]) if first else None
        probs = classifier.predict_proba([text])[0]
        n_classes = len(probs)
        predicted = int(np.argmax(probs))
        label = test.labels[case] if isinstance(test.labels, (list, np.ndarray)) else test.labels
        if isinstance(label, (list, tuple, np.ndarray)):  # one label per example of the case
            label = label[j] if len(label) == len(examples) else None
        target: int | None
        if test_type == "inv" and original is not None:
            target = int(np.argmax(classifier.predict_proba([original])[0]))
        elif test_type == "dir" and original is not None:
            target = _label_class(label, neutral_band, n_classes)
            if target is None:
                before = classifier.predict_proba([original])[0]
                target = int(np.argmin(probs - before))
        else:
            target = _label_class(label, neutral_band, n_classes)
        if target is None:
            target = _runner_up(probs)
        chosen.append(FailingExample(case, j, text, original, target, predicted))
    return chosen


def _texts(example: Example | None) -> list[str] | None:
    if example is None:
        return None
    return list(example) if isinstance(example, tuple) else [example]


def _attribution(explanation: Explanation, classes: Sequence[str]) -> dict[str, Any]:
    """What one model's explanation of an example adds: its method, its class, its scores."""
    return {
        "method": explanation.method,
        "predicted": explanation.predicted,
        "predicted_label": classes[explanation.predicted],
        "scores": list(explanation.toward_target.scores),
        "scores_predicted": list(explanation.toward_predicted.scores),
    }


def _head(
    example: FailingExample, explanation: Explanation, classes: Sequence[str]
) -> dict[str, Any]:
    words = explanation.toward_target
    return {
        "case": example.case,
        "example": example.example,
        "texts": _texts(example.text),
        "original": _texts(example.original),
        "target": example.target,
        "target_label": classes[example.target],
        "words": list(words.words),
        "parts": list(words.parts),
        "differing": example.differing,
    }


def explanation_entry(
    example: FailingExample, explanation: Explanation, classes: Sequence[str]
) -> dict[str, Any]:
    """results.json's ``explanations`` entry of a CheckList or native item's example."""
    return {**_head(example, explanation, classes), **_attribution(explanation, classes)}


def explain(classifier: Classifier, examples: Sequence[FailingExample]) -> list[dict[str, Any]]:
    """The ``explanations`` entries of a CheckList or native item's chosen examples."""
    classes = classifier.spec.task.classes
    return [
        explanation_entry(e, explain_example(classifier, e.text, e.target, e.predicted), classes)
        for e in examples
    ]


def explain_pair(
    candidate: Classifier, baseline: Classifier, examples: Sequence[FailingExample]
) -> list[dict[str, Any]]:
    """A comparison's entries: each example (chosen on the candidate's failure) explained on
    the candidate and on the baseline toward the same wanted class, side by side; each
    model's ``predicted`` is its own."""
    classes = candidate.spec.task.classes
    entries = []
    for e in examples:
        mine = explain_example(candidate, e.text, e.target, e.predicted)
        base_predicted = int(np.argmax(baseline.predict_proba([e.text])[0]))
        theirs = explain_example(baseline, e.text, e.target, base_predicted)
        entries.append(
            {
                **_head(e, mine, classes),
                "candidate": _attribution(mine, classes),
                "baseline": _attribution(theirs, classes),
            }
        )
    return entries
