"""The defect zoo: models with one planted, learned behavioral defect each, and clean ones.

Built like the embedded zoo (cached under ``<cache>/defect-zoo``, recipe-hashed, the same
pinned CPU numerics) but only on demand -- ``python -m nlp_gate.zoo.defects`` or
``scripts/power.py`` -- so the main job does not pay for it.  It is what proves the gate
catches what it claims: ``scripts/power.py`` runs every defect model against the clean
reference (sensitivity) and clean re-seeds against it (the false-alarm rate).
"""

from nlp_gate.zoo.defects.build import defect_zoo_root, ensure_defect_zoo
from nlp_gate.zoo.defects.variants import NULLS, REFERENCE, RESEEDS, VARIANTS, Variant

__all__ = [
    "NULLS",
    "REFERENCE",
    "RESEEDS",
    "VARIANTS",
    "Variant",
    "defect_zoo_root",
    "ensure_defect_zoo",
]
