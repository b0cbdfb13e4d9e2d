"""TextAttack recipes as gated pytest items (``pytest tests_behavioral -m adversarial``).

Data flow: ``recipes`` enumerates TextAttack's recipe registry -> ``cases`` makes one item per
recipe x dataset x model -> ``resources`` decides, before anything touches the network, whether
the recipe can run here (else a named skip) -> ``run`` attacks the shared ``Classifier`` through
``wrapper`` and measures with TextAttack's own metric classes -> ``gates`` judges the metrics ->
a record in ``results.json`` and the adversarial examples under ``reports/attacks/``.
``substitutes`` builds ``<recipe>-offline`` variants from local stand-ins (``minilm``, the
``standins`` the bundle holds) instead of their downloads, labelled as such everywhere.
"""
