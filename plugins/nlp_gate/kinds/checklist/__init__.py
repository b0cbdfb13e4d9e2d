"""CheckList tests as gated items: the harness every kind that runs a CheckList test shares
(``run``: a test on a model, ``gates``: the ``checklist`` section, ``marks``, ``items``: the
case, record and runner), and the ``checklist`` kind of the released suites (``kind``).

This package imports no kind: the registry (``nlp_gate.kinds``) imports ``kind``.
"""

from nlp_gate.kinds.checklist.items import ChecklistCase, ChecklistRecord

__all__ = ["ChecklistCase", "ChecklistRecord"]
