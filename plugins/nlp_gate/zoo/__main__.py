"""``python -m nlp_gate.zoo build|train``.

``build [--root DIR] [--force]``: put the embedded zoo in place: the shipped files, sha256
checked, copied where a run reads them; nothing is trained (the attacks' masked LM is put in
place the same way by ``scripts/fetch_attack_resources.py --stand-ins``).  A damaged shipped
file stops it (exit 4).

``train [--root DIR] [--datasets ...] [--jobs N] [--ship] [--quiet]``: run the recipe (minutes;
its stages report progress on stderr, ``--quiet``: none), into ``--root`` (default
``.cache/zoo-trained``, never the zoo a run reads), and say which models this machine trains
to other weights than the embedded ones, with this CPU's features: exit 0 when every file is
the same, 1 when some differ.  ``--ship`` (the maintainers' step when the recipe truly
changes) also trains the masked LM and writes both as the embedded default.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from nlp_gate import progress
from nlp_gate.zoo import embedded
from nlp_gate.zoo.build import build_zoo, default_zoo_root, ensure_zoo
from nlp_gate.zoo.card import ZooCard
from nlp_gate.zoo.recipe import ALL_DATASETS, DEFAULT_RECIPE, library_versions

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
        choices=ALL_DATASETS,
        default=None,
        help="accepted for scripts; the embedded zoo is installed whole",
    )
    build.add_argument("--quiet", action="store_true", help="print nothing but errors")
    train = sub.add_parser("train", help="run the zoo's recipe and compare with the embedded zoo")
    train.add_argument(
        "--root",
        type=Path,
        default=Path(".cache/zoo-trained"),
        help="where to train (default: .cache/zoo-trained)",
    )
    train.add_argument("--datasets", nargs="+", choices=ALL_DATASETS, default=None)
    train.add_argument("--jobs", type=int, default=None, help="worker processes (default: up to 2)")
    train.add_argument(
        "--ship",
        action="store_true",
        help="write the rebuild (and a trained masked LM) as the embedded default",
    )
    train.add_argument("--quiet", action="store_true", help="no progress lines while it trains")
    args = parser.parse_args(argv)
    if args.quiet:
        progress.quiet()
    try:
        return _build(args) if args.command == "build" else _train(args)
    except embedded.EmbeddedError as exc:
        print(f"zoo: {exc}", file=sys.stderr)
        return DAMAGED
    except KeyboardInterrupt:
        # Ctrl-C is an answer, not a crash: the build's private folder is already removed
        # (build_locked, embedded.install), and a zoo already in place is untouched.
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
        _print_card(card)
    return 0


def _train(args: argparse.Namespace) -> int:
    from nlp_gate.kinds.attacks.standins import masked_lm

    start = time.perf_counter()
    root = args.root.resolve()
    card = build_zoo(root, force=True, datasets=args.datasets, jobs=args.jobs)
    _print_card(card)
    lm = root.parent / f"{root.name}-masked-lm"
    if args.ship:
        if args.datasets is not None:
            print("zoo: --ship needs the whole zoo (no --datasets)", file=sys.stderr)
            return 2
        masked_lm.build(lm)
        changed = embedded.ship(root, lm, DEFAULT_RECIPE.to_json(), library_versions())
        print(
            f"zoo: shipped to {embedded.WEIGHTS}: {len(changed)} file(s) changed"
            + "".join(f"\n  {name}" for name in changed)
        )
        return 0
    differ = [line for line in embedded.compare("zoo", root) if _in(line, card)]
    shipped_cpu = embedded.description().get("cpu", {})
    here = embedded.cpu()
    print(
        f"zoo: this machine: {_describe(here)}; the embedded zoo was built on "
        f"{_describe(shipped_cpu)}"
    )
    if differ:
        print(
            f"zoo: {len(differ)} file(s) trained to other bytes than the embedded zoo's "
            "(this CPU rounds otherwise; runs keep using the embedded zoo):"
            + "".join(f"\n  {line}" for line in differ)
        )
    else:
        print("zoo: every trained file equals the embedded zoo's")
    print(f"total: {time.perf_counter() - start:.1f}s")
    return 1 if differ else 0


def _in(line: str, card: ZooCard) -> bool:
    """Whether a compared file belongs to a dataset this training run built."""
    name = line.removeprefix("zoo/").partition(":")[0]
    return name.partition("/")[0] in {m.dataset for m in card.models}


def _describe(cpu: dict[str, str]) -> str:
    return ", ".join(cpu.get(k, "?") for k in ("machine", "model", "torch_capability"))


def _print_card(card: ZooCard) -> None:
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


if __name__ == "__main__":  # guard needed: spawn-started workers re-import __main__
    sys.exit(main())
