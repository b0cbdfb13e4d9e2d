"""Bad input stops the run once, before any item runs: exit 4 (pytest's usage error), one
message whose first line names the file and the fix, no traceback; with and without xdist.
One row per row of the table in docs/guide/troubleshooting.md, "When something is wrong"."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from fixtures.gate_run import RunGate
from nlp_gate.config.profiles import DEFAULT_MODELS_FILE

LABELS = ["negative", "positive"]
THRESHOLDS = Path(__file__).resolve().parents[2] / "thresholds.yaml"


def _models(tmp: Path, model_id: str) -> list[str]:
    tasks = yaml.safe_load(DEFAULT_MODELS_FILE.read_text())["tasks"]
    path = tmp / "models.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "tasks": tasks,
                "profiles": {
                    "tiny": {
                        "datasets": {
                            "sst2": {
                                "task": "sentiment",
                                "models": {"m": {"id": model_id, "labels": LABELS}},
                            }
                        }
                    }
                },
            }
        )
    )
    gates = tmp / "gates.yaml"
    gates.write_text(yaml.safe_dump({"profiles": {"tiny": {"checklist": {"default": 100}}}}))
    return ["--nlp-models-file", str(path), "--nlp-thresholds", str(gates)]


def _checkpoint(tmp: Path, zoo: Path, **config: object) -> list[str]:
    target = tmp / "checkpoint"
    shutil.copytree(zoo / "sst2" / "bert", target)
    body = json.loads((target / "config.json").read_text())
    body.update(config)
    (target / "config.json").write_text(json.dumps(body))
    return _models(tmp, str(target))


def _gates(tmp: Path, text: str) -> list[str]:
    path = tmp / "gates.yaml"
    path.write_text(text)
    return ["--nlp-thresholds", str(path)]


# row -> (the run's arguments from (tmp dir, zoo), the first line's start, a later detail)
MODEL = "1 model(s) of profile 'tiny' ({models}) cannot be tested:"
ROWS: dict[str, tuple[Callable[[Path, Path], list[str]], str, str]] = {
    "missing model": (
        lambda t, z: _models(t, str(t / "nowhere")),
        MODEL,
        "sst2-m ({tmp}/nowhere): no such directory {tmp}/nowhere; fix its 'id'",
    ),
    "fill-mask checkpoint": (
        lambda t, z: _checkpoint(t, z, architectures=["BertForMaskedLM"]),
        MODEL,
        "is a BertForMaskedLM checkpoint, not a sequence classifier",
    ),
    "wrong label count": (
        lambda t, z: _checkpoint(t, z, id2label={"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"}),
        MODEL,
        "has 3 outputs but the models file maps 2 labels",
    ),
    "contradicting label names": (
        lambda t, z: _checkpoint(t, z, id2label={"0": "positive", "1": "negative"}),
        MODEL,
        "output 0 is named 'positive' in the checkpoint but the models file maps it to "
        "'negative'; fix 'labels' in the models file",
    ),
    "checkpoint with its own code": (
        lambda t, z: _checkpoint(t, z, auto_map={"AutoConfig": "configuration_x.X"}),
        MODEL,
        "nlp-gate never runs a checkpoint's own code (trust_remote_code=False)",
    ),
    "malformed thresholds YAML": (
        lambda t, z: _gates(t, "profiles: {tiny: [\n"),
        "{gates}:2:1: not valid YAML (",
        "fix the thresholds file",
    ),
    "malformed models file YAML": (
        lambda t, z: _write(t / "models.yaml", "tasks: {a: b\n"),
        "{models}:2:1: not valid YAML (",
        "fix the models file at that line",
    ),
    "missing models file": (
        lambda t, z: ["--nlp-models-file", str(t / "models.yaml")],
        "models file not found: {models}",
        "",
    ),
    "missing thresholds file": (
        lambda t, z: ["--nlp-thresholds", str(t / "gates.yaml")],
        "thresholds file not found: {gates}",
        "",
    ),
    "unknown profile": (
        lambda t, z: ["--nlp-profile", "tyni"],
        "unknown profile 'tyni' in ",
        "valid profiles: paper, tiny",
    ),
    "unknown capability in a gate": (
        lambda t, z: _gates(t, "profiles: {tiny: {checklist: {capabilities: {Fairnes: 5}}}}"),
        "{gates} (profile 'tiny'):",
        "unknown capability 'Fairnes'; valid: Coref, Fairness",
    ),
    "non-numeric gate": (
        lambda t, z: _gates(t, "profiles: {tiny: {checklist: {default: high}}}"),
        "{gates} (profile 'tiny'):",
        "checklist.default (a max fail rate) must be a percentage in [0, 100], got 'high'",
    ),
    "tampered suite": (
        lambda t, z: _suites(t, b"not the release"),
        "{tmp}/suites/sentiment_suite.tar.gz has sha256 ",
        "for CheckList's released sentiment suite (corrupt, truncated or a different release). "
        "Delete it and fetch the original",
    ),
    "missing suite": (
        lambda t, z: _suites(t, None),
        "CheckList release suite 'sentiment' (sentiment_suite.tar.gz, sha256 ",
        "or to download it automatically, run the gate "
        "with --nlp-download, or point --nlp-suite-dir at a folder holding it",
    ),
}


def _suites(tmp: Path, content: bytes | None) -> list[str]:
    """A suite folder whose sentiment tarball is ``content`` (None: absent)."""
    (tmp / "suites").mkdir()
    if content is not None:
        (tmp / "suites" / "sentiment_suite.tar.gz").write_bytes(content)
    return ["--nlp-suite-dir", str(tmp / "suites")]


def _write(path: Path, text: str) -> list[str]:
    path.write_text(text)
    return ["--nlp-models-file", str(path)]


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("row", ROWS)
def test_bad_input_stops_the_run_with_one_message(
    run_gate: RunGate,
    tmp_path: Path,
    zoo: Path,
    row: str,
    workers: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A cache of this test's own: no suite tarball downloaded earlier stands in for a
    # missing one.
    monkeypatch.setenv("NLP_GATE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NLP_GATE_ZOO_DIR", str(zoo))
    make, first, detail = ROWS[row]
    args = make(tmp_path, zoo)
    run = run_gate(*args, "-m", "fairness and not native", workers=workers)
    err, out = run.result.stderr.str(), run.result.stdout.str()
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR, out[-2000:] + err[-2000:]
    expected = "ERROR: " + first.format(
        models=tmp_path / "models.yaml", gates=tmp_path / "gates.yaml", tmp=tmp_path
    )
    assert err.splitlines()[0].startswith(expected), err
    assert detail.format(tmp=tmp_path) in err
    assert "Traceback" not in err + out and "INTERNALERROR" not in err + out
    assert "passed" not in out and "failed" not in out  # no item ran
    # results.json says the run was refused (no earlier run's file stands in for it)
    assert run.json["refused"] and run.json["records"] == [] and run.json["ran"] == 0
