"""A prediction function (``predict: mypkg.models:predict_proba``, ``--nlp-model
TASK=module:function``; source ``predict:module:function``): the user's own code, called
with batches of inputs, returning class probabilities.  Needs no extra."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlp_gate.config.endpoint_url import Access
from nlp_gate.config.specs import ModelSpec, ProfileError
from nlp_gate.sources.base import ModelSource, SourceContext

if TYPE_CHECKING:
    from nlp_gate.engine.predictor import Classifier

PREFIX = "predict:"
FUNCTION = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")  # module:function


class FunctionSource(ModelSource):
    name = "function"
    entry_key = "predict"
    revision_key = "fingerprint"
    uses_backend = False
    reads_labels = False  # a function returns its task's classes in their order

    def recognises(self, source: str) -> bool:
        return source.startswith(PREFIX)

    def recognises_given(self, given: str) -> bool:
        # An existing folder named like a module path is that folder.
        return bool(FUNCTION.fullmatch(given)) and not Path(given).exists()

    def source_string(self, value: str) -> str:
        return f"{PREFIX}{value}"

    def parse_entry(self, raw: Mapping[str, Any], where: str) -> Access:
        if "predict" not in raw:  # an id in the spec's form, predict:module:function
            return super().parse_entry(raw, where)
        if not FUNCTION.fullmatch(str(raw["predict"])):
            raise ProfileError(
                f"{where}: predict {raw['predict']!r} must be "
                "'module:function', e.g. mypkg.models:predict_proba"
            )
        # No 'fingerprint': the function's answers are memoised for the run only (nothing
        # else can tell that the function changed since an earlier run).
        if "fingerprint" in raw and not str(raw["fingerprint"] or "").strip():
            raise ProfileError(
                f"{where}: 'fingerprint' is empty; give a version string of the model behind "
                "the function (the prediction cache reuses its answers across runs under it, "
                "so change it whenever the predictions may change), or leave the key out to "
                "memoise them for one run only"
            )
        return super().parse_entry(raw, where)

    def column_name(self, given: str) -> str:
        return given.rpartition(":")[2]

    def preflight(self, spec: ModelSpec, context: SourceContext) -> str | None:
        from nlp_gate.engine.function_model import preflight_function

        return preflight_function(spec, function_search(context))

    def load(self, spec: ModelSpec, context: SourceContext) -> Classifier:
        from nlp_gate.engine.function_model import load_function_classifier

        return load_function_classifier(
            spec, context.options.load, function_search(context), context.inputs
        )


def function_search(context: SourceContext) -> tuple[Path, ...]:
    """Where a ``module:function`` model not installed as a package is imported from: the
    rootdir (a module beside ``pytest.ini``), then the folder of the user's models file
    (the packaged one's folder is no place for a user's module)."""
    models_file = context.options.models_file
    return (context.options.rootdir,) + (
        (models_file.resolve().parent,) if models_file is not None else ()
    )
