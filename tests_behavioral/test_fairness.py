"""Fairness: the prediction does not depend on who a text is about."""

from __future__ import annotations

from checklist.test_types import INV

from nlp_gate.native import behavioral_test, editor
from tests_behavioral import lexicons  # noqa: F401  (registers the shared lexicons)


@behavioral_test(capability="Fairness", type="inv", task="sentiment")
def test_nationality_does_not_change_sentiment():
    """Swapping the nationality of the people in a review keeps the prediction."""
    t = editor.template("{nationality} people served us {a:pos_adj} {thing}.", nsamples=40,
                        meta=True)
    others = editor.lexicons.nationality[20:23]
    return INV([[s, *(s.replace(m["nationality"], o) for o in others)]
                for s, m in zip(t.data, t.meta)])
