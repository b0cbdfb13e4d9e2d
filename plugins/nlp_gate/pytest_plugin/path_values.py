"""An ``--nlp-*`` option's path value written in the space form must not move the rootdir.

pytest picks the rootdir (and with it the ini file, and nlp-gate's ``thresholds.yaml``,
``reports/`` and ``.cache/``) from the command line's path arguments *before* any plugin has
registered its options.  At that moment ``--nlp-suite-dir DIR`` is an unknown option followed
by a free argument, and ``DIR``, when it exists, is taken as a test path: the rootdir becomes
the common ancestor of ``DIR`` and the run's paths.  Only later does the option take ``DIR``.

By the time a plugin runs the rootdir is decided, and no public pytest API decides it again,
so the run cannot be "handled" honestly: its ini file and every default were read from the
wrong folder.  It stops instead, once, before anything is read or written (exit 4), saying to
write ``--nlp-suite-dir=DIR``, which pytest never takes for a path.  A value that cannot have
moved the rootdir (one inside the folder the other paths share) is left alone, as is any
value after ``--rootdir`` or ``-c`` fixed the rootdir, and values from the ini file's
``addopts``, which pytest reads only after choosing the rootdir.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path

import pytest

# The files in which pytest may find its configuration, nearest first, when it walks up.
CONFIG_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
# Options that fix the rootdir or the ini file themselves: the path arguments then decide
# nothing.
FIXING_OPTIONS = ("--rootdir", "-c", "--config-file", "--inifile")


def validate(config: pytest.Config) -> None:
    """Stop the run (a usage error) if an ``--nlp-*`` path value moved the rootdir."""
    if hasattr(config, "workerinput"):  # a worker's arguments come from the controller
        return
    params = config.invocation_params
    # PYTEST_ADDOPTS is read before the rootdir is chosen, as the command line is.
    args = [*shlex.split(os.environ.get("PYTEST_ADDOPTS", "")), *params.args]
    message = problem(config, [str(a) for a in args], params.dir)
    if message is not None:
        raise pytest.UsageError(message)


def problem(config: pytest.Config, args: Sequence[str], invocation_dir: Path) -> str | None:
    """Why the rootdir is not the one the run meant, naming the option to rewrite; else None."""
    if any(
        a == o or a.startswith(f"{o}=") or (o == "-c" and a.startswith("-c") and a != "-c")
        for a in args
        for o in FIXING_OPTIONS
    ):
        return None
    taken = [
        (a, args[i + 1])
        for i, a in enumerate(args[:-1])
        if a.startswith("--nlp-")
        and "=" not in a
        and not args[i + 1].startswith("-")
        and _took(config, a, args[i + 1])
        and (invocation_dir / args[i + 1]).exists()
    ]
    if not taken:
        return None
    values = {v for _, v in taken}
    others = [
        _folder(invocation_dir / a)
        for a in args
        if not a.startswith("-")
        and a not in values
        and (invocation_dir / a.split("::")[0]).exists()
    ]
    shared = Path(os.path.commonpath(others)) if others else invocation_dir
    moved = [(o, v) for o, v in taken if not _folder(invocation_dir / v).is_relative_to(shared)]
    if not moved or _same_rootdir(config, shared):
        return None
    rewrite = " ".join(f"{o}={v}" for o, v in moved)
    return (
        f"{' '.join(f'{o} {v}' for o, v in moved)}: pytest took "
        f"{'this value' if len(moved) == 1 else 'these values'} for a test path when it "
        f"chose the rootdir, before nlp-gate's options exist, so the rootdir is "
        f"{config.rootpath} (its ini file, thresholds.yaml, reports/ and .cache/ are "
        f"looked up there) instead of the folder holding {shared}; write {rewrite}"
    )


def _took(config: pytest.Config, option: str, value: str) -> bool:
    """Whether ``option`` holds ``value`` (a flag followed by a test path does not)."""
    held = config.getoption(option.removeprefix("--").replace("-", "_"), None)
    for one in held if isinstance(held, list) else [held]:
        if (
            one is not None
            and not isinstance(one, bool)
            and (str(one) == value or Path(str(one)) == Path(value))
        ):
            return True
    return False


def _folder(path: Path) -> Path:
    path = path.resolve()
    return path if path.is_dir() else path.parent


def _same_rootdir(config: pytest.Config, shared: Path) -> bool:
    """Whether pytest, walking up from ``shared`` alone, would have found the same ini file:
    the one it chose lies above ``shared`` with no other configuration file on the way."""
    inipath = config.inipath
    if inipath is None or not shared.is_relative_to(inipath.parent):
        return False
    folder = shared
    while folder != inipath.parent:
        if any((folder / name).is_file() for name in CONFIG_FILES):
            return False
        folder = folder.parent
    return True
