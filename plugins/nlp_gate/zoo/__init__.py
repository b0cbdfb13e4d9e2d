"""The embedded offline zoo: tiny BERT/ALBERT classifiers, shipped as verified files.

Stands in for the ``textattack/{bert-base-uncased,albert-base-v2}-*`` hub checkpoints under
the ``tiny`` profile.  The package holds the shipped weights (``weights/``, sha256 checked,
``embedded.py``) and the code that copies them where a run reads them; the recipe that made
them (generators, training) is the repository's workshop (``workshop/zoo``), never
installed.  Typical use::

    from nlp_gate.zoo import ensure_zoo, model_dir
    card = ensure_zoo()                      # copied once, then checked
    path = model_dir("sst2", "albert")       # AutoModel/AutoTokenizer-loadable
"""

from nlp_gate.zoo.build import ZOO_DIR_ENV, default_zoo_root, ensure_zoo, is_current, model_dir
from nlp_gate.zoo.card import ModelResult, ZooCard, read_card

__all__ = [
    "ZOO_DIR_ENV",
    "ModelResult",
    "ZooCard",
    "default_zoo_root",
    "ensure_zoo",
    "is_current",
    "model_dir",
    "read_card",
]
