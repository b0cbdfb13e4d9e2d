"""--nlp-trust-registry-code NAME: an MLflow pyfunc model runs code pickled into the
registry, so it loads only when the user names it; without that the run stops at start-up
with one message saying how to consent.  With consent it is gated as a prediction function
is (its probe batch checked at start-up: scores that are no probabilities stop the run), its
fingerprint the registry version it resolved to.  A transformers flavor needs no consent
(tests/integration/test_mlflow_registry.py)."""

from __future__ import annotations

import pytest

pytest.importorskip("mlflow")

from fixtures.gate_run import GateRun, RunGate  # after the importorskip above
from fixtures.mlflow_registry import LocalRegistry, mlflow_registry, registry_env  # noqa: F401  # after the importorskip above; pytest fixtures

ARGS = ("-m", "fairness", "--nlp-sample", "10")
LEXICON = "sentiment[negative,positive]=models:/sst2-lexicon/1"


def one_error(run: GateRun) -> str:
    """The message of a run refused at start-up (exit 4): one, without a traceback."""
    err = run.result.stderr.str()
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR, err[-2000:]
    assert err.count("ERROR:") == 1 and "Traceback" not in err, err[-2000:]
    return err[err.index("ERROR:") :]


def test_a_pyfunc_without_consent_stops_the_run_and_says_how_to_consent(
    run_gate: RunGate, registry_env: LocalRegistry
) -> None:
    message = one_error(run_gate("--nlp-model", LEXICON, *ARGS))
    assert (
        "models:/sst2-lexicon/1): version 1 is an MLflow pyfunc model: loading it runs "
        "code pickled into the registry" in message
    )
    assert "add --nlp-trust-registry-code sst2-lexicon" in message
    # Consent names the model: another model's name is no consent for this one.
    other = one_error(
        run_gate("--nlp-model", LEXICON, "--nlp-trust-registry-code", "sst2-bert", *ARGS)
    )
    assert "add --nlp-trust-registry-code sst2-lexicon" in other


def test_a_trusted_pyfunc_is_gated_as_the_function_it_wraps(
    run_gate: RunGate, registry_env: LocalRegistry
) -> None:
    run = run_gate("--nlp-model", LEXICON, "--nlp-trust-registry-code", "sst2-lexicon", *ARGS)
    assert run.result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), (
        run.result.stdout.str()[-3000:]
    )
    registry = run.json["run"]["models"][0]["registry"]
    assert (registry["name"], registry["version"], registry["flavor"]) == (
        "sst2-lexicon",
        "1",
        "pyfunc",
    )
    assert registry["run_id"] == registry_env.versions["sst2-lexicon/1"]
    assert run.json["engine"][0]["fingerprint_source"] == "registry"

    function = run_gate("--nlp-model", "sentiment=fixtures.lexicon_model:predict_proba", *ARGS)
    rates = {r["test"]: r["fail_rate"] for r in function.json["records"]}
    assert {r["test"]: r["fail_rate"] for r in run.json["records"]} == rates
    assert len(rates) > 2

    warm = run_gate("--nlp-model", LEXICON, "--nlp-trust-registry-code", "sst2-lexicon", *ARGS)
    assert warm.json["engine"][0]["forward_passes"] == 0  # the version's answers, cached


def test_a_trusted_pyfunc_returning_scores_stops_the_run(
    run_gate: RunGate, registry_env: LocalRegistry
) -> None:
    message = one_error(
        run_gate(
            "--nlp-model",
            "sentiment[negative,positive]=models:/sst2-scores/1",
            "--nlp-trust-registry-code",
            "models:/sst2-scores/1",
            *ARGS,
        )
    )
    assert "returned rows that are not probabilities" in message
    assert "sums to 10" in message


def test_a_pyfunc_named_without_labels_asks_for_them(
    run_gate: RunGate, registry_env: LocalRegistry
) -> None:
    message = one_error(run_gate("--nlp-model", "sentiment=models:/sst2-lexicon/1", *ARGS))
    assert message.startswith(
        "ERROR: --nlp-model: models:/sst2-lexicon/1 is an MLflow pyfunc "
        "model, whose outputs only you can name"
    )
