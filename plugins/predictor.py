"""Model loading and prediction: one ``Classifier`` per model, loaded once per worker.

Loading refuses, before any test runs, the two mistakes the seed study made silently:
a checkpoint whose classifier head is newly initialised (a fill-mask checkpoint loaded as a
classifier) and a label mapping guessed from label names.  The mapping from output index to
task class always comes from the models file (``ModelSpec.labels``).

torch and transformers are imported inside functions so that collecting the suite stays fast.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from fixtures.profiles import ModelSpec
from plugins.prediction_cache import PredictionCache, fingerprint, input_key

if TYPE_CHECKING:
    import torch

# One model input: a text, or a (text_a, text_b) pair for paraphrase / entailment tasks.
ModelInput = Union[str, tuple[str, str]]

_GENERIC_LABEL = re.compile(r"^LABEL_\d+$")


class ModelLoadError(RuntimeError):
    """A model that must not be tested; the message says what is wrong and how to fix it."""


@dataclass(frozen=True)
class LoadOptions:
    device: str = "auto"  # auto | cpu | cuda | cuda:N
    dtype: str = "float32"  # float32 | float16 | bfloat16 (the latter two on GPU only)
    batch_size: int = 64
    max_length: int = 128
    cache: Path | None = None  # persistent prediction cache file; None disables it
    cache_max_mb: int = 2048


def cpu_threads() -> int:
    """Intra-op threads per process: the cores shared out among xdist workers.

    More OpenMP threads than cores makes tiny models tens of times slower (spin-waiting
    threads of two workers fight over the same cores), so never oversubscribe.
    """
    return max(1, (os.cpu_count() or 1) // worker_count())


def worker_count() -> int:
    """Number of xdist workers of this run (1 without xdist)."""
    return int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))


def resolve_device(option: str, worker_index: int = 0) -> str:
    """'auto' = CUDA when present, one GPU per xdist worker (round robin), else CPU."""
    import torch

    if option != "auto":
        return option
    if torch.cuda.is_available():
        return f"cuda:{worker_index % torch.cuda.device_count()}"
    return "cpu"


def load_classifier(spec: ModelSpec, location: str, options: LoadOptions,
                    worker_index: int = 0) -> Classifier:
    """Load ``spec`` from ``location`` (hub id or directory) and validate it as a classifier."""
    import torch
    import transformers
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    where = f"{spec.key} ({spec.source}{'@' + spec.revision if spec.revision else ''})"
    try:
        config = AutoConfig.from_pretrained(location, revision=spec.revision)
        tokenizer = AutoTokenizer.from_pretrained(location, revision=spec.revision)
        model, info = AutoModelForSequenceClassification.from_pretrained(
            location, revision=spec.revision, output_loading_info=True
        )
    except OSError as exc:
        raise ModelLoadError(
            f"cannot load {where}: {exc}\n"
            "  The checkpoint is neither in the local Hugging Face cache nor reachable. Either "
            "give this machine hub access once (`huggingface-cli download "
            f"{spec.source}`), point the models file at a local directory, or run the "
            "embedded offline zoo with `--nlp-profile tiny`."
        ) from exc
    check_classifier(where, spec, config.to_dict(), info["missing_keys"])
    device = resolve_device(options.device, worker_index)
    if options.dtype != "float32" and not device.startswith("cuda"):
        raise ModelLoadError(f"--nlp-dtype {options.dtype} needs a GPU; this run is on {device}")
    model.to(device=device).eval()
    if device == "cpu":
        torch.set_num_threads(cpu_threads())
    fp = fingerprint({
        "source": spec.source, "revision": spec.revision,
        "commit": getattr(config, "_commit_hash", None), "labels": spec.labels,
        "dtype": options.dtype, "max_length": options.max_length,
        "device": device.split(":")[0], "torch": torch.__version__,
        "transformers": transformers.__version__,
    }, _local_files(location))
    cache = PredictionCache(options.cache, options.cache_max_mb << 20) if options.cache else None
    return Classifier(spec, model, tokenizer, device, options, fp, cache)


def _local_files(location: str) -> list[Path]:
    """Weights and tokenizer files of a local checkpoint (hub ones are pinned by commit)."""
    path = Path(location)
    return [p for p in path.iterdir() if p.is_file()] if path.is_dir() else []


def check_classifier(where: str, spec: ModelSpec, config: dict[str, Any],
                     missing_keys: Sequence[str]) -> None:
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


class Classifier:
    """The prediction engine of one model: every consumer (CheckList items, comparisons,
    attacks) asks it, so each unique input costs at most one forward pass per run, and none
    when the persistent cache already holds it for this model fingerprint.

    Inference is batched, length-sorted, under ``inference_mode`` (and autocast for
    fp16/bf16 on GPU); probabilities come back in task class order.
    """

    def __init__(self, spec: ModelSpec, model: Any, tokenizer: Any, device: str,
                 options: LoadOptions, fingerprint: str = "",
                 cache: PredictionCache | None = None) -> None:
        self.spec = spec
        self.model = model
        self.tokenizer = tokenizer
        self.device = device
        self.options = options
        self.fingerprint = fingerprint
        self.cache = cache
        self.forward_count = 0  # inputs that went through the model
        self.cache_hits = 0  # inputs answered by the persistent cache
        self._order = spec.class_index()
        self._memo: dict[Hashable, np.ndarray] = {}
        # Never longer than the model's position table (the tiny zoo's models have 64).
        self._max_length = min(options.max_length, getattr(
            getattr(model, "config", None), "max_position_embeddings", None) or options.max_length)

    @property
    def unique_inputs(self) -> int:
        return len(self._memo)

    def predict_proba(self, inputs: Sequence[ModelInput]) -> np.ndarray:
        keys = [_key(x) for x in inputs]
        todo = list(dict.fromkeys(k for k in keys if k not in self._memo))
        cached: dict[str, np.ndarray] = {}
        if todo and self.cache is not None:
            cached = self.cache.get(self.fingerprint, [input_key(k) for k in todo],
                                    len(self._order))
            for k in todo:
                row = cached.get(input_key(k))
                if row is not None:
                    self._memo[k] = row
            self.cache_hits += len(cached)
            todo = [k for k in todo if k not in self._memo]
        if todo:
            rows = self._forward(todo)
            for k, row in zip(todo, rows):
                self._memo[k] = row
            if self.cache is not None:
                self.cache.put(self.fingerprint, self.spec.source,
                               [(input_key(k), row) for k, row in zip(todo, rows)])
        elif cached and self.cache is not None:
            self.cache.touch(self.fingerprint, self.spec.source)  # keep it from eviction
        if not keys:
            return np.zeros((0, len(self._order)), dtype=np.float32)
        return np.stack([self._memo[k] for k in keys])

    def _forward(self, inputs: list[Hashable]) -> np.ndarray:
        import torch

        out = np.empty((len(inputs), len(self._order)), dtype=np.float32)
        autocast = (contextlib.nullcontext() if self.options.dtype == "float32" else
                    torch.autocast(device_type="cuda", dtype=getattr(torch, self.options.dtype)))
        with torch.inference_mode(), autocast:
            for idx, features in padded_batches(self.tokenizer, inputs, self._max_length,
                                                self.options.batch_size):
                enc = {k: torch.from_numpy(v).to(self.device) for k, v in features.items()}
                logits = self.model(**enc).logits.float()
                out[idx] = torch.softmax(logits, dim=-1)[:, self._order].cpu().numpy()
        self.forward_count += len(inputs)
        return out


def padded_batches(tokenizer: Any, inputs: Sequence[Hashable], max_length: int,
                   batch_size: int) -> Iterator[tuple[np.ndarray, dict[str, np.ndarray]]]:
    """``inputs`` as model-ready batches: (indices into ``inputs``, padded features).

    Tokenized in one call of the tokenizer, unpadded, then sorted by token count and padded
    per batch here: per-batch tokenizer calls (or ``tokenizer.pad``) spend ~1.5x as long in
    transformers' Python-side batching (measured on the zoo's QQP model), and sorting keeps
    padding, i.e. wasted compute, small.  Each batch equals what ``tokenizer(batch,
    padding=True, truncation=True, max_length=max_length)`` returns for its inputs.
    """
    if not inputs:
        return
    if tokenizer.pad_token_id is None:
        raise ModelLoadError(f"{type(tokenizer).__name__} has no padding token: batched "
                             "inference needs one (set tokenizer.pad_token in the checkpoint)")
    if isinstance(inputs[0], tuple):
        a, b = [x[0] for x in inputs], [x[1] for x in inputs]  # type: ignore[index]
        enc = tokenizer(a, b, truncation=True, max_length=max_length)
    else:
        enc = tokenizer(list(inputs), truncation=True, max_length=max_length)
    features = {k: enc[k] for k in tokenizer.model_input_names if k in enc}
    fill = {"input_ids": tokenizer.pad_token_id, "token_type_ids": tokenizer.pad_token_type_id}
    left = tokenizer.padding_side == "left"
    lengths = np.fromiter(map(len, features["input_ids"]), dtype=np.int64, count=len(inputs))
    order = np.argsort(lengths, kind="stable")
    for start in range(0, len(order), batch_size):
        idx = order[start:start + batch_size]
        width = int(lengths[idx].max())
        batch: dict[str, np.ndarray] = {}
        for name, rows in features.items():
            padded = np.full((len(idx), width), fill.get(name, 0), dtype=np.int64)
            for j, i in enumerate(idx):
                row = rows[i]
                if left:
                    padded[j, width - len(row):] = row
                else:
                    padded[j, :len(row)] = row
            batch[name] = padded
        yield idx, batch


def _key(x: Any) -> Hashable:
    # CheckList stores pairs as lists or tuples; both must hit the same memo entry.
    return tuple(x) if isinstance(x, (list, tuple)) else x


def worker_index() -> int:
    """0 for a plain run, N for xdist worker gwN (used to spread workers over GPUs)."""
    return int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)


def zoo_location(zoo_root: Path, spec: ModelSpec) -> str:
    return str(zoo_root / spec.source.removeprefix("zoo:"))
