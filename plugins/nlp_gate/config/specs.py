"""A profile's models as plain data: ``Task``, ``ModelSpec``, ``Profile`` (parsed from the models
file or ``--nlp-model`` by ``config.profiles``).

Apart from the parsing so that what only needs a model's description (the engine, the model
sources, the kinds) imports no parser: the parser asks ``nlp_gate.sources`` what each source
string is, and the sources describe their models with these types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from nlp_gate.config import ConfigurationError
from nlp_gate.config.endpoint_url import Access


class ProfileError(ConfigurationError):
    """A models file or profile that cannot be used; the message says how to fix it."""


@dataclass(frozen=True)
class Task:
    name: str
    classes: tuple[str, ...]
    suite: str | None
    aliases: dict[str, str] = field(default_factory=dict, hash=False)  # specs are dict keys

    def canonical(self, label: str) -> str | None:
        """The task class a label name stands for, or None when it names none."""
        label = self.aliases.get(label, label)
        return label if label in self.classes else None

    def class_names(self, labels: list[str]) -> tuple[str, ...] | None:
        """The task class of each output label, or None unless they name each class once."""
        canonical = [self.canonical(str(label)) for label in labels]
        names = [name for name in canonical if name is not None]
        if len(names) != len(canonical) or sorted(names) != sorted(self.classes):
            return None
        return tuple(names)


@dataclass(frozen=True)
class ModelSpec:
    dataset: str
    name: str  # column name in reports: bert, albert, ...
    task: Task
    # hub id, local directory, "zoo:<dataset>/<family>" or "predict:<module>:<function>"
    source: str
    revision: str | None  # hub revision; a prediction function's declared fingerprint
    labels: tuple[str, ...]  # task class name of each output index
    # An endpoint's credentials and headers: environment variables' names, never values.
    access: Access = Access()

    @property
    def key(self) -> str:
        return f"{self.dataset}-{self.name}"

    @property
    def is_zoo(self) -> bool:
        return self.source.startswith("zoo:")

    @property
    def function(self) -> str | None:
        """``module:function`` of a prediction-function model, else None."""
        return self.source.removeprefix("predict:") if self.source.startswith("predict:") else None

    def class_index(self) -> list[int]:
        """For each task class (in task order), the model's output index that predicts it."""
        return [self.labels.index(c) for c in self.task.classes]


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    source_file: Path
    models: tuple[ModelSpec, ...]

    @property
    def datasets(self) -> list[str]:
        return sorted({m.dataset for m in self.models}, key=self._dataset_order)

    @property
    def model_names(self) -> list[str]:
        seen: dict[str, None] = {}
        for m in self.models:
            seen.setdefault(m.name, None)
        return list(seen)

    def _dataset_order(self, dataset: str) -> int:
        return next(i for i, m in enumerate(self.models) if m.dataset == dataset)

    def for_suite(self, suite: str) -> list[ModelSpec]:
        return [m for m in self.models if m.task.suite == suite]

    def get(self, dataset: str, name: str) -> ModelSpec:
        for m in self.models:
            if m.dataset == dataset and m.name == name:
                return m
        raise KeyError(f"{dataset}/{name}")
