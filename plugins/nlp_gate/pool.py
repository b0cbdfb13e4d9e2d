"""The run's models (``ModelPool``): each loaded once per process, through its source
(``nlp_gate.sources``), the load failures, what the models of a process share (token
encodings, the input index), the embedded zoo put in place, and the evaluation sets.

It is the ``SourceContext`` the sources check and load with, and the ``Models`` the kinds
run with (``kinds.base.Models``): a kind's item asks it for a spec's classifier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cached_property
from typing import Any, TypeVar

from nlp_gate.config import ConfigurationError
from nlp_gate.config.options import Options
from nlp_gate.config.specs import ModelSpec
from nlp_gate.engine.batching import Encodings
from nlp_gate.engine.checkpoint import ModelLoadError
from nlp_gate.engine.predictor import Classifier
from nlp_gate.engine.rows import InputIndex
from nlp_gate.eval_sets import EvalDataMissing, EvalSet, load_eval_set
from nlp_gate.shard import weights_size
from nlp_gate.sources import source_of

__all__ = ["ModelPool"]

T = TypeVar("T")


class ModelPool:
    """The process's models.  ``wanted``: the models of the selected items, all loaded (and
    validated) on the first use of any, before any of them predicts."""

    def __init__(self, options: Options, wanted: Callable[[], Iterable[ModelSpec]]) -> None:
        self.options = options
        self._wanted = wanted
        self.classifiers: dict[str, Classifier] = {}
        # Models whose weights were refused at load: only their own items fail with it.
        self.load_failures: dict[str, ModelLoadError] = {}
        self._eval_sets: dict[str, EvalSet | EvalDataMissing] = {}
        self._zoo_in_place = False  # checked once per process: hashing the copy costs ~30 ms
        # What the model sources keep for the process (``kept``): MLflow's resolved URIs.
        self._kept: dict[str, Any] = {}

    def kept(self, name: str, make: Callable[[], T]) -> T:
        """What a model source keeps for this process under ``name`` (``SourceContext``)."""
        if name not in self._kept:
            self._kept[name] = make()
        kept: T = self._kept[name]
        return kept

    def ensure_zoo(self) -> None:
        """The embedded zoo in place (copied from the shipped files, sha256 checked): shipped
        files that are damaged or edited are a configuration error, never used."""
        from nlp_gate.zoo import ensure_zoo
        from nlp_gate.zoo.embedded import EmbeddedError

        if self._zoo_in_place:
            return
        try:
            ensure_zoo(self.options.zoo_dir)
        except EmbeddedError as exc:
            raise ConfigurationError(str(exc)) from None
        self._zoo_in_place = True

    @cached_property
    def encodings(self) -> Encodings:
        """Tokenizations shared by the models of one tokenizer: one pass per suite, for all
        workers, kept beside the prediction cache (``<cache>.tokens/``) and off with it.
        With those files, memory keeps none past its pass: reading a suite's tokens back
        takes a tenth of a second, while the last one kept (~23 MiB for QQP's pairs) would
        sit beside the next suite's at that pass's peak."""
        cache = self.options.load.cache
        return Encodings(keep=0, directory=cache.with_suffix(".tokens")) if cache else Encodings()

    @cached_property
    def inputs(self) -> InputIndex:
        """The row numbers of every input this process's models answer: one dict for all
        of them (a suite asks each of its models the same inputs), not one per model."""
        return InputIndex()

    def preflight(self, specs: Iterable[ModelSpec]) -> list[str]:
        """What stops each model at start-up (its source's preflight), said once."""
        return [p for m in specs for p in [source_of(m).preflight(m, self)] if p]

    def load(self, specs: Iterable[ModelSpec]) -> dict[str, Classifier]:
        for s in dict.fromkeys(specs):
            if s.key not in self.classifiers and s.key not in self.load_failures:
                try:
                    self.classifiers[s.key] = source_of(s).load(s, self)
                except ModelLoadError as exc:
                    self.load_failures[s.key] = exc
        return self.classifiers

    def __getitem__(self, spec: ModelSpec) -> Classifier:
        """The loaded model (``Models``): on first use, every model of the selected items
        is loaded and validated, before any of them predicts.  A model refused at load (what
        only its weights tell: an untrained head, a pickle that is not only tensors) fails
        its own items; the other models' items run."""
        if spec.key not in self.classifiers and spec.key not in self.load_failures:
            self.load([*self._wanted(), spec])
        if spec.key in self.load_failures:
            raise self.load_failures[spec.key]
        return self.classifiers[spec.key]

    def location(self, spec: ModelSpec) -> str:
        """Where the model is (its source's ``location``): the header, records, sharding."""
        return source_of(spec).location(spec, self)

    def weight_bytes(self, specs: Iterable[ModelSpec]) -> dict[str, int]:
        """Each model's weight file bytes (1 when unknown): the sharding cost."""
        return {m.key: weights_size(self.location(m)) for m in specs}

    def eval_set(self, spec: ModelSpec) -> EvalSet | EvalDataMissing:
        """The model's evaluation split (accuracy and attack items), or why there is none;
        read once per dataset and source."""
        key = f"{spec.dataset}:{'zoo' if spec.is_zoo else 'hub'}"
        if key not in self._eval_sets:
            try:
                self._eval_sets[key] = load_eval_set(
                    spec, self.options.data_dir, self.options.zoo_dir
                )
            except EvalDataMissing as exc:
                self._eval_sets[key] = exc
        return self._eval_sets[key]
