"""The comparison kind: a candidate against its baseline, test by test (``kind``: the case and
kind; ``gates``: its ``thresholds.yaml`` section; ``stats``: the paired statistics, pytest-free;
``report``: its table, figures and the merge's re-judging)."""

from nlp_gate.kinds.comparison.kind import ComparisonCase

__all__ = ["ComparisonCase"]
