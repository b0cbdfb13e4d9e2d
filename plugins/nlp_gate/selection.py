"""Which items a run collects and keeps, and which runs are behavioral at all.

A run is *behavioral* when its paths reach this repository's ``testpaths`` or the packaged
items (``nlp_gate/released``): only such a run is validated at start-up, expects items to
gate, and writes the reports.  The project's own tests (and any other run) go untouched.
Here too: parametrizing each kind's test functions, walking down to the packaged items
wherever the package is installed, the refusal of a gate run that selected nothing to gate,
and ``--nlp-shard``'s split of what is left.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from nlp_gate.config import ConfigurationError
from nlp_gate.kinds import KINDS
from nlp_gate.kinds.base import Case
from nlp_gate.session import Session
from nlp_gate.shard import split
from nlp_gate.stash import nlp_session

# The reference study's items (every kind) as a test module shipped with the package.
RELEASED_ITEMS = Path(__file__).resolve().with_name("released")


# -- which runs are behavioral ----------------------------------------------------------------
def behavioral_paths(config: pytest.Config) -> list[Path]:
    """Where this repository's gated items live: its ``testpaths`` (and the packaged items)."""
    paths = [config.rootpath / p for p in config.getini("testpaths")]
    # The packaged items are behavioral when the ini turns them on, and in a run that names
    # them (their path, or --pyargs nlp_gate.released) whatever the ini says.
    released = config.getini("nlp_gate_release_suites") or any(
        within(p, RELEASED_ITEMS) for p in run_paths(config))
    return [p.resolve() for p in paths] + ([RELEASED_ITEMS] if released else [])


def run_paths(config: pytest.Config) -> list[Path]:
    """The paths this run collects from, resolved (``--pyargs`` module names to their files,
    as pytest resolves them: ``nlp_gate.released`` is the packaged items' folder)."""
    return [_arg_path(config, arg.split("::")[0]) for arg in config.args]


def _arg_path(config: pytest.Config, arg: str) -> Path:
    if config.option.pyargs and _MODULE_NAME.match(arg):
        try:
            spec = importlib.util.find_spec(arg)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin and spec.has_location:
            origin = Path(spec.origin)
            return (origin.parent if spec.submodule_search_locations else origin).resolve()
    return (config.invocation_params.dir / arg).resolve()


_MODULE_NAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def runs_behavioral_suite(config: pytest.Config) -> bool:
    """Whether this run's paths include a behavioral path (or a folder above one)."""
    return any(within(p, b) or within(b, p)
               for p in run_paths(config) for b in behavioral_paths(config))


def runs_only_behavioral_suite(config: pytest.Config) -> bool:
    """Whether every path of this run lies inside a behavioral path."""
    paths, behavioral = run_paths(config), behavioral_paths(config)
    return bool(paths) and all(any(within(p, b) for b in behavioral) for p in paths)


def expects_gated_items(config: pytest.Config) -> bool:
    """Whether this run is meant to gate a model: it names one (``--nlp-model``) or collects
    from a behavioral path (the testpaths, the packaged items when on or named)."""
    return bool(config.option.nlp_model) or runs_behavioral_suite(config)


def requested_argnames(config: pytest.Config, argnames: set[str]) -> set[str]:
    """Which of ``argnames`` the test modules this run will collect ask for, read from their
    source: under xdist the controller collects nothing, and a module whose items cannot be
    made (the released suites absent) must stop the run before the workers start, not be a
    collection error on each of them."""
    found: set[str] = set()
    for path in run_paths(config):
        for folder in behavioral_paths(config):
            if within(path, folder) and path.is_file():
                files = [path]
            elif within(folder, path) or within(path, folder):
                top = path if within(path, folder) else folder
                files = [*top.rglob("test_*.py"), *top.rglob("*_test.py")]
            else:
                continue
            for file in files:
                text = file.read_text(errors="replace")
                found |= {name for name in argnames - found if name in text}
    return found


# -- collecting the packaged items ------------------------------------------------------------
def add_released_items(config: pytest.Config) -> None:
    """A run of the default paths (testpaths or the rootdir) also collects the packaged items
    when the ini turns them on; a run naming paths runs what it names (``--pyargs
    nlp_gate.released`` too)."""
    if (config.getini("nlp_gate_release_suites")
            and config.args_source != pytest.Config.ArgsSource.ARGS
            and str(RELEASED_ITEMS) not in config.args):
        config.args.append(str(RELEASED_ITEMS))


def enter_released(collection_path: Path, config: pytest.Config,
                   ignored: bool | None) -> bool | None:
    """Walk down to the packaged items wherever the package is installed (``ignored``: what
    the other ``pytest_ignore_collect`` hooks said).

    A run of the default paths collects them by appending their folder to the arguments
    (``add_released_items``), but pytest drops an argument that lies inside another one, and
    walking the other one it skips virtual environments (``pyvenv.cfg``, ``conda-meta``) and
    ``norecursedirs`` (``.*``, ``venv``): with ``.venv`` inside the repository, the most
    common layout, the released items were silently never collected.  So the folders from
    the walk's start down to ``nlp_gate/released`` are entered, and nothing else inside a
    folder entered only for that (the rest of site-packages stays skipped)."""
    if not _walks_to_released_items(config):
        return ignored
    path = Path(collection_path)
    entered = config.stash.setdefault(_ENTERED_KEY, set())
    if path == RELEASED_ITEMS or path in RELEASED_ITEMS.parents:
        if ignored:
            entered.add(path)
            return False
        return ignored
    if not within(path, RELEASED_ITEMS) and any(p in entered for p in path.parents):
        return True  # a sibling inside a skipped folder (another installed package)
    return ignored


_ENTERED_KEY = pytest.StashKey[set[Path]]()
_WALKS_KEY = pytest.StashKey[bool]()


def _walks_to_released_items(config: pytest.Config) -> bool:
    """Whether this run asks for the packaged items (its arguments hold their folder)."""
    if _WALKS_KEY not in config.stash:
        config.stash[_WALKS_KEY] = any(within(p, RELEASED_ITEMS) for p in run_paths(config))
    return config.stash[_WALKS_KEY]


# -- items ------------------------------------------------------------------------------------
def parametrize(metafunc: pytest.Metafunc) -> None:
    """Each kind's cases as the parameters of the test functions that ask for its argument."""
    for kind in nlp_session(metafunc.config).kinds.values():
        if kind.argname in metafunc.fixturenames:
            try:
                params = kind.params_for(metafunc.function)
                kind.gates  # validate its gates before anything runs
            except ConfigurationError as exc:
                if hasattr(metafunc.config, "workerinput"):  # a collection error of the module
                    raise pytest.UsageError(str(exc)) from exc
                # Found while collecting (e.g. a released suite missing in a run whose modules
                # ask for released items): the run stops as a usage error once collected.
                problems = nlp_session(metafunc.config).collection_problems
                problems += [str(exc)] if str(exc) not in problems else []
                params = []
            metafunc.parametrize(kind.argname, params)


def case_of(run: Session, item: pytest.Item) -> Case | None:
    """The case of a behavioral item (of the first kind that parametrizes it), else None."""
    params = getattr(item, "callspec", None)
    for kind in run.kinds.values():
        case = params.params.get(kind.argname) if params else None
        if case is not None:
            return case
    return None


def is_nlp_gate_item(run: Session, item: pytest.Item) -> bool:
    """Whether a kind parametrizes ``item``: a case, or a kind's placeholder that skips
    saying why it has none (``-m regression`` with no baseline declared)."""
    params = getattr(item, "callspec", None)
    return params is not None and any(kind.argname in params.params
                                      for kind in run.kinds.values())


def select(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """A run that should gate something but selected nothing to gate stops (a silent "no
    tests ran" would read as a release that nothing stopped); ``--nlp-shard K/N``: keep this
    shard's items (every process computes the same split)."""
    run = nlp_session(config)
    if (not session.testsfailed  # a collection error is the message then
            and expects_gated_items(config)
            and not any(is_nlp_gate_item(run, item) for item in items)):
        if not hasattr(config, "workerinput"):
            raise pytest.UsageError(no_gated_items_message(config, len(items)))
        # A worker cannot stop the run with a usage error: it hands the xdist controller no
        # item, and the controller says why (XdistController.pytest_xdist_node_collection_
        # finished).
        config.hook.pytest_deselected(items=list(items))
        items[:] = []
        return
    shard = run.options.shard
    if shard is None:
        return
    keep = split([run.shard_group(case_of(run, item)) for item in items], shard)
    config.hook.pytest_deselected(items=[i for i, k in zip(items, keep) if not k])
    items[:] = [i for i, k in zip(items, keep) if k]


def no_gated_items_message(config: pytest.Config, selected: int) -> str:
    """Why a run meant to gate a model has no item to gate: an ``-m`` expression naming a
    marker that does not exist (a typo), or a selection that left none."""
    markexpr = str(config.option.markexpr or "")
    known = {line.split(":")[0].split("(")[0].strip() for line in config.getini("markers")}
    # pytest's mark expression: identifiers, and/or/not, parentheses, keyword arguments
    names = re.findall(r"(?:\w|:|\+|-|\.|\[|\]|\\|/)+",
                       re.sub(r"(?<=\w)\([^)]*\)", "", markexpr))
    unknown = sorted(set(names) - known - {"and", "or", "not"})
    gate_markers = sorted({name for kind in KINDS for name in kind.markers})
    if unknown:
        return (f"-m {markexpr!r} names no known marker: {', '.join(unknown)}; nlp-gate's "
                f"markers are {', '.join(gate_markers)} (pytest --markers lists every one)")
    paths = ", ".join(str(p) for p in run_paths(config))
    return (f"nlp-gate: this run selects no nlp-gate item to gate ({selected} other item(s) "
            f"selected from {paths}"
            + (f" with -m {markexpr!r}" if markexpr else "")
            + (f" -k {config.option.keyword!r}" if config.option.keyword else "")
            + "): a release gate that tests nothing cannot pass. Check -m / -k (nlp-gate's "
            f"markers: {', '.join(gate_markers)}) and the paths: the packaged items come with "
            "ini nlp_gate_release_suites = true, or --pyargs nlp_gate.released")
