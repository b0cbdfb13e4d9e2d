"""CheckList Tables 2-3 as gated pytest items: suite test x dataset x model.

Items are parametrized by the ``nlp-gate`` plugin from the active profile and the release
suites; run a capability with ``pytest tests_behavioral -m fairness``.
"""

from __future__ import annotations

from nlp_gate.kinds.checklist import ChecklistCase
from nlp_gate.plugin import Check


def test_checklist(checklist_case: ChecklistCase, nlp_check: Check) -> None:
    nlp_check(checklist_case)
