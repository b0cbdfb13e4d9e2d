"""``python -m nlp_gate.zoo build [--root DIR] [--force] [--quiet]``: put the embedded zoo in
place: the shipped files, sha256 checked, copied where a run reads them; nothing is trained
(the attacks' masked LM is put in place the same way by ``scripts/fetch_attack_resources.py
--stand-ins``).  A damaged shipped file stops it (exit 4).  Training the recipe is the
repository's workshop: ``python -m workshop.zoo train`` in a clone.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from nlp_gate import progress
from nlp_gate.zoo import embedded
from nlp_gate.zoo.build import LABELS, default_zoo_root, ensure_zoo
from nlp_gate.zoo.card import ZooCard

TRAIN_MOVED = "run `python -m workshop.zoo train` in a clone of the nlp-gate repository"
# Exit status of a build whose shipped files are damaged: pytest's usage error, as a run that
# meets them stops with.
DAMAGED = 4


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nlp_gate.zoo")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="put the embedded zoo in place (no training)")
    build.add_argument(
        "--root", type=Path, default=None, help=f"zoo directory (default: {default_zoo_root()})"
    )
    build.add_argument(
        "--force", action="store_true", help="copy the embedded zoo again even if it is in place"
    )
    build.add_argument(
        "--datasets",
        nargs="+",
        choices=tuple(LABELS),
        default=None,
        help="accepted for scripts; the embedded zoo is installed whole",
    )
    build.add_argument("--quiet", action="store_true", help="print nothing but errors")
    # Training moved out of the package (0.6): say where, rather than "invalid choice".
    sub.add_parser("train", help="moved: `python -m workshop.zoo train` in a clone")
    args, unknown = parser.parse_known_args(argv)
    if args.command == "train":
        print(f"zoo: training is not installed with nlp-gate: {TRAIN_MOVED}", file=sys.stderr)
        return 2
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.quiet:
        progress.quiet()
    try:
        return _build(args)
    except embedded.EmbeddedError as exc:
        print(f"zoo: {exc}", file=sys.stderr)
        return DAMAGED
    except KeyboardInterrupt:
        # Ctrl-C is an answer, not a crash: the build's private folder is already removed
        # (embedded.install), and a zoo already in place is untouched.
        print(
            "zoo: interrupted; nothing of this build was kept (the next run puts it in place anew)",
            file=sys.stderr,
        )
        return 130


def _build(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    root = (args.root or default_zoo_root()).resolve()
    if args.force:
        import shutil

        shutil.rmtree(root, ignore_errors=True)
    card = ensure_zoo(root)
    if not args.quiet:
        print(
            f"zoo: {root}: the embedded zoo, sha256 verified "
            f"({time.perf_counter() - start:.1f}s, nothing trained)"
        )
        print_card(card)
    return 0


def print_card(card: ZooCard) -> None:
    for b in card.bases:
        matching = "-" if b.matching_accuracy is None else f"{b.matching_accuracy:.3f}"
        print(
            f"base {b.family:<7} vocab {b.vocab_size:>5}  {b.steps} steps  "
            f"matching acc {matching}  {b.seconds:.1f}s"
        )
    print(
        f"{'dataset':<16} {'family':<7} {'held-out acc':>12} {'params':>8} {'train s':>8}  sha256"
    )
    for m in card.models:
        print(
            f"{m.dataset:<16} {m.family:<7} {m.accuracy:>12.4f} {m.num_parameters:>8} "
            f"{m.train_seconds:>8.1f}  {m.weights_sha256[:12]}"
        )


if __name__ == "__main__":
    sys.exit(main())
