"""Candidate vs baseline as gated pytest items: one per CheckList test and dataset.

``pytest tests_behavioral -m "fairness and regression"`` is the fairness release gate: it fails
where the candidate is significantly worse than the baseline (paired exact McNemar test,
Benjamini-Hochberg across the run) by more than the capability's tolerance.
"""

from __future__ import annotations

from nlp_gate.kinds.comparison import ComparisonCase
from nlp_gate.plugin import Check


def test_comparison(comparison_case: ComparisonCase, nlp_check: Check) -> None:
    nlp_check(comparison_case)
