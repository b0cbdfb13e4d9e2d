"""pytest plugin for the attack items: options, parametrization, fixtures.

Registered in the root ``conftest.py``; the work happens in ``AttackRunner`` (``run.py``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from plugins.attacks.cases import AttackCase, attack_cases
from plugins.attacks.gates import AttackGates
from plugins.attacks.recipes import names, registry
from plugins.attacks.resources import Bundle
from plugins.attacks.run import SECTION, AttackRunner, AttackSettings, Unavailable
from plugins.plugin import CONFIG_ERRORS, REPO_ROOT, gate_session, validate_at_start
from plugins.thresholds import load_thresholds

RUNNER_KEY = pytest.StashKey[AttackRunner]()
BUNDLE_KEY = pytest.StashKey[Bundle]()
DEFAULT_DATASETS = ("rte",)  # the seed report attacks its RTE models
# TextAttack's default budget is unlimited, and its genetic recipes (iga, faster-alzantot, pso,
# alzantot) then make thousands of queries per example; a budget bounds an item's cost.
DEFAULT_QUERY_BUDGET = 500


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("nlp-gate")
    group.addoption("--nlp-attack-examples", type=int, default=10,
                    help="examples attacked per recipe and model (default: %(default)s, as the "
                         "seed report)")
    group.addoption("--nlp-attack-seed", type=int, default=765,
                    help="TextAttack's random seed (default: %(default)s, TextAttack's own)")
    group.addoption("--nlp-attack-query-budget", type=int, default=DEFAULT_QUERY_BUDGET,
                    help="model queries allowed per attacked example (default: %(default)s; "
                         "0: unlimited, TextAttack's default and the seed's setting)")
    group.addoption("--nlp-attack-batch-size", type=int, default=32,
                    help="inputs per model call inside an attack (default: %(default)s)")
    group.addoption("--nlp-attack-dataset", action="append", default=[],
                    help="dataset of the profile to attack (repeatable; default: rte)")
    group.addoption("--nlp-resources", type=Path, default=None,
                    help="resource bundle for offline attacks: TextAttack cache, NLTK data, "
                         "hub caches (default: .cache/attack-resources); build one with "
                         "scripts/fetch_attack_resources.py")
    group.addoption("--nlp-offline", choices=("skip", "strict"), default="skip",
                    help="a recipe whose resource is missing: skip it (default) or, strict, "
                         "fail it")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "adversarial: a TextAttack recipe attacking a model")
    cache_dir = Path(os.environ.get("NLP_GATE_CACHE", REPO_ROOT / ".cache"))
    bundle = Bundle((config.option.nlp_resources or cache_dir / "attack-resources").resolve())
    bundle.activate()  # before NLTK, flair or the hubs are imported
    config.stash[BUNDLE_KEY] = bundle


def attack_runner(config: pytest.Config) -> AttackRunner:
    """The per-process runner, built on first use (validates the attack gates)."""
    if RUNNER_KEY not in config.stash:
        gate = gate_session(config)
        opt = config.option
        profile = gate.profile
        section = load_thresholds(gate.options.thresholds, profile.name).section(SECTION)
        gates = AttackGates(section, f"{gate.options.thresholds} (profile {profile.name!r})")
        gates.validate(names(), profile.datasets, profile.model_names)
        settings = AttackSettings(
            examples=opt.nlp_attack_examples, seed=opt.nlp_attack_seed,
            query_budget=opt.nlp_attack_query_budget or None,
            batch_size=opt.nlp_attack_batch_size,
            strict=opt.nlp_offline == "strict",
        )
        config.stash[RUNNER_KEY] = AttackRunner(
            settings, config.stash[BUNDLE_KEY], gates, gate.results, gate.options.zoo_dir,
            # --nlp-data-dir belongs to the accuracy plugin; the attacks read the same splits.
            getattr(opt, "nlp_data_dir", None), gate.options.results.parent / "attacks",
        )
    return config.stash[RUNNER_KEY]


def attack_datasets(config: pytest.Config) -> list[str]:
    """The datasets to attack; validates the attack gates on the way."""
    gate = gate_session(config)
    profile = gate.profile
    attack_runner(config)
    explicit = config.option.nlp_attack_dataset
    # The default (RTE) is attacked when the profile has it; a user's models file without
    # it simply has no attack items.  A dataset asked for by name must exist.
    datasets = explicit or [d for d in DEFAULT_DATASETS if d in profile.datasets]
    unknown = sorted(set(datasets) - set(profile.datasets))
    if unknown:
        raise pytest.UsageError(f"--nlp-attack-dataset {', '.join(unknown)}: not a dataset of "
                                f"profile {profile.name!r}; valid: {', '.join(profile.datasets)}")
    return datasets


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    validate_at_start(session.config, lambda: attack_datasets(session.config))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "attack_case" not in metafunc.fixturenames:
        return
    try:
        datasets = attack_datasets(metafunc.config)
    except CONFIG_ERRORS as exc:
        raise pytest.UsageError(str(exc)) from exc
    cases = attack_cases(registry(), gate_session(metafunc.config).profile, datasets)
    metafunc.parametrize(
        "attack_case", [pytest.param(c, id=c.id, marks=c.marks()) for c in cases])


@pytest.fixture(scope="session")
def nlp_attacks(request: pytest.FixtureRequest) -> AttackRunner:
    return attack_runner(request.config)


@pytest.fixture
def attack_ready(attack_case: AttackCase, nlp_attacks: AttackRunner) -> AttackCase:
    """The case, once its recipe is known to be able to run here: otherwise a skip naming
    what is missing, or under --nlp-offline=strict an error (raised in setup)."""
    problem = nlp_attacks.unavailable(attack_case)
    if problem is not None:
        stop(problem)
    return attack_case


def stop(problem: Unavailable) -> None:
    if problem.error:
        pytest.fail(problem.message, pytrace=False)
    pytest.skip(problem.message)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter,
                            config: pytest.Config) -> None:
    records = gate_session(config).results.records(SECTION)
    if hasattr(config, "workerinput") or not records:
        return
    ran = [r for r in records if r["status"] == "ran"]
    over = [r for r in ran if not r["passed"]]
    terminalreporter.section("nlp-gate attacks")
    terminalreporter.write_line(
        f"{len(records)} attack items: {len(ran)} ran ({len(over)} over their gate), "
        f"{len(records) - len(ran)} skipped; examples under {gate_session(config).options.results.parent / 'attacks'}")
