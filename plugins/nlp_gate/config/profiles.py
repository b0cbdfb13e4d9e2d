"""Model profiles: parse the packaged ``models.yaml`` (or a user's file), or the models named by
``--nlp-model``, into typed specs (``config.specs``).

Which kind of source each model is, and what its entry may say, is asked of
``nlp_gate.sources``; the profile's plain data is this module's.  Nothing here imports torch.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlp_gate import sources
from nlp_gate.config import read_yaml
from nlp_gate.config.endpoint_url import public_url
from nlp_gate.config.specs import ModelSpec, Profile, ProfileError, Task

if TYPE_CHECKING:
    from nlp_gate.sources.base import SourceContext

__all__ = [
    "CLI_PROFILE",
    "DEFAULT_MODELS_FILE",
    "DEFAULT_PROFILE",
    "ModelSpec",
    "Profile",
    "ProfileError",
    "Task",
    "cli_profile",
    "load_profile",
]

DEFAULT_MODELS_FILE = Path(__file__).with_name("models.yaml")
DEFAULT_PROFILE = "tiny"


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
                f"{path}: dataset {dataset!r} has task {task_name!r}; "
                f"valid tasks: {', '.join(tasks)}"
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
    keys = sources.entry_keys()
    if sum(k in raw for k in keys) != 1:
        raise ProfileError(
            f"{where}: give exactly one of 'id' (hub id or directory), 'zoo' "
            "or 'predict' (module:function returning class probabilities)"
        )
    key = next(k for k in keys if k in raw)
    value = str(raw[key])
    source = sources.by_entry_key(key) or sources.source_of(value)
    access = source.parse_entry(raw, where)
    labels = raw.get("labels")
    if not labels:
        raise ProfileError(
            f"{where}: 'labels' is required (the task class of each output index, e.g. "
            f"{list(task.classes)}); label names in checkpoints are never trusted to map classes"
        )
    canonical = task.class_names(labels)
    if canonical is None:
        raise ProfileError(
            f"{where}: labels {labels} must name each class of task {task.name!r} exactly once: "
            f"{list(task.classes)}"
        )
    # An ``id`` may also give a source in its spec form (``zoo:sst2/bert``): taken as it is.
    own = key == source.entry_key
    revision = raw.get(source.revision_key if own else "revision")
    return ModelSpec(
        dataset,
        name,
        task,
        source.source_string(value) if own else value,
        None if revision is None else str(revision),
        canonical,
        access,
    )


# -- the one-line start: --nlp-model TASK=SOURCE ---------------------------------------------
CLI_PROFILE = "cli"
CLI_MODEL = re.compile(r"(?P<task>\w+)(\[(?P<labels>[^\]]*)\])?=(?P<source>.+)")


def cli_profile(
    entries: Sequence[str],
    models_file: Path | None = None,
    context: SourceContext | None = None,
) -> Profile:
    """A profile of the models named by ``--nlp-model TASK[LABELS]=SOURCE`` options, with the
    tasks of ``models_file`` (default: the packaged one).

    SOURCE is a hub id, a checkpoint directory, ``module:function``, an MLflow model URI or an
    endpoint URL, with an optional ``@REV`` (the source's ``split_revision``): a function's
    declared fingerprint (without one its answers are memoised for the run only), a hub id's
    revision, an endpoint's version.  Each task is one dataset named after it; a model's name
    is its source's ``column_name``.  Labels: ``TASK[a,b]=...`` gives them; else the source's
    own label names when each names a task class (read through ``context``, the run's model
    pool), or the task's class order for a source that answers in it.
    """
    path = models_file or DEFAULT_MODELS_FILE
    raw = read_yaml(path, "models file", ProfileError)
    tasks = {n: _task(n, t, path) for n, t in (raw or {}).get("tasks", {}).items()}
    models: list[ModelSpec] = []
    for entry in entries:
        match = CLI_MODEL.fullmatch(entry.strip())
        if not match:
            raise ProfileError(
                f"--nlp-model {_shown(entry)!r}: expected TASK=SOURCE or "
                "TASK[label,label]=SOURCE (SOURCE: hub id, directory or "
                "module:function)"
            )
        task = tasks.get(match["task"])
        if task is None:
            raise ProfileError(
                f"--nlp-model {_shown(entry)!r}: unknown task "
                f"{match['task']!r}; valid tasks: {', '.join(tasks)} ({path})"
            )
        source = sources.source_given(match["source"])
        given, revision = source.split_revision(match["source"])
        name = source.column_name(given)
        taken, base, n = {m.name for m in models if m.dataset == task.name}, name, 1
        while name in taken:  # two checkpoints both called "bert": bert, bert-2
            n += 1
            name = f"{base}-{n}"
        labels = _cli_labels(entry, task, match["labels"], given, source, context)
        spec = {
            "labels": labels,
            source.entry_key: given,
            **({source.revision_key: revision} if revision else {}),
        }
        models.append(_model(task.name, name, task, spec, path))
    return Profile(CLI_PROFILE, "models named by --nlp-model", path, tuple(models))


def _shown(entry: str) -> str:
    """``entry`` as a message may echo it: an endpoint URL in it without its credentials."""
    return re.sub(r"https?://\S+", lambda m: public_url(m.group()), entry)


def _cli_labels(
    entry: str,
    task: Task,
    given: str | None,
    checkpoint: str,
    source: sources.ModelSource,
    context: SourceContext | None,
) -> list[str]:
    if given is not None:
        return [label.strip() for label in given.split(",")]
    if not source.reads_labels:  # it answers in the task's class order
        return list(task.classes)
    try:
        names = source.label_names(checkpoint, context)
    except OSError as exc:  # found, but cannot be had here (the hub unreachable): say that
        raise ProfileError(f"--nlp-model {entry!r}: cannot load it: {exc}") from None
    if names is None:
        raise ProfileError(
            f"--nlp-model {entry!r}: cannot read the checkpoint's config (not a directory "
            "with a config.json, and not in the Hugging Face cache or reachable on the hub) "
            f"to learn its label names; check the source, or give the labels in output order: "
            f"--nlp-model '{task.name}[{','.join(task.classes)}]={checkpoint}'"
        )
    canonical = task.class_names(names) or task.class_names([n.lower() for n in names])
    if canonical is None:
        shown = ", ".join(names) or "none"
        raise ProfileError(
            f"--nlp-model {entry!r}: the checkpoint's label names ({shown}) do not name the "
            f"classes of task {task.name!r} ({', '.join(task.classes)}), so which output is which "
            f"class is unknown; give them in output order: "
            f"--nlp-model '{task.name}[{','.join(task.classes)}]={checkpoint}'"
        )
    return list(canonical)
