"""The accuracy kind: each model's accuracy on its evaluation split, against a floor
(``kind``: the case, gates and kind; ``report``: Table 1 and the error-rate figures)."""

from nlp_gate.kinds.accuracy.kind import AccuracyCase

__all__ = ["AccuracyCase"]
