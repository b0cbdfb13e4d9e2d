"""Table 1 as gated pytest items: each model's accuracy on its dataset's evaluation split.

Run it with ``pytest tests_behavioral -m accuracy``; the gates are ``min_accuracy`` in the
``accuracy`` section of ``thresholds.yaml``.
"""

from __future__ import annotations

from nlp_gate.kinds.accuracy import AccuracyCase
from nlp_gate.plugin import Check


def test_accuracy(accuracy_case: AccuracyCase, nlp_check: Check) -> None:
    nlp_check(accuracy_case)
