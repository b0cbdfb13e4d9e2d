"""The run's options (``Options``): what every part of the run (the run itself, every item
kind through its context) reads, typed and with every default resolved.  Read once from
pytest's command line and ini by ``nlp_gate.pytest_plugin.options``; this module does not
import pytest.  A kind's own options (``--nlp-baseline``, ``--nlp-attack-*``) are its own: it
declares and parses them (``ItemKind.add_options`` / ``ItemKind.create``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nlp_gate.engine.predictor import LoadOptions
from nlp_gate.shard import Shard

MLFLOW_EXPERIMENT = "nlp-gate"  # --nlp-mlflow-experiment's default


@dataclass(frozen=True)
class MlflowLog:
    """``--nlp-mlflow-log``: where the controller writes the run back to (MLflow)."""

    tracking_uri: str  # --nlp-mlflow-tracking-uri, else MLFLOW_TRACKING_URI
    experiment: str  # --nlp-mlflow-experiment (default nlp-gate)


# --nlp-scoring: CheckList tests scored in bulk (kinds.checklist.scoring, the default) or by
# CheckList's own run/get_stats (the reference path)
SCORINGS = ("bulk", "checklist")


@dataclass(frozen=True)
class Options:
    """The run's options, with every default resolved against pytest's rootdir."""

    rootdir: Path
    profile: str
    models_file: Path | None  # None: the packaged profiles
    thresholds: Path
    sample: int | None
    seed: int
    load: LoadOptions
    results: Path
    cache_dir: Path
    zoo_dir: Path
    data_dir: Path | None  # offline evaluation sets (accuracy and attack items)
    # Whether this process runs every item of a model it runs any item of: true without
    # xdist and under ``--dist loadgroup`` (items carry ``xdist_group(model key)``).  Only
    # then may a worker predict all of a model's inputs up front.
    owns_whole_models: bool = True
    release_suites: bool = False  # ini nlp_gate_release_suites: the packaged items are on
    shard: Shard | None = None  # --nlp-shard K/N: this run's part of the items
    cli_models: tuple[str, ...] = ()  # --nlp-model TASK=SOURCE: the profile, without a file
    # --nlp-mlflow-log: None when off.  An empty tracking URI when neither the option nor
    # MLFLOW_TRACKING_URI gives one: refused at start-up (``mlflow_log.refusal``).
    mlflow_log: MlflowLog | None = None
    # --nlp-trust-registry-code: the MLflow pyfunc models that may run their own code.
    trusted_registry_code: tuple[str, ...] = ()
    endpoint_timeout: float = 30.0  # --nlp-endpoint-timeout, seconds per request
    # --nlp-explain: whose shown failing examples get word attributions: the items that
    # miss their gate (missed), every item (all), none (off).
    explain: str = "missed"
    # --nlp-scoring: CheckList tests scored in bulk (kinds.checklist.scoring), or by
    # CheckList's own run/get_stats (checklist, the reference path)
    scoring: str = "bulk"


def results_file(given: Path | None, rootdir: Path) -> Path:
    """``--nlp-results``, or its default beside the rootdir (also where a run stopped before
    its options were all parsed says its results.json would have been: ``interrupt``)."""
    return Path(given) if given else rootdir / "reports" / "results.json"
