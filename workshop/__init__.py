"""The zoo's workshop: what makes the files nlp-gate ships, and what proves the gate on them.

Never installed (the wheel holds ``nlp_gate`` only); imported from a clone's root, as
``benchmarks/`` and ``scripts/`` are run from it:

* ``workshop.zoo``: the embedded zoo's recipe: the data generators, the tokenizers' and
  models' training, the masked LM's, and shipping a rebuild (``python -m workshop.zoo
  train [--ship]``);
* ``workshop.defects``: the defect zoo, models with one planted defect each
  (``python -m workshop.defects``);
* ``workshop.power``: what the gate catches on the defect zoo (``python -m workshop.power``).

The runtime's side is ``nlp_gate/zoo``: the shipped, sha256-checked files and the code that
copies them (``python -m nlp_gate.zoo build``).
"""
