"""The plugin's command-line options and ini keys, declared in pytest's ``nlp-gate`` group,
and read once into the run's typed options (``nlp_gate.config.options.Options``,
``options_from``); each item kind declares its own options (``ItemKind.add_options``).
The markers: ``marks.py``.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, Literal

import pytest

from nlp_gate.config import at_least
from nlp_gate.config.options import (
    MLFLOW_EXPERIMENT,
    SCORINGS,
    MlflowLog,
    Options,
    results_file,
)
from nlp_gate.config.paths import cache_dir, zoo_dir
from nlp_gate.config.profiles import DEFAULT_PROFILE
from nlp_gate.engine.onnx_backend import BACKENDS
from nlp_gate.engine.predictor import CUDA_TOKEN_BUDGET, LoadOptions
from nlp_gate.kinds import KINDS
from nlp_gate.kinds.checklist.explained import DEFAULT_EXPLAIN, EXPLAIN_MODES
from nlp_gate.shard import Shard, ShardError


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("nlp-gate", "behavioral release gate for NLP classifiers")
    group.addoption(
        "--nlp-profile",
        default=None,
        help="model profile from the models file (default: ini nlp_gate_profile, else tiny)",
    )
    group.addoption(
        "--nlp-models-file",
        type=Path,
        default=None,
        help="a models file of your own (default: ini nlp_gate_models_file, else "
        "the packaged profiles)",
    )
    group.addoption(
        "--nlp-thresholds",
        type=Path,
        default=None,
        help="fail-rate gates (default: thresholds.yaml at the rootdir)",
    )
    group.addoption(
        "--nlp-sample",
        type=at_least(1),
        default=None,
        help="run a seeded sample of N test cases per CheckList test",
    )
    group.addoption(
        "--nlp-seed",
        type=int,
        default=1,
        help="seed for sampling (default 1, as the seed report's TestSuite.run)",
    )
    group.addoption(
        "--nlp-scoring",
        default="bulk",
        choices=SCORINGS,
        help="how CheckList tests are scored: bulk (numpy over each test's predictions, "
        "equal to CheckList's verdicts) or checklist (CheckList's own run and get_stats, "
        "the reference path) (default: bulk)",
    )
    group.addoption(
        "--nlp-device",
        default="auto",
        help="auto (CUDA when present, one GPU per xdist worker), cpu, cuda, cuda:N",
    )
    group.addoption("--nlp-dtype", default="float32", choices=("float32", "float16", "bfloat16"))
    group.addoption(
        "--nlp-backend",
        default=LoadOptions.backend,
        choices=BACKENDS,
        help="what runs a checkpoint's forward pass: torch, or onnx (ONNX Runtime "
        "on the CPU, over an export made once per checkpoint; needs the "
        "[onnx] extra) (default: torch)",
    )
    group.addoption(
        "--nlp-batch-size",
        type=at_least(1),
        default=LoadOptions.batch_size,
        help=f"inputs per forward pass, at most (default: {LoadOptions.batch_size})",
    )
    group.addoption(
        "--nlp-token-budget",
        type=at_least(1),
        default=None,
        metavar="N",
        help="padded tokens (rows x longest row) per forward pass, at most; a longer "
        f"input is a batch of its own (default: {CUDA_TOKEN_BUDGET} on CUDA, "
        "the batch size x 128 on the CPU)",
    )
    group.addoption(
        "--nlp-prediction-cache",
        default=None,
        help="persistent prediction cache file, or 'off' "
        "(default: $NLP_GATE_CACHE/predictions.sqlite, i.e. <rootdir>/.cache/)",
    )
    group.addoption(
        "--nlp-cache-max-mb",
        type=at_least(1, " (off: --nlp-prediction-cache off)"),
        default=2048,
        help="bound of the prediction cache; least recently used models go first",
    )
    group.addoption(
        "--nlp-results",
        type=Path,
        default=None,
        help="where results.json is written (default: <rootdir>/reports/results.json)",
    )
    group.addoption(
        "--nlp-data-dir",
        type=Path,
        default=None,
        help="offline evaluation sets for the accuracy and attack items: "
        "DIR/<dataset>/<split>.jsonl (python -m nlp_gate.eval_sets DIR "
        "writes them); default: the zoo's held-out sets, hub datasets",
    )
    group.addoption(
        "--nlp-model",
        action="append",
        default=[],
        metavar="TASK=ID_OR_DIR_OR_FUNCTION",
        help="run on this model, no models file needed (repeatable; two models of "
        "a task are compared): a hub id, a checkpoint directory or "
        "module:function; TASK[label,...]=... gives the output labels",
    )
    group.addoption(
        "--nlp-trust-registry-code",
        action="append",
        default=[],
        metavar="NAME",
        help="let this MLflow pyfunc model run the code pickled into the registry "
        "(repeatable): a registered model's name, its models:/ URI or a run "
        "id; a transformers flavor loads weights only and needs no consent",
    )
    group.addoption(
        "--nlp-mlflow-log",
        action="store_true",
        default=False,
        help="at the end, log the run's metrics, verdict and reports as an MLflow run and "
        "tag each gated registry model version with the verdict and that run's id "
        "(needs [mlflow]; default: ini nlp_gate_mlflow_log)",
    )
    group.addoption(
        "--nlp-mlflow-tracking-uri",
        default=None,
        metavar="URI",
        help="the tracking server --nlp-mlflow-log writes to (default: MLFLOW_TRACKING_URI)",
    )
    group.addoption(
        "--nlp-mlflow-experiment",
        default=MLFLOW_EXPERIMENT,
        metavar="NAME",
        help=f"the experiment of --nlp-mlflow-log's run (default: {MLFLOW_EXPERIMENT})",
    )
    group.addoption(
        "--nlp-endpoint-timeout",
        type=at_least(1),
        default=30,
        metavar="SECONDS",
        help="how long one request to a served endpoint (an http(s):// model) may "
        "take before it is retried (default: 30)",
    )
    group.addoption(
        "--nlp-explain",
        choices=EXPLAIN_MODES,
        default=DEFAULT_EXPLAIN,
        help="word attributions of the failing examples an item shows: for the items that "
        "miss their gate and the comparisons the candidate loses (missed), for every "
        "item (all), or none (off); integrated gradients on checkpoints with the "
        "[explain] extra, else word occlusion (default: missed)",
    )
    group.addoption(
        "--nlp-shard",
        type=_shard,
        default=None,
        metavar="K/N",
        help="run the K-th of N disjoint parts of the selected items, split by "
        "dataset and balanced by cost (merge: python -m nlp_gate.report merge)",
    )
    for kind in KINDS:
        kind.add_options(group)
    for name, (value_type, _, text) in INI_KEYS.items():
        # No default: pytest's getini answers None for a key the configuration leaves out,
        # which is how ``opt_in`` tells a repository that set a key from one that did not.
        parser.addini(name, text, type=value_type, default=None)


IniType = Literal["string", "paths", "bool"]

# The ini keys of nlp-gate: name -> (type, default, help).  Setting any of them opts a
# repository in (``opt_in``); ``ini`` reads one with its default.
INI_KEYS: dict[str, tuple[IniType, Any, str]] = {
    "nlp_gate_paths": (
        "paths",
        [],
        "folders holding this repository's behavioral tests (relative to the ini file); "
        "any nlp_gate_* key set turns nlp-gate on in this repository (inert otherwise)",
    ),
    "nlp_gate_release_suites": (
        "bool",
        False,
        "collect the reference study's items (released CheckList suites, "
        "accuracy, comparison, TextAttack recipes) from the nlp_gate package",
    ),
    "nlp_gate_native_suites": (
        "bool",
        False,
        "collect the native behavioral suites (81 tests, sentiment, paraphrase, "
        "entailment) from the nlp_gate package",
    ),
    "nlp_gate_models_file": (
        "string",
        "",
        "models file, relative to the rootdir (default: packaged profiles)",
    ),
    "nlp_gate_profile": ("string", "", "profile of the models file (tiny)"),
    "nlp_gate_mlflow_log": (
        "bool",
        False,
        "write each gate run back to MLflow, as --nlp-mlflow-log",
    ),
}


def ini(config: pytest.Config, name: str) -> Any:
    """The value of one of ``INI_KEYS``, its default where the configuration does not set it."""
    value = config.getini(name)
    return INI_KEYS[name][1] if value is None else value


def _shard(text: str) -> Shard:
    """``--nlp-shard K/N``, a usage error (argparse's) when malformed."""
    try:
        return Shard.parse(text)
    except ShardError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def options_from(config: pytest.Config) -> Options:
    """The run's settings (``Options``), every default resolved against pytest's rootdir."""
    opt, root = config.option, config.rootpath

    def ini_path(name: str) -> Path | None:
        value = ini(config, name)
        return root / value if value else None

    cache = cache_dir(root)
    cache_file = {None: cache / "predictions.sqlite", "off": None}.get(
        opt.nlp_prediction_cache, Path(str(opt.nlp_prediction_cache))
    )
    return Options(
        rootdir=root,
        profile=opt.nlp_profile or ini(config, "nlp_gate_profile") or DEFAULT_PROFILE,
        models_file=opt.nlp_models_file or ini_path("nlp_gate_models_file"),
        thresholds=opt.nlp_thresholds or root / "thresholds.yaml",
        sample=opt.nlp_sample,
        seed=opt.nlp_seed,
        load=LoadOptions(
            device=opt.nlp_device,
            dtype=opt.nlp_dtype,
            batch_size=opt.nlp_batch_size,
            token_budget=opt.nlp_token_budget,
            cache=cache_file,
            cache_max_mb=opt.nlp_cache_max_mb,
            backend=opt.nlp_backend,
            export_dir=cache / "onnx",
        ),
        results=results_file(opt.nlp_results, root),
        cache_dir=cache,
        zoo_dir=zoo_dir(root),
        data_dir=opt.nlp_data_dir,
        owns_whole_models=owns_whole_models(config),
        release_suites=bool(ini(config, "nlp_gate_release_suites")),
        shard=opt.nlp_shard,
        cli_models=tuple(opt.nlp_model),
        mlflow_log=_mlflow_log(config),
        trusted_registry_code=tuple(opt.nlp_trust_registry_code),
        endpoint_timeout=float(opt.nlp_endpoint_timeout),
        explain=opt.nlp_explain,
        scoring=opt.nlp_scoring,
    )


def _mlflow_log(config: pytest.Config) -> MlflowLog | None:
    """``--nlp-mlflow-log`` (or its ini key) with its tracking URI; an empty URI when none
    is given, which start-up refuses (``report.mlflow_log.refusal``)."""
    opt = config.option
    if not (opt.nlp_mlflow_log or ini(config, "nlp_gate_mlflow_log")):
        return None
    uri = opt.nlp_mlflow_tracking_uri or os.environ.get("MLFLOW_TRACKING_URI", "")
    return MlflowLog(uri, opt.nlp_mlflow_experiment)


def owns_whole_models(config: pytest.Config) -> bool:
    """Whether each process runs all items of the models it runs (see ``Options``).

    xdist workers see ``dist="no"`` and the controller's choice in ``loadgroup``, the option
    xdist sets on every worker to decide whether to group items by ``xdist_group``.
    """
    if not hasattr(config, "workerinput"):
        return True  # the controller runs nothing under xdist; without xdist, everything
    return bool(getattr(config.option, "loadgroup", False))
