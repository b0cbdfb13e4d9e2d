"""The embedded default: the calibrated zoo and the attacks' masked LM, shipped as files.

Why files and not a training run: the recipe is deterministic on one machine, but CPUs round
differently (an Intel AVX-512 machine trains other weights than an AMD AVX2 one even with the
recipe's pinned kernels, and an ARM laptop cannot run those kernels at all), and the tiny
pair-task models trained with other rounding fail CheckList's out-of-distribution cases very
differently.  So the gates are calibrated on one build, and that build is what every machine
runs: the main job copies these files into place and trains nothing.

Layout (package data, ``nlp_gate/zoo/weights/``, so a clone and a wheel hold the same bytes)::

    SHA256SUMS      every file below, in ``sha256sum`` format (``sha256sum -c`` checks it)
    embedded.json   how it was made: recipe, training sources' digest, libraries, CPU
    zoo/            the zoo as ``ensure_zoo`` lays it out (zoo.json, held-out splits, models)
    masked-lm/      the attacks' masked LM as ``masked_lm.ensure`` lays it out

Every file is checked against ``SHA256SUMS`` before it is used: a damaged or edited shipped
file stops the run (``EmbeddedError``), and an installed copy that no longer matches is
replaced by a fresh copy of the verified files.  ``python -m nlp_gate.zoo train`` runs the
recipe and says which models a rebuild on this CPU gives other weights; ``--ship`` (the
maintainers' step, when the recipe truly changes) writes a rebuild here.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import uuid
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from filelock import FileLock

WEIGHTS = Path(__file__).resolve().parent / "weights"
SUMS = "SHA256SUMS"
DESCRIPTION = "embedded.json"
# The builds' cards hold build times and process ids: never equal across builds.
CARDS = ("zoo.json", "masked_lm.json")
# The modules whose code shapes the weights: an edit to one of them without shipping a
# rebuild leaves the embedded files another recipe's (tests/unit/test_embedded.py fails).
# The build's orchestration (build.py, card.py, the CLI, this module) is not among them.
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
RESTORE = (
    "restore it (`git checkout -- plugins/nlp_gate/zoo/weights` in a clone of "
    "nlp-gate, or reinstall the nlp-gate package)"
)


class EmbeddedError(RuntimeError):
    """The shipped files are missing, damaged or edited: nothing of them is used."""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_sums() -> dict[str, str]:
    """``SHA256SUMS``: relative path -> digest."""
    sums: dict[str, str] = {}
    for line in (WEIGHTS / SUMS).read_text().splitlines():
        digest, _, name = line.partition("  ")
        sums[name] = digest
    return sums


@cache
def verified() -> Mapping[str, str]:
    """The shipped files' digests, each file checked once per process (15 MB: ~30 ms)."""
    try:
        sums = read_sums()
    except OSError as exc:
        raise EmbeddedError(
            f"the embedded zoo's {WEIGHTS / SUMS} cannot be read ({exc}): {RESTORE}"
        ) from None
    for name, want in sums.items():
        path = WEIGHTS / name
        try:
            got = sha256(path)
        except OSError:
            raise EmbeddedError(f"the embedded zoo's file {path} is missing: {RESTORE}") from None
        if got != want:
            raise EmbeddedError(
                f"the embedded zoo's file {path} has sha256 {got[:16]}, not the shipped "
                f"{want[:16]} (damaged or edited; it is not used): {RESTORE}, or regenerate "
                "the embedded default with `python -m nlp_gate.zoo train --ship`"
            )
    return sums


def description() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((WEIGHTS / DESCRIPTION).read_text())
    return data


def _part(part: str) -> dict[str, str]:
    prefix = f"{part}/"
    return {
        name.removeprefix(prefix): digest
        for name, digest in verified().items()
        if name.startswith(prefix)
    }


def holds(target: Path, part: str) -> bool:
    """Whether ``target`` holds exactly the shipped ``part`` (every file, byte for byte)."""
    try:
        return all(sha256(target / name) == digest for name, digest in _part(part).items())
    except OSError:
        return False


def install(part: str, target: Path, lock: Path) -> bool:
    """Copy the verified shipped ``part`` into ``target`` unless it is there already; True
    when it copied.  Under ``lock``, into a private folder renamed into place: a concurrent
    process waits and then finds it installed, and no reader sees half of it.  Whatever else
    was at ``target`` (a damaged copy, a zoo trained on this machine) is replaced."""
    from nlp_gate.zoo.folders import remove_leftovers, swap_into_place

    files = _part(part)  # verifies the shipped files first: a damaged one is never copied
    if holds(target, part):
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(lock)):
        if holds(target, part):
            return False  # installed by another process while this one waited
        remove_leftovers(target)
        tmp = target.parent / f".{target.name}.build-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            for name, digest in files.items():
                data = (WEIGHTS / part / name).read_bytes()
                if hashlib.sha256(data).hexdigest() != digest:  # changed since verified()
                    verified.cache_clear()
                    raise EmbeddedError(
                        f"the embedded zoo's file {WEIGHTS / part / name} "
                        f"changed while it was being installed: {RESTORE}"
                    )
                (tmp / name).parent.mkdir(parents=True, exist_ok=True)
                (tmp / name).write_bytes(data)
            swap_into_place(tmp, target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return True


def training_digest() -> str:
    """sha256 of the recipe's training modules (``TRAINING_MODULES``)."""
    digest = hashlib.sha256()
    for name in TRAINING_MODULES:
        digest.update(f"{name}.py\0".encode())
        digest.update((Path(__file__).parent / f"{name}.py").read_bytes())
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
    for name, digest in _part(part).items():
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
    changed: list[str] = []
    sums: dict[str, str] = {}
    for part, folder in (("zoo", zoo), ("masked-lm", masked_lm)):
        for path in sorted(_files(folder)):
            name = f"{part}/{path.relative_to(folder).as_posix()}"
            data = path.read_bytes()
            sums[name] = hashlib.sha256(data).hexdigest()
            shipped = WEIGHTS / name
            if not shipped.is_file() or shipped.read_bytes() != data:
                shipped.parent.mkdir(parents=True, exist_ok=True)
                shipped.write_bytes(data)
                changed.append(name)
    for name in set(read_sums() if (WEIGHTS / SUMS).is_file() else {}) - set(sums):
        (WEIGHTS / name).unlink(missing_ok=True)
        changed.append(name)
    (WEIGHTS / DESCRIPTION).write_text(
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
    (WEIGHTS / SUMS).write_text("".join(f"{sums[n]}  {n}\n" for n in sorted(sums)))
    verified.cache_clear()
    return changed


def _files(folder: Path) -> Iterable[Path]:
    # Lock files and build leftovers are not part of a zoo.
    return (p for p in folder.rglob("*") if p.is_file() and not p.name.startswith("."))
