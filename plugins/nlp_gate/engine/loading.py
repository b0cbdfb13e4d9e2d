"""Loading a checkpoint into a ``Classifier`` (``predictor``): located (hub id or directory,
the zoo's included), validated (``checkpoint``: a newly initialised classifier head, a label
mapping guessed from label names, code of its own are refused before any test runs),
fingerprinted, and given its device, backend and prediction cache.  A model whose exact files
an earlier run already loaded and validated, as its fingerprint in the prediction cache shows,
loads its weights only when a forward pass is needed.

torch and transformers are imported inside functions so that collecting the suite stays fast.
"""

from __future__ import annotations

import os
from importlib.metadata import version
from pathlib import Path
from typing import Any

from nlp_gate.config.paths import cache_dir
from nlp_gate.config.specs import ModelSpec
from nlp_gate.engine.batching import Encodings
from nlp_gate.engine.checkpoint import (
    ModelLoadError,
    checkpoint_config,
    describe,
    fused_activation,
    local_files,
    unreachable_error,
    validate_classifier,
)
from nlp_gate.engine.keys import fingerprint
from nlp_gate.engine.onnx_backend import (
    OnnxModel,
    export_path,
    fingerprint_parts,
    load_exported,
    option_problem,
)
from nlp_gate.engine.prediction_cache import PredictionCache
from nlp_gate.engine.predictor import Classifier, LoadOptions, cpu_threads
from nlp_gate.engine.pruning import prune_last_layer, pruning_rule
from nlp_gate.engine.rows import InputIndex


def resolve_device(option: str, worker_index: int = 0) -> str:
    """'auto' = CUDA when present, one GPU per xdist worker (round robin), else CPU."""
    if option != "auto":
        return option
    if "+cpu" in version("torch"):
        return "cpu"  # a CPU-only build sees no GPU; not importing it saves ~3 s per worker
    import torch

    if torch.cuda.is_available():
        return f"cuda:{worker_index % torch.cuda.device_count()}"
    return "cpu"


def load_classifier(
    spec: ModelSpec,
    location: str,
    options: LoadOptions,
    worker_index: int = 0,
    encodings: Encodings | None = None,
    inputs: InputIndex | None = None,
) -> Classifier:
    """``spec``'s engine over ``location`` (hub id or directory), validated as a classifier.

    The config is checked at once.  The weights and tokenizer load now too, so an untrained
    head is refused before any test runs, unless the prediction cache already holds this
    fingerprint: an earlier run loaded and validated exactly these files (the fingerprint
    hashes them), and a re-run answered from the cache then never loads the model.
    """
    where = describe(spec)
    try:
        config, commit = checkpoint_config(location, spec.revision)
    except OSError as exc:
        raise unreachable_error(where, spec, exc) from exc
    validate_classifier(where, spec, config, missing_keys=())
    overrides = fused_activation(config)
    pruning = pruning_rule(config)
    onnx = options.backend == "onnx"
    problem = option_problem(options.backend, options.device, options.dtype)
    if problem:
        raise ModelLoadError(problem)
    device = "cpu" if onnx else resolve_device(options.device, worker_index)
    if options.dtype != "float32" and not device.startswith("cuda"):
        raise ModelLoadError(f"--nlp-dtype {options.dtype} needs a GPU; this run is on {device}")
    fp = fingerprint(
        {
            "source": spec.source,
            "revision": spec.revision,
            "commit": commit,
            "labels": spec.labels,
            "dtype": options.dtype,
            "max_length": options.max_length,
            "device": device.split(":")[0],
            "torch": version("torch"),
            "transformers": version("transformers"),
            "tokenizers": version("tokenizers"),
            **({"config_overrides": overrides} if overrides else {}),
            **({"pruning": pruning} if pruning else {}),
            # Only the ONNX backend adds parts: the torch backend's fingerprints stay those of
            # earlier runs, whose cached predictions stay valid.
            **(fingerprint_parts() if onnx else {}),
        },
        local_files(location),
    )
    cache = PredictionCache(options.cache, options.cache_max_mb << 20) if options.cache else None

    def load() -> tuple[Any, Any]:
        return _load_weights(where, spec, location, device, overrides, pruning)

    def exported() -> tuple[OnnxModel, Any]:
        exports = options.export_dir or cache_dir(Path.cwd()) / "onnx"
        return load_exported(
            export_path(exports, fp),
            load,
            lambda: _load_tokenizer(where, spec, location),
            lambda: _load_config(location, spec.revision, overrides),
            cpu_threads(),
        )

    classifier = Classifier(
        spec,
        None,
        None,
        device,
        options,
        fp,
        cache,
        loader=load,
        encodings=encodings,
        exported=exported if onnx else None,
        inputs=inputs,
    )
    # The length inputs are cut to, from the config now: a process answered from the cache
    # alone runs no forward pass, which would otherwise narrow it to the position table.
    positions = config.get("max_position_embeddings")
    if isinstance(positions, int) and positions > 0:
        classifier.max_length = min(options.max_length, positions)
    if cache is None or not cache.knows(fp):
        classifier.load()
    return classifier


def _load_weights(
    where: str,
    spec: ModelSpec,
    location: str,
    device: str,
    overrides: dict[str, Any],
    pruning: str | None,
) -> tuple[Any, Any]:
    """The model (on ``device``, in eval mode, ``overrides`` applied to its config, its last
    layer pruned by the ``pruning`` rule) and tokenizer; refuses an untrained head."""
    import torch
    from transformers import AutoModelForSequenceClassification

    tokenizer = _load_tokenizer(where, spec, location)
    try:
        # Nothing from the checkpoint executes: no code it ships (trust_remote_code), and its
        # weights from safetensors when it has them, else from a pickle read by torch's
        # weights-only unpickler (tensors and plain containers; anything else is refused).
        model, info = AutoModelForSequenceClassification.from_pretrained(
            location,
            revision=spec.revision,
            output_loading_info=True,
            trust_remote_code=False,
            use_safetensors=None,
            weights_only=True,
            **overrides,
        )
    except OSError as exc:
        # from None: the message holds the cause; the chain holds transformers' and torch's
        # advice to load the file another way (from_tf=True, weights_only=False)
        raise unreachable_error(where, spec, exc) from None
    validate_classifier(where, spec, model.config.to_dict(), info["missing_keys"])
    model.to(device=device).eval()
    if pruning:
        prune_last_layer(model, pruning)
    if device == "cpu":
        torch.set_num_threads(cpu_threads())
    return model, tokenizer


def _load_tokenizer(where: str, spec: ModelSpec, location: str) -> Any:
    """The checkpoint's tokenizer (never code of its own), refused without a padding token."""
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(
            location, revision=spec.revision, trust_remote_code=False
        )
    except OSError as exc:
        raise unreachable_error(where, spec, exc) from None
    if tokenizer.pad_token_id is None:
        raise ModelLoadError(
            f"{where}: its tokenizer has no padding token, which batched "
            "inference needs (set pad_token in the checkpoint's tokenizer)"
        )
    return tokenizer


def _load_config(location: str, revision: str | None, overrides: dict[str, Any]) -> Any:
    """The checkpoint's transformers config as the engine's model has it (``overrides``
    applied), for a backend that runs the model without loading it (ONNX Runtime)."""
    from transformers import AutoConfig

    return AutoConfig.from_pretrained(
        location, revision=revision, trust_remote_code=False, **overrides
    )


def worker_index() -> int:
    """0 for a plain run, N for xdist worker gwN (used to spread workers over GPUs)."""
    return int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)


def zoo_location(zoo_root: Path, spec: ModelSpec) -> str:
    return str(zoo_root / spec.source.removeprefix("zoo:"))
