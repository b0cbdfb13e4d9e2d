"""Which items a run collects and keeps, and which runs are behavioral at all.

A run that asked for nlp-gate (``opt_in``) is *behavioral* when its paths reach the
repository's behavioral paths (ini ``nlp_gate_paths``) or the packaged suites
(``nlp_gate/released``, ``nlp_gate/native_tests``): only such a run is validated at start-up,
expects items to gate, and writes the reports.  The project's own tests (and any other run)
go untouched.  Here too: parametrizing each kind's test functions, walking down to
the packaged suites wherever the package is installed, the refusal of a gate run that
selected nothing to gate, and ``--nlp-shard``'s split of what is left.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest

from nlp_gate import extras, sources
from nlp_gate.config import ConfigurationError
from nlp_gate.kinds.base import Case
from nlp_gate.packaged import modules
from nlp_gate.pytest_plugin import marks
from nlp_gate.pytest_plugin.options import ini
from nlp_gate.pytest_plugin.stash import nlp_run
from nlp_gate.run import Run
from nlp_gate.shard import split

_PACKAGE = Path(__file__).resolve().parent.parent  # nlp_gate/


@dataclass(frozen=True)
class PackagedSuite:
    """Test modules shipped inside the package, turned on by an ini key or named by a run."""

    ini: str  # the boolean ini key that adds them to a run of the repository's suite
    folder: Path  # where they lie in the installed package
    module: str  # what ``--pyargs`` names them by

    def on(self, config: pytest.Config) -> bool:
        return bool(ini(config, self.ini))

    def named(self, config: pytest.Config) -> bool:
        """Whether this run's arguments lie inside the suite (its folder, a module of it)."""
        return any(within(p, self.folder) for p in run_paths(config))


# The reference study's items (every kind) as a test module shipped with the package.
RELEASED = PackagedSuite("nlp_gate_release_suites", _PACKAGE / "released", "nlp_gate.released")
# The native behavioral suites (one module per capability), shipped with the package.
NATIVE = PackagedSuite("nlp_gate_native_suites", _PACKAGE / "native_tests", "nlp_gate.native_tests")
PACKAGED_SUITES = (RELEASED, NATIVE)
RELEASED_ITEMS, NATIVE_ITEMS = RELEASED.folder, NATIVE.folder


# -- which runs are behavioral ----------------------------------------------------------------
def behavioral_paths(config: pytest.Config) -> list[Path]:
    """Where this repository's gated items live: ini ``nlp_gate_paths`` (and the packaged
    suites).  Not pytest's ``testpaths``: those are the team's own tests as much as ours."""
    paths: list[Path] = ini(config, "nlp_gate_paths")
    # A packaged suite is behavioral when the ini turns it on, and in a run that names it
    # (its path, or --pyargs nlp_gate.released / nlp_gate.native_tests) whatever the ini says.
    packaged = [s.folder for s in PACKAGED_SUITES if s.on(config) or s.named(config)]
    return [p.resolve() for p in paths] + packaged


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
    return any(
        within(p, b) or within(b, p) for p in run_paths(config) for b in behavioral_paths(config)
    )


def runs_only_behavioral_suite(config: pytest.Config) -> bool:
    """Whether every path of this run lies inside a behavioral path."""
    paths, behavioral = run_paths(config), behavioral_paths(config)
    return bool(paths) and all(any(within(p, b) for b in behavioral) for p in paths)


def expects_gated_items(config: pytest.Config) -> bool:
    """Whether this run is meant to gate a model: it names one (``--nlp-model``) or collects
    from a behavioral path (``nlp_gate_paths``, the packaged items when on or named)."""
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
                files = _test_modules(path if within(path, folder) else folder)
            else:
                continue
            for file in files:
                text = file.read_text(errors="replace")
                found |= {name for name in argnames - found if name in text}
    return found


def _test_modules(top: Path) -> list[Path]:
    """The test modules under ``top``: a packaged suite's, wherever they lie (in a checkout
    not in its folder: ``nlp_gate/packaged.py``), else the files pytest's default patterns
    name."""
    if any(top == s.folder for s in PACKAGED_SUITES):
        return [m for m in modules(top) if m.name.startswith("test_")]
    return [*top.rglob("test_*.py"), *top.rglob("*_test.py")]


# -- collecting the packaged suites -----------------------------------------------------------
def add_packaged_suites(config: pytest.Config) -> None:
    """A run of the repository's suite also collects the packaged suites its ini turns on: a
    run of the default paths, or one whose arguments hold a whole behavioral path (``pytest
    tests_behavioral``, the main job's command; or the rootdir when ``nlp_gate_paths`` is not
    set).  A run that names anything else runs what it names (``pytest tests``, a file inside
    a behavioral path, ``--pyargs nlp_gate.native_tests``)."""
    if not _runs_whole_suite(config):
        return
    for suite in PACKAGED_SUITES:
        if suite.on(config) and str(suite.folder) not in config.args:
            config.args.append(str(suite.folder))


def _runs_whole_suite(config: pytest.Config) -> bool:
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        return True
    # Not the testpaths: a team's ``pytest tests`` names its own tests only.
    roots = [p.resolve() for p in ini(config, "nlp_gate_paths")] or [config.rootpath]
    return any(within(root, p) for p in run_paths(config) for root in roots)


def enter_packaged(
    collection_path: Path, config: pytest.Config, ignored: bool | None
) -> bool | None:
    """Walk down to the packaged suites wherever the package is installed (``ignored``: what
    the other ``pytest_ignore_collect`` hooks said).

    A run of the suite collects them by appending their folders to the arguments
    (``add_packaged_suites``), but pytest drops an argument that lies inside another one, and
    walking the other one it skips virtual environments (``pyvenv.cfg``, ``conda-meta``) and
    ``norecursedirs`` (``.*``, ``venv``): with ``.venv`` inside the repository, the most
    common layout, the packaged items were silently never collected.  So the folders from
    the walk's start down to each packaged suite are entered, and nothing else inside a
    folder entered only for that (the rest of site-packages stays skipped)."""
    targets = _named_packaged_folders(config)
    if not targets:
        return ignored
    path = Path(collection_path)
    entered = config.stash.setdefault(_ENTERED_KEY, set())
    if any(path == t or path in t.parents for t in targets):
        if ignored:
            entered.add(path)
            return False
        return ignored
    if not any(within(path, t) for t in targets) and any(p in entered for p in path.parents):
        return True  # a sibling inside a skipped folder (another installed package)
    return ignored


_ENTERED_KEY = pytest.StashKey[set[Path]]()
_NAMED_KEY = pytest.StashKey[list[Path]]()


def _named_packaged_folders(config: pytest.Config) -> list[Path]:
    """The packaged suites this run's arguments hold (added by the ini, or named)."""
    if _NAMED_KEY not in config.stash:
        config.stash[_NAMED_KEY] = [s.folder for s in PACKAGED_SUITES if s.named(config)]
    return config.stash[_NAMED_KEY]


# -- items ------------------------------------------------------------------------------------
def parametrize(metafunc: pytest.Metafunc) -> None:
    """Each kind's cases as the parameters of the test functions that ask for its argument,
    their marks spelled for this run (``marks.spelled``)."""
    for kind in nlp_run(metafunc.config).kinds.values():
        if kind.argname in metafunc.fixturenames:
            try:
                params = kind.params_for(metafunc.function)
                _ = kind.gates  # validate its gates before anything runs
            except ConfigurationError as exc:
                if hasattr(metafunc.config, "workerinput"):  # a collection error of the module
                    raise pytest.UsageError(str(exc)) from exc
                # Found while collecting (e.g. a released suite missing in a run whose modules
                # ask for released items): the run stops as a usage error once collected.
                problems = nlp_run(metafunc.config).collection_problems
                problems += [str(exc)] if str(exc) not in problems else []
                params = []
            metafunc.parametrize(kind.argname, marks.spelled(metafunc.config, params))


def case_of(run: Run, item: pytest.Item) -> Case | None:
    """The case of a behavioral item (of the first kind that parametrizes it), else None."""
    params = getattr(item, "callspec", None)
    for kind in run.kinds.values():
        case = params.params.get(kind.argname) if params else None
        # A kind with no cases here (attacks on a profile without a dataset to attack) gets
        # pytest's one skipped item of an empty parameter set, whose value is no case.
        if getattr(case, "kind", None) in run.kinds:
            return cast(Case, case)
    return None


def is_nlp_gate_item(run: Run, item: pytest.Item) -> bool:
    """Whether a kind parametrizes ``item``: a case, or a kind's placeholder that skips
    saying why it has none (``-m regression`` with no baseline declared)."""
    params = getattr(item, "callspec", None)
    return params is not None and any(kind.argname in params.params for kind in run.kinds.values())


def select(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """A run that should gate something but selected nothing to gate stops (a silent "no
    tests ran" would read as a release that nothing stopped); ``--nlp-shard K/N``: keep this
    shard's items (every process computes the same split)."""
    run = nlp_run(config)
    if (
        not session.testsfailed  # a collection error is the message then
        and expects_gated_items(config)
        and not any(is_nlp_gate_item(run, item) for item in items)
    ):
        if not hasattr(config, "workerinput"):
            raise pytest.UsageError(no_gated_items_message(config, len(items)))
        # A worker cannot stop the run with a usage error: it hands the xdist controller no
        # item, and the controller says why (XdistController.pytest_xdist_node_collection_
        # finished).
        config.hook.pytest_deselected(items=list(items))
        items[:] = []
        return
    shard = run.options.shard
    if shard is not None:
        keep = split([run.shard_group(case_of(run, item)) for item in items], shard)
        config.hook.pytest_deselected(items=[i for i, k in zip(items, keep) if not k])
        items[:] = [i for i, k in zip(items, keep) if k]
    missing = missing_extras(run, items)
    if missing is None:
        return
    if not hasattr(config, "workerinput"):
        raise pytest.UsageError(missing)
    # A worker cannot stop the run: it hands the controller its message and no item, and
    # the controller stops the run with it, once (XdistController.pytest_xdist_node_
    # collection_finished), instead of every selected item erroring with it.
    target = config.workerinput.get(REFUSAL_FILE_KEY)
    if target is None:  # a controller without nlp-gate's handoff: each item says it
        run.configuration_problem = f"configuration error: {missing}"
        return
    Path(target).write_text(missing)
    config.hook.pytest_deselected(items=list(items))
    items[:] = []


# The workerinput key of the file a worker writes the selection's refusal to.
REFUSAL_FILE_KEY = "nlp_gate_refusal_file"


def missing_extras(run: Run, items: list[pytest.Item]) -> str | None:
    """What the selected items need that is not installed (one line per extra), else None:
    their models' libraries, a hub evaluation set's, and those of the items a missing
    extra kept from being made (``extras.Unmade``, e.g. attack recipes without TextAttack)."""
    selected: dict[str, list[Case]] = {}
    unmade: list[extras.Need] = []
    for item in items:
        case = case_of(run, item)
        if case is not None:
            selected.setdefault(case.kind, []).append(case)
        params = getattr(item, "callspec", None)
        unmade += [
            v.need
            for v in (params.params.values() if params else ())
            if isinstance(v, extras.Unmade)
        ]
    return extras.refusal(
        [
            *sources.item_needs(selected, run.options.data_dir, run.options.load.backend),
            *dict.fromkeys(unmade),
        ]
    )


def no_gated_items_message(config: pytest.Config, selected: int) -> str:
    """Why a run meant to gate a model has no item to gate: an ``-m`` expression naming a
    marker that does not exist (a typo), or a selection that left none."""
    markexpr = str(config.option.markexpr or "")
    known = {line.split(":")[0].split("(")[0].strip() for line in config.getini("markers")}
    # pytest's mark expression: identifiers, and/or/not, parentheses, keyword arguments
    names = re.findall(r"(?:\w|:|\+|-|\.|\[|\]|\\|/)+", re.sub(r"(?<=\w)\([^)]*\)", "", markexpr))
    unknown = sorted(set(names) - known - {"and", "or", "not"})
    gate_markers = marks.names(config)
    if unknown:
        return (
            f"-m {markexpr!r} names no known marker: {', '.join(unknown)}; nlp-gate's "
            f"markers are {', '.join(gate_markers)} (each also as nlp_<name>; pytest --markers "
            "lists every one)"
        )
    paths = ", ".join(str(p) for p in run_paths(config))
    return (
        f"nlp-gate: this run selects no nlp-gate item to gate ({selected} other item(s) "
        f"selected from {paths}"
        + (f" with -m {markexpr!r}" if markexpr else "")
        + (f" -k {config.option.keyword!r}" if config.option.keyword else "")
        + "): a release gate that tests nothing cannot pass. Check -m / -k (nlp-gate's "
        f"markers: {', '.join(gate_markers)}) and the paths: the packaged suites come "
        "with " + "; ".join(f"ini {s.ini} = true or --pyargs {s.module}" for s in PACKAGED_SUITES)
    )
