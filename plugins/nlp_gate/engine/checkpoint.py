"""Checkpoint validation: what makes a hub id or checkpoint directory fit to be tested.

Refused before any test runs, each with a message that says what to do: a checkpoint whose
classifier head is newly initialised (the seed study's fill-mask checkpoint), a label mapping
guessed from label names (the seed's ``POSITIVE`` on ``LABEL_0/LABEL_1``), a checkpoint that
asks to run its own code (``auto_map`` in its config or tokenizer config, an unknown
``model_type``), pickled weights.  Kept apart from the engine (``predictor``), which only
loads what passed here and predicts.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

from nlp_gate.config.specs import ModelSpec

_GENERIC_LABEL = re.compile(r"^LABEL_\d+$")

# Activations computed by transformers' own fused PyTorch kernel instead of a chain of
# elementwise tensor ops.  transformers documents ``gelu_pytorch_tanh`` as equivalent to
# ``gelu_new`` (the tanh approximation ALBERT and others use), "not an exact numerical match
# due to rounding errors": probabilities agree to float32 rounding (3e-7 on the zoo), while
# ``gelu_new``'s seven tensor ops were the largest single cost of an ALBERT pass on a CPU.
FUSED_ACTIVATIONS = {"gelu_new": "gelu_pytorch_tanh"}


class ModelLoadError(RuntimeError):
    """A model that must not be tested; the message says what is wrong and how to fix it."""


def checkpoint_config(location: str, revision: str | None) -> tuple[dict[str, Any], str | None]:
    """The checkpoint's config and its hub commit (None for a local directory).

    A local config.json that names its labels is read as plain JSON: its architectures and
    id2label are all the checks need, and a re-run answered from the prediction cache then
    imports neither torch nor transformers (about 3 s per xdist worker).
    """
    path = Path(location) / "config.json"
    if path.is_file():
        raw: dict[str, Any] = json.loads(path.read_text())
        if raw.get("id2label"):
            return raw, None
    # A hub id: from the local cache alone when the hub cannot be asked (HubUnreachable when
    # it holds nothing), so that no lookup waits through huggingface_hub's retries.
    cached_only = not Path(location).is_dir() and hub_access(location, revision) == "cached"
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(
        location, revision=revision, trust_remote_code=False, local_files_only=cached_only
    )
    return config.to_dict(), getattr(config, "_commit_hash", None)


class HubUnreachable(OSError):
    """A hub id that neither the local Hugging Face cache nor the hub can give; the message
    says the one thing that helps."""


# How long the one probe of the hub may take: huggingface_hub's own metadata timeout.
HUB_PROBE_TIMEOUT = 10.0


@functools.cache  # once per hub id and process: the hub does not come back
def hub_access(repo_id: str, revision: str | None) -> str:
    """How a hub id's config can be had here: "hub" (reachable) or "cached" (the local
    Hugging Face cache holds it and the hub cannot, or may not, be asked); raises
    ``HubUnreachable`` when neither.

    Asked once, fast: with ``HF_HUB_OFFLINE`` set the hub is not asked at all; else one HEAD
    request with no retry (huggingface_hub retries a failed lookup five times, about 23 s,
    printing each failure) tells whether it answers."""
    from huggingface_hub import constants, hf_hub_url, try_to_load_from_cache
    from huggingface_hub.utils import get_session  # type: ignore[attr-defined]  # exported at run time, not in its __all__

    cached = isinstance(try_to_load_from_cache(repo_id, "config.json", revision=revision), str)
    pinned = f" --revision {revision}" if revision else ""
    fetch = (  # `hf`: huggingface_hub's CLI since 0.34 (huggingface-cli is deprecated)
        f"with hub access, fetch it once into the cache (`hf download {repo_id}{pinned}`), "
        "then runs need no hub; or give a checkpoint directory instead"
    )
    if constants.HF_HUB_OFFLINE:
        if cached:
            return "cached"
        raise HubUnreachable(
            f"{repo_id} is not in the local Hugging Face cache "
            f"({constants.HF_HUB_CACHE}) and HF_HUB_OFFLINE is set, so the hub "
            f"is not asked: {fetch}"
        )
    try:
        answer = get_session().head(
            hf_hub_url(repo_id, "config.json", revision=revision),
            timeout=HUB_PROBE_TIMEOUT,
            allow_redirects=False,
        )
    except Exception as exc:  # any failure to connect: DNS, refused, time-out, proxy, TLS
        if cached:
            return "cached"
        raise HubUnreachable(
            f"{repo_id} is not in the local Hugging Face cache "
            f"({constants.HF_HUB_CACHE}) and the hub ({constants.ENDPOINT}) "
            f"cannot be reached ({type(exc).__name__}): {fetch}"
        ) from None
    if answer.status_code in (401, 403, 404) and not cached:
        raise HubUnreachable(
            f"{repo_id}: the hub has no config.json for it that this machine "
            f"may read (HTTP {answer.status_code}): check the id (and "
            "revision), or log in (`hf auth login`) for a gated or "
            "private model"
        )
    return "hub"


def checkpoint_label_names(location: str) -> list[str] | None:
    """The names a checkpoint's config gives its outputs, in output order; None when its
    config cannot be read (no such directory, the hub unreachable)."""
    try:
        config, _ = checkpoint_config(location, None)
    except HubUnreachable:
        raise  # labels would not help: the weights are just as unreachable
    except (OSError, ValueError):
        return None
    id2label = config.get("id2label") or {}
    return [str(id2label[k]) for k in sorted(id2label, key=int)]


def fused_activation(config: dict[str, Any]) -> dict[str, str]:
    """Config overrides that swap the checkpoint's activation for its fused equivalent
    (``FUSED_ACTIVATIONS``); part of the model fingerprint."""
    fused = FUSED_ACTIVATIONS.get(str(config.get("hidden_act")))
    return {"hidden_act": fused} if fused else {}


# Any of these next to config.json: a tokenizer saved with the model.
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
    "spiece.model",
    "sentencepiece.bpe.model",
    "vocab.json",
)


def preflight(spec: ModelSpec, location: str) -> str | None:
    """What is wrong with a checkpoint, read at start-up before any item runs and without
    loading weights (the config names the head and the labels), or None.

    A local checkpoint is read from its files; a hub id's config comes from the local
    Hugging Face cache or the hub (unreachable is a problem of the run, said once).  An
    untrained head saved as a classifier is found only in the weights, at load.
    """
    where = describe(spec)
    path = Path(location).expanduser()
    if not path.is_dir():
        if path.is_absolute() or spec.source.startswith((".", "~")):
            return f"{where}: no such directory {path}; fix its 'id' in the models file"
        try:
            config, _ = checkpoint_config(location, spec.revision)
        except OSError as exc:
            return str(unreachable_error(where, spec, exc))
        except ValueError as exc:  # e.g. a config class only its own code defines
            return (
                f"{where}: its config cannot be read without running its code: "
                f"{without_unsafe_advice(str(exc))}"
            )
        return _config_problem(where, spec, config, f"{location}'s config.json")
    config_file = path / "config.json"
    try:
        config = json.loads(config_file.read_text())
    except FileNotFoundError:
        return f"{where}: {path} has no config.json; it is not a saved transformers checkpoint"
    except ValueError as exc:
        return f"{where}: {config_file} is not valid JSON ({exc})"
    problem = _config_problem(where, spec, config, str(config_file)) or _tokenizer_problem(
        where, path / "tokenizer_config.json"
    )
    if problem:
        return problem
    if not any((path / name).is_file() for name in TOKENIZER_FILES):
        return (
            f"{where}: {path} has no tokenizer files ({', '.join(TOKENIZER_FILES[:4])}, "
            "...); save the tokenizer next to the model (tokenizer.save_pretrained)"
        )
    return None


def _config_problem(
    where: str, spec: ModelSpec, config: dict[str, Any], config_file: str
) -> str | None:
    """What a checkpoint's config says is wrong for this models-file entry, or None."""
    if config.get("auto_map"):
        return (
            f"{where}: {config_file} maps its classes to code shipped with the checkpoint "
            f"(auto_map: {', '.join(sorted(config['auto_map']))}); nlp-gate never runs a "
            "checkpoint's own code (trust_remote_code=False): use a built-in architecture"
        )
    model_type = config.get("model_type")
    if model_type is not None and not _known_model_type(str(model_type)):
        # transformers could build it only from code shipped with the checkpoint: each item
        # would fail with its traceback advising trust_remote_code=True.
        return (
            f"{where}: {config_file} names model_type {model_type!r}, which transformers "
            f"{version('transformers')} does not know; its classes would come from code "
            "shipped with the checkpoint, and nlp-gate never runs a checkpoint's own code "
            "(trust_remote_code=False): use a built-in architecture"
        )
    if not config.get("id2label") and "num_labels" not in config:
        # save_pretrained leaves out a default label map: transformers' default, 2 labels.
        config = {**config, "num_labels": 2}
    try:
        validate_classifier(where, spec, config, missing_keys=())
    except ModelLoadError as exc:
        return str(exc)
    return None


def _tokenizer_problem(where: str, tokenizer_config: Path) -> str | None:
    """What a checkpoint's ``tokenizer_config.json`` says is wrong, or None: a tokenizer
    class from code shipped with the checkpoint (``auto_map``), refused as the model's is."""
    try:
        raw = json.loads(tokenizer_config.read_text())
    except FileNotFoundError:
        return None
    except ValueError as exc:
        return f"{where}: {tokenizer_config} is not valid JSON ({exc})"
    auto_map = raw.get("auto_map") if isinstance(raw, dict) else None
    if not auto_map:
        return None
    names = sorted(auto_map) if isinstance(auto_map, dict) else [str(auto_map)]
    return (
        f"{where}: {tokenizer_config} maps its tokenizer to code shipped with the "
        f"checkpoint (auto_map: {', '.join(names)}); nlp-gate never runs a checkpoint's own "
        "code (trust_remote_code=False): save the model with a built-in tokenizer"
    )


def _known_model_type(model_type: str) -> bool:
    """Whether transformers has built-in classes for ``model_type``.  Its module folder
    (``transformers/models/<type>``) answers for almost every type without importing
    transformers (a second or more at start-up); the few named otherwise ask its mapping."""
    package = importlib.util.find_spec("transformers")
    folders = package.submodule_search_locations if package else None
    module = model_type.replace("-", "_")
    if folders and any((Path(f) / "models" / module).is_dir() for f in folders):
        return True
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    return model_type in CONFIG_MAPPING_NAMES


def describe(spec: ModelSpec) -> str:
    return f"{spec.key} ({spec.source}{'@' + spec.revision if spec.revision else ''})"


def unreachable_error(where: str, spec: ModelSpec, exc: OSError) -> ModelLoadError:
    if Path(spec.source).expanduser().is_dir():  # here, but its files could not be read
        cause: BaseException | None = exc
        while cause is not None and (cause.__cause__ or cause.__context__):
            cause = cause.__cause__ or cause.__context__  # the root: why the file failed
        cause = None if cause is exc else cause
        reason = without_unsafe_advice(str(cause)) if cause else ""
        return ModelLoadError(
            f"cannot load {where}: {without_unsafe_advice(str(exc))}"
            + (f"\n  cause: {reason}" if reason else "")
            + "\n  A pickle-format checkpoint (pytorch_model.bin) is read with torch's "
            "weights-only unpickler, which refuses anything but tensors and plain containers; "
            "re-save the model with save_pretrained() (safetensors)."
        )
    if isinstance(exc, HubUnreachable):  # its message says already what helps
        return ModelLoadError(
            f"cannot load {where}: {exc}; or test the embedded offline zoo "
            "instead: `--nlp-profile tiny`"
        )
    pinned = f" --revision {spec.revision}" if spec.revision else ""
    return ModelLoadError(
        f"cannot load {where}: {exc}\n"
        "  The checkpoint is neither in the local Hugging Face cache nor reachable. Either "
        f"give this machine hub access once (`hf download {spec.source}{pinned}`), point the "
        "models file at a local directory, or run the embedded offline zoo with "
        "`--nlp-profile tiny`."
    )


# Sentences of transformers' and torch's load errors that advise loading the file another
# way: for a pickle refused for holding more than tensors, that is advice to run its payload.
_UNSAFE_ADVICE = re.compile(
    r"from_tf|weights_only|trust_remote_code|trust the source|"
    r"can still be loaded"
)


def without_unsafe_advice(text: str) -> str:
    """``text`` (a load error) without its sentences of ``_UNSAFE_ADVICE``: torch's refusal
    reduced to its ``WeightsUnpickler error`` (what the pickle holds that is not a tensor)."""
    refused = re.search(r"WeightsUnpickler error: *([^\n]*)", text)
    if refused:
        return refused.group(1).strip()
    sentences = re.split(r"(?<=[.!?])\s+", " ".join(text.split()))
    return " ".join(s for s in sentences if not _UNSAFE_ADVICE.search(s))


def local_files(location: str) -> list[Path]:
    """Weights and tokenizer files of a local checkpoint (hub ones are pinned by commit)."""
    path = Path(location)
    return [p for p in path.iterdir() if p.is_file()] if path.is_dir() else []


def validate_classifier(
    where: str, spec: ModelSpec, config: dict[str, Any], missing_keys: Sequence[str]
) -> None:
    """Refuse an untrained head or a label mapping that disagrees with the checkpoint."""
    architectures = config.get("architectures") or []
    if architectures and not any(a.endswith("ForSequenceClassification") for a in architectures):
        raise ModelLoadError(
            f"{where} is a {'/'.join(architectures)} checkpoint, not a sequence classifier: "
            "its classifier head would be randomly initialised. Use a fine-tuned "
            "*ForSequenceClassification checkpoint (e.g. the hyphenated textattack repos)."
        )
    if missing_keys:
        raise ModelLoadError(
            f"{where}: classifier weights missing from the checkpoint and newly initialised: "
            f"{', '.join(sorted(missing_keys)[:8])}. Its predictions would be random; "
            "refusing to test it."
        )
    num_labels = len(config.get("id2label") or {}) or config.get("num_labels")
    if num_labels != len(spec.labels):
        raise ModelLoadError(
            f"{where} has {num_labels} outputs but the models file maps {len(spec.labels)} "
            f"labels {list(spec.labels)} for task {spec.task.name!r}"
        )
    id2label = {int(k): str(v) for k, v in (config.get("id2label") or {}).items()}
    for index, name in sorted(id2label.items()):
        if _GENERIC_LABEL.match(name):
            continue  # LABEL_0 / LABEL_1 carry no meaning: the models file decides
        if spec.task.canonical(name.lower()) != spec.labels[index]:
            raise ModelLoadError(
                f"{where}: output {index} is named {name!r} in the checkpoint but the models "
                f"file maps it to {spec.labels[index]!r}; fix 'labels' in the models file"
            )
