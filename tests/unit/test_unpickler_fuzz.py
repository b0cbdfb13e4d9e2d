"""The released suites' restricted unpickler, fuzzed: Hypothesis builds hostile pickles
(``__reduce__`` payloads naming dangerous callables, nested in data, every protocol; random
opcode streams; valid pickles with bytes flipped) and no load may import a module, run a
command, compile or execute code, or open a file.  Python's audit hooks see every such event,
whoever triggers it, so the check does not depend on how the unpickler is written."""

from __future__ import annotations

import pickle
import pickletools
import sys
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nlp_gate.suites import unpickler

# Audit events that would mean the pickle made something happen.
FORBIDDEN = (
    "import",
    "exec",
    "compile",
    "open",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.remove",
    "os.rename",
    "shutil.rmtree",
    "subprocess.Popen",
    "socket.connect",
    "builtins.input",
    "ctypes.dlopen",
)
_events: list[tuple[str, tuple[Any, ...]]] = []
_recording = False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _recording and event.startswith(FORBIDDEN):
        _events.append((event, args))


sys.addaudithook(_audit)  # cannot be removed; inert unless _recording


@contextmanager
def _watched() -> Iterator[list[tuple[str, tuple[Any, ...]]]]:
    global _recording
    _events.clear()
    _recording = True
    try:
        yield _events
    finally:
        _recording = False


def _load(data: bytes) -> Any:
    """Load under watch; any exception is a refusal, as long as nothing happened first."""
    modules = set(sys.modules)
    with _watched() as events:
        try:
            result = unpickler.loads(data)
        except Exception as exc:
            result = exc
    assert not events, f"the pickle made something happen: {events[:3]}"
    assert set(sys.modules) <= modules, set(sys.modules) - modules
    return result


# What a hostile pickle would call, by module and attribute (one module nobody imports).
NAMES = [
    ("os", "system"),
    ("posix", "system"),
    ("subprocess", "check_output"),
    ("builtins", "eval"),
    ("builtins", "exec"),
    ("builtins", "__import__"),
    ("builtins", "getattr"),
    ("importlib", "import_module"),
    ("shutil", "rmtree"),
    ("socket", "create_connection"),
    ("nlp_gate_fuzz_never_imported", "boom"),
    ("dill._dill", "_create_code"),
    ("numpy", "load"),
    ("checklist.test_suite", "os"),
]


def _text(value: str) -> bytes:
    raw = value.encode("utf-8", "surrogatepass")
    return pickle.BINUNICODE + len(raw).to_bytes(4, "little") + raw


def _payload(kind: str, module: str, name: str, args: list[str]) -> bytes:
    """A call of module.name(*args), written as an attacker writes it, by hand: through
    GLOBAL or STACK_GLOBAL and REDUCE (``__reduce__``), INST, OBJ, or NEWOBJ + BUILD."""
    packed = b"".join(_text(a) for a in args)
    glob = pickle.GLOBAL + f"{module}\n{name}\n".encode()
    if kind == "stack_global":
        return (
            _text(module)
            + _text(name)
            + pickle.STACK_GLOBAL
            + pickle.MARK
            + packed
            + pickle.TUPLE
            + pickle.REDUCE
        )
    if kind == "inst":
        return pickle.MARK + packed + pickle.INST + f"{module}\n{name}\n".encode()
    if kind == "obj":
        return pickle.MARK + glob + packed + pickle.OBJ
    if kind == "newobj_build":
        return (
            glob
            + pickle.EMPTY_TUPLE
            + pickle.NEWOBJ
            + pickle.EMPTY_DICT
            + _text("k")
            + _text(args[0] if args else "")
            + pickle.SETITEM
            + pickle.BUILD
        )
    return glob + pickle.MARK + packed + pickle.TUPLE + pickle.REDUCE


WRAPPERS = {
    "bare": (b"", b""),
    "in a list": (pickle.EMPTY_LIST, pickle.APPEND),
    "in a dict": (pickle.EMPTY_DICT + _text("key"), pickle.SETITEM),
}


@settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    target=st.sampled_from(NAMES),
    args=st.lists(st.text(max_size=10), max_size=3),
    kind=st.sampled_from(["global", "stack_global", "inst", "obj", "newobj_build"]),
    wrapper=st.sampled_from(sorted(WRAPPERS)),
    protocol=st.integers(2, 5),
)
def test_hostile_payloads_are_refused_and_never_run(
    target: tuple[str, str], args: list[str], kind: str, wrapper: str, protocol: int
) -> None:
    module, name = target
    before, after = WRAPPERS[wrapper]
    blob = (
        pickle.PROTO
        + bytes([protocol])
        + before
        + _payload(kind, module, name, args)
        + after
        + pickle.STOP
    )
    result = _load(blob)
    assert isinstance(result, Exception), result
    assert "nlp_gate_fuzz_never_imported" not in sys.modules


@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.binary(max_size=200))
def test_random_bytes_never_make_anything_happen(blob: bytes) -> None:
    _load(b"\x80\x04" + blob)
    _load(blob)


@st.composite
def opcode_streams(draw: st.DrawFn) -> bytes:
    """Opcodes with arguments of the right encoding (names drawn from the hostile list)."""
    out = bytearray(b"\x80\x04")
    for _ in range(draw(st.integers(1, 25))):
        op = draw(st.sampled_from(pickletools.opcodes))
        out += op.code.encode("latin-1")
        arg = op.arg
        if arg is None:
            continue
        if arg.name in ("stringnl_noescape_pair",):
            module, name = draw(st.sampled_from(NAMES))
            out += f"{module}\n{name}\n".encode()
        elif arg.n == pickletools.UP_TO_NEWLINE:
            out += draw(st.text("abc0123 ", max_size=6)).encode() + b"\n"
        elif arg.n > 0:
            out += draw(st.binary(min_size=arg.n, max_size=arg.n))
        else:  # length-prefixed: a short string after its length
            body = draw(st.binary(max_size=6))
            width = {
                pickletools.TAKEN_FROM_ARGUMENT1: 1,
                pickletools.TAKEN_FROM_ARGUMENT4: 4,
                pickletools.TAKEN_FROM_ARGUMENT4U: 4,
                pickletools.TAKEN_FROM_ARGUMENT8U: 8,
            }.get(arg.n, 1)
            out += len(body).to_bytes(width, "little") + body
    out += b"."
    return bytes(out)


@settings(
    max_examples=500, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(opcode_streams())
def test_random_opcode_streams_never_make_anything_happen(blob: bytes) -> None:
    result = _load(blob)
    # Whatever loaded is made of whitelisted types only.
    if not isinstance(result, Exception):
        assert _whitelisted(result), type(result)


def _whitelisted(obj: Any, depth: int = 0) -> bool:
    allowed = (
        type(None),
        bool,
        int,
        float,
        complex,
        str,
        bytes,
        bytearray,
        list,
        tuple,
        dict,
        set,
        frozenset,
        OrderedDict,
        np.ndarray,
        np.generic,
        np.dtype,
        *unpickler.RECORD_TYPES,
    )
    if depth > 50 or not isinstance(obj, allowed):
        return depth > 50 or type(obj).__module__.startswith(("checklist", "collections"))
    if isinstance(obj, dict):
        return all(
            _whitelisted(k, depth + 1) and _whitelisted(v, depth + 1) for k, v in obj.items()
        )
    if isinstance(obj, (list, tuple, set, frozenset)):
        return all(_whitelisted(v, depth + 1) for v in obj)
    return True


VALID = pickle.dumps([OrderedDict(a=[1, 2, 3], b=("x", 1.5)), {"k": [None, True]}], protocol=2)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, len(VALID) - 1), st.integers(0, 255)), max_size=6))
def test_flipped_bytes_of_a_valid_pickle_never_make_anything_happen(
    flips: list[tuple[int, int]],
) -> None:
    blob = bytearray(VALID)
    for at, value in flips:
        blob[at] = value
    _load(bytes(blob))


def test_the_unflipped_pickle_loads_and_the_watch_sees_an_import() -> None:
    """Both ends of the check: the whitelisted pickle loads, and the watch does see what a
    plain ``pickle.loads`` of a GLOBAL does (import a module), so an empty list means it."""
    assert not isinstance(_load(VALID), Exception)
    sys.modules.pop("colorsys", None)
    with _watched() as events:
        pickle.loads(b"ccolorsys\nrgb_to_hls\n.")
    assert any(event == "import" for event, _ in events)
