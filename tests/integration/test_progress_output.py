"""Long stages show signs of life while they run (issue 31): the zoo build's and the masked
LM's stages, written by the building process for its workers; a model's cold predictions in a
pytest run, in one process and under xdist (whose workers' output pytest would otherwise
swallow), not at all under ``-q``, and what they cost in the terminal summary."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fixtures.gate_run import GateRun, RunGate
from nlp_gate import progress
from tests.integration.test_zoo import micro_recipe
from workshop.zoo import build_zoo, masked_lm

# Two zoo checkpoints (sst2's BERT and ALBERT), their fairness tests, no prediction cache: every
# input is predicted, a few thousand per model, in passes longer than a batch.
ARGS = (
    "-m",
    "fairness and not native",
    "-k",
    "sst2",
    "--nlp-sample",
    "50",
    "--nlp-prediction-cache",
    "off",
)
MODELS = ("sst2/bert", "sst2/albert")


def output(run: GateRun) -> str:
    """What the run printed: pytest's terminal (stdout) and its workers' stderr."""
    return run.result.stdout.str() + "\n" + run.result.stderr.str()


def forward_passes(run: GateRun) -> dict[str, int]:
    """Inputs each model computed (results.json ``engine``, over its processes)."""
    passes: dict[str, int] = {}
    for r in run.json["engine"]:
        name = f"{r['dataset']}/{r['model']}"
        passes[name] = passes.get(name, 0) + r["forward_passes"]
    return passes


def progress_lines(text: str, model: str) -> tuple[list[int], list[int]]:
    """The sizes of ``model``'s cold passes that said they started, and that said they ended."""
    name = re.escape(f"cold predictions: {model}: ")
    started = re.findall(rf"^(?:\[gw\d+\] )?{name}started \((\d+) inputs\)$", text, re.MULTILINE)
    done = re.findall(
        rf"^(?:\[gw\d+\] )?{name}done in [\dhms.]+, (\d+) inputs "
        r"\([\d.]+ inputs/s\)$",
        text,
        re.MULTILINE,
    )
    return [int(n) for n in started], [int(n) for n in done]


@pytest.mark.parametrize("workers", [0, 2])
def test_cold_predictions_report_progress_and_their_cost(run_gate: RunGate, workers: int) -> None:
    run = run_gate(*ARGS, workers=workers)
    text = output(run)
    assert run.result.ret == 0, text[-3000:]
    passes = forward_passes(run)
    for model in MODELS:
        started, done = progress_lines(text, model)
        # Each pass longer than a batch (128 inputs) starts and ends with a line; under xdist
        # the lines come from the workers, marked with their names.
        assert started and sorted(started) == sorted(done), text[-3000:]
        assert all(n > 128 for n in started)
        assert sum(done) <= passes[model]
        if workers:
            assert re.search(
                rf"^\[gw\d+\] cold predictions: {re.escape(model)}: started", text, re.MULTILINE
            )
        # The summary's cost line counts every input the model computed, on every worker.
        run.result.stdout.re_match_lines(
            [
                rf"cold predictions: {re.escape(model)}: {passes[model]} inputs in [\d.]+s"
                + r"( \(\d+ inputs/s\))?, batches of up to \d+ rows, \d+ padded tokens$"
            ]
        )
    # results.json has the time each process spent on them.
    assert all(r["forward_seconds"] > 0 for r in run.json["engine"] if r["forward_passes"])


@pytest.mark.parametrize("workers", [0, 2])
def test_quiet_runs_show_no_progress(run_gate: RunGate, workers: int) -> None:
    run = run_gate(*ARGS, "-q", workers=workers)
    text = output(run)
    assert run.result.ret == 0, text[-3000:]
    assert forward_passes(run)["sst2/bert"] > 128  # the same passes ran, silently
    for model in MODELS:
        assert progress_lines(text, model) == ([], [])
    assert "started (" not in text


class Lines:
    """A progress sink that keeps the finished lines."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def line(self, text: str) -> None:
        self.lines.append(text)

    def live(self, text: str) -> None:
        raise AssertionError("not interactive")


def stage_lines(lines: list[str], stage: str) -> list[str]:
    """What ``stage`` wrote, without its name."""
    return [line.removeprefix(f"{stage}: ") for line in lines if line.startswith(f"{stage}: ")]


def test_a_zoo_build_reports_every_stage_of_every_job(tmp_path: Path) -> None:
    """The build's workers are other processes: their stages reach this one's reporter."""
    sink = Lines()
    with progress.using(progress.TextReporter(sink)):
        card = build_zoo(
            tmp_path / "zoo",
            recipe=micro_recipe(datasets=["sst2", "mrpc"], epochs={"sst2": 1, "mrpc": 1}),
            jobs=2,
        )
    assert len(card.models) == 4
    stages = ["zoo: tokenizers and base encoders", "zoo: classifiers"]
    for family in ("bert", "albert"):
        stages += [f"zoo: {family} base: tokenizer", f"zoo: {family} base: pre-training"]
        for dataset in ("sst2", "mrpc"):
            stages += [
                f"zoo: {dataset}/{family}: fine-tuning",
                f"zoo: {dataset}/{family}: evaluation",
            ]
    for stage in stages:
        written = stage_lines(sink.lines, stage)
        assert written[0].startswith("started") and written[-1].startswith("done in"), sink.lines
    steps = {b.family: b.steps for b in card.bases}
    assert re.match(
        rf"done in [\dhms.]+, {steps['bert']} steps \(",
        stage_lines(sink.lines, "zoo: bert base: pre-training")[-1],
    )
    assert stage_lines(sink.lines, "zoo: classifiers")[0] == "started (4 models)"
    assert re.match(r"done in [\dhms.]+, 4 models", stage_lines(sink.lines, "zoo: classifiers")[-1])
    # The held-out set of each model, evaluated in full.
    heldout = card.model("mrpc", "albert").heldout_size
    assert (
        stage_lines(sink.lines, "zoo: mrpc/albert: evaluation")[0]
        == f"started ({heldout} examples)"
    )


def test_the_zoo_cli_is_quiet_when_asked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from nlp_gate.zoo import __main__ as cli

    def build(*args: object, **kwargs: object) -> object:
        with progress.Stage("zoo: classifiers", 12, "models") as stage:
            stage.advance(12)
        raise SystemExit(0)  # the card's table is another test's

    monkeypatch.setattr(cli, "ensure_zoo", build)
    with progress.using(progress.TextReporter(progress.StreamSink())):
        with pytest.raises(SystemExit):
            cli.main(["build"])
        assert "zoo: classifiers: done in" in capsys.readouterr().err
        with pytest.raises(SystemExit):
            cli.main(["build", "--quiet"])  # (quiet for the rest of the process)
        assert capsys.readouterr().err == ""


def test_the_masked_lm_reports_its_training_steps(tmp_path: Path) -> None:
    sink = Lines()
    with progress.using(progress.TextReporter(sink)):
        card = masked_lm.build(tmp_path / "masked-lm", masked_lm.MaskedLMRecipe(steps=5, heldout=8))
    written = stage_lines(sink.lines, "attacks: masked LM: training")
    assert written[0] == "started (5 steps)"
    assert re.match(r"done in [\dhms.]+, 5 steps \(", written[-1]), sink.lines
    assert card["train_sentences"] > 0
