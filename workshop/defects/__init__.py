"""The defect zoo: models with one planted, learned behavioral defect each, and clean ones.

Built like the embedded zoo (cached under ``<cache>/defect-zoo``, recipe-hashed, the same
pinned CPU numerics) but only on demand -- ``python -m workshop.defects`` or
``python -m workshop.power`` -- so the main job does not pay for it.  It is what proves the
gate catches what it claims: ``workshop.power`` runs every defect model against the clean
reference (sensitivity) and clean re-seeds against it (the false-alarm rate).
"""

from workshop.defects.build import defect_zoo_root, ensure_defect_zoo
from workshop.defects.variants import NULLS, REFERENCE, RESEEDS, VARIANTS, Variant

__all__ = [
    "NULLS",
    "REFERENCE",
    "RESEEDS",
    "VARIANTS",
    "Variant",
    "defect_zoo_root",
    "ensure_defect_zoo",
]
