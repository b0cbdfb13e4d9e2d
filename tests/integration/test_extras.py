"""A run that needs an extra that is not installed stops at start, once, with exit 4 and the
command that installs it (issue 31); a run that needs none runs without them.

"Not installed" is played by an import blocker: a ``sitecustomize`` on the subprocess's
``PYTHONPATH`` (so every process of the run, xdist workers included, loads it) that installs
a meta-path finder refusing the blocked modules, as if pip had never installed them.

Its fast tests: ``tests/unit/test_extras.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.gate_run import REPO, SHARED_SUITES
from fixtures.user_repo import LABELS, write_gates, write_models

LEXICON = {"predict": "lexicon_model:predict_proba", "fingerprint": "lexicon-1", "labels": LABELS}

BLOCKER = """
import importlib.abc, os, sys

BLOCKED = set(os.environ["NLP_GATE_TEST_BLOCKED"].split(","))


class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)
        return None


sys.meta_path.insert(0, Blocker())
"""


def _run(
    tmp_path: Path, blocked: str, models: dict[str, object], *args: str
) -> subprocess.CompletedProcess[str]:
    """``python -m pytest`` in a user's repository (the packaged items on, the lexicon
    function beside pytest.ini) with ``blocked`` (comma-separated) refused at import."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pytest.ini").write_text(
        "[pytest]\nnlp_gate_release_suites = true\n"
        "nlp_gate_models_file = models.yaml\n"
        f"addopts = --nlp-suite-dir {SHARED_SUITES}\n"
    )
    (repo / "lexicon_model.py").write_text((REPO / "fixtures" / "lexicon_model.py").read_text())
    write_models(repo / "models.yaml", models)
    write_gates(
        repo / "thresholds.yaml", {"checklist": {"default": 100}, "accuracy": {"min_accuracy": 0}}
    )
    site = tmp_path / "blocker"
    site.mkdir()
    (site / "sitecustomize.py").write_text(BLOCKER)
    env = {k: v for k, v in os.environ.items() if k not in ("NLP_GATE_CACHE", "PYTEST_ADDOPTS")}
    extra_path = os.environ.get("NLP_GATE_TEST_EXTRA_PATH")
    env.update(
        PYTHONPATH=os.pathsep.join([str(site), *([extra_path] if extra_path else [])]),
        NLP_GATE_TEST_BLOCKED=blocked,
    )
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--nlp-sample", "3", *args],
        check=False,
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_checkpoint_without_hf_stops_the_run_at_start(tmp_path: Path, workers: str) -> None:
    run = _run(
        tmp_path,
        "torch,textattack",
        {"bert": {"zoo": "sst2/bert", "labels": LABELS}, "lexicon": LEXICON},
        "-n",
        workers,
    )
    out = run.stdout + run.stderr
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, out[-3000:]
    message = (
        "nlp-gate: model sst2/bert is a checkpoint of the embedded zoo, which needs the "
        "[hf] extra: pip install 'nlp-gate[hf]' (missing: torch)"
    )
    assert out.count(message) == 1, out[-3000:]
    assert "Traceback" not in out and "passed" not in out and "failed" not in out


def test_attack_items_without_textattack_stop_the_run_at_start(tmp_path: Path) -> None:
    run = _run(
        tmp_path,
        "torch,textattack",
        {"lexicon": LEXICON},
        "--nlp-attack-dataset",
        "sst2",
        "-m",
        "adversarial",
        "-n",
        "2",
    )
    out = run.stdout + run.stderr
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, out[-3000:]
    message = (
        "nlp-gate: this run asks for attack items (TextAttack recipes on sst2), which "
        "needs the [attacks] extra: pip install 'nlp-gate[attacks]' (missing: textattack)"
    )
    assert out.count(message) == 1, out[-3000:]
    assert "[hf]" not in out  # a function model needs no checkpoint library
    assert "Traceback" not in out


def test_a_function_model_runs_without_torch_and_textattack(tmp_path: Path) -> None:
    """The packaged CheckList items and the packaged attack test module (no dataset to
    attack: no attack item) run with neither library importable."""
    run = _run(tmp_path, "torch,textattack", {"lexicon": LEXICON}, "-m", "fairness")
    out = run.stdout + run.stderr
    assert run.returncode in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), out[-3000:]
    results = json.loads((tmp_path / "repo" / "reports" / "results.json").read_text())
    assert sorted((r["test"], r["model"]) for r in results["records"]) == [
        (f"protected: {group}", "lexicon")
        for group in ("nationality", "race", "religion", "sexual")
    ], out[-3000:]
    assert "extra" not in out


@pytest.mark.parametrize("selection", [[], ["-m", "not accuracy"]])
def test_a_hub_evaluation_set_without_datasets_is_refused_unless_deselected(
    tmp_path: Path, selection: list[str]
) -> None:
    run = _run(tmp_path, "datasets", {"lexicon": LEXICON}, *selection)
    out = run.stdout + run.stderr
    message = (
        "nlp-gate: the accuracy item of sst2/lexicon reads its evaluation set from the "
        "Hugging Face hub, which needs the [hf] extra: pip install 'nlp-gate[hf]' "
        "(missing: datasets); or give the sets with --nlp-data-dir"
    )
    if not selection:
        assert run.returncode == pytest.ExitCode.USAGE_ERROR, out[-3000:]
        assert out.count(message) == 1, out[-3000:]
    else:
        assert run.returncode in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), out[-3000:]
        assert message not in out


# Issue 50, point 4: the check follows the selection, once, on the controller.
HUB_SET_MESSAGE = (
    "nlp-gate: the accuracy item of sst2/lexicon reads its evaluation set from "
    "the Hugging Face hub, which needs the [hf] extra"
)


def test_a_missing_extra_under_xdist_is_one_start_up_message(tmp_path: Path) -> None:
    # -m narrows the selection, so only the collected items tell what is needed; under xdist
    # only the workers collect, and each selected accuracy item used to error with it.
    run = _run(tmp_path, "datasets", {"lexicon": LEXICON}, "-m", "accuracy", "-n", "2")
    out = run.stdout + run.stderr
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, out[-3000:]
    assert out.count(HUB_SET_MESSAGE) == 1, out[-3000:]
    assert " error" not in out and "passed" not in out, out[-3000:]


@pytest.mark.parametrize("workers", ["0", "2"])
def test_attack_items_deselected_by_m_need_no_textattack(tmp_path: Path, workers: str) -> None:
    run = _run(
        tmp_path,
        "torch,textattack",
        {"lexicon": LEXICON},
        "--nlp-attack-dataset",
        "sst2",
        "-m",
        "fairness",
        "-n",
        workers,
    )
    out = run.stdout + run.stderr
    assert run.returncode in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), out[-3000:]
    assert "[attacks] extra" not in out, out[-3000:]
    results = json.loads((tmp_path / "repo" / "reports" / "results.json").read_text())
    assert len(results["records"]) == 4, out[-3000:]


@pytest.mark.parametrize("named", ["models file", "--nlp-model"])
def test_a_registry_uri_without_mlflow_stops_the_run_at_start(tmp_path: Path, named: str) -> None:
    """Checked before MLflow's client is asked anything: without the [mlflow] extra, one
    message, exit 4 (the registry itself is never reached: none is configured)."""
    uri = "models:/sst2-bert@champion"
    if named == "models file":
        run = _run(tmp_path, "mlflow", {"champion": {"id": uri, "labels": LABELS}})
        what = "model sst2/champion is an MLflow model URI"
    else:
        run = _run(tmp_path, "mlflow", {"lexicon": LEXICON}, "--nlp-model", f"sentiment={uri}")
        what = f"model source {uri} is an MLflow model URI"
    out = run.stdout + run.stderr
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, out[-3000:]
    message = (
        f"nlp-gate: {what}, which needs the [mlflow] extra: pip install "
        "'nlp-gate[mlflow]' (missing: mlflow)"
    )
    assert out.count(message) == 1, out[-3000:]
    assert "Traceback" not in out


def test_a_registry_pyfunc_needs_no_hf_and_a_transformers_flavor_asks_for_it_once(
    tmp_path: Path, zoo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """[hf] is asked for an MLflow model URI only once it resolves to a transformers flavor:
    a run gating a pyfunc (and a function) runs without torch or transformers."""
    pytest.importorskip("mlflow")
    # Its own registry, built in a subprocess: built here, in a worker whose pytester tests
    # imported mlflow, SQLAlchemy and torch.distributed first and dropped them, their
    # re-import breaks (test_served_endpoint builds the session registry inside such tests).
    registry = tmp_path / "mlflow"
    registry.mkdir()
    subprocess.run(
        [sys.executable, "-c", REGISTRY, str(registry), str(zoo)],
        check=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=600,
        capture_output=True,
    )
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{registry / 'mlflow.db'}")
    # The pickled pyfunc imports fixtures.registry_models from this repository.
    monkeypatch.setenv("NLP_GATE_TEST_EXTRA_PATH", str(REPO))
    pyfunc = {"id": "models:/sst2-lexicon/1", "labels": LABELS}
    for part in ("pyfunc", "transformers"):
        (tmp_path / part).mkdir()
    run = _run(
        tmp_path / "pyfunc",
        "torch,transformers,tokenizers,textattack",
        {"pyfunc": pyfunc, "lexicon": LEXICON},
        "--nlp-trust-registry-code",
        "sst2-lexicon",
        "-m",
        "fairness",
    )
    out = run.stdout + run.stderr
    assert run.returncode in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), out[-3000:]
    assert "[hf] extra" not in out, out[-3000:]
    results = json.loads((tmp_path / "pyfunc" / "repo" / "reports" / "results.json").read_text())
    assert {r["model"] for r in results["records"]} == {"pyfunc", "lexicon"}, out[-3000:]

    refused = _run(
        tmp_path / "transformers",
        "torch,textattack",
        {"bert": {"id": "models:/sst2-bert/1", "labels": LABELS}},
        "-m",
        "fairness",
    )
    out = refused.stdout + refused.stderr
    assert refused.returncode == pytest.ExitCode.USAGE_ERROR, out[-3000:]
    message = (
        "nlp-gate: model sst2/bert (models:/sst2-bert/1) is a transformers-flavor "
        "checkpoint, which needs the [hf] extra: pip install 'nlp-gate[hf]' (missing: "
        "torch)"
    )
    assert out.count(message) == 1 and "Traceback" not in out, out[-3000:]


REGISTRY = """
import sys, mlflow
from pathlib import Path
from fixtures.registry_models import LexiconModel

folder, zoo = Path(sys.argv[1]), Path(sys.argv[2])
mlflow.set_tracking_uri(f"sqlite:///{folder / 'mlflow.db'}")
experiment = mlflow.create_experiment("gate", artifact_location=(folder / "a").as_uri())
with mlflow.start_run(experiment_id=experiment):
    mlflow.pyfunc.log_model(name="model", registered_model_name="sst2-lexicon",
                            python_model=LexiconModel(), pip_requirements=[])
with mlflow.start_run(experiment_id=experiment):
    mlflow.transformers.log_model(name="model", registered_model_name="sst2-bert",
                                  transformers_model=str(zoo / "sst2" / "bert"),
                                  task="text-classification", pip_requirements=[])
"""
