"""A model source the package does not know, registered from a user's ``conftest.py`` with
``nlp_gate.sources.register``, is gated like any other: named by ``--nlp-model`` or by a models
file's ``id``, checked at start-up, loaded, recorded under its own location -- with no edit to
the package (issue 59: a model source is recognised in exactly one place)."""

from __future__ import annotations

from pathlib import Path

from fixtures.function_repo import PLAIN_WORDS_TEST, function_repo, run_repo
from fixtures.user_repo import LABELS, write_gates, write_models

# The toy source: ``toy://NAME`` answers p(positive) 0.9 for a sentence with a positive word
# (``toy://swapped``: its outputs in the other order, so that the gate has something to fail);
# its start-up check refuses ``toy://broken``.
CONFTEST = """
from nlp_gate.engine.function_model import FunctionClassifier
from nlp_gate.sources import register
from nlp_gate.sources.base import ModelSource

POSITIVE = {"good", "great", "lovely", "excellent"}


def words(texts):
    return [[0.1, 0.9] if POSITIVE & set(t.lower().rstrip(".").split()) else [0.9, 0.1]
            for t in texts]


def swapped(texts):
    return [row[::-1] for row in words(texts)]


class ToySource(ModelSource):
    name = "toy"
    uses_backend = False
    reads_labels = False  # answers in the task's class order

    def recognises(self, source):
        return source.startswith("toy://")

    def preflight(self, spec, context):
        return f"{spec.key}: the toy is broken" if spec.source == "toy://broken" else None

    def location(self, spec, context):
        return "toy shelf: " + spec.source.removeprefix("toy://")

    def load(self, spec, context):
        function = swapped if spec.source == "toy://swapped" else words
        return FunctionClassifier(spec, function, context.options.load, None, context.inputs)


register(ToySource())
"""


def _repo(tmp_path: Path) -> Path:
    repo = function_repo(tmp_path, "", {"test_words.py": PLAIN_WORDS_TEST})
    (repo / "conftest.py").write_text(CONFTEST)
    return repo


def test_a_registered_source_is_gated_from_the_command_line(tmp_path: Path) -> None:
    run = run_repo(_repo(tmp_path), "--nlp-model", "sentiment=toy://words", "-n", "0")
    assert run.process.returncode == 0, run.out[-3000:]
    (model,) = run.json["run"]["models"]
    assert (model["model"], model["model_id"], model["location"]) == (
        "words",
        "toy://words",
        "toy shelf: words",
    )
    assert model["labels"] == LABELS  # its task's class order: it reads no labels
    ((failed, cases),) = run.fail_counts().values()
    assert failed == 0 and cases > 0


def test_a_registered_source_in_a_models_file_fails_its_gate(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    models = write_models(
        repo / "models.yaml",
        {
            "good": {"id": "toy://words", "labels": LABELS},
            "bad": {"id": "toy://swapped", "labels": LABELS},
        },
    )
    gates = write_gates(repo / "gates.yaml", {"checklist": {"default": 20}})
    run = run_repo(
        repo, "--nlp-models-file", str(models), "--nlp-thresholds", str(gates), "-n", "0"
    )
    assert run.process.returncode == 1, run.out[-3000:]
    counts = run.fail_counts()
    assert counts[("plain_words", "good")][0] == 0
    failed, cases = counts[("plain_words", "bad")]
    assert failed == cases > 0


def test_a_registered_sources_preflight_stops_the_run_at_start(tmp_path: Path) -> None:
    run = run_repo(_repo(tmp_path), "--nlp-model", "sentiment=toy://broken", "-n", "0")
    assert run.process.returncode == 4, run.out[-3000:]
    assert "the toy is broken" in run.out
