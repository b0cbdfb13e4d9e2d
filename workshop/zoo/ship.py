"""Compare a rebuild with the embedded default, and ship one: the maintainers' side of
``nlp_gate/zoo/embedded.py`` (which only checks and copies the shipped files).

``training_digest`` is what ``embedded.json`` records of the recipe's sources: an edit to one
of ``TRAINING_MODULES`` without shipping a rebuild leaves the embedded files another recipe's
(``tests/unit/test_zoo_recipe.py`` fails).  ``compare`` names the files a rebuild on this
machine trained otherwise; ``ship`` writes a rebuild as the embedded default
(``python -m workshop.zoo train [--ship]``).
"""

from __future__ import annotations

import hashlib
import json
import platform
from collections.abc import Iterable, Mapping
from pathlib import Path

from nlp_gate.zoo import embedded
from nlp_gate.zoo.embedded import DESCRIPTION, SUMS, read_sums, sha256

# The build's cards hold build times and process ids: never equal across builds.
CARDS = ("zoo.json", "masked_lm.json")
# The modules whose code shapes the weights.  The build's orchestration (build.py, the CLI,
# this module) and the runtime's card and copying (nlp_gate/zoo) are not among them.
TRAINING_MODULES = (
    "data",
    "entailment",
    "intents",
    "lexicon",
    "noise",
    "paraphrase",
    "pipeline",
    "pretrain",
    "recipe",
    "sentiment",
    "tokenization",
    "train",
    "vocabulary",
)
# The recipe's modules were shipped as nlp_gate/zoo/*.py, and embedded.json's digest was taken
# over those bytes; they moved here (0.6) with only their own package's name changed.  The
# digest reads them under the old name: a move is not a recipe change, so the shipped files
# stay the current recipe's without a rebuild.
_RENAMED = ((b"workshop.zoo", b"nlp_gate.zoo"), (b"workshop/zoo/", b"nlp_gate/zoo/"))


def training_digest() -> str:
    """sha256 of the recipe's training modules (``TRAINING_MODULES``)."""
    digest = hashlib.sha256()
    for name in TRAINING_MODULES:
        source = (Path(__file__).parent / f"{name}.py").read_bytes()
        for new, old in _RENAMED:
            source = source.replace(new, old)
        digest.update(f"{name}.py\0".encode())
        digest.update(source)
    return digest.hexdigest()


def cpu() -> dict[str, str]:
    """What decides this machine's float rounding: architecture, CPU model, torch's kernels."""
    model = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.partition(":")[2].strip()
                break
    except OSError:
        pass
    described = {"machine": platform.machine(), "model": model}
    try:
        import torch

        described["torch_capability"] = torch.backends.cpu.get_cpu_capability()
    except ImportError:
        pass
    return described


def compare(part: str, folder: Path) -> list[str]:
    """What a rebuild of ``part`` at ``folder`` trained otherwise than the shipped files: one
    line per file that differs (empty: the same bytes)."""
    differ = []
    for name, digest in embedded.shipped(part).items():
        path = folder / name
        got = sha256(path) if path.is_file() else "missing"
        if got != digest and name not in CARDS:
            differ.append(f"{part}/{name}: {got[:16]} instead of {digest[:16]}")
    return differ


def ship(
    zoo: Path, masked_lm: Path, recipe: Mapping[str, object], versions: Mapping[str, str]
) -> list[str]:
    """Write the rebuild at ``zoo`` and ``masked_lm`` as the embedded default; returns the
    files whose bytes changed (only those are rewritten: the history grows by what the
    recipe truly changed)."""
    weights = embedded.WEIGHTS  # read at call time: tests point it at a copy
    changed: list[str] = []
    sums: dict[str, str] = {}
    for part, folder in (("zoo", zoo), ("masked-lm", masked_lm)):
        for path in sorted(_files(folder)):
            name = f"{part}/{path.relative_to(folder).as_posix()}"
            data = path.read_bytes()
            sums[name] = hashlib.sha256(data).hexdigest()
            shipped = weights / name
            if not shipped.is_file() or shipped.read_bytes() != data:
                shipped.parent.mkdir(parents=True, exist_ok=True)
                shipped.write_bytes(data)
                changed.append(name)
    for name in set(read_sums() if (weights / SUMS).is_file() else {}) - set(sums):
        (weights / name).unlink(missing_ok=True)
        changed.append(name)
    (weights / DESCRIPTION).write_text(
        json.dumps(
            {
                "what": "the embedded default of nlp-gate: the tiny zoo and the attacks' masked LM",
                "recipe": dict(recipe),
                "training_digest": training_digest(),
                "versions": dict(versions),
                "cpu": cpu(),
            },
            indent=2,
            sort_keys=True,
        )
        + "\n"
    )
    (weights / SUMS).write_text("".join(f"{sums[n]}  {n}\n" for n in sorted(sums)))
    embedded.verified.cache_clear()
    return changed


def _files(folder: Path) -> Iterable[Path]:
    # Lock files and build leftovers are not part of a zoo.
    return (p for p in folder.rglob("*") if p.is_file() and not p.name.startswith("."))
