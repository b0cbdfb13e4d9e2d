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
replaced by a fresh copy of the verified files.  This module only checks and copies them: the
recipe that made them is the repository's workshop, never installed (``python -m workshop.zoo
train`` says which models a rebuild on this CPU gives other weights; ``--ship``, the
maintainers' step when the recipe truly changes, writes a rebuild here: ``workshop/zoo/ship.py``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from filelock import FileLock

WEIGHTS = Path(__file__).resolve().parent / "weights"
SUMS = "SHA256SUMS"
DESCRIPTION = "embedded.json"
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
                "the embedded default with `python -m workshop.zoo train --ship` in a clone"
            )
    return sums


def description() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((WEIGHTS / DESCRIPTION).read_text())
    return data


def shipped(part: str) -> dict[str, str]:
    """The shipped ``part``'s files (relative to it) and their digests, verified."""
    prefix = f"{part}/"
    return {
        name.removeprefix(prefix): digest
        for name, digest in verified().items()
        if name.startswith(prefix)
    }


def holds(target: Path, part: str) -> bool:
    """Whether ``target`` holds exactly the shipped ``part`` (every file, byte for byte)."""
    try:
        return all(sha256(target / name) == digest for name, digest in shipped(part).items())
    except OSError:
        return False


def install(part: str, target: Path, lock: Path) -> bool:
    """Copy the verified shipped ``part`` into ``target`` unless it is there already; True
    when it copied.  Under ``lock``, into a private folder renamed into place: a concurrent
    process waits and then finds it installed, and no reader sees half of it.  Whatever else
    was at ``target`` (a damaged copy, a zoo trained on this machine) is replaced."""
    from nlp_gate.zoo.folders import remove_leftovers, swap_into_place

    files = shipped(part)  # verifies the shipped files first: a damaged one is never copied
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
