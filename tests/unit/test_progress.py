"""The progress reporter (``nlp_gate.progress``): the lines a long stage writes, when, and
where, with an injected clock (no test here waits for time to pass)."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest

from nlp_gate import progress
from nlp_gate.config.profiles import cli_profile
from nlp_gate.engine.function_model import FunctionClassifier
from nlp_gate.engine.predictor import LoadOptions
from nlp_gate.progress import (
    HEARTBEAT_S,
    Reporter,
    Stage,
    StreamSink,
    TextReporter,
    finished_text,
    running_text,
)
from workshop.zoo.relay import QueueReporter, Relay


class Clock:
    """Time that passes only when a test says so."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Recorder:
    """A sink that keeps what it was given: finished lines, and live lines (interactive)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.live_lines: list[str] = []

    def line(self, text: str) -> None:
        self.lines.append(text)

    def live(self, text: str) -> None:
        self.live_lines.append(text)


class ListQueue:
    """A queue in one process, with the calls of ``multiprocessing.SimpleQueue`` used."""

    def __init__(self) -> None:
        self.items: list[object] = []

    def put(self, obj: object, /) -> None:
        self.items.append(obj)

    def get(self) -> object:
        return self.items.pop(0)

    def empty(self) -> bool:
        return not self.items


@pytest.fixture
def clock() -> Clock:
    return Clock()


def line_reporter(clock: Clock) -> tuple[TextReporter, Recorder]:
    sink = Recorder()
    return TextReporter(sink, interactive=False, clock=clock), sink


def test_a_stage_writes_a_line_when_it_starts_and_one_with_its_cost_when_it_ends(
    clock: Clock,
) -> None:
    reporter, sink = line_reporter(clock)
    with Stage("zoo: sst2/bert: fine-tuning", total=300, unit="steps", reporter=reporter) as s:
        for _ in range(300):
            clock.advance(0.05)
            s.advance()
    assert sink.lines == [
        "zoo: sst2/bert: fine-tuning: started (300 steps)",
        "zoo: sst2/bert: fine-tuning: done in 15.0s, 300 steps (20.0 steps/s)",
    ]
    assert s.elapsed == pytest.approx(15.0)
    assert sink.live_lines == []  # not interactive: nothing rewritten in place


def test_a_running_stage_writes_at_most_one_line_per_heartbeat(clock: Clock) -> None:
    reporter, sink = line_reporter(clock)
    with Stage("cold predictions: sst2/bert", total=1000, unit="inputs", reporter=reporter) as s:
        for _ in range(100):  # 100 s at 10 inputs a second, a batch every second
            clock.advance(1.0)
            s.advance(10)
    running = sink.lines[1:-1]
    # One line as each 20 s passes (at 20, 40, 60, 80 and 100 s): never two within a
    # heartbeat, never a gap over 30 s.
    assert len(running) == 100 // HEARTBEAT_S == 5
    assert running[0] == (
        "cold predictions: sst2/bert: 200/1000 inputs (20%), 10.0 inputs/s, "
        "ETA 1m20s, 20.0s elapsed"
    )
    assert (
        sink.lines[-1] == "cold predictions: sst2/bert: done in 1m40s, 1000 inputs (10.0 inputs/s)"
    )


def test_a_stage_that_does_not_advance_is_kept_alive_by_tick(clock: Clock) -> None:
    """A parent waiting on a worker's opaque step (no count) ticks its reporter."""
    reporter, sink = line_reporter(clock)
    with Stage("zoo: bert base: tokenizer", reporter=reporter):
        for _ in range(50):
            clock.advance(1.0)
            reporter.tick()
    assert sink.lines == [
        "zoo: bert base: tokenizer: started",
        "zoo: bert base: tokenizer: 20.0s elapsed",
        "zoo: bert base: tokenizer: 40.0s elapsed",
        "zoo: bert base: tokenizer: done in 50.0s",
    ]


def test_a_stage_with_nothing_to_count_is_quiet_while_another_reports(clock: Clock) -> None:
    """A build's own stage around its worker's: the worker's lines keep the log alive."""
    reporter, sink = line_reporter(clock)
    with Stage("attacks: masked LM: build", reporter=reporter):
        with Stage("attacks: masked LM: training", 100, "steps", reporter=reporter) as s:
            for _ in range(100):
                clock.advance(1.0)
                s.advance()
                reporter.tick()
        for _ in range(30):  # saving: nothing else reports now
            clock.advance(1.0)
            reporter.tick()
    building = [line for line in sink.lines if line.startswith("attacks: masked LM: build: ")]
    assert building == [
        "attacks: masked LM: build: started",
        "attacks: masked LM: build: 2m00s elapsed",
        "attacks: masked LM: build: done in 2m10s",
    ]


def test_a_stage_left_by_an_exception_says_it_failed(clock: Clock) -> None:
    reporter, sink = line_reporter(clock)
    with pytest.raises(RuntimeError), Stage("build", 10, "steps", reporter=reporter) as s:
        clock.advance(2.0)
        s.advance(4)
        raise RuntimeError("boom")
    assert sink.lines[-1] == "build: failed after 2.0s, 4 steps (2.0 steps/s)"


def test_slow_rates_read_as_time_per_unit(clock: Clock) -> None:
    reporter, sink = line_reporter(clock)
    with Stage("zoo: classifiers", 12, "models", reporter=reporter) as s:
        clock.advance(65.0)
        s.advance()
        clock.advance(5.0)
    assert sink.lines[-1] == "zoo: classifiers: done in 1m10s, 1 models (one per 1m10s)"


def test_unknown_totals_and_details_are_shown(clock: Clock) -> None:
    reporter, _ = line_reporter(clock)
    stage = Stage("zoo: bert base: pre-training", unit="steps", reporter=reporter).__enter__()
    clock.advance(10.0)
    stage.advance(130, detail="token accuracy 0.912 (ends at 0.990)")
    assert running_text(stage) == (
        "zoo: bert base: pre-training: 130 steps, 13.0 steps/s, "
        "10.0s elapsed; token accuracy 0.912 (ends at 0.990)"
    )
    stage.finish()
    assert finished_text(stage) == (
        "zoo: bert base: pre-training: done in 10.0s, 130 steps "
        "(13.0 steps/s); token accuracy 0.912 (ends at 0.990)"
    )


def test_interactive_output_rewrites_one_line_throttled_and_leaves_the_end_line(
    clock: Clock,
) -> None:
    sink = Recorder()
    reporter = TextReporter(sink, interactive=True, clock=clock, width=lambda: 200)
    with Stage("zoo: sst2/bert: fine-tuning", 100, "steps", reporter=reporter) as s:
        for _ in range(100):
            clock.advance(0.01)  # 100 updates in 1 s: redrawn every 0.2 s, not 100 times
            s.advance()
    assert 4 <= len(sink.live_lines) <= 7
    assert sink.live_lines[0] == "zoo: sst2/bert: fine-tuning: 0/100 steps (0%), 0.0s elapsed"
    assert sink.lines == ["zoo: sst2/bert: fine-tuning: done in 1.0s, 100 steps (100 steps/s)"]


def test_interactive_output_shows_concurrent_stages_on_one_line(clock: Clock) -> None:
    sink = Recorder()
    columns = 80
    reporter = TextReporter(sink, interactive=True, clock=clock, width=lambda: columns)
    jobs = Stage("zoo: classifiers", 12, "models", reporter=reporter).__enter__()
    tuning = Stage("zoo: rte/bert: fine-tuning", 625, "steps", reporter=reporter).__enter__()
    Stage("zoo: rte/albert: fine-tuning", 625, "steps", reporter=reporter).__enter__()
    clock.advance(10.0)
    tuning.advance(250)
    # Each in short, the shared "zoo: " said once, and cut to the terminal's width.
    assert sink.live_lines[-1] == (
        "zoo: classifiers 0/12 (0%) | rte/bert: fine-tuning 250/625 (40%), ETA 15.0s | …"
    )
    assert len(sink.live_lines[-1]) == 79
    columns = 120
    jobs.finish()
    assert sink.lines == ["zoo: classifiers: done in 10.0s"]
    assert sink.live_lines[-1] == (
        "zoo: rte/bert: fine-tuning 250/625 (40%), ETA 15.0s | rte/albert: fine-tuning 0/625 (0%)"
    )


def test_quiet_writes_nothing(clock: Clock, capfd: pytest.CaptureFixture[str]) -> None:
    """The reporter ``quiet()`` installs (the next test) writes nothing to either stream, not
    even the heartbeats of a long stage, which stderr's reporter writes."""

    def fine_tune(reporter: Reporter) -> Stage:
        with Stage("zoo: sst2/bert: fine-tuning", 3, "steps", reporter=reporter) as s:
            for _ in range(3):
                clock.advance(HEARTBEAT_S)
                reporter.tick()
                s.advance(1)
        return s

    fine_tune(TextReporter(StreamSink(), clock=clock))
    assert capfd.readouterr().err.count("zoo: sst2/bert: fine-tuning") >= 3  # seen when written
    quiet = fine_tune(Reporter(clock))
    assert capfd.readouterr() == ("", "")
    assert quiet.elapsed == 3 * HEARTBEAT_S  # still timed: its cost is the caller's to report


def test_the_quiet_switch_and_using_set_the_process_reporter() -> None:
    before = progress.current()
    with progress.using(Reporter()):
        progress.quiet()
        assert type(progress.current()) is Reporter
    assert progress.current() is before


@pytest.mark.parametrize("tty", [False, True])
def test_a_stream_gets_lines_or_a_line_rewritten_in_place(clock: Clock, tty: bool) -> None:
    stream = io.StringIO()
    reporter = TextReporter(StreamSink(stream), interactive=tty, clock=clock, width=lambda: 80)
    with Stage("masked LM", 2, "steps", reporter=reporter) as s:
        clock.advance(1.0)
        s.advance(2)
    out = stream.getvalue()
    if tty:
        assert out == (
            "\rmasked LM: 0/2 steps (0%), 0.0s elapsed\x1b[K"
            "\rmasked LM: 2/2 steps (100%), 2.0 steps/s, 1.0s elapsed\x1b[K"
            "\r\x1b[Kmasked LM: done in 1.0s, 2 steps (2.0 steps/s)\n"
        )
    else:
        assert out == (
            "masked LM: started (2 steps)\nmasked LM: done in 1.0s, 2 steps (2.0 steps/s)\n"
        )


def test_a_fresh_line_stream_starts_each_line_on_its_own() -> None:
    """An xdist worker's stderr: the controller may be mid-way through a line of dots."""
    stream = io.StringIO()
    StreamSink(stream, fresh_line=True).line("[gw0] cold predictions: sst2/bert: started")
    assert stream.getvalue() == "\n[gw0] cold predictions: sst2/bert: started\n"


def relayed(clock: Clock, work: Callable[[Reporter, Relay], None]) -> list[str]:
    """The lines the parent writes for the stages ``work`` runs in a "worker" (which pumps
    the relay where the parent, polling, would)."""
    queue = ListQueue()
    parent, sink = line_reporter(clock)
    relay = Relay(queue, parent)
    work(QueueReporter(queue, clock=clock), relay)
    relay.close()
    return sink.lines


def test_a_worker_s_stages_are_written_by_its_parent(clock: Clock) -> None:
    def work(worker: Reporter, relay: Relay) -> None:
        with Stage("zoo: rte/albert: fine-tuning", 30, "steps", reporter=worker) as s:
            for _ in range(30):
                clock.advance(1.0)
                s.advance(detail="loss 0.4")
                relay.pump()
            relay.pump()

    assert relayed(clock, work) == [
        "zoo: rte/albert: fine-tuning: started (30 steps)",
        (
            "zoo: rte/albert: fine-tuning: 20/30 steps (66%), 1.0 steps/s, ETA 10.0s, "
            "20.0s elapsed; loss 0.4"
        ),
        # Started and ended when the worker said, not when the parent heard of it.
        "zoo: rte/albert: fine-tuning: done in 30.0s, 30 steps (1.0 steps/s); loss 0.4",
    ]


def test_a_worker_sends_its_counts_throttled() -> None:
    clock = Clock()
    queue = ListQueue()
    with Stage("s", 1000, "steps", reporter=QueueReporter(queue, clock=clock)) as s:
        for _ in range(1000):
            clock.advance(0.01)  # 10 s of steps: a count every 0.5 s, not every step
            s.advance()
    kinds = [event[0] for event in queue.items]  # type: ignore[index]  # events are tuples
    assert kinds[0] == "start" and kinds[-1] == "end"
    assert 15 <= kinds.count("advance") <= 21


def test_a_stage_whose_worker_died_is_ended_as_failed(clock: Clock) -> None:
    def work(worker: Reporter, relay: Relay) -> None:
        Stage("zoo: qqp/bert: fine-tuning", 10, "steps", reporter=worker).__enter__()

    assert relayed(clock, work)[-1] == "zoo: qqp/bert: fine-tuning: failed after 0.0s"


def _predict(texts: list[str]) -> list[list[float]]:
    return [[0.25, 0.75] for _ in texts]


def test_a_model_s_cold_pass_longer_than_a_batch_is_a_stage(clock: Clock) -> None:
    """The engine's side: a pass over more than one batch reports per batch; a short one
    (an attack's query) does not; both are timed for the summary."""
    spec = cli_profile(["sentiment=mymod:predict"]).models[0]
    engine = FunctionClassifier(spec, _predict, LoadOptions(batch_size=128), None)
    reporter, sink = line_reporter(clock)
    with progress.using(reporter):
        engine.predict_proba([f"text {i}" for i in range(300)])
        engine.predict_proba([f"short {i}" for i in range(128)])
    name = f"cold predictions: {spec.dataset}/{spec.name}"
    assert sink.lines[0] == f"{name}: started (300 inputs)"
    assert sink.lines[1].startswith(f"{name}: done in ") and ", 300 inputs" in sink.lines[1]
    assert len(sink.lines) == 2  # the 128 inputs: one batch, no lines
    assert engine.forward_count == 428 and engine.forward_seconds == 0.0  # the clock stood still
