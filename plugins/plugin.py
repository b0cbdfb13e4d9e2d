"""pytest plugin: options, hooks and fixtures.  The behaviour lives in ``GateSession``."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from fixtures.checklist_release import SuiteUnavailable, default_search_dirs
from fixtures.profiles import DEFAULT_PROFILE, ModelSpec, ProfileError
from plugins.predictor import Classifier, LoadOptions, ModelLoadError
from plugins.report import Reports, terminal_lines, write_reports
from plugins.session import CAPABILITY_MARKERS, TYPE_MARKERS, ChecklistCase, GateSession, Options
from plugins.thresholds import ThresholdsError

REPO_ROOT = Path(__file__).resolve().parent.parent
SESSION_KEY = pytest.StashKey[GateSession]()
REPORTS_KEY = pytest.StashKey[Reports]()
WIRE_KEY = "nlp_gate_records"

MARKERS = {
    **{m: f"CheckList capability {m}" for m in CAPABILITY_MARKERS},
    **{m: f"CheckList test type {m.upper()}" for m in TYPE_MARKERS},
    "checklist": "a CheckList test item",
    "sentiment": "CheckList sentiment suite (seed Table 2)",
    "qqp": "CheckList QQP suite (seed Table 3)",
}
CONFIG_ERRORS = (ProfileError, ThresholdsError, SuiteUnavailable)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("nlp-gate", "behavioral release gate for NLP classifiers")
    group.addoption("--nlp-profile", default=DEFAULT_PROFILE,
                    help="model profile from the models file (default: %(default)s)")
    group.addoption("--nlp-models-file", type=Path, default=None,
                    help="a models file of your own (schema of fixtures/models.yaml)")
    group.addoption("--nlp-thresholds", type=Path, default=REPO_ROOT / "thresholds.yaml",
                    help="fail-rate gates (default: thresholds.yaml at the repo root)")
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
                         "(default: $NLP_GATE_CACHE/predictions.sqlite, i.e. .cache/)")
    group.addoption("--nlp-cache-max-mb", type=int, default=2048,
                    help="bound of the prediction cache; least recently used models go first")
    group.addoption("--nlp-results", type=Path, default=REPO_ROOT / "reports" / "results.json",
                    help="where results.json is written (default: reports/results.json)")
    group.addoption("--nlp-suite-dir", type=Path, action="append", default=[],
                    help="directory holding CheckList's release suite tarballs (repeatable)")
    group.addoption("--nlp-download", action="store_true",
                    help="download missing release suites from CheckList's repository")


def pytest_configure(config: pytest.Config) -> None:
    for name, doc in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {doc}")
    cache_dir = Path(os.environ.get("NLP_GATE_CACHE", REPO_ROOT / ".cache"))
    opt = config.option
    cache_file = {None: cache_dir / "predictions.sqlite", "off": None}.get(
        opt.nlp_prediction_cache, Path(str(opt.nlp_prediction_cache)))
    options = Options(
        profile=opt.nlp_profile,
        models_file=opt.nlp_models_file,
        thresholds=opt.nlp_thresholds,
        sample=opt.nlp_sample,
        seed=opt.nlp_seed,
        load=LoadOptions(device=opt.nlp_device, dtype=opt.nlp_dtype,
                         batch_size=opt.nlp_batch_size, cache=cache_file,
                         cache_max_mb=opt.nlp_cache_max_mb),
        results=opt.nlp_results,
        # Explicit --nlp-suite-dir replaces the defaults (../shared and the user cache).
        suite_dirs=tuple(opt.nlp_suite_dir) or tuple(default_search_dirs(REPO_ROOT)),
        download=opt.nlp_download,
        cache_dir=cache_dir,
        zoo_dir=Path(os.environ.get("NLP_GATE_ZOO_DIR", cache_dir / "zoo")),
        owns_whole_models=owns_whole_models(config),
    )
    config.stash[SESSION_KEY] = GateSession(options)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistController(config), "nlp-gate-xdist")


def owns_whole_models(config: pytest.Config) -> bool:
    """Whether each process runs all items of the models it runs (see ``Options``).

    xdist workers see ``dist="no"`` and the controller's choice in ``loadgroup``, the option
    xdist sets on every worker to decide whether to group items by ``xdist_group``.
    """
    if not hasattr(config, "workerinput"):
        return True  # the controller runs nothing under xdist; without xdist, everything
    return bool(getattr(config.option, "loadgroup", False))


def gate_session(config: pytest.Config) -> GateSession:
    return config.stash[SESSION_KEY]


def pytest_report_header(config: pytest.Config) -> list[str]:
    try:
        return gate_session(config).report_header()
    except CONFIG_ERRORS as exc:
        return [f"nlp-gate: configuration error: {exc}"]


BEHAVIORAL_SUITE = REPO_ROOT / "tests_behavioral"


def run_paths(config: pytest.Config) -> list[Path]:
    """The paths this run collects from, resolved."""
    return [(config.invocation_params.dir / arg.split("::")[0]).resolve() for arg in config.args]


def within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def runs_behavioral_suite(config: pytest.Config) -> bool:
    """Whether this run's paths include ``tests_behavioral`` (or a folder above it)."""
    return any(within(p, BEHAVIORAL_SUITE) or within(BEHAVIORAL_SUITE, p)
               for p in run_paths(config))


def runs_only_behavioral_suite(config: pytest.Config) -> bool:
    """Whether every path of this run lies inside ``tests_behavioral``."""
    paths = run_paths(config)
    return bool(paths) and all(within(p, BEHAVIORAL_SUITE) for p in paths)


def validate_at_start(config: pytest.Config, check: Callable[[], object]) -> None:
    """Run a configuration ``check`` before collection, as a usage error (exit code 4).

    Raised while collecting, the same error would only be a collection error of one file
    (exit code 2, "Interrupted"), so a CI job could not tell a bad thresholds file from a
    broken test module.  Only the controller checks: xdist workers start after it.
    """
    if hasattr(config, "workerinput") or not runs_behavioral_suite(config):
        return
    try:
        check()
    except CONFIG_ERRORS as exc:
        raise pytest.UsageError(str(exc)) from exc


@pytest.hookimpl(tryfirst=True)  # before xdist starts its workers
def pytest_sessionstart(session: pytest.Session) -> None:
    gate = gate_session(session.config)
    # Suites found and decoded, gates naming only tests, capabilities, datasets, models that exist.
    validate_at_start(session.config, lambda: (gate.checklist_cases(), gate.thresholds))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "checklist_case" not in metafunc.fixturenames:
        return
    session = gate_session(metafunc.config)
    try:
        cases = session.checklist_cases()
        session.thresholds  # validate gates against the suites before anything runs
    except CONFIG_ERRORS as exc:
        raise pytest.UsageError(str(exc)) from exc
    metafunc.parametrize(
        "checklist_case", [pytest.param(c, id=c.id, marks=c.marks()) for c in cases])


def pytest_collection_finish(session: pytest.Session) -> None:
    """Remember the selected cases: models to load and inputs to prefetch come from them."""
    gate = gate_session(session.config)
    gate.selected = [value for item in session.items if hasattr(item, "callspec")
                     for value in item.callspec.params.values()
                     if isinstance(getattr(value, "model", None), ModelSpec)]


@pytest.fixture(scope="session")
def nlp_gate(request: pytest.FixtureRequest) -> GateSession:
    return gate_session(request.config)


@pytest.fixture(scope="session")
def nlp_models(nlp_gate: GateSession) -> Iterator[dict[str, Classifier]]:
    """Every model this run's items need, loaded once per worker, validated before any test."""
    specs = [case.model for case in nlp_gate.selected]
    specs += [m for case in nlp_gate.selected for m in getattr(case, "extra_models", ())]
    try:
        yield nlp_gate.load_models(specs)
    except ModelLoadError as exc:
        pytest.fail(f"model refused: {exc}", pytrace=False)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    drop_idle_hypothesis_plugin(config)
    gate = gate_session(config)
    gate.record_engine_stats()
    if hasattr(config, "workerinput"):  # xdist worker: hand records to the controller
        config.workeroutput[WIRE_KEY] = gate.results.to_wire()  # type: ignore[attr-defined]
        return
    if config.option.collectonly:
        return
    try:
        run = gate.run_metadata()
    except CONFIG_ERRORS:
        return  # already reported as a usage error
    if not gate.selected and not gate.results.sections:
        return  # no behavioral item in this run (e.g. the project's own tests): keep reports
    gate.results.write(gate.options.results, run)
    if not gate.results.sections:  # no gated item ran: keep the last run's reports
        return
    alluredir = config.getoption("allure_report_dir", default=None)  # allure-pytest's --alluredir
    config.stash[REPORTS_KEY] = write_reports(
        gate.options.results, alluredir=Path(alluredir) if alluredir else None,
        exitstatus=int(exitstatus), plot_cache=gate.options.cache_dir / "plots")


def drop_idle_hypothesis_plugin(config: pytest.Config) -> None:
    """Unregister hypothesis's pytest plugin before the terminal summary of a run that only
    ran the behavioral suite.

    That plugin imports all of hypothesis in its terminal summary (~0.85 s, in every xdist
    worker and then in the controller) even when no test used it, as no behavioral item does:
    a third of a run that answers every item from the prediction cache.  Runs of the
    project's own tests (which use hypothesis) keep it.
    """
    if runs_only_behavioral_suite(config) and "hypothesis" not in sys.modules:
        config.pluginmanager.unregister(name="hypothesispytest")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    reports = config.stash.get(REPORTS_KEY, None)  # written by the controller only
    if reports is None:  # a worker, or no gated item ran
        return
    terminalreporter.section("nlp-gate")
    for line in terminal_lines(reports, int(exitstatus)):
        terminalreporter.write_line(line)


class _XdistController:
    """Collects worker records on the controller (registered only when xdist is active)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl
    def pytest_testnodedown(self, node: object, error: object) -> None:
        wire = getattr(node, "workeroutput", {}).get(WIRE_KEY)
        if wire:
            gate_session(self.config).results.merge_wire(wire)
