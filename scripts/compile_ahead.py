"""Compile ahead, on every core, the installed modules that the main job imports.

A new environment holds ~12,000 modules of which the main job (``scripts/gate.sh``) imports
~5,700: transformers' other model families, torch's compiler and distributed packages,
Jupyter, fontTools and the like are installed as dependencies but never loaded.  Compiling all
of them cost the set-up 19-43 s of two cores; Python would compile a module on its first
import anyway, but then in each of the job's processes that imports it at the same moment (the
zoo's workers, the masked LM's build, the two pytest workers), one core each.

``scripts/compile-ahead.txt`` lists the site-packages folders (relative to ``purelib``) that
hold a module the main job imported; every ``.py`` file directly in them is compiled (their
siblings too: a folder's modules are mostly imported together, and the list stays short).
What the list misses is compiled on its first import, as any module without bytecode, so a
stale list costs seconds, never a wrong result.

    python scripts/compile_ahead.py compile LIST            # set-up: compile what LIST names
    python scripts/compile_ahead.py record LIST             # write LIST from the bytecode
                                                            # present in this environment

To record the list anew (after the lock changes), on a fresh clone: ``bash scripts/setup.sh``,
then delete the environment's bytecode (``find .venv -name __pycache__ -prune -exec rm -r {}
+``), run the main job once with ``PYTHONDONTWRITEBYTECODE`` unset (``bash scripts/gate.sh``:
each module it imports is compiled then), and ``.venv/bin/python scripts/compile_ahead.py
record scripts/compile-ahead.txt``.  (pytest's plugins are left out by themselves: pytest
writes their bytecode, assertions rewritten, under another name.)
"""

from __future__ import annotations

import argparse
import compileall
import os
import sys
import sysconfig
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


def _purelib() -> Path:
    return Path(sysconfig.get_path("purelib"))


def _folders(listing: Path, purelib: Path) -> list[Path]:
    names = [line.strip() for line in listing.read_text().splitlines()]
    return [purelib / name for name in names if name and not name.startswith("#")]


def modules_in(folders: list[Path]) -> list[str]:
    """Every ``.py`` file directly in ``folders`` (those that exist), in a fixed order."""
    files: list[str] = []
    for folder in folders:
        if folder.is_dir():
            files += sorted(str(p) for p in folder.iterdir() if p.suffix == ".py" and p.is_file())
    return files


def _compile(path: str) -> bool:
    # quiet=2: a package's file that does not compile (a Python 2 example) is skipped
    # silently, as pip's own compile step skips it.
    return bool(compileall.compile_file(path, quiet=2))


def compile_listed(listing: Path, purelib: Path) -> tuple[int, int]:
    """Compile the listed folders' modules, a process per core; returns (modules, of which
    compiled or already current)."""
    files = modules_in(_folders(listing, purelib))
    if not files:
        return 0, 0
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        done = sum(pool.map(_compile, files, chunksize=64))
    return len(files), done


def record(listing: Path, purelib: Path) -> int:
    """Write ``listing``: the folders under ``purelib`` holding bytecode of this interpreter
    (``__pycache__/*.<cache_tag>.pyc``), i.e. modules imported since nothing was compiled."""
    tag = sys.implementation.cache_tag
    folders = sorted(
        {
            pyc.parent.parent.relative_to(purelib).as_posix()  # purelib itself: "."
            for pyc in purelib.rglob(f"__pycache__/*.{tag}.pyc")
        }
    )
    header = (
        "# Folders of site-packages holding a module the main job imports "
        "(scripts/compile_ahead.py record).\n"
    )
    listing.write_text(header + "".join(f"{f}\n" for f in folders))
    return len(folders)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("compile", "record"))
    parser.add_argument("listing", type=Path)
    parser.add_argument(
        "--purelib",
        type=Path,
        default=None,
        help="site-packages folder (default: this interpreter's)",
    )
    args = parser.parse_args(argv)
    purelib = args.purelib or _purelib()
    if args.command == "record":
        print(f"compile_ahead: {record(args.listing, purelib)} folders written to {args.listing}")
        return 0
    files, done = compile_listed(args.listing, purelib)
    print(f"compile_ahead: {done} of {files} modules compiled or current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
