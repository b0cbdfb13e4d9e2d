"""The build recipe: everything that determines the zoo's bytes.

The recipe hash combines (1) these hyperparameters, (2) the source of every
``workshop/zoo/*.py`` module - generators, word lists and training code all
shape the weights - and (3) the versions of the libraries whose numerics or
file formats end up in the artefacts.  Any change to one of them means the
cached zoo no longer matches what this checkout would build, so
``ensure_zoo`` rebuilds.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

FAMILIES: tuple[str, ...] = ("bert", "albert")
ALL_DATASETS: tuple[str, ...] = ("rotten_tomatoes", "yelp_polarity", "sst2", "qqp", "mrpc", "rte")

# The hub checkpoints each zoo model stands in for.
HUB_IDS: dict[tuple[str, str], str] = {
    (dataset, family): f"textattack/{base}-{suffix}"
    for dataset, suffix in (
        ("rotten_tomatoes", "rotten-tomatoes"), ("yelp_polarity", "yelp-polarity"),
        ("sst2", "SST-2"), ("qqp", "QQP"), ("mrpc", "MRPC"), ("rte", "RTE"),
    )
    for family, base in (("bert", "bert-base-uncased"), ("albert", "albert-base-v2"))
}


@dataclass(frozen=True)
class ArchRecipe:
    """Tiny encoder shape.  ``embedding_size`` is only used by ALBERT, whose
    factorised embeddings (embedding_size < hidden_size) and single shared
    layer group are what make it ALBERT rather than a small BERT."""

    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    vocab_size: int  # tokenizer training target; the real size may be smaller
    dropout: float
    embedding_size: int | None = None
    initializer_range: float = 0.02
    # Base pre-training rate: ALBERT's shared layers need a higher one to
    # reach the alignment transition within the step budget (measured).
    base_learning_rate: float = 2e-3


@dataclass(frozen=True)
class Recipe:
    datasets: tuple[str, ...] = ALL_DATASETS
    families: tuple[str, ...] = FAMILIES
    bert: ArchRecipe = ArchRecipe(
        hidden_size=64, num_layers=2, num_heads=2, intermediate_size=128,
        vocab_size=2000, dropout=0.0,
    )
    albert: ArchRecipe = ArchRecipe(
        hidden_size=64, num_layers=2, num_heads=2, intermediate_size=128,
        vocab_size=1500, dropout=0.0, embedding_size=32, base_learning_rate=3e-3,
    )
    max_length: int = 64
    batch_size: int = 32
    # How rows are batched (``train.epoch_batches``), fine-tuning and pre-training alike:
    # None, drawn at random (the zoo's recipe); k, grouped by length in mega-batches of k
    # batches.  Grouped in 50, the build takes a third less CPU time (246 CPU s instead of
    # 362; batches 1-4 % padding instead of 31-57 %), to held-out accuracies within 1-3
    # points, but to other models, and calibrated anew 22 of the 172 tiny gates would be 100
    # (no gate; 21 grouped in 8) where this recipe's models leave 13: not adopted
    # (benchmarks/bench_zoo_batches.py; docs/measurements/performance.md, 2026-11-27).
    length_grouping: int | None = None
    learning_rate: float = 1e-3
    weight_decay: float = 0.01
    warmup_ratio: float = 0.06
    # Fine-tuning epochs per dataset: the smallest that clears 85% held-out
    # with margin (measured), since epochs dominate the build time.
    epochs: dict[str, int] = field(
        default_factory=lambda: {
            "rotten_tomatoes": 4, "yelp_polarity": 3, "sst2": 3, "qqp": 4, "mrpc": 7, "rte": 5,
        }
    )
    train_size: int | None = None  # None: each dataset's own size (tests shrink it)
    # Matching pre-training of the base encoder (pretrain.py) for the tasks
    # that compare two segments: constant rate until the alignment transition
    # (running token accuracy >= 99%, between min and max steps), then a short
    # decay.  The card records steps and accuracy.  Sentiment models start
    # from scratch: starting them from the base cost ALBERT 5-20 points.
    base_tasks: tuple[str, ...] = ("paraphrase", "entailment")
    base_min_steps: int = 400
    base_max_steps: int = 3000
    base_decay_steps: int = 300
    base_pairs_per_dataset: int = 3000
    eval_batch_size: int = 128
    # One intra-op thread per job: float reductions then run in one fixed
    # order on any machine, and the build parallelises across processes
    # instead (measured: 2 threads on 2 cores was up to ~10x *slower* for
    # these tiny matrices, and erratic).
    num_threads: int = 1
    # CPU kernel families the build workers may use.  torch picks its ATen kernels (and
    # MKL its GEMM code path) per instruction set, and each rounds differently, so one
    # recipe trained on an AVX-512 and on an AVX2 machine gave different weights and
    # different fail rates (measured, docs/measurements/calibration.md).  Pinning
    # them (and oneDNN's) to the AVX2 path, which every x86-64 CPU since 2013-2015 has,
    # makes the weights a function of the recipe on any of them; other CPUs (ARM) train
    # other weights, which the run header then names.  Set in the environment of the
    # spawned build workers, before torch loads.
    cpu_numerics: tuple[tuple[str, str], ...] = (
        ("ATEN_CPU_CAPABILITY", "avx2"),
        ("MKL_CBWR", "AVX2"),
        ("ONEDNN_MAX_CPU_ISA", "AVX2"),
    )
    base_seed: int = 1234

    def arch(self, family: str) -> ArchRecipe:
        return {"bert": self.bert, "albert": self.albert}[family]

    def seed_for(self, dataset: str, family: str) -> int:
        """Distinct, stable seed per model so BERT/ALBERT twins differ."""
        return self.base_seed + 100 * ALL_DATASETS.index(dataset) + FAMILIES.index(family)

    def to_json(self) -> dict[str, object]:
        # Round-trip through JSON so tuples become lists here too: the card
        # written to disk and the one returned in memory then compare equal.
        return json.loads(json.dumps(dataclasses.asdict(self)))  # type: ignore[no-any-return]


DEFAULT_RECIPE = Recipe()


def library_versions() -> dict[str, str]:
    # From the installed distributions' metadata (same strings as ``torch.__version__`` etc.):
    # every pytest session checks the zoo is current, and importing torch and transformers
    # just for their versions cost it seconds.
    return {name: version(name) for name in ("torch", "transformers", "tokenizers", "sentencepiece")}


def source_digest(package_dir: Path = Path(__file__).parent) -> str:
    digest = hashlib.sha256()
    for path in sorted(package_dir.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def recipe_hash(recipe: Recipe) -> str:
    payload = {
        "recipe": recipe.to_json(),
        "versions": library_versions(),
        "sources": source_digest(),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
