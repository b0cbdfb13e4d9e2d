"""The run's settings, read once from pytest's command line and ini: what every part of the
run (the session, every item kind through its context) reads, typed and with every default
resolved.  A kind's own options (``--nlp-baseline``, ``--nlp-attack-*``) are its own: it
declares and parses them (``ItemKind.add_options`` / ``ItemKind.create``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from nlp_gate.config.paths import cache_dir, zoo_dir
from nlp_gate.config.profiles import DEFAULT_PROFILE
from nlp_gate.engine.predictor import LoadOptions
from nlp_gate.shard import Shard


@dataclass(frozen=True)
class Options:
    """The run's settings, with every default resolved against pytest's rootdir."""

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

    @classmethod
    def from_config(cls, config: pytest.Config) -> Options:
        opt, root = config.option, config.rootpath

        def ini_path(name: str) -> Path | None:
            value = config.getini(name)
            return root / value if value else None

        cache = cache_dir(root)
        cache_file = {None: cache / "predictions.sqlite", "off": None}.get(
            opt.nlp_prediction_cache, Path(str(opt.nlp_prediction_cache)))
        return cls(
            rootdir=root,
            profile=opt.nlp_profile or config.getini("nlp_gate_profile") or DEFAULT_PROFILE,
            models_file=opt.nlp_models_file or ini_path("nlp_gate_models_file"),
            thresholds=opt.nlp_thresholds or root / "thresholds.yaml",
            sample=opt.nlp_sample,
            seed=opt.nlp_seed,
            load=LoadOptions(device=opt.nlp_device, dtype=opt.nlp_dtype,
                             batch_size=opt.nlp_batch_size, cache=cache_file,
                             cache_max_mb=opt.nlp_cache_max_mb, backend=opt.nlp_backend,
                             export_dir=cache / "onnx"),
            results=results_file(opt.nlp_results, root),
            cache_dir=cache,
            zoo_dir=zoo_dir(root),
            data_dir=opt.nlp_data_dir,
            owns_whole_models=owns_whole_models(config),
            release_suites=bool(config.getini("nlp_gate_release_suites")),
            shard=opt.nlp_shard,
            cli_models=tuple(opt.nlp_model),
        )


def results_file(given: Path | None, rootdir: Path) -> Path:
    """``--nlp-results``, or its default beside the rootdir (also where a run stopped before
    its options were all parsed says its results.json would have been: ``interrupt``)."""
    return Path(given) if given else rootdir / "reports" / "results.json"


def owns_whole_models(config: pytest.Config) -> bool:
    """Whether each process runs all items of the models it runs (see ``Options``).

    xdist workers see ``dist="no"`` and the controller's choice in ``loadgroup``, the option
    xdist sets on every worker to decide whether to group items by ``xdist_group``.
    """
    if not hasattr(config, "workerinput"):
        return True  # the controller runs nothing under xdist; without xdist, everything
    return bool(getattr(config.option, "loadgroup", False))
