"""What the run records for results.json (``Recorder``): each item's gate verdict in its
kind's section, the items that ended without one (``errors``), and what each model cost
(``engine``).

The store under it and the file it becomes are ``nlp_gate.results``'s (``ResultStore``, which
the merge of sharded runs uses alone); the sections and the head every CheckList record
starts with are ``nlp_gate.results.records``'s, a leaf the kinds import to write their records.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from nlp_gate.results import ResultStore

if TYPE_CHECKING:
    from nlp_gate.config.specs import ModelSpec
    from nlp_gate.engine.predictor import Classifier
    from nlp_gate.kinds.base import Case, ItemKind, Verdict

__all__ = ["Recorder"]


class Recorder(ResultStore):
    """This process's records (a ``ResultStore``), and the run's ways of adding to them."""

    def verdict(self, kind: ItemKind[Any], case: Case, verdict: Verdict) -> None:
        """The item's gate verdict, when it has a record."""
        if verdict.record is not None:
            self.add(kind.records, case.position, dict(verdict.record))

    def has_verdict(self, kind: ItemKind[Any], case: Case) -> bool:
        """Whether ``case``'s item recorded a gate verdict in this process."""
        return self.has(kind.records, case.position)

    def error(self, kind: ItemKind[Any], case: Case, nodeid: str, when: str, message: str) -> None:
        """An item that ended without a gate verdict (an exception, a model refused at
        load, a setup that failed): results.json ``errors``; the run then has no verdict.
        Once per item: a teardown error after a call error adds nothing."""
        if any(r["item"] == nodeid for r in self.records("errors")):
            return
        self.add(
            "errors",
            case.position,
            {
                "item": nodeid,
                "kind": kind.name,
                "models": [f"{m.dataset}/{m.name}" for m in case.models],
                "when": when,
                "message": message,
            },
        )

    def engine_stats(
        self,
        classifiers: Iterable[Classifier],
        kinds: Iterable[ItemKind[Any]],
        models: Sequence[ModelSpec],
    ) -> None:
        """Forward passes vs cache hits per model, for the summary (and the benchmark);
        ``models``: the profile's, whose order the records keep."""
        kinds = list(kinds)
        for c in classifiers:
            extra: dict[str, Any] = {}
            for kind in kinds:
                extra.update(kind.engine_fields(c.spec.key))
            if not c.unique_inputs and not any(extra.values()):
                continue  # loaded on this worker, but its items ran on another
            self.add(
                "engine",
                models.index(c.spec),
                {
                    "dataset": c.spec.dataset,
                    "model": c.spec.name,
                    "fingerprint": c.fingerprint,
                    "unique_inputs": c.unique_inputs,
                    "forward_passes": c.forward_count,
                    "cache_hits": c.cache_hits,
                    "device": c.device,
                    "max_length": c.max_length,
                    "truncated_inputs": c.truncated,
                    "model_id": c.spec.source,
                    "fingerprint_source": c.fingerprint_source,
                    "cache_rejected": c.cache_rejected,
                    "forward_seconds": round(c.forward_seconds, 3),
                    "backend": c.backend,
                    "token_budget": c.token_budget,
                    "largest_batch_rows": c.largest_batch_rows,
                    "largest_batch_tokens": c.largest_batch_tokens,
                    **extra,
                },
            )
