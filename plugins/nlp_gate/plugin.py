"""The pytest plugin (entry point ``pytest11: nlp_gate``): options, hooks and fixtures.

Thin by design: the run's state lives in ``Session`` (``config.stash``), each kind of item
behind the ``ItemKind`` interface (``nlp_gate.kinds``); these hooks only wire them to pytest.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Generator
from pathlib import Path

import allure
import pytest

from nlp_gate.config import ConfigurationError
from nlp_gate.engine.predictor import LoadOptions
from nlp_gate.kinds import KINDS
from nlp_gate.kinds.base import Case, Verdict
from nlp_gate.report import Reports, terminal_lines, write_reports
from nlp_gate.report.verdict import verdict
from nlp_gate.session import Options, Session
from nlp_gate.shard import Shard, ShardError, split

SESSION_KEY = pytest.StashKey[Session]()
REPORTS_KEY = pytest.StashKey[Reports]()
PYTEST_SESSION_KEY = pytest.StashKey[pytest.Session]()
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
    group.addoption("--nlp-sample", type=int, default=None,
                    help="run a seeded sample of N test cases per CheckList test")
    group.addoption("--nlp-seed", type=int, default=1,
                    help="seed for sampling (default 1, as the seed report's TestSuite.run)")
    group.addoption("--nlp-device", default="auto",
                    help="auto (CUDA when present, one GPU per xdist worker), cpu, cuda, cuda:N")
    group.addoption("--nlp-dtype", default="float32", choices=("float32", "float16", "bfloat16"))
    group.addoption("--nlp-batch-size", type=int, default=LoadOptions.batch_size,
                    help=f"inputs per forward pass (default: {LoadOptions.batch_size})")
    group.addoption("--nlp-prediction-cache", default=None,
                    help="persistent prediction cache file, or 'off' "
                         "(default: $NLP_GATE_CACHE/predictions.sqlite, i.e. <rootdir>/.cache/)")
    group.addoption("--nlp-cache-max-mb", type=int, default=2048,
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
        _stop_on_signals(config)


def _stop_on_signals(config: pytest.Config) -> None:
    """SIGTERM (a CI job's time-out) and SIGINT (Ctrl-C) stop the run cleanly: the running
    items finish, no new one starts, and pytest ends the session as interrupted (exit 2), so
    results.json and the reports are written for every finished item, marked
    ``"interrupted": true``.  A second signal stops at once.  (Without this, SIGTERM kills
    the process outright, and an interrupt raised inside an arbitrary frame can crash
    pytest's own interrupt report.)"""
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers can only be set from the main thread
    stopping: list[str] = []

    def stop(signum: int, frame: object) -> None:
        name = signal.Signals(signum).name
        session = config.stash.get(PYTEST_SESSION_KEY, None)
        if session is None or stopping:
            raise KeyboardInterrupt(f"signal {name}")
        stopping.append(name)
        reason = f"{name}: stopping after the running items (send it again to stop now)"
        session.shouldstop = reason  # checked by pytest between items
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
    return [p.resolve() for p in paths] + (
        [RELEASED_ITEMS] if config.getini("nlp_gate_release_suites") else [])


def run_paths(config: pytest.Config) -> list[Path]:
    """The paths this run collects from, resolved."""
    return [(config.invocation_params.dir / arg.split("::")[0]).resolve() for arg in config.args]


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
    try:
        run.validate(requested_argnames(config, {k.argname for k in run.kinds.values()}))
    except ConfigurationError as exc:
        raise pytest.UsageError(str(exc)) from exc


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
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--nlp-shard K/N``: keep this shard's items (every process computes the same split)."""
    run = nlp_session(config)
    shard = run.options.shard
    if shard is None:
        return
    keep = split([run.shard_group(case_of(run, item)) for item in items], shard)
    config.hook.pytest_deselected(items=[i for i, k in zip(items, keep) if not k])
    items[:] = [i for i, k in zip(items, keep) if k]


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
    try:
        metadata = run.run_metadata()
    except ConfigurationError:
        return  # already reported as a usage error
    if not any(run.selected.values()) and not run.results.sections:
        return  # no gated item in this run (e.g. the project's own tests): keep reports
    run.results.write(run.options.results, metadata,
                      interrupted=exitstatus == pytest.ExitCode.INTERRUPTED,
                      exitstatus=int(exitstatus))
    if not run.results.sections:  # no gated item ran: keep the last run's reports
        return
    alluredir = config.getoption("allure_report_dir", default=None)  # allure-pytest's --alluredir
    reports = write_reports(
        run.options.results, alluredir=Path(alluredir) if alluredir else None,
        exitstatus=int(exitstatus), plot_cache=run.options.cache_dir / "plots")
    config.stash[REPORTS_KEY] = reports
    if verdict(reports.results).problems and session.exitstatus == pytest.ExitCode.OK:
        # A run gate (attacks.min_ran) belongs to no item, so no item failed for it: the
        # run does (pytest returns session.exitstatus after this hook).
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


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
    reports = config.stash.get(REPORTS_KEY, None)  # written by the controller only
    if reports is None:  # no gated item ran
        return
    terminalreporter.section("nlp-gate")
    for line in terminal_lines(reports, int(exitstatus)):
        terminalreporter.write_line(line)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """On an xdist worker, the item's records travel with its teardown report."""
    report = yield
    if call.when == "teardown" and hasattr(item.config, "workerinput"):
        wire = nlp_session(item.config).results.take_wire()
        if wire:
            report.user_properties.append((WIRE_KEY, wire))
    return report


class _XdistController:
    """Collects worker records on the controller (registered only when xdist is active)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        wires = [value for name, value in report.user_properties if name == WIRE_KEY]
        for wire in wires:
            nlp_session(self.config).results.merge_wire(wire)
        if wires:  # consumed: not for other reporters (JUnit XML properties)
            report.user_properties = [p for p in report.user_properties if p[0] != WIRE_KEY]

    @pytest.hookimpl
    def pytest_testnodedown(self, node: object, error: object) -> None:
        wire = getattr(node, "workeroutput", {}).get(WIRE_KEY)
        if wire:
            nlp_session(self.config).results.merge_wire(wire)

    @pytest.hookimpl
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport,
                               sched: object) -> None:
        """A worker died while running ``crashitem`` (xdist reports it as failed, and does
        not run it again): an error of the run naming the lost item's models and the likely
        cause, recorded in results.json ``lost`` and counted as failed by the verdict."""
        if not runs_behavioral_suite(self.config):
            return  # not a gate run (e.g. the project's own tests): xdist's report as it is
        lost = nlp_session(self.config).record_lost_item(crashitem, str(report.longrepr))
        report.when = "setup"  # an error of the run, not a gate the model missed
        report.longrepr = f"{report.longrepr}\n{lost['message']}"
