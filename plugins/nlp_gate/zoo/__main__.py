"""``python -m nlp_gate.zoo build [--root DIR] [--force] [--datasets ...] [--jobs N] [--quiet]``.

While it builds, each stage (per family: tokenizer, pre-training; per model: fine-tuning,
evaluation) reports its progress on stderr (``nlp_gate.progress``); ``--quiet``: none."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from nlp_gate import progress
from nlp_gate.zoo.build import build_zoo, default_zoo_root, ensure_zoo
from nlp_gate.zoo.recipe import ALL_DATASETS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nlp_gate.zoo")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="build the zoo (no-op when cached and current)")
    build.add_argument("--root", type=Path, default=None, help=f"zoo directory (default: {default_zoo_root()})")
    build.add_argument("--force", action="store_true", help="rebuild even if the cached zoo is current")
    build.add_argument("--datasets", nargs="+", choices=ALL_DATASETS, default=None)
    build.add_argument("--jobs", type=int, default=None, help="worker processes (default: up to 2)")
    build.add_argument("--quiet", action="store_true", help="no progress lines while it builds")
    args = parser.parse_args(argv)
    if args.quiet:
        progress.quiet()

    start = time.perf_counter()
    try:
        if args.force:
            card = build_zoo(args.root, force=True, datasets=args.datasets, jobs=args.jobs)
        else:
            card = ensure_zoo(args.root, datasets=args.datasets, jobs=args.jobs)
    except KeyboardInterrupt:
        # Ctrl-C is an answer, not a crash: the build's private folder is already removed
        # (build_locked), and a zoo already in place is untouched.
        print("zoo: interrupted; nothing of this build was kept (the next run builds it anew)",
              file=sys.stderr)
        return 130
    elapsed = time.perf_counter() - start
    root = (args.root or default_zoo_root()).resolve()
    print(f"zoo: {root}  recipe {card.recipe_hash[:12]}  built {card.built_at} in {card.build_seconds:.1f}s")
    for b in card.bases:
        matching = "-" if b.matching_accuracy is None else f"{b.matching_accuracy:.3f}"
        print(f"base {b.family:<7} vocab {b.vocab_size:>5}  {b.steps} steps  matching acc {matching}  {b.seconds:.1f}s")
    print(f"{'dataset':<16} {'family':<7} {'held-out acc':>12} {'params':>8} {'train s':>8}  sha256")
    for m in card.models:
        print(f"{m.dataset:<16} {m.family:<7} {m.accuracy:>12.4f} {m.num_parameters:>8} {m.train_seconds:>8.1f}  {m.weights_sha256[:12]}")
    print(f"total: {elapsed:.1f}s")
    return 0


if __name__ == "__main__":  # guard needed: spawn-started workers re-import __main__
    sys.exit(main())
