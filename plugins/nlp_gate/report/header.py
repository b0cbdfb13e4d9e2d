"""The run's description: results.json's ``run`` block and the header every run prints first
(profile, models and revisions, seed, gates; enough to reproduce it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nlp_gate import extras
from nlp_gate.config import ConfigurationError
from nlp_gate.engine.predictor import LoadOptions
from nlp_gate.native.cases import cases_folder, unwritable_folder
from nlp_gate.results import package_versions
from nlp_gate.sources import source_of

if TYPE_CHECKING:
    from nlp_gate.run import Run


def run_metadata(run: Run) -> dict[str, Any]:
    """results.json's ``run`` block.  A run refused at start-up may have no profile or
    gates to describe: then its options only (results.json ``refused`` says why)."""
    try:
        return _run_metadata(run)
    except ConfigurationError:
        return {
            "profile": run.options.profile,
            "models_file": str(run.options.models_file or ""),
            "models": [],
            "seed": run.options.seed,
            "sample": run.options.sample,
            "scoring": run.options.scoring,
            "thresholds_file": str(run.options.thresholds),
            "gates": None,
            "shard": str(run.options.shard) if run.options.shard else None,
            "device": run.options.load.device,
            "dtype": run.options.load.dtype,
            "backend": run.options.load.backend,
            "batch_size": run.options.load.batch_size,
            "explain": run.options.explain,
            "token_budget": run.options.load.token_budget,
            "packages": package_versions(),
        }


def _run_metadata(run: Run) -> dict[str, Any]:
    zoo = run.zoo.zoo_card()
    block: dict[str, Any] = {
        "profile": run.profile.name,
        "models_file": str(run.profile.source_file),
        "models": [
            {
                "dataset": m.dataset,
                "model": m.name,
                "model_id": m.source,
                "revision": m.revision if not m.is_zoo else (zoo or {}).get("recipe_hash"),
                "labels": list(m.labels),
                "location": run.pool.location(m),
                **source_of(m).record(m, run.pool),
            }
            for m in run.profile.models
        ],
        "seed": run.options.seed,
        "sample": run.options.sample,
        "scoring": run.options.scoring,
        "thresholds_file": str(run.options.thresholds),
        "gates": gates_applied(run),
        "shard": str(run.options.shard) if run.options.shard else None,
    }
    for kind in run.kinds.values():
        block.update(kind.metadata())
    block.update(
        {
            "device": run.options.load.device,
            "dtype": run.options.load.dtype,
            "backend": run.options.load.backend,
            "batch_size": run.options.load.batch_size,
            "explain": run.options.explain,
            "token_budget": run.options.load.token_budget,
            "packages": package_versions(),
        }
    )
    return block


def gates_applied(run: Run) -> str:
    """Where the run's gates come from: the thresholds file and profile, or the built-in
    gates of a ``--nlp-model`` run (its thresholds file absent or without a `cli`
    profile), which no file names."""
    gates = run.thresholds
    if gates.builtin:
        why = "not found" if not gates.path.is_file() else f"has no {gates.profile!r} profile"
        return f"built-in CLI gates (CLI_GATES; {gates.path} {why})"
    return f"{gates.path} (profile {gates.profile!r})"


def explain_fallback(run: Run) -> str | None:
    """The header's line when ``--nlp-explain`` will explain a checkpoint by occlusion
    because the [explain] extra (Captum) is not installed; None otherwise."""
    if run.options.explain == "off" or extras.EXPLAIN.available:
        return None
    checkpoints = [m for m in run.profile.models if source_of(m).uses_backend]
    if not checkpoints:
        return None  # functions and endpoints are explained by occlusion anyway
    return (
        f"nlp-gate: explanations (--nlp-explain {run.options.explain}): "
        f"{extras.EXPLAIN.missing()[0]} is not installed, so checkpoints are explained by "
        "word occlusion instead of integrated gradients "
        f"({extras.install_command([extras.EXPLAIN.extra])})"
    )


def report_header(run: Run) -> list[str]:
    """Enough to reproduce the run: profile, models and revisions, seed, gates."""
    versions = package_versions()
    lines = [
        # The plugin's own version first: a verdict is reproduced with the same release.
        f"nlp-gate {versions['nlp-gate']}: python {versions['python']}, "
        f"pytest {versions['pytest']}, pytest-xdist {versions['pytest-xdist']}, "
        f"checklist {versions['checklist-pattern']}",
        f"nlp-gate: profile={run.profile.name} ({run.profile.source_file}) "
        f"seed={run.options.seed} sample={run.options.sample or 'all'} "
        f"gates={gates_applied(run)}"
        + (f" shard={run.options.shard}" if run.options.shard else "")
        # Named when not the default: ONNX Runtime's probabilities differ in rounding.
        + (
            f" backend={run.options.load.backend}"
            if run.options.load.backend != LoadOptions.backend
            else ""
        )
        # And the batches' bounds (--nlp-batch-size, --nlp-token-budget) when given.
        + (
            f" batch_size={run.options.load.batch_size}"
            if run.options.load.batch_size != LoadOptions.batch_size
            else ""
        )
        + (
            f" token_budget={run.options.load.token_budget}"
            if run.options.load.token_budget is not None
            else ""
        ),
    ]
    for m in run.profile.models:
        rev = f"@{m.revision}" if m.revision else ""
        lines.append(f"nlp-gate:   {m.dataset}/{m.name}: {m.source}{rev} labels={list(m.labels)}")
        lines += [f"nlp-gate:     {line}" for line in source_of(m).described(m, run.pool)]
    fallback = explain_fallback(run)
    if fallback:  # said once here, not per explained example
        lines.append(fallback)
    cases = cases_folder(run.options.results)
    unwritable = unwritable_folder(cases)
    if unwritable is not None:  # said once here, not as an error of every native item
        lines.append(
            f"nlp-gate: case files not written: cannot write {cases} "
            f"({unwritable}); native tests run on their cases in memory"
        )
    drift = run.zoo.zoo_drift()
    if drift:
        lines.append(
            f"nlp-gate: WARNING: {len(drift)} zoo model(s) differ from the zoo the "
            "gates were calibrated on; their gate misses may come from this build "
            "(docs/measurements/calibration.md):"
        )
        lines += [f"nlp-gate:   {d}" for d in drift.values()]
    return lines
