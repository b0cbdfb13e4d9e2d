"""``python -m workshop.defects [--root DIR] [--jobs N] [--datasets D ...]``: build (or
find) the defect zoo, or the models of some of its datasets, and print its models with their
held-out accuracy on the clean split."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workshop.defects.build import defect_zoo_root, ensure_defect_zoo
from workshop.defects.variants import DEFECT_RECIPE, VARIANTS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workshop.defects")
    parser.add_argument(
        "--root", type=Path, default=None, help=f"directory (default: {defect_zoo_root()})"
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--datasets",
        nargs="+",
        default=None,
        choices=DEFECT_RECIPE.datasets,
        help="only these datasets' models (default: all)",
    )
    args = parser.parse_args(argv)
    card = ensure_defect_zoo(args.root, args.jobs, args.datasets)
    print(
        f"defect zoo: {defect_zoo_root(args.root)}  recipe {card.recipe_hash[:12]}  "
        f"built {card.built_at} in {card.build_seconds:.1f}s"
    )
    described = {v.path: v for v in VARIANTS}
    for m in card.models:
        v = described[m.path]
        print(
            f"{m.path:<32} {v.capability or 'clean':<11} held-out {m.accuracy:.4f}  "
            f"{m.train_seconds:>6.1f}s  {m.weights_sha256[:12]}  {v.description}"
        )
    return 0


if __name__ == "__main__":  # spawned build workers re-import __main__
    sys.exit(main())
