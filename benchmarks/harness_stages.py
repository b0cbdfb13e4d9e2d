"""pytest plugin of benchmarks/bench_harness.py (issue 52): CPU seconds per harness stage,
and the forward pass replaced by a constant-cost stand-in.

Loaded with ``-p harness_stages`` (``benchmarks/`` on ``PYTHONPATH``) by bench_harness.py,
never by the shipped package.  Environment:

``NLP_GATE_BENCH_STAGES_DIR``  where each process (the controller and every xdist worker)
                               writes ``stages-<pid>.json`` at its end (required);
``NLP_GATE_BENCH_FORWARD``     ``standin`` (default): ``Classifier._probabilities`` returns
                               rows derived from each row's token ids, a few numpy
                               operations per batch; ``real``: the model's own forward.
``NLP_GATE_BENCH_HOLD_PER_TOKEN``  seconds the stand-in holds each batch per padded token
                               (a sleep, GIL released: a device's time); default 0.
``NLP_GATE_BENCH_AHEAD``       ``on`` (the default with a hold: the engine makes batches
                               ahead in its producer thread, as on CUDA), ``off``, or
                               ``device`` (the default without: the engine's own rule).

Stages are accounted exclusively and per thread: a wrapped function's CPU time
(``time.thread_time`` of the thread that runs it) goes to its stage minus what the wrapped
functions it calls spend.  "start-up" is the process's CPU time before this plugin was
imported (interpreter, pytest, plugins loaded earlier); "other" is what no wrapped function
spent in the main thread: imports after start-up, pytest's own per-item work, fixtures,
xdist's messaging; "other (producer thread)" the producer's own loop; "native threads" the
CPU of threads no stage runs in (the tokenizers library's worker pool, torch's), so the
stages add up to the process's CPU time.  The main thread's CPU is the run's critical path
when a device computes (its forward pass holds, the producer works beside it).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.abc
import importlib.machinery
import json
import os
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

_START_CPU = time.process_time()  # before this import: the process's start-up
_START_THREAD = time.thread_time()
# Seconds of "device time" per padded token the stand-in holds each batch for (sleeping, the
# GIL released); 0: no hold.
HOLD_PER_TOKEN = float(os.environ.get("NLP_GATE_BENCH_HOLD_PER_TOKEN", "0") or 0)
# Whether the engine makes batches ahead in a producer thread: "device" (the engine's own
# rule: on CUDA), "on" (as on an accelerator; the default with a hold) or "off".
AHEAD = os.environ.get("NLP_GATE_BENCH_AHEAD", "on" if HOLD_PER_TOKEN else "device")


class Ledger:
    """Exclusive CPU seconds per stage, per thread: each thread keeps a stack of its stages
    under way, and its own CPU time (``time.thread_time``) since its last switch goes to its
    innermost one.  The main thread's is the critical path (what a device waits on); a
    producer thread's runs beside it.  What no Python thread of this process was charged
    (the tokenizers library's own worker threads, a thread's time outside any stage) is
    "native threads" at the end, so the stages add up to the process's CPU time."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.seconds["start-up"] = _START_CPU
        self.held = 0.0  # seconds the holding stand-in slept (the device's time)
        self.tokens = 0  # padded tokens forwarded
        self.batches = 0
        self._lock = threading.Lock()
        self._local = threading.local()
        self._local.stack, self._local.mark = ["other"], time.thread_time()
        self._charged = 0.0  # by every thread, since this import

    def _state(self) -> Any:
        if not hasattr(self._local, "stack"):  # a thread's first stage
            self._local.stack, self._local.mark = ["other (producer thread)"], time.thread_time()
        return self._local

    def _charge(self) -> None:
        state = self._state()
        now = time.thread_time()
        with self._lock:
            self.seconds[state.stack[-1]] += now - state.mark
            self._charged += now - state.mark
        state.mark = now

    def enter(self, stage: str) -> None:
        self._charge()
        self._state().stack.append(stage)
        with self._lock:
            self.calls[stage] += 1

    def leave(self) -> None:
        self._charge()
        self._state().stack.pop()

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        self.enter(name)
        try:
            yield
        finally:
            self.leave()

    def close(self) -> dict[str, Any]:
        self._charge()  # the main thread's last stretch
        total = time.process_time()
        self.seconds["native threads"] = max(0.0, total - _START_CPU - self._charged)
        return {
            "pid": os.getpid(),
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
            "cpu_s": total,
            # The main thread's CPU (start-up included): the critical path of a run whose
            # forward pass is a device's.
            "main_thread_cpu_s": _START_CPU + time.thread_time() - _START_THREAD,
            "held_s": self.held,
            "padded_tokens": self.tokens,
            "batches": self.batches,
            "seconds": dict(self.seconds),
            "calls": dict(self.calls),
        }


LEDGER = Ledger()


def timed(fn: Callable[..., Any], stage: str) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        LEDGER.enter(stage)
        try:
            return fn(*args, **kwargs)
        finally:
            LEDGER.leave()

    wrapper.__bench_original__ = fn  # type: ignore[attr-defined]
    return wrapper


def timed_generator(fn: Callable[..., Iterator[Any]], stage: str) -> Callable[..., Any]:
    """A generator function whose every step (not the caller's work between steps) is
    ``stage``."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Generator[Any, None, None]:
        it = fn(*args, **kwargs)
        while True:
            LEDGER.enter(stage)
            try:
                item = next(it)
            except StopIteration:
                return
            finally:
                LEDGER.leave()
            yield item

    wrapper.__bench_original__ = fn  # type: ignore[attr-defined]
    return wrapper


def standin_probabilities(self: Any, features: dict[str, np.ndarray]) -> np.ndarray:
    """``Classifier._probabilities`` without a model: one row per input, in task class order,
    derived from its token ids (deterministic, different inputs mostly differ), at a cost of
    a few numpy passes over the batch's ids."""
    ids = features["input_ids"]
    weights = np.arange(1, ids.shape[1] + 1, dtype=np.int64) * 7919
    h = (ids * weights).sum(axis=1) % 10007
    p = (h.astype(np.float32) + 0.5) / 10007
    n = len(self._order)
    rows = np.empty((len(ids), n), dtype=np.float32)
    rows[:, 0] = 1 - p
    if n > 1:
        rows[:, 1:] = (p / (n - 1))[:, None]
    LEDGER.tokens += ids.size
    LEDGER.batches += 1
    if HOLD_PER_TOKEN:
        # The device's time for this batch, proportional to its padded tokens: a sleep
        # releases the GIL, as a CUDA kernel launch and its synchronisation do.
        hold = HOLD_PER_TOKEN * ids.size
        time.sleep(hold)
        LEDGER.held += hold
    return rows


# (module, attribute path, stage, kind): kind "call" times each call, "generator" each step.
TARGETS: Sequence[tuple[str, str, str, str]] = (
    ("nlp_gate.suites.loader", "load_suite", "suite decode", "call"),
    ("checklist.abstract_test", "AbstractTest.example_list_and_indices", "case building", "call"),
    ("nlp_gate.kinds.checklist.kind", "ChecklistKind.cases", "case building", "call"),
    ("nlp_gate.kinds.checklist.items", "ChecklistItems._prefetch", "case building", "call"),
    ("nlp_gate.engine.loading", "load_classifier", "model load", "call"),
    ("nlp_gate.engine.predictor", "Classifier.load", "model load", "call"),
    ("nlp_gate.engine.batching", "encode", "tokenizing", "call"),
    ("nlp_gate.engine.batching", "Encodings.encode", "tokenizing", "call"),
    ("nlp_gate.engine.batching", "padded_batches", "tokenizing", "generator"),
    ("nlp_gate.engine.producer", "parts", "tokenizing", "generator"),
    ("nlp_gate.engine.predictor", "Classifier._probabilities", "forward", "call"),
    ("nlp_gate.engine.predictor", "Classifier.predict_proba", "engine (keys, memo)", "call"),
    ("nlp_gate.engine.predictor", "Classifier._forward", "engine (keys, memo)", "call"),
    # Handing freed memory back (malloc_trim) between chunks and batches: for the peak RSS.
    ("nlp_gate.engine.rows", "release_freed_memory", "memory trims", "call"),
    ("nlp_gate.engine.prediction_cache", "PredictionCache.get", "cache", "call"),
    ("nlp_gate.engine.prediction_cache", "PredictionCache.put", "cache", "call"),
    ("nlp_gate.engine.prediction_cache", "PredictionCache.get_outcome", "cache", "call"),
    ("nlp_gate.engine.prediction_cache", "PredictionCache.put_outcome", "cache", "call"),
    ("nlp_gate.kinds.checklist.run", "run_test", "expectations/scoring", "call"),
    ("nlp_gate.kinds.checklist.items", "ChecklistItems.run", "per-item (gate, record)", "call"),
)

_replaced: dict[int, Callable[..., Any]] = {}  # id(original) -> wrapper, for the sweep


def _patch(module: ModuleType) -> None:
    if module.__name__ == "nlp_gate.engine.producer" and AHEAD != "device":
        # The stand-in stands for an accelerator: the engine makes batches ahead as there.
        ahead = AHEAD == "on"
        module.runs_ahead = lambda device: ahead  # type: ignore[attr-defined]
    for name, path, stage, kind in TARGETS:
        if name != module.__name__:
            continue
        owner: Any = module
        *outer, attr = path.split(".")
        for part in outer:
            owner = getattr(owner, part)
        real = vars(owner)[attr]
        if hasattr(real, "__bench_original__"):
            continue
        forward = os.environ.get("NLP_GATE_BENCH_FORWARD", "standin")
        if path == "Classifier._probabilities" and forward != "real":
            fn = standin_probabilities
        else:
            fn = real
        wrapper = (timed_generator if kind == "generator" else timed)(fn, stage)
        setattr(owner, attr, wrapper)
        if not outer:  # a module's function: others may hold it by name
            _replaced[id(real)] = wrapper


def _sweep() -> None:
    """Modules that imported a wrapped function by name before it was wrapped get the
    wrapper too."""
    for module in list(sys.modules.values()):
        if module is None or not module.__name__.startswith("nlp_gate"):
            continue
        for attr, value in list(vars(module).items()):
            wrapper = _replaced.get(id(value))
            if wrapper is not None and value is not wrapper:
                setattr(module, attr, wrapper)


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        _patch(module)


class _PatchingFinder(importlib.abc.MetaPathFinder):
    """Wraps the target modules' functions as soon as each module is imported: before any
    other module can import them by name, and without importing (say) CheckList in a process
    that would not otherwise import it."""

    names = frozenset([*(t[0] for t in TARGETS), "nlp_gate.engine.producer"])

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _PatchingLoader(spec.loader)
                return spec
        return None


sys.meta_path.insert(0, _PatchingFinder())
for _name in _PatchingFinder.names:
    if _name in sys.modules:
        _patch(sys.modules[_name])
_sweep()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    _sweep()


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, None, None]:
    _sweep()
    with LEDGER.stage("collection"):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    # pytest's and the plugin's own work around each item (fixtures, outcome, reporting
    # hooks) that no stage above claims.
    with LEDGER.stage("per-item (pytest, outcome)"):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_sessionfinish(session: pytest.Session) -> Generator[None, None, None]:
    with LEDGER.stage("reports"):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_terminal_summary(terminalreporter: Any) -> Generator[None, None, None]:
    with LEDGER.stage("reports"):
        yield


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    out = Path(os.environ["NLP_GATE_BENCH_STAGES_DIR"])
    out.mkdir(parents=True, exist_ok=True)
    (out / f"stages-{os.getpid()}.json").write_text(json.dumps(LEDGER.close()))
