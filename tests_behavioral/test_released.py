"""The seed report's items, parametrized by the plugin from the run's profile and gates:

* ``test_checklist``: every released CheckList test x dataset x model (Tables 2-3);
* ``test_accuracy``: each model on its evaluation split (Table 1);
* ``test_comparison``: candidate vs baseline on each CheckList test (``-m regression``);
* ``test_attack``: every TextAttack recipe x dataset x model (section 4.4, ``-m adversarial``).

Select with markers: ``pytest -m fairness``, ``-m "fairness and regression"``.
"""

from __future__ import annotations

from nlp_gate.kinds.accuracy import AccuracyCase
from nlp_gate.kinds.attacks.cases import AttackCase
from nlp_gate.kinds.checklist import ChecklistCase
from nlp_gate.kinds.comparison import ComparisonCase
from nlp_gate.pytest_plugin.plugin import Check


def test_checklist(checklist_case: ChecklistCase, nlp_check: Check) -> None:
    nlp_check(checklist_case)


def test_accuracy(accuracy_case: AccuracyCase, nlp_check: Check) -> None:
    nlp_check(accuracy_case)


def test_comparison(comparison_case: ComparisonCase, nlp_check: Check) -> None:
    nlp_check(comparison_case)


def test_attack(attack_case: AttackCase, nlp_check: Check) -> None:
    nlp_check(attack_case)
