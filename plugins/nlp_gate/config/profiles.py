"""Model profiles: parse the packaged ``models.yaml`` (or a user's file) into typed specs.

This is the first stage of the data flow: config -> model fixture -> predictor -> suite
-> pytest items -> gate -> report.  Everything here is plain data; nothing imports torch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


from nlp_gate.config import ConfigurationError, read_yaml

DEFAULT_MODELS_FILE = Path(__file__).with_name("models.yaml")
DEFAULT_PROFILE = "tiny"


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


@dataclass(frozen=True)
class ModelSpec:
    dataset: str
    name: str  # column name in reports: bert, albert, ...
    task: Task
    source: str  # hub id, local directory, or "zoo:<dataset>/<family>"
    revision: str | None
    labels: tuple[str, ...]  # task class name of each output index

    @property
    def key(self) -> str:
        return f"{self.dataset}-{self.name}"

    @property
    def is_zoo(self) -> bool:
        return self.source.startswith("zoo:")

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


def load_profile(name: str = DEFAULT_PROFILE, models_file: Path | None = None) -> Profile:
    path = models_file or DEFAULT_MODELS_FILE
    raw = read_yaml(path, "models file", ProfileError)
    if not isinstance(raw, dict) or "profiles" not in raw or "tasks" not in raw:
        raise ProfileError(f"{path}: expected top-level keys 'tasks' and 'profiles'")
    tasks = {n: _task(n, t, path) for n, t in raw["tasks"].items()}
    profiles = raw["profiles"]
    if name not in profiles:
        raise ProfileError(
            f"unknown profile {name!r} in {path}; valid profiles: {', '.join(profiles)}"
        )
    body = profiles[name]
    models: list[ModelSpec] = []
    for dataset, entry in body.get("datasets", {}).items():
        task_name = entry.get("task")
        if task_name not in tasks:
            raise ProfileError(
                f"{path}: dataset {dataset!r} has task {task_name!r}; valid tasks: {', '.join(tasks)}"
            )
        for model_name, m in entry.get("models", {}).items():
            models.append(_model(dataset, model_name, tasks[task_name], m, path))
    if not models:
        raise ProfileError(f"{path}: profile {name!r} declares no models")
    return Profile(name, body.get("description", ""), path, tuple(models))


def _task(name: str, raw: dict[str, Any], path: Path) -> Task:
    classes = tuple(raw.get("classes") or ())
    if len(classes) < 2:
        raise ProfileError(f"{path}: task {name!r} needs at least two classes")
    return Task(name, classes, raw.get("suite"), dict(raw.get("aliases") or {}))


def _model(dataset: str, name: str, task: Task, raw: dict[str, Any], path: Path) -> ModelSpec:
    where = f"{path}: {dataset}/{name}"
    if ("id" in raw) == ("zoo" in raw):
        raise ProfileError(f"{where}: give exactly one of 'id' (hub id or directory) or 'zoo'")
    labels = raw.get("labels")
    if not labels:
        raise ProfileError(
            f"{where}: 'labels' is required (the task class of each output index, e.g. "
            f"{list(task.classes)}); label names in checkpoints are never trusted to map classes"
        )
    canonical = [task.canonical(str(label)) for label in labels]
    if None in canonical or sorted(canonical) != sorted(task.classes):  # type: ignore[type-var]
        raise ProfileError(
            f"{where}: labels {labels} must name each class of task {task.name!r} exactly once: "
            f"{list(task.classes)}"
        )
    source = f"zoo:{raw['zoo']}" if "zoo" in raw else str(raw["id"])
    revision = raw.get("revision")
    return ModelSpec(dataset, name, task, source, None if revision is None else str(revision),
                     tuple(canonical))  # type: ignore[arg-type]
