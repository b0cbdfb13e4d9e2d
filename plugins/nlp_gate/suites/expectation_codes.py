"""The recorded code ``expectations`` recognises: CheckList's and the suite authors' functions.

Each entry is identified by ``co_name`` and the sha256 of its bytecode (see ``expectations``);
split out of ``expectations`` so the tables of known code sit apart from the decoder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .unpickler import FunctionRecord

# --- CheckList's own functions, as pickled (sha256 of co_code) --------------------------------


@dataclass(frozen=True)
class _Library:
    code_name: str
    freevars: tuple[str, ...]
    code_sha256: str


_EXPECT_PY = "checklist/expect.py"
_LIBRARY = {
    "testcase": _Library(
        "expect", ("fn",), "e1b569f33ac0ff8f789457da6f997bbe6ca0a1a0eaf0728bc8066b939b33715a"
    ),
    "single": _Library(
        "expect_fn", ("fn",), "2853c0519f1c4fb7f81e74b234ce7d9beabb9f5ea92db273195654f13b89e477"
    ),
    "pairwise": _Library(
        "expect_fn", ("fn",), "15ded7dd8c50c3bb7ea83a0d04c616fb71ab9ca5168bf6cfb99b71dfa24f74f1"
    ),
    "eq": _Library(
        "ret_fn", ("val",), "2ee108c3ecc92f32203f99e01e18436ed54bb2e81741cd399532bb058d59ba79"
    ),
    "inv": _Library(
        "expect", ("tolerance",), "05cdb11935d85f24ab9e0046d632d64a1da9d3220dbdc8e75dcb7f9fbf38c30d"
    ),
    "monotonic": _Library(
        "expect",
        ("increasing", "keep_label", "tolerance"),
        "92f8dad42e70e2815750f7d7008f285850f8c585c889ac77428172a26435bff1",
    ),
    "wrap_slice": _Library(
        "wrapped",
        ("agg_fn", "expect_fn", "slice_fn"),
        "c35a92f3c4db2475a9bebb8e3dbd3ca2bb24883c870c20af5742609b60cda42c",
    ),
    "slice_orig": _Library(
        "<lambda>",
        ("slice_fn",),
        "bb6daeb035bceeee8c2ebea99932ef4204e4dc7a40d12627b54b56dbdb8765ed",
    ),
}


def _library_role(record: Any) -> str | None:
    """Which CheckList factory produced ``record``, or None for a suite author's function."""
    if not isinstance(record, FunctionRecord) or not record.code.filename.endswith(_EXPECT_PY):
        return None
    for role, lib in _LIBRARY.items():
        code = record.code
        if (code.name, code.freevars, code.code_sha256) == (
            lib.code_name,
            lib.freevars,
            lib.code_sha256,
        ):
            return role
    return "unknown"  # from checklist/expect.py but not code we have read: refuse


# --- Functions the suite authors wrote (identified by name + bytecode) -----------------------


@dataclass(frozen=True)
class _Custom:
    code_name: str
    code_sha256: str
    argcount: int
    flags: int  # varargs/varkw bits matter: they decide how CheckList may call it
    names: tuple[str, ...]  # globals/attributes the code uses


_CUSTOM_PRED_NE_PAIR = (
    _Custom(  # sentiment, intensifiers/reducers: lambda pred, *args, **kwargs: pred != 1
        "<lambda>", "b94ec5b336baf078f90da42f7b31fbce0947d089052485ee6ddcb0ff878d09a3", 1, 79, ()
    )
)
_CUSTOM_PRED_NE_SINGLE = _Custom(  # sentiment, "not negative": lambda x, pred, *args: pred != 0
    "<lambda>", "9fce4aefd36c17efcc225e95ac6fc717dc7406035d517f970fc781d875dc8fc0", 2, 71, ()
)
_CUSTOM_QA_NO = _Custom(  # sentiment, "Q & A: no"
    "<lambda>", "f21b97533c911581e3122445b74b7334fd88727a2717a528cc7e8b21a456acb7", 5, 67, ()
)
_CUSTOM_ORIG_EQ = _Custom(  # qqp, slice_orig: lambda orig, *args: orig == 1
    "<lambda>", "69587e73fc5101d1f27722ef60d8d2044a6d0219a35bdcd80ddab43500d8a04d", 1, 71, ()
)
_CUSTOM_DIFF_UP = _Custom(
    "diff_up",
    "9b9de28effabdf3b7d88717804aeccb7475e87b64793dfecef4a7f13fdd404a4",
    6,
    67,
    ("positive_change",),
)
_CUSTOM_DIFF_DOWN = _Custom(
    "diff_down",
    "9ef54857166c92b81d67dc6872695fcd06d61ff3b8383fe337c5216888123d16",
    6,
    67,
    ("positive_change",),
)
_CUSTOM_POSITIVE_CHANGE = _Custom(
    "positive_change",
    "68c7bde3425c3f1e3c394eed6aba7c584023eb4df4e42e556059205b4d771612",
    2,
    67,
    ("type", "np", "array", "ndarray", "shape", "Exception"),
)
_CUSTOM_EXPECT_TRIPLET = _Custom(
    "expect_triplet",
    "0a14848432d6d0c8e0146240fdd6be0a2ce0aefe6a5a71eabc7b4ab45774b33a",
    5,
    67,
    ("np", "array"),
)
_TRIPLET_CONSTS = (None, 0, 1, 2, 3, True, -3, -2, -1, -3, -2, -1)
