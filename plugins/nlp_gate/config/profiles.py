"""Model profiles: parse the packaged ``models.yaml`` (or a user's file) into typed specs.

This is the first stage of the data flow: config -> model fixture -> predictor -> suite
-> pytest items -> gate -> report.  Everything here is plain data; nothing imports torch.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from nlp_gate.config import ConfigurationError, read_yaml
from nlp_gate.config.endpoint_url import (
    TOKEN_ENV,
    Access,
    endpoint_name,
    is_endpoint_source,
    parse_access,
    public_url,
    remember,
    split_version,
)
from nlp_gate.config.registry_uri import RegistryUriError, is_registry_source, parse

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


FUNCTION = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")  # module:function


def _model(dataset: str, name: str, task: Task, raw: dict[str, Any], path: Path) -> ModelSpec:
    where = f"{path}: {dataset}/{name}"
    if sum(k in raw for k in ("id", "zoo", "predict")) != 1:
        raise ProfileError(
            f"{where}: give exactly one of 'id' (hub id or directory), 'zoo' "
            "or 'predict' (module:function returning class probabilities)"
        )
    if "predict" in raw:
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
    if (
        "id" in raw
        and is_endpoint_source(str(raw["id"]))
        and (urlsplit(str(raw["id"])).username or urlsplit(str(raw["id"])).password)
    ):
        # Not echoed: the URL would carry its password into the message and results.json.
        raise ProfileError(
            f"{path}: {dataset}/{name}: an endpoint URL with credentials in it "
            "is refused; name the environment variable that holds its token "
            f"(auth: {{bearer_env: VARIABLE}}), or set ${TOKEN_ENV}"
        )
    endpoint = "id" in raw and is_endpoint_source(str(raw["id"]))
    if not endpoint and ("auth" in raw or "headers" in raw):
        raise ProfileError(
            f"{where}: 'auth' and 'headers' are for a served endpoint's requests "
            "(an id that is an http:// or https:// URL)"
        )
    try:
        access = parse_access(raw) if endpoint else Access()
    except ValueError as exc:
        raise ProfileError(f"{where}: {exc}") from None
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
    source = (
        f"zoo:{raw['zoo']}"
        if "zoo" in raw
        else f"predict:{raw['predict']}"
        if "predict" in raw
        else remember(str(raw["id"]))
        if is_endpoint_source(str(raw["id"]))
        else str(raw["id"])
    )  # an endpoint's secrets kept apart
    revision = raw.get("fingerprint") if "predict" in raw else raw.get("revision")
    return ModelSpec(
        dataset,
        name,
        task,
        source,
        None if revision is None else str(revision),
        canonical,
        access,
    )


# -- the one-line start: --nlp-model TASK=SOURCE ---------------------------------------------
CLI_PROFILE = "cli"
CLI_MODEL = re.compile(r"(?P<task>\w+)(\[(?P<labels>[^\]]*)\])?=(?P<source>.+)")


def cli_profile(
    entries: Sequence[str],
    read_labels: Callable[[str], list[str] | None],
    models_file: Path | None = None,
) -> Profile:
    """A profile of the models named by ``--nlp-model TASK[LABELS]=SOURCE`` options, with the
    tasks of ``models_file`` (default: the packaged one).

    SOURCE is a hub id, a checkpoint directory or ``module:function``, with an optional
    ``@REV`` (``_cli_source``): a function's declared fingerprint (without one its answers
    are memoised for the run only), a hub id's revision.  Each task is one
    dataset named after it; a model's name is its directory's or hub id's last part, or the
    function's name.  Labels: ``TASK[a,b]=...`` gives them; else a checkpoint's own label
    names when each names a task class (``read_labels``), a function's the task's class order.
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
        source, revision = _cli_source(match["source"])
        function = (
            FUNCTION.fullmatch(source)
            and not Path(source).exists()
            and not is_registry_source(source)
        )
        name = (
            source.rpartition(":")[2]
            if function
            else registry_name(source)
            if is_registry_source(source)
            else endpoint_name(source)
            if is_endpoint_source(source)
            else Path(source.rstrip("/")).name or source
        )
        taken, base, n = {m.name for m in models if m.dataset == task.name}, name, 1
        while name in taken:  # two checkpoints both called "bert": bert, bert-2
            n += 1
            name = f"{base}-{n}"
        labels = _cli_labels(
            entry,
            task,
            match["labels"],
            None
            if function  # task order
            or is_endpoint_source(source)
            else source,
            read_labels,
        )
        spec = {
            "labels": labels,
            **({"predict": source} if function else {"id": source}),
            **({"fingerprint" if function else "revision": revision} if revision else {}),
        }
        models.append(_model(task.name, name, task, spec, path))
    return Profile(CLI_PROFILE, "models named by --nlp-model", path, tuple(models))


def _shown(entry: str) -> str:
    """``entry`` as a message may echo it: an endpoint URL in it without its credentials."""
    return re.sub(r"https?://\S+", lambda m: public_url(m.group()), entry)


def _cli_source(given: str) -> tuple[str, str | None]:
    """``SOURCE[@REV]`` of ``--nlp-model``: REV is a function's declared fingerprint or a hub
    id's revision, as the models file's ``fingerprint`` / ``revision`` keys.  An existing path
    is a directory whole, '@' included (hub ids and module names have no '@')."""
    if is_endpoint_source(given):
        return split_version(given)
    if Path(given).exists() or "@" not in given or is_registry_source(given):  # @ALIAS
        return given, None
    source, _, revision = given.rpartition("@")
    return source, revision or None


def registry_name(source: str) -> str:
    """A registry URI's report column name (``sst2-bert-champion``), or a usage error."""
    try:
        return parse(source).model_name
    except RegistryUriError as exc:
        raise ProfileError(f"--nlp-model: model source {exc}") from None


def _cli_labels(
    entry: str,
    task: Task,
    given: str | None,
    checkpoint: str | None,
    read_labels: Callable[[str], list[str] | None],
) -> list[str]:
    if given is not None:
        return [label.strip() for label in given.split(",")]
    if checkpoint is None:  # a function returns the task's classes in their order
        return list(task.classes)
    try:
        names = read_labels(checkpoint)
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
