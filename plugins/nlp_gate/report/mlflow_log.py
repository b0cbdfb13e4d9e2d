"""Write-back to MLflow (``--nlp-mlflow-log``): at the end of a gate run, on the controller
and after the reports are written, one MLflow run with the gate's params, metrics, verdict
and reports, and on each gated model version of the registry the tags a promotion step reads
(``nlp_gate.verdict``, ``nlp_gate.run_id``, ``nlp_gate.missed_gates``).

Everything written comes from results.json (in memory), so a ``-n 0`` and a ``-n 2`` run
write the same metrics.  Nothing written names a credential: the tracking URI is never
logged, and a model source that is a URL is logged without its user info and query.

The write-back is a copy of the verdict, not a part of it: a tracking server that cannot be
reached or refuses a request is one line in the terminal summary, never a traceback, and the
run's exit status stays the gate's (a verdict not written back is no gate verdict: it neither
fails a gate that passed nor passes one that failed).  A version whose write-back failed
keeps the tags it had, so a promotion step that reads ``nlp_gate.run_id`` can tell.

mlflow is imported inside functions only: a core install never imports it.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import re
import warnings
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from nlp_gate import __version__, extras
from nlp_gate.config import ConfigurationError
from nlp_gate.config.options import MlflowLog
from nlp_gate.report import RunEnd
from nlp_gate.report.parts import report_parts
from nlp_gate.report.verdict import verdict

# The tags each gated model version gets.
VERDICT_TAG = "nlp_gate.verdict"
RUN_ID_TAG = "nlp_gate.run_id"
MISSED_TAG = "nlp_gate.missed_gates"
# MLflow's characters for a metric or param key (mlflow.utils.validation), ASCII only here;
# ``/`` only between the parts of a key (a test name's own is replaced).
_INVALID = re.compile(r"[^A-Za-z0-9_.\- :]")
_MAX_KEY = 250
_MAX_PARAM = 6000


def refusal(settings: MlflowLog | None) -> None:
    """At start-up: ``--nlp-mlflow-log`` needs the [mlflow] extra and a tracking URI (MLflow
    would otherwise write a ``mlflow.db`` into the working directory)."""
    if settings is None:
        return
    extras.require([extras.Need(extras.MLFLOW, "--nlp-mlflow-log writes the run to MLflow")])
    if not settings.tracking_uri:
        raise ConfigurationError(
            "--nlp-mlflow-log: no tracking server named; set MLFLOW_TRACKING_URI or give "
            "--nlp-mlflow-tracking-uri URI"
        )


# -- what is written ----------------------------------------------------------------------
def run_verdict(results: dict[str, Any], exitstatus: int) -> str:
    """``passed``, ``failed`` (a gate missed, nothing else wrong) or ``no_verdict``:
    results.json's own ``verdict``, else the same rule on what it holds."""
    given = results.get("verdict")
    return given if isinstance(given, str) else verdict(results, exitstatus).status


def metric_key(*parts: str) -> str:
    """A key MLflow accepts, from the parts joined by ``/``: other characters (a ``/`` in a
    part too) become ``_``; no empty, ``.`` or ``..`` segment (MLflow refuses a key that is
    not its own normal path); at most 250 characters (a long one ends with a hash of it)."""
    segments = [_INVALID.sub("_", p).strip() or "_" for p in parts]
    key = "/".join("_" if s in (".", "..") else s for s in segments)
    if len(key) > _MAX_KEY:
        digest = hashlib.sha256(key.encode()).hexdigest()[:8]
        key = f"{key[: _MAX_KEY - 9].rstrip('/')}_{digest}"
    return key


def metrics(results: dict[str, Any]) -> dict[str, float]:
    """Each kind's (``ReportPart.metrics``: per item, per capability × model) and the
    verdict's counts.  Two items whose keys are the same once sanitized keep apart as
    ``KEY_2``, ``KEY_3`` (records are in position order, so the numbering is the same in
    every run)."""
    out: dict[str, float] = {}

    def put(value: Any, *parts: str) -> None:
        if value is None:
            return
        key, n = metric_key(*parts), 1
        while key in out:
            n += 1
            key = metric_key(*parts[:-1], f"{parts[-1]}_{n}")
        out[key] = float(value)

    for part in report_parts():
        part.metrics(part.records(results), put)
    gate = verdict(results)
    out["gated_items"] = float(sum(n for n, _ in gate.counts.values()))
    out["failed_items"] = float(sum(f for _, f in gate.counts.values()))
    out["errored_items"] = float(gate.errored)
    out["lost_items"] = float(gate.lost)
    return out


def params(results: dict[str, Any]) -> dict[str, str]:
    """The run's settings and its models with their sources (a URL without user info)."""
    run = results.get("run", {})
    out = {
        "nlp_gate_version": __version__,
        "profile": str(run.get("profile")),
        "seed": str(run.get("seed")),
        "sample": "all" if run.get("sample") is None else str(run["sample"]),
        "gates": str(run.get("gates")),
        "backend": str(run.get("backend")),
    }
    if run.get("shard"):
        out["shard"] = str(run["shard"])
    for m in run.get("models", []):
        registry = m.get("registry") or {}
        source = registry.get("uri") or str(m.get("model_id"))
        out[metric_key("model", m["dataset"], m["model"])] = _public(source)
        if registry.get("version") is not None:
            out[metric_key("model", m["dataset"], m["model"], "version")] = (
                f"{registry['name']}/{registry['version']}"
            )
    return {k: v[:_MAX_PARAM] for k, v in out.items()}


def gated_versions(results: dict[str, Any]) -> dict[tuple[str, str], int]:
    """(registered name, version) of each model of the run that came from a registry
    version, and how many of its gated records are over their gate (a comparison counts
    for its candidate).  One version named twice (by alias and by number) is one entry."""
    missed: dict[str, int] = defaultdict(int)
    for part in report_parts():
        for r in part.records(results):
            model = r.get("candidate", r.get("model"))
            if r.get("passed") is False and model is not None:
                missed[f"{r['dataset']}/{model}"] += 1
    versions: dict[tuple[str, str], int] = {}
    for m in results.get("run", {}).get("models", []):
        registry = m.get("registry") or {}
        if registry.get("name") and registry.get("version") is not None:
            key = (str(registry["name"]), str(registry["version"]))
            versions[key] = versions.get(key, 0) + missed[f"{m['dataset']}/{m['model']}"]
    return versions


def _public(text: str) -> str:
    """A source as it may be written down: a URL without its user info and query (where a
    token may travel), anything else as it is."""
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return text
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _artifacts(reports_where: dict[str, Path]) -> list[tuple[Path, str | None]]:
    """The reports beside results.json (tables, plots, summary.html), each with the
    artifact folder it goes to; not Allure's raw results (allure-pytest's, one per item)."""
    files: list[tuple[Path, str | None]] = []
    summary = reports_where.get("summary")
    if summary is not None and summary.is_file():
        files.append((summary, None))
    for what, patterns in (("tables", ("*.md", "*.csv", "*.html")), ("plots", ("*.png",))):
        folder = reports_where.get(what)
        if folder is not None and folder.is_dir():
            files += [(p, what) for pattern in patterns for p in sorted(folder.glob(pattern))]
    return files


# -- writing it -----------------------------------------------------------------------------
def log_run(end: RunEnd, settings: MlflowLog | None, exitstatus: int) -> None:
    """The write-back of a run that asked for one (``settings``), its lines added to the
    terminal summary's (``end.notes``).  A run refused at start-up gated nothing; an
    interrupted one was stopped by its user, who is not kept waiting on a server."""
    if settings is None or end.results.get("refused"):
        return
    if end.results.get("interrupted"):
        end.notes.append("nlp-gate: MLflow write-back skipped: the run was interrupted")
        return
    where = end.reports.where if end.reports is not None else None
    line = end.verdict(exitstatus).line()
    end.notes.append(write_back(settings, end.results, where, exitstatus, line))


def write_back(
    settings: MlflowLog,
    results: dict[str, Any],
    reports_where: dict[str, Path] | None,
    exitstatus: int,
    verdict_line: str,
) -> str:
    """Log the run and tag its versions: the line that says where it is, or at which step
    and why it failed (never a raise)."""
    where = _public(settings.tracking_uri)
    word = run_verdict(results, exitstatus)
    run_id: str | None = None
    step = "reaching the tracking server"
    client: Any = None
    values: dict[str, float] = {}
    files: list[tuple[Path, str | None]] = []
    tagged: list[str] = []
    # A shard's verdict is not the gate's: its run is logged, no version is tagged for it.
    shard = results.get("run", {}).get("shard")
    versions = {} if shard else gated_versions(results)
    try:
        with _quiet():
            import mlflow

            # The versions are tagged in the registry they were resolved from (MLflow's own
            # variables: MLFLOW_REGISTRY_URI, else MLFLOW_TRACKING_URI).
            registry = mlflow.get_registry_uri() if versions else settings.tracking_uri
            client = mlflow.MlflowClient(settings.tracking_uri, registry)
            step = f"looking up the experiment {settings.experiment!r}"
            experiment = _experiment(client, settings.experiment)
            step = "creating the run"
            run = client.create_run(
                experiment,
                run_name=f"nlp-gate {word}",
                tags={VERDICT_TAG: word, "nlp_gate.exit_status": str(exitstatus)},
            )
            run_id = run.info.run_id
            step = "logging params and metrics"
            from mlflow.entities import Metric, Param, RunTag

            values = metrics(results)
            values["verdict_passed"] = float(word == "passed")
            client.log_batch(
                run_id,
                metrics=[Metric(k, v, run.info.start_time, 0) for k, v in values.items()],
                params=[Param(k, v) for k, v in params(results).items()],
                tags=[RunTag("nlp_gate.verdict_line", verdict_line[:8000])],
            )
            step = "uploading the reports"
            client.log_text(run_id, json.dumps(results, indent=2) + "\n", "results.json")
            files = _artifacts(reports_where or {})
            for path, folder in files:
                client.log_artifact(run_id, str(path), folder)
            for (name, version), missed in versions.items():
                step = f"tagging model version {name}/{version}"
                for key, value in ((VERDICT_TAG, word), (RUN_ID_TAG, run_id), (MISSED_TAG, missed)):
                    client.set_model_version_tag(name, version, key, str(value))
                tagged.append(f"{name} version {version}")
            step = "finishing the run"
            client.set_terminated(run_id, "FINISHED")
    except Exception as exc:  # whatever the client or its store raises: one line, no trace
        _mark_failed(client, run_id)
        created = f" (run {run_id}, marked FAILED)" if run_id else ""
        return (
            f"nlp-gate: MLflow write-back failed at {step}{created}: tracking server "
            f"{where}: {_scrub(_first_line(exc), settings.tracking_uri)}"
        )
    return (
        f"nlp-gate: MLflow run {run_id} in experiment {settings.experiment!r} at {where}: "
        f"{len(values)} metrics, {1 + len(files)} report files; verdict {word}"
        + (f"; tagged {', '.join(tagged)}" if tagged else "")
        + (f"; no model version tagged: shard {shard} is not the whole gate" if shard else "")
    )


def _experiment(client: Any, name: str) -> str:
    """The experiment's id, created when the server has none of that name (a concurrent
    run may create it first: then it is theirs)."""
    from mlflow.exceptions import MlflowException

    found = client.get_experiment_by_name(name)
    if found is not None:
        return str(found.experiment_id)
    try:
        return str(client.create_experiment(name))
    except MlflowException:
        again = client.get_experiment_by_name(name)
        if again is None:
            raise
        return str(again.experiment_id)


def _mark_failed(client: Any, run_id: str | None) -> None:
    """Best effort: a run that was created says it is incomplete (the server may be gone)."""
    if client is None or run_id is None:
        return
    with contextlib.suppress(Exception), _quiet():
        client.set_terminated(run_id, "FAILED")


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """MLflow's client prints a run's URL (the tracking URI as given, user info included)
    to stdout, and its dependencies warn of their own deprecations: the summary line says
    where the run is instead."""
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:500] if text else type(exc).__name__


def _scrub(text: str, uri: str) -> str:
    """``text`` without the tracking URI's user info and query (a message quotes the URL)."""
    parts = urlsplit(uri)
    userinfo = parts.netloc.rpartition("@")[0]
    if userinfo:
        text = text.replace(f"{userinfo}@", "").replace(userinfo, "***")
    if parts.query:
        text = text.replace(f"?{parts.query}", "").replace(parts.query, "***")
    return text
