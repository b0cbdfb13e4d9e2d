"""What asks for nlp-gate (``opt_in``), and the markers of a run that asked (``marks``): each rule
on a configuration pytest builds in this process (``pytester.parseconfigure``, ~0.1 s each).
A whole team's runs with and without the plugin: ``tests/integration/test_user_inert.py``."""

from __future__ import annotations

import signal

import pytest

from nlp_gate.pytest_plugin import marks, opt_in


def _configure(pytester: pytest.Pytester, *args: str) -> pytest.Config:
    return pytester.parseconfigure("-p", "no:cacheprovider", *args)


def test_a_run_that_asks_nothing_is_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntestpaths = tests\nmarkers =\n    slow: mine\n")
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    config = _configure(pytester)
    assert config.stash[opt_in.ASKED_KEY] is False and opt_in.reason(config) is None
    assert not any("nlp" in line for line in config.getini("markers"))
    assert not any("IPython" in line for line in config.getini("filterwarnings"))
    assert not config.pluginmanager.has_plugin("nlp-gate-run")  # none of the gate's hooks
    assert {sig: signal.getsignal(sig) for sig in handlers} == handlers  # given back


@pytest.mark.parametrize(
    ("ini", "args", "reason"),
    [
        ("nlp_gate_paths = tests_behavioral\n", (), "ini nlp_gate_paths"),
        # Set, even to its default value: the repository wrote it.
        ("nlp_gate_native_suites = false\n", (), "ini nlp_gate_native_suites"),
        ("", ("-o", "nlp_gate_profile=tiny"), "ini nlp_gate_profile"),
        ("", ("--nlp-seed=2",), "--nlp-seed"),
        ("addopts = --nlp-device cpu\n", (), "--nlp-device"),
        ("", ("--pyargs", "nlp_gate.native_tests", "--co"), "nlp_gate.native_tests"),
    ],
)
def test_what_asks(pytester: pytest.Pytester, ini: str, args: tuple[str, ...], reason: str) -> None:
    pytester.makeini(f"[pytest]\ntestpaths = tests\n{ini}")
    config = _configure(pytester, *args)
    assert opt_in.reason(config) == reason
    assert config.stash[opt_in.ASKED_KEY] is True
    assert config.pluginmanager.has_plugin("nlp-gate-run")


def test_an_option_at_its_default_and_the_environment_variable(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    # The default seed changes nothing: not asked.
    assert opt_in.reason(_configure(pytester, "--nlp-seed=1")) is None
    monkeypatch.setenv("PYTEST_ADDOPTS", "--nlp-sample 3")
    assert opt_in.reason(_configure(pytester)) == "--nlp-sample"


def test_bare_marker_names_the_team_registers_stay_the_teams(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        "[pytest]\nnlp_gate_paths = tests_behavioral\nmarkers =\n    regression: the team's\n"
    )
    # A conftest's own registration counts too (the plugin's pytest_configure runs last).
    pytester.makeconftest(
        "def pytest_configure(config):\n"
        "    config.addinivalue_line('markers', 'fairness: the team\\'s fairness tests')\n"
    )
    config = _configure(pytester)
    bare = config.stash[marks.BARE_KEY]
    assert "regression" not in bare and "fairness" not in bare
    assert {"negation", "checklist", "accuracy"} <= bare
    registered = {line.split(":")[0] for line in config.getini("markers")}
    assert {"nlp_regression", "nlp_fairness", "nlp_negation", "negation"} <= registered
    names = marks.names(config)
    assert "nlp_regression" in names and "regression" not in names and "negation" in names

    # A parameter set's marks: ours spelled twice (or once, where the name is the team's),
    # others (xdist_group, skip) as they were.
    [param] = marks.spelled(
        config,
        [
            pytest.param(
                1,
                id="x",
                marks=[pytest.mark.negation, pytest.mark.regression, pytest.mark.xdist_group("m")],
            )
        ],
    )
    assert param.id == "x" and param.values == (1,)
    assert [(m.name, m.args) for m in param.marks] == [
        ("nlp_negation", ()),
        ("negation", ()),
        ("nlp_regression", ()),
        ("xdist_group", ("m",)),
    ]
