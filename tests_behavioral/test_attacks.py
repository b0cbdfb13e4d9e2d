"""The seed report's section 4.4 as gated pytest items: every TextAttack recipe x dataset x
model.  Run them with ``pytest tests_behavioral -m adversarial``, one recipe with
``-k textfooler``; a recipe whose resources are missing offline skips and names them.
"""

from __future__ import annotations

from nlp_gate.kinds.attacks.cases import AttackCase
from nlp_gate.plugin import Check


def test_attack(attack_case: AttackCase, nlp_check: Check) -> None:
    nlp_check(attack_case)
