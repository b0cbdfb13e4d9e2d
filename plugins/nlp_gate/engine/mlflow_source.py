"""MLflow model URIs as model sources: ``models:/NAME/VERSION``, ``models:/NAME@ALIAS``,
``runs:/RUN_ID/PATH`` (the ``[mlflow]`` extra).

Each URI is resolved once per process with MLflow's own client (its tracking and registry
URIs from MLflow's environment, ``MLFLOW_TRACKING_URI`` / ``MLFLOW_REGISTRY_URI``): an alias
becomes the version it names at that moment, and that version's identity (name, version,
run id, logged model id) is what results.json records and what the prediction cache keys on,
so a new version is never answered from an old one's cache.  Its artifacts are downloaded
once into the cache folder under that identity.

- A **transformers** flavor is a checkpoint: its weights and tokenizer are put together in
  one directory beside a ``registry.json`` of its identity, and the engine loads it as any
  local checkpoint (validation, batching, cache, GPU, ONNX); the identity file is among the
  files its fingerprint hashes.  Loading it runs no code of the registry's (safetensors).
- Any other flavor is a **pyfunc**, whose loading unpickles code from the registry: it loads
  only when the user named it with ``--nlp-trust-registry-code`` and is then checked as a
  prediction function is (a probe batch at start-up, every batch's rows); its loading and
  its engine are ``nlp_gate.engine.mlflow_pyfunc``'s.

mlflow is imported inside functions only: a core install never imports it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from nlp_gate.config import ConfigurationError, read_yaml
from nlp_gate.config.registry_uri import (
    RegistryUri,
    RegistryUriError,
    parse,
)
from nlp_gate.config.specs import ModelSpec
from nlp_gate.engine.batching import Encodings
from nlp_gate.engine.checkpoint import ModelLoadError, checkpoint_label_names, preflight
from nlp_gate.engine.function_model import probe_batch, validate_rows
from nlp_gate.engine.loading import load_classifier
from nlp_gate.engine.mlflow_pyfunc import (
    PyfuncClassifier,
    first_line,
    load_pyfunc,
    predict,
    quiet,
)
from nlp_gate.engine.predictor import Classifier, LoadOptions
from nlp_gate.engine.rows import InputIndex

__all__ = ["Registry", "Resolved"]

TRANSFORMERS = "transformers"
# uri -> the version (or run artifact) the controller resolved it to, for its xdist workers.
PINNED = "NLP_GATE_MLFLOW_PINNED"
PYFUNC = "pyfunc"


class RegistryError(ConfigurationError):
    """A registry source that cannot be used; said once at start-up (exit 4)."""


@dataclass(frozen=True)
class Resolved:
    """What a URI named when this run resolved it (results.json's ``registry`` block)."""

    uri: str
    name: str | None
    version: str | None
    alias: str | None  # the alias the URI gave, as resolved at that moment
    run_id: str | None
    model_id: str | None  # MLflow 3's logged model (m-...), when the version has one
    artifact_uri: str
    flavor: str  # "transformers" or "pyfunc"
    location: str  # the local checkpoint directory, or the downloaded pyfunc model

    def record(self) -> dict[str, Any]:
        """What results.json names: no local path (``location`` is the run's own)."""
        return {k: v for k, v in asdict(self).items() if k != "location"}

    @property
    def identity(self) -> dict[str, str | None]:
        """The registry's immutable identity of what was resolved: the alias is left out
        (the same version under another alias predicts the same)."""
        return {
            "name": self.name,
            "version": self.version,
            "run_id": self.run_id,
            "model_id": self.model_id,
            "artifact_uri": self.artifact_uri,
        }

    def describe(self) -> str:
        """``models:/sst2-bert@champion = version 3 (run 1a2b...)``, for the report header."""
        if self.version is None:
            return f"{self.uri} (run {self.run_id}, {self.flavor})"
        return f"{self.uri} = version {self.version} (run {self.run_id}, {self.flavor})"


class Registry:
    """The run's registry sources, resolved and downloaded once per process.

    ``trusted``: the names given to ``--nlp-trust-registry-code`` (a registered model's
    name, a whole URI, or a run id), whose pyfunc models may run their pickled code."""

    def __init__(self, cache_dir: Path, trusted: Sequence[str] = ()) -> None:
        self.cache_dir = cache_dir
        self.trusted = frozenset(trusted)
        self._resolved: dict[str, Resolved] = {}

    def resolve(self, uri: str) -> Resolved:
        if uri not in self._resolved:
            self._resolved[uri] = self._resolve(uri)
        return self._resolved[uri]

    def resolved(self, uri: str) -> Resolved | None:
        """What ``uri`` resolved to in this process, without resolving it."""
        return self._resolved.get(uri)

    def label_names(self, uri: str) -> list[str] | None:
        """A transformers flavor's label names (its config's); None for a pyfunc, whose
        outputs only the user can name."""
        resolved = self.resolve(uri)
        return (
            checkpoint_label_names(resolved.location) if resolved.flavor == TRANSFORMERS else None
        )

    def consents(self, resolved: Resolved) -> bool:
        return bool({resolved.uri, resolved.name, resolved.run_id} & self.trusted)

    def preflight(self, spec: ModelSpec) -> str | None:
        """What stops ``spec`` at start-up, or None: the URI unresolvable, a pyfunc without
        consent, or what a checkpoint's / prediction function's preflight finds."""
        try:
            resolved = self.resolve(spec.source)
        except RegistryError as exc:
            return str(exc)
        if resolved.flavor == TRANSFORMERS:
            # [hf] asked for here, once the flavor is known: a pyfunc-only run needs none.
            from nlp_gate import extras

            return extras.refusal(
                [
                    extras.Need(
                        extras.CHECKPOINTS,
                        f"model {spec.dataset}/{spec.name} ({spec.source}) is a "
                        "transformers-flavor checkpoint",
                    )
                ]
            ) or preflight(spec, resolved.location)
        problem = self._refused(resolved)
        if problem:
            return f"{spec.key} ({spec.source}): {problem}"
        batch = probe_batch(spec)
        try:
            model = load_pyfunc(spec, resolved)
            validate_rows(spec, predict(model, list(batch)), len(batch))
        except ModelLoadError as exc:
            return f"{exc} (on a probe batch {batch!r})"
        except Exception as exc:  # the registry's code: whatever it raises is the message
            return (
                f"{spec.key} ({spec.source}) raised {type(exc).__name__} on a probe batch "
                f"{batch!r}: {exc}"
            )
        return None

    def load(
        self,
        spec: ModelSpec,
        options: LoadOptions,
        worker_index: int,
        encodings: Encodings | None,
        inputs: InputIndex | None,
    ) -> Classifier:
        """The engine of ``spec``: a checkpoint's, or a pyfunc's (consent checked again: a
        models file met only by a worker must not bypass it)."""
        try:
            resolved = self.resolve(spec.source)
        except RegistryError as exc:
            raise ModelLoadError(str(exc)) from None
        if resolved.flavor == TRANSFORMERS:
            classifier = load_classifier(
                spec, resolved.location, options, worker_index, encodings, inputs
            )
            classifier.fingerprint_source = "registry"
            return classifier
        problem = self._refused(resolved)
        if problem:
            raise ModelLoadError(f"{spec.key} ({spec.source}): {problem}")
        return PyfuncClassifier(spec, resolved, load_pyfunc(spec, resolved), options, inputs)

    def _refused(self, resolved: Resolved) -> str | None:
        if self.consents(resolved):
            return None
        name = resolved.name or resolved.run_id
        return (
            f"version {resolved.version} is an MLflow pyfunc model: loading it runs code "
            "pickled into the registry, which nlp-gate does only with consent; if you "
            f"trust it, add --nlp-trust-registry-code {name}"
            if resolved.version is not None
            else f"{resolved.uri} is an MLflow pyfunc model: loading it runs code pickled into "
            f"the run's artifacts, which nlp-gate does only with consent; if you trust it, "
            f"add --nlp-trust-registry-code {name}"
        )

    # -- resolution -----------------------------------------------------------------------
    def _resolve(self, uri: str) -> Resolved:
        try:
            parsed = parse(uri)
        except RegistryUriError as exc:
            raise RegistryError(f"model source {exc}") from None
        import mlflow
        from mlflow.exceptions import MlflowException

        registry = mlflow.get_registry_uri()  # what the message names when unreachable
        # An xdist worker takes the version the controller resolved (``PINNED``), so an alias
        # that moves while the run starts still names one version for the whole run.
        worker = "PYTEST_XDIST_WORKER" in os.environ
        pinned = json.loads(os.environ.get(PINNED, "{}")).get(uri) if worker else None
        try:
            with quiet():
                name, version, run_id, model_id, artifact_uri = _lookup(
                    mlflow.MlflowClient(), parse(pinned) if pinned else parsed
                )
        except MlflowException as exc:
            raise RegistryError(_registry_message(uri, registry, exc)) from None
        except Exception as exc:  # a store that cannot be opened (a bad sqlite path, ...)
            raise RegistryError(
                f"model source {uri}: the MLflow registry {registry} cannot be "
                f"reached: {type(exc).__name__}: {first_line(exc)}"
            ) from None
        alias = parsed.alias
        if not worker:  # the workers xdist starts after this inherit the environment
            os.environ[PINNED] = json.dumps(
                {**json.loads(os.environ.get(PINNED, "{}")), uri: artifact_uri}
            )
        key = hashlib.sha256(
            json.dumps([name, version, run_id, model_id, artifact_uri]).encode()
        ).hexdigest()[:16]
        folder = self._download(uri, artifact_uri, key)
        mlmodel = read_yaml(folder / "MLmodel", "MLmodel", RegistryError) or {}
        flavors = mlmodel.get("flavors") or {}
        partial = Resolved(
            uri,
            name,
            version,
            alias,
            run_id,
            model_id,
            artifact_uri,
            TRANSFORMERS if TRANSFORMERS in flavors else PYFUNC,
            str(folder),
        )
        if partial.flavor == TRANSFORMERS:
            location = _checkpoint(folder, flavors[TRANSFORMERS], partial.identity)
            return Resolved(**{**asdict(partial), "location": str(location)})
        if "python_function" not in flavors:
            raise RegistryError(
                f"model source {uri}: its MLmodel has flavors "
                f"{', '.join(flavors) or 'none'}; nlp-gate loads a "
                "transformers flavor or a python_function (pyfunc)"
            )
        return partial

    def _download(self, uri: str, artifact_uri: str, key: str) -> Path:
        """The artifacts of ``artifact_uri`` under the cache folder, downloaded once: into a
        temporary folder renamed into place, so a concurrent process (an xdist worker) never
        reads a half-written one."""
        from mlflow.artifacts import download_artifacts
        from mlflow.exceptions import MlflowException

        target = self.cache_dir / "mlflow" / key
        if (target / "MLmodel").is_file():
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=target.parent))
        try:
            with quiet():
                download_artifacts(artifact_uri=artifact_uri, dst_path=str(staging))
            # A model version's artifacts come as the folder itself; a run's PATH as a
            # folder of that name inside it.
            root = next(
                (
                    folder
                    for folder in (staging, staging / artifact_uri.rsplit("/")[-1])
                    if (folder / "MLmodel").is_file()
                ),
                None,
            )
            if root is None:
                raise RegistryError(
                    f"model source {uri}: {artifact_uri} holds no MLmodel; "
                    "name the logged model's folder (runs:/RUN_ID/PATH)"
                )
            # Another process may have put it in place first: theirs is the same.
            with contextlib.suppress(OSError):
                os.rename(root, target)
        except MlflowException as exc:
            raise RegistryError(
                f"model source {uri}: cannot download {artifact_uri}: {first_line(exc)}"
            ) from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return target


def _lookup(
    client: Any, parsed: RegistryUri
) -> tuple[str | None, str | None, str, str | None, str]:
    """(name, version, run id, logged model id, artifact URI) of what ``parsed`` names now."""
    if parsed.run_id is not None:
        return None, None, client.get_run(parsed.run_id).info.run_id, None, parsed.uri
    mv = (
        client.get_model_version_by_alias(parsed.name, parsed.alias)
        if parsed.alias is not None
        else client.get_model_version(parsed.name, parsed.version)
    )
    # The version itself, not the alias: the alias may move while this run is on.
    return (
        mv.name,
        str(mv.version),
        mv.run_id,
        getattr(mv, "model_id", None),
        f"models:/{mv.name}/{mv.version}",
    )


def _checkpoint(folder: Path, flavor: dict[str, Any], identity: dict[str, Any]) -> Path:
    """One checkpoint directory of a transformers flavor: its model files (``model_binary``)
    and its tokenizer's (``components/tokenizer``, logged apart from a pipeline), and
    ``registry.json``: the identity, among the files the engine's fingerprint hashes."""
    checkpoint = folder / "checkpoint"
    if (checkpoint / "registry.json").is_file():
        return checkpoint
    staging = Path(tempfile.mkdtemp(prefix=".checkpoint-", dir=folder))
    sources = [
        folder / str(flavor.get("model_binary") or "model"),
        folder / "components" / "tokenizer",
    ]
    for source in sources:
        for path in sorted(source.glob("*")) if source.is_dir() else ():
            if path.is_file() and not (staging / path.name).exists():
                os.link(path, staging / path.name)  # the same bytes, no second copy
    (staging / "registry.json").write_text(json.dumps(identity, sort_keys=True))
    try:
        os.rename(staging, checkpoint)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
    return checkpoint


def _registry_message(uri: str, registry: str, exc: Exception) -> str:
    code = getattr(exc, "error_code", "")
    if code in ("RESOURCE_DOES_NOT_EXIST", "INVALID_PARAMETER_VALUE", "NOT_FOUND"):
        return f"model source {uri}: not in the MLflow registry {registry}: {first_line(exc)}"
    return (
        f"model source {uri}: the MLflow registry {registry} cannot be reached or "
        f"refused the request: {first_line(exc)}"
    )
