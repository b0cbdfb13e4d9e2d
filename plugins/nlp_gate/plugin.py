"""The pytest plugin (entry point ``pytest11: nlp_gate``): options, hooks and fixtures.

Thin by design: the run's state lives in ``Session`` (``config.stash``), each kind of item
behind the ``ItemKind`` interface (``nlp_gate.kinds``); these hooks only wire them to pytest.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import signal
import sys
import threading
from collections.abc import Generator
from pathlib import Path
from typing import Any

import allure
import pytest

from nlp_gate.config import ConfigurationError, at_least
from nlp_gate.engine.predictor import LoadOptions
from nlp_gate.kinds import KINDS
from nlp_gate.kinds.base import Case, Verdict
from nlp_gate.report import RunEnd, write_run
from nlp_gate.session import Options, Session
from nlp_gate.shard import Shard, ShardError, split

SESSION_KEY = pytest.StashKey[Session]()
RUN_END_KEY = pytest.StashKey[RunEnd]()  # what the controller wrote at the end of the run
PYTEST_SESSION_KEY = pytest.StashKey[pytest.Session]()
# The stop signal this process received (SIGINT, SIGTERM), once one came.
STOP_SIGNAL_KEY = pytest.StashKey[str]()
WIRE_KEY = "nlp_gate_records"
# The reference study's items (every kind) as a test module shipped with the package.
RELEASED_ITEMS = Path(__file__).resolve().with_name("released")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("nlp-gate", "behavioral release gate for NLP classifiers")
    group.addoption("--nlp-profile", default=None,
                    help="model profile from the models file (default: ini nlp_gate_profile, "
                         "else tiny)")
    group.addoption("--nlp-models-file", type=Path, default=None,
                    help="a models file of your own (default: ini nlp_gate_models_file, else "
                         "the packaged profiles)")
    group.addoption("--nlp-thresholds", type=Path, default=None,
                    help="fail-rate gates (default: thresholds.yaml at the rootdir)")
    group.addoption("--nlp-sample", type=at_least(1), default=None,
                    help="run a seeded sample of N test cases per CheckList test")
    group.addoption("--nlp-seed", type=int, default=1,
                    help="seed for sampling (default 1, as the seed report's TestSuite.run)")
    group.addoption("--nlp-device", default="auto",
                    help="auto (CUDA when present, one GPU per xdist worker), cpu, cuda, cuda:N")
    group.addoption("--nlp-dtype", default="float32", choices=("float32", "float16", "bfloat16"))
    group.addoption("--nlp-batch-size", type=at_least(1), default=LoadOptions.batch_size,
                    help=f"inputs per forward pass (default: {LoadOptions.batch_size})")
    group.addoption("--nlp-prediction-cache", default=None,
                    help="persistent prediction cache file, or 'off' "
                         "(default: $NLP_GATE_CACHE/predictions.sqlite, i.e. <rootdir>/.cache/)")
    group.addoption("--nlp-cache-max-mb", type=at_least(1, " (off: --nlp-prediction-cache off)"),
                    default=2048,
                    help="bound of the prediction cache; least recently used models go first")
    group.addoption("--nlp-results", type=Path, default=None,
                    help="where results.json is written (default: <rootdir>/reports/results.json)")
    group.addoption("--nlp-data-dir", type=Path, default=None,
                    help="offline evaluation sets for the accuracy and attack items: "
                         "DIR/<dataset>/<split>.jsonl (python -m nlp_gate.eval_sets DIR "
                         "writes them); default: the zoo's held-out sets, hub datasets")
    group.addoption("--nlp-model", action="append", default=[],
                    metavar="TASK=ID_OR_DIR_OR_FUNCTION",
                    help="run on this model, no models file needed (repeatable; two models of "
                         "a task are compared): a hub id, a checkpoint directory or "
                         "module:function; TASK[label,...]=... gives the output labels")
    group.addoption("--nlp-shard", type=_shard, default=None, metavar="K/N",
                    help="run the K-th of N disjoint parts of the selected items, split by "
                         "dataset and balanced by cost (merge: python -m nlp_gate.report merge)")
    for kind in KINDS:
        kind.add_options(group)
    parser.addini("nlp_gate_release_suites", type="bool", default=False,
                  help="collect the reference study's items (released CheckList suites, "
                       "accuracy, comparison, TextAttack recipes) from the nlp_gate package")
    parser.addini("nlp_gate_models_file", default="",
                  help="models file, relative to the rootdir (default: packaged profiles)")
    parser.addini("nlp_gate_profile", default="", help="profile of the models file (tiny)")


def _shard(text: str) -> Shard:
    try:
        return Shard.parse(text)
    except ShardError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def pytest_configure(config: pytest.Config) -> None:
    # CheckList's viewer (imported with its Editor and test types) uses a deprecated IPython
    # import: noise in every run that builds native tests, nothing a user can act on.
    config.addinivalue_line(
        "filterwarnings", "ignore:Importing display from IPython.core.display:DeprecationWarning")
    for kind in KINDS:
        for name, doc in kind.markers.items():
            config.addinivalue_line("markers", f"{name}: {doc}")
    config.stash[SESSION_KEY] = Session(Options.from_config(config), config.option)
    if (config.getini("nlp_gate_release_suites")
            and config.args_source != pytest.Config.ArgsSource.ARGS
            and str(RELEASED_ITEMS) not in config.args):
        # A run of the default paths (testpaths or the rootdir) also collects the packaged
        # items; a run naming paths runs what it names (``--pyargs nlp_gate.released`` too).
        config.args.append(str(RELEASED_ITEMS))
    if not hasattr(config, "workerinput"):  # the controller, or a run without xdist
        if config.pluginmanager.hasplugin("xdist"):
            config.pluginmanager.register(_XdistController(config), "nlp-gate-xdist")
    # Every process, xdist workers too: Ctrl-C and a CI time-out signal the whole process
    # group, and a worker without a handler would die of it (SIGTERM) or abort its item
    # (SIGINT), which the controller could only report as a crash.
    _stop_on_signals(config)


def _stop_on_signals(config: pytest.Config) -> None:
    """SIGTERM (a CI job's time-out) and SIGINT (Ctrl-C) stop the run cleanly: the running
    items finish, no new one starts, and pytest ends the session as interrupted (exit 2), so
    results.json and the reports are written for every finished item, marked
    ``"interrupted": true``.  A second signal stops at once.  (Without this, SIGTERM kills
    the process outright, and an interrupt raised inside an arbitrary frame can crash
    pytest's own interrupt report.)

    Under xdist a terminal's Ctrl-C and a CI runner's SIGTERM reach every process of the
    group.  A worker then ends after its running item (xdist's worker loop checks
    ``session.shouldstop`` between items) and tells the controller so (its ``shouldstop``),
    whose own handler has stopped scheduling: the run ends as interrupted, with no worker
    reported as crashed and none replaced.  The controller remembers the signal
    (``STOP_SIGNAL_KEY``): a worker that dies anyway (the second signal, or one that came
    before its handler was set) was stopped, not crashed (``_XdistController``)."""
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers can only be set from the main thread
    stopping: list[str] = []

    def stop(signum: int, frame: object) -> None:
        name = signal.Signals(signum).name
        session = config.stash.get(PYTEST_SESSION_KEY, None)
        config.stash[STOP_SIGNAL_KEY] = name
        if session is None or stopping:
            raise KeyboardInterrupt(f"signal {name}")
        stopping.append(name)
        reason = f"{name}: stopping after the running items (send it again to stop now)"
        session.shouldstop = reason  # checked by pytest (and xdist's workers) between items
        dsession = config.pluginmanager.getplugin("dsession")
        if dsession is not None:  # the xdist controller: its loop stops the workers
            dsession.shouldstop = reason

    for sig in (signal.SIGTERM, signal.SIGINT):
        previous = signal.signal(sig, stop)
        config.add_cleanup(lambda sig=sig, previous=previous: signal.signal(sig, previous))


def nlp_session(config: pytest.Config) -> Session:
    return config.stash[SESSION_KEY]


def pytest_report_header(config: pytest.Config) -> list[str]:
    try:
        return nlp_session(config).report_header()
    except ConfigurationError as exc:
        return [f"nlp-gate: configuration error: {exc}"]


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


# -- start-up, collection ---------------------------------------------------------------------
@pytest.hookimpl(tryfirst=True)  # before xdist starts its workers
def pytest_sessionstart(session: pytest.Session) -> None:
    """Validate the configuration of a behavioral run before collection, as a usage error.

    Raised while collecting, the same error would only be a collection error of one file
    (exit code 2, "Interrupted"), so a CI job could not tell a bad thresholds file from a
    broken test module.  Only the controller checks: xdist workers start after it.
    """
    config = session.config
    config.stash[PYTEST_SESSION_KEY] = session  # for a stop signal (_stop_on_signals)
    if hasattr(config, "workerinput") or not runs_behavioral_suite(config):
        return
    run = nlp_session(config)
    config.stash[VALIDATED_KEY] = True
    try:
        run.validate(requested_argnames(config, {k.argname for k in run.kinds.values()}))
    except ConfigurationError as exc:
        # pytest ends a session refused here without pytest_sessionfinish: write this run's
        # (empty) results and reports now, so the last run's never stand in for them.
        _write_run(config, pytest.ExitCode.USAGE_ERROR, refused=str(exc))
        raise pytest.UsageError(str(exc)) from exc


# Whether pytest_sessionstart validated the configuration (a run of a behavioral path).
VALIDATED_KEY = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_ignore_collect(collection_path: Path, config: pytest.Config
                          ) -> Generator[None, bool | None, bool | None]:
    """Walk down to the packaged items wherever the package is installed.

    A run of the default paths collects them by appending their folder to the arguments
    (``pytest_configure``), but pytest drops an argument that lies inside another one, and
    walking the other one it skips virtual environments (``pyvenv.cfg``, ``conda-meta``) and
    ``norecursedirs`` (``.*``, ``venv``): with ``.venv`` inside the repository, the most
    common layout, the released items were silently never collected.  So the folders from
    the walk's start down to ``nlp_gate/released`` are entered, and nothing else inside a
    folder entered only for that (the rest of site-packages stays skipped)."""
    ignored = yield
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


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
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


@pytest.hookimpl(trylast=True)  # after -m and -k deselected theirs: balance what is left
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """A run that should gate something but selected nothing to gate stops (a silent "no
    tests ran" would read as a release that nothing stopped); ``--nlp-shard K/N``: keep this
    shard's items (every process computes the same split)."""
    run = nlp_session(config)
    if (not session.testsfailed  # a collection error is the message then
            and expects_gated_items(config)
            and not any(case_of(run, item) is not None for item in items)):
        if not hasattr(config, "workerinput"):
            raise pytest.UsageError(no_gated_items_message(config, len(items)))
        # A worker cannot stop the run with a usage error: it hands the xdist controller no
        # item, and the controller says why (pytest_xdist_node_collection_finished).
        config.hook.pytest_deselected(items=list(items))
        items[:] = []
        return
    shard = run.options.shard
    if shard is None:
        return
    keep = split([run.shard_group(case_of(run, item)) for item in items], shard)
    config.hook.pytest_deselected(items=[i for i, k in zip(items, keep) if not k])
    items[:] = [i for i, k in zip(items, keep) if k]


def expects_gated_items(config: pytest.Config) -> bool:
    """Whether this run is meant to gate a model: it names one (``--nlp-model``) or collects
    from a behavioral path (the testpaths, the packaged items when on or named)."""
    return bool(config.option.nlp_model) or runs_behavioral_suite(config)


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


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook, on its controller
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """Under xdist only the workers collect: one that selected no item where items to gate
    were expected hands none (``pytest_collection_modifyitems``), and the run stops here."""
    config: pytest.Config = node.config
    session = config.stash.get(PYTEST_SESSION_KEY, None)
    if not ids and expects_gated_items(config) and not (session and session.testsfailed):
        raise pytest.UsageError(no_gated_items_message(config, 0))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Remember the selected cases: models to load and inputs to prefetch come from them."""
    config = session.config
    run = nlp_session(config)
    if run.collection_problems and not hasattr(config, "workerinput"):
        raise pytest.UsageError("\n".join(run.collection_problems))
    for item in session.items:
        case = case_of(run, item)
        if case is not None:  # a kind may parametrize another's cases (native comparisons)
            run.selected[run.kind_of(case).name].append(case)
    validated = config.stash.get(VALIDATED_KEY, False) or (
        hasattr(config, "workerinput") and runs_behavioral_suite(config))  # by the controller
    if any(run.selected.values()) and not validated:
        # Gated items from a path start-up did not know as behavioral (a user's own test
        # module elsewhere): the same validation, before any of them runs.
        config.stash[VALIDATED_KEY] = True
        try:
            run.validate({run.kinds[name].argname for name, cases in run.selected.items()
                          if cases})
        except ConfigurationError as exc:
            if not hasattr(config, "workerinput"):
                raise pytest.UsageError(str(exc)) from exc
            run.configuration_problem = f"configuration error: {exc}"
    if config.args_source != pytest.Config.ArgsSource.ARGS and runs_behavioral_suite(config):
        # A run of the whole suite has seen every native test: the gates may name no other.
        try:
            run.validate_collected()
        except ConfigurationError as exc:
            if not hasattr(config, "workerinput"):
                raise pytest.UsageError(str(exc)) from exc
            # Under xdist only workers collect, and a worker cannot stop the run with a usage
            # error: each gated item errors in its setup with the message instead.
            run.configuration_problem = f"configuration error: {exc}"


# -- fixtures -------------------------------------------------------------------------------
@pytest.fixture(scope="session", name="nlp_session")
def nlp_session_fixture(request: pytest.FixtureRequest) -> Session:
    """The run's core: profile, thresholds, loaded models, the item kinds."""
    return nlp_session(request.config)


@pytest.fixture(autouse=True)
def _nlp_prepare(request: pytest.FixtureRequest) -> None:
    """Stop, in its setup, an item whose kind says it cannot run here (e.g. an attack recipe
    whose resource is missing): a named skip, or an error."""
    callspec = getattr(request.node, "callspec", None)
    if callspec is None:
        return
    run = nlp_session(request.config)
    for kind in run.kinds.values():
        case = callspec.params.get(kind.argname)
        verdict = run.prepare(case) if case is not None else None
        if verdict is not None and verdict.message:
            if verdict.skip:
                pytest.skip(verdict.message)
            pytest.fail(verdict.message, pytrace=False)


@pytest.fixture(scope="session")
def nlp_check(request: pytest.FixtureRequest) -> Check:
    """Run a case of any registered kind as this item: labels, verdict, record, pass/fail."""
    return Check(nlp_session(request.config))


class Check:
    def __init__(self, session: Session) -> None:
        self.session = session

    def __call__(self, case: Case) -> Verdict:
        kind = self.session.kind_of(case)
        labels = kind.labels(case)
        allure.dynamic.parameter(kind.argname, case.id, mode=allure.parameter_mode.HIDDEN)
        if labels is not None:
            allure.dynamic.epic(labels.epic)
            allure.dynamic.feature(labels.feature)
            allure.dynamic.story(labels.story)
            for name, value in labels.parameters.items():
                allure.dynamic.parameter(name, value)
            if labels.description:
                allure.dynamic.description(labels.description)
        verdict = self.session.check(case)
        for name, value in verdict.parameters.items():
            allure.dynamic.parameter(name, value)
        if verdict.description:
            allure.dynamic.description(verdict.description)
        for a in verdict.attachments:
            allure.attach(a.body, name=a.name, attachment_type=(
                allure.attachment_type.JSON if a.kind == "json" else allure.attachment_type.TEXT))
        if verdict.message and verdict.skip:
            pytest.skip(verdict.message)
        if verdict.message:
            pytest.fail(f"{case.id}: {verdict.message}", pytrace=False)
        return verdict


# -- results and reports ----------------------------------------------------------------------
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    drop_idle_hypothesis_plugin(config)
    run = nlp_session(config)
    run.record_engine_stats()
    if hasattr(config, "workerinput"):  # xdist worker: hand what is left to the controller
        wire = run.results.take_wire()
        if wire:
            config.workeroutput[WIRE_KEY] = wire  # type: ignore[attr-defined]
        return
    if config.option.collectonly:
        return
    # A usage error found while collecting (a bad native test name, no item to gate): the
    # run was refused, and pytest prints the message after this hook.
    refused = exitstatus == pytest.ExitCode.USAGE_ERROR
    if not (run.results.sections or any(run.selected.values())
            or ((refused or session.testscollected) and expects_gated_items(config))):
        return  # no gated item in this run (e.g. the project's own tests): reports/ untouched
    end = _write_run(config, int(exitstatus), refused=(
        "a usage error (exit 4) stopped the run before any item ran; see its ERROR message"
        if refused else None))
    gate = end.verdict()
    if (gate.problems or gate.errored) and session.exitstatus == pytest.ExitCode.OK:
        # A run gate (attacks.min_ran) or unwritable reports belong to no item, so no item
        # failed for them: the run does (pytest returns session.exitstatus after this hook).
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _write_run(config: pytest.Config, exitstatus: int, refused: str | None = None) -> RunEnd:
    """results.json and the reports of this run, from the controller's records; whatever
    cannot be written is one message for the terminal summary (``RUN_END_KEY``)."""
    run = nlp_session(config)
    results = run.results.body(run.run_metadata(),
                               interrupted=exitstatus == pytest.ExitCode.INTERRUPTED,
                               exitstatus=exitstatus, refused=refused)
    alluredir = config.getoption("allure_report_dir", default=None)  # allure-pytest's --alluredir
    end = write_run(run.options.results, results,
                    alluredir=Path(alluredir) if alluredir else None, exitstatus=exitstatus,
                    plot_cache=run.options.cache_dir / "plots")
    config.stash[RUN_END_KEY] = end
    return end


def drop_idle_hypothesis_plugin(config: pytest.Config) -> None:
    """Unregister hypothesis's pytest plugin before the terminal summary of a run that only
    ran behavioral items.

    That plugin imports all of hypothesis in its terminal summary (~0.85 s, in every xdist
    worker and then in the controller) even when no test used it, as no behavioral item does:
    a third of a run that answers every item from the prediction cache.  Runs of the
    project's own tests (which use hypothesis) keep it.
    """
    if runs_only_behavioral_suite(config) and "hypothesis" not in sys.modules:
        config.pluginmanager.unregister(name="hypothesispytest")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return
    run = nlp_session(config)
    for kind in reversed(list(run.kinds.values())):
        lines = kind.summary_lines(run.results.records(kind.records))
        if lines:
            terminalreporter.section(f"nlp-gate {kind.name}")
            for line in lines:
                terminalreporter.write_line(line)
    end = config.stash.get(RUN_END_KEY, None)  # written by the controller only
    if end is None or end.results.get("refused"):
        return  # no gated item in this run, or refused: pytest prints the one message
    terminalreporter.section("nlp-gate")
    for line in end.lines(int(exitstatus)):
        terminalreporter.write_line(line)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A gated item that failed without recording a gate verdict (an exception, a model
    refused at load, a failed setup) is recorded as an error with its cause.  On an xdist
    worker, the item's records travel with its teardown report."""
    report = yield
    run = nlp_session(item.config)
    case = case_of(run, item) if report.failed else None
    if case is not None and not run.has_verdict(case):
        crash = getattr(report.longrepr, "reprcrash", None)
        message = crash.message if crash is not None else report.longreprtext
        run.record_error(case, item.nodeid, call.when, message.removeprefix("Failed: "))
    if call.when == "teardown" and hasattr(item.config, "workerinput"):
        wire = nlp_session(item.config).results.take_wire()
        if wire:
            report.user_properties.append((WIRE_KEY, wire))
    return report


class _XdistController:
    """Collects worker records on the controller (registered only when xdist is active), and
    tells a worker that died from a run that was stopped.

    Each item is counted once.  xdist reports the item a dead worker was running as failed
    and, under ``--dist loadgroup`` (this project's default), runs it again on another
    worker with the rest of its group; under ``--dist load`` it does not.  So a lost item is
    recorded in results.json ``lost`` when its worker dies, and moved to ``recovered`` when
    its final report arrives after all: its record is its outcome.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        # Node ids whose teardown report (which carries their records) has arrived.
        self.finished: set[str] = set()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        wires = [value for name, value in report.user_properties if name == WIRE_KEY]
        # An item xdist ran again though it had finished (its worker died between its end
        # and xdist's note of it) brings its records a second time: the first stand.
        again = report.when == "teardown" and report.nodeid in self.finished
        for wire in wires if not again else []:
            nlp_session(self.config).results.merge_wire(wire)
        if wires:  # consumed: not for other reporters (JUnit XML properties)
            report.user_properties = [p for p in report.user_properties if p[0] != WIRE_KEY]
        if report.when == "teardown":
            self.finished.add(report.nodeid)
            nlp_session(self.config).settle_lost_item(report.nodeid)

    @pytest.hookimpl
    def pytest_testnodedown(self, node: object, error: object) -> None:
        wire = getattr(node, "workeroutput", {}).get(WIRE_KEY)
        if wire:
            nlp_session(self.config).results.merge_wire(wire)

    @pytest.hookimpl
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport,
                               sched: object) -> None:
        """A worker died while running ``crashitem`` (xdist reports it as failed).

        After a stop signal (this process got it too: Ctrl-C and CI time-outs signal the
        whole group) the worker was stopped, not crashed: the item is reported as not run,
        and the run ends as interrupted.  Otherwise: an error of the run naming the lost
        item's models and the likely cause, recorded in results.json ``lost`` and counted as
        failed by the verdict, unless its final report comes after all (xdist ran it again,
        or it had finished): then its record counts, and ``recovered`` names it."""
        stop = self.config.stash.get(STOP_SIGNAL_KEY, None)
        if stop is not None:
            report.outcome = "skipped"
            report.when = "setup"
            report.longrepr = (crashitem.split("::")[0], None,
                               f"not run to its end: the run was interrupted ({stop})")
            return
        if not runs_behavioral_suite(self.config):
            return  # not a gate run (e.g. the project's own tests): xdist's report as it is
        run = nlp_session(self.config)
        lost = run.record_lost_item(crashitem, str(report.longrepr))
        report.when = "setup"  # an error of the run, not a gate the model missed
        report.longrepr = f"{report.longrepr}\n{lost['message']}"
        if crashitem in self.finished:  # its records arrived before its worker died
            run.settle_lost_item(crashitem)
