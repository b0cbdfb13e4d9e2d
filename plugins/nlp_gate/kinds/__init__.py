"""Item kinds: the one place where they register.

Each kind implements ``nlp_gate.kinds.base.ItemKind``; the core builds one of each per
process and wires it to pytest (options, markers, parametrization, verdicts, records).  The
order is the order of their options and (reversed) of their terminal summaries.  Adding a
kind is one module (or package) and one line here: its ``report`` (a
``nlp_gate.kinds.report_part.ReportPart``, which names its results.json section) gives the
report its tables, figures and part of the verdict, and ``nlp_gate.report`` finds it here.
"""

from __future__ import annotations

from typing import Any

from nlp_gate.kinds.accuracy.kind import AccuracyKind
from nlp_gate.kinds.attacks.kind import AttackKind
from nlp_gate.kinds.base import ItemKind
from nlp_gate.kinds.checklist.kind import ChecklistKind
from nlp_gate.kinds.comparison.kind import ComparisonKind
from nlp_gate.kinds.native.kind import NativeKind
from nlp_gate.kinds.search.kind import SearchKind

KINDS: tuple[type[ItemKind[Any]], ...] = (
    ChecklistKind,
    NativeKind,
    SearchKind,
    AccuracyKind,
    ComparisonKind,
    AttackKind,
)
