"""Item kinds: the one place where they register.

Each kind implements ``nlp_gate.kinds.base.ItemKind``; the core builds one of each per
process and wires it to pytest (options, markers, parametrization, verdicts, records).  The
order is the order of their options, of results.json's sections and (reversed) of their
terminal summaries.  Adding a kind is one module and one line here (and, when its records
go to a new results.json section, that section in ``nlp_gate.records``).
"""

from __future__ import annotations

from typing import Any

from nlp_gate.kinds.accuracy import AccuracyKind
from nlp_gate.kinds.attacks.kind import AttackKind
from nlp_gate.kinds.base import ItemKind
from nlp_gate.kinds.checklist.kind import ChecklistKind
from nlp_gate.kinds.comparison import ComparisonKind
from nlp_gate.kinds.native import NativeKind
from nlp_gate.kinds.search import SearchKind

KINDS: tuple[type[ItemKind[Any]], ...] = (
    ChecklistKind,
    NativeKind,
    SearchKind,
    AccuracyKind,
    ComparisonKind,
    AttackKind,
)
