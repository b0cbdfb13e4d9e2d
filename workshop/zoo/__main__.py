"""``python -m workshop.zoo train [--root DIR] [--datasets ...] [--jobs N] [--ship] [--quiet]``.

Run the recipe (minutes; its stages report progress on stderr, ``--quiet``: none), into
``--root`` (default ``.cache/zoo-trained``, never the zoo a run reads), and say which models
this machine trains to other weights than the embedded ones, with this CPU's features: exit 0
when every file is the same, 1 when some differ.  ``--ship`` (the maintainers' step when the
recipe truly changes) also trains the masked LM and writes both as the embedded default
(``nlp_gate/zoo/weights``).  Putting the embedded zoo in place is the runtime's
``python -m nlp_gate.zoo build``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from nlp_gate import progress
from nlp_gate.zoo import embedded
from nlp_gate.zoo.__main__ import print_card
from nlp_gate.zoo.card import ZooCard
from workshop.zoo import masked_lm, ship
from workshop.zoo.build import build_zoo
from workshop.zoo.recipe import ALL_DATASETS, DEFAULT_RECIPE, library_versions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workshop.zoo")
    sub = parser.add_subparsers(dest="command", required=True)
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
        return _train(args)
    except embedded.EmbeddedError as exc:
        print(f"zoo: {exc}", file=sys.stderr)
        return 4
    except KeyboardInterrupt:
        # Ctrl-C is an answer, not a crash: the build's private folder is already removed
        # (build_locked), and a zoo already in place is untouched.
        print("zoo: interrupted; nothing of this build was kept", file=sys.stderr)
        return 130


def _train(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    root = args.root.resolve()
    card = build_zoo(root, force=True, datasets=args.datasets, jobs=args.jobs)
    print_card(card)
    lm = root.parent / f"{root.name}-masked-lm"
    if args.ship:
        if args.datasets is not None:
            print("zoo: --ship needs the whole zoo (no --datasets)", file=sys.stderr)
            return 2
        masked_lm.build(lm)
        changed = ship.ship(root, lm, DEFAULT_RECIPE.to_json(), library_versions())
        print(
            f"zoo: shipped to {embedded.WEIGHTS}: {len(changed)} file(s) changed"
            + "".join(f"\n  {name}" for name in changed)
        )
        return 0
    differ = [line for line in ship.compare("zoo", root) if _in(line, card)]
    shipped_cpu = embedded.description().get("cpu", {})
    here = ship.cpu()
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


if __name__ == "__main__":  # guard needed: spawn-started workers re-import __main__
    sys.exit(main())
