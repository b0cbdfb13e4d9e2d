"""The CheckList item kind: released suite tests x datasets x models."""

from nlp_gate.kinds.checklist.kind import ChecklistCase, ChecklistKind, ChecklistRecord

__all__ = ["ChecklistCase", "ChecklistKind", "ChecklistRecord"]
