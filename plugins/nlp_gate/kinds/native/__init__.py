"""The native kind: the items of ``@behavioral_test`` functions (written with
``nlp_gate.native``), run by the CheckList harness (``kind``); its records share the
checklist kind's section and report."""

from nlp_gate.kinds.native.kind import NativeCase

__all__ = ["NativeCase"]
