"""The configuration of a gate run is checked before any of its items runs, as a usage error
(exit 4) that names the problem.

Raised while collecting, the same error would only be a collection error of one file (exit
2, "Interrupted"), so a CI job could not tell a bad thresholds file from a broken test
module.  A behavioral run is checked at session start (on the controller, before xdist
starts its workers); gated items from elsewhere (a user's own test module) once collected.
Under xdist a worker cannot stop the run: each gated item errors in its setup with the
message instead (``Run.configuration_problem``).
"""

from __future__ import annotations

import pytest

from nlp_gate import extras, sources
from nlp_gate.config import ConfigurationError
from nlp_gate.pytest_plugin.run_end import end_run
from nlp_gate.pytest_plugin.selection import case_of, requested_argnames, runs_behavioral_suite
from nlp_gate.pytest_plugin.stash import nlp_run

# Whether the configuration was validated already (at session start, for a behavioral run).
VALIDATED_KEY = pytest.StashKey[bool]()


def validate_at_start(session: pytest.Session) -> None:
    """A behavioral run's options, models and gates, before collection (controller only)."""
    config = session.config
    if hasattr(config, "workerinput") or not runs_behavioral_suite(config):
        return
    run = nlp_run(config)
    config.stash[VALIDATED_KEY] = True
    try:
        requested = requested_argnames(config, {k.argname for k in run.kinds.values()})
        # First what the run needs installed: [hf] for a checkpoint (the checks after it
        # would read its config with a library that may not be there), then for the items.
        extras.require(sources.model_needs(run.profile.models, run.options.load.backend))
        if not narrows_selection(config):  # every requested item will be selected
            extras.require(
                sources.item_needs(
                    {k.name: k.cases() for k in run.kinds.values() if k.argname in requested},
                    run.options.data_dir,
                    run.options.load.backend,
                )
            )
        run.validate(requested)
    except ConfigurationError as exc:
        # pytest ends a session refused here without pytest_sessionfinish: write this run's
        # (empty) results and reports now, so the last run's never stand in for them.
        end_run(config, pytest.ExitCode.USAGE_ERROR, refused=str(exc))
        raise pytest.UsageError(str(exc)) from exc


def narrows_selection(config: pytest.Config) -> bool:
    """Whether the command line may deselect some of the items the run's modules make (-m,
    -k, --deselect, node ids, last-failed, a shard): then only the collected items tell what
    is selected."""
    option = config.option
    return bool(
        option.markexpr
        or option.keyword
        or config.getoption("deselect", None)
        or config.getoption("lf", False)
        or option.nlp_shard
        or any("::" in arg for arg in config.args)
    )


def validate_collected(session: pytest.Session) -> None:
    """Remember the selected cases (models to load and inputs to prefetch come from them),
    and check what only the collected items tell."""
    config = session.config
    run = nlp_run(config)
    if run.collection_problems and not hasattr(config, "workerinput"):
        raise pytest.UsageError("\n".join(run.collection_problems))
    for item in session.items:
        case = case_of(run, item)
        if case is not None:  # a kind may parametrize another's cases (native comparisons)
            run.selected[case.kind].append(case)
    # What the selected items need installed, where start-up could not tell (a selection
    # by -m or -k; gated items from a module start-up did not know), was refused once with
    # the selection itself, on the controller (``selection.select``).
    validated = config.stash.get(VALIDATED_KEY, False) or (
        hasattr(config, "workerinput") and runs_behavioral_suite(config)
    )  # by the controller
    if any(run.selected.values()) and not validated:
        # Gated items from a path start-up did not know as behavioral (a user's own test
        # module elsewhere): the same validation, before any of them runs.
        config.stash[VALIDATED_KEY] = True
        try:
            run.validate({run.kinds[name].argname for name, cases in run.selected.items() if cases})
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
