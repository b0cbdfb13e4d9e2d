"""The search kind: hypothesis searching a native test's declared space for a failing example
(``kind``: the case and kind; ``report``: its figures and metrics)."""

from nlp_gate.kinds.search.kind import SearchCase

__all__ = ["SearchCase"]
