"""Exact shortcuts through TextAttack 0.3.11's ``AttackedText``, where word-substitution
searches (iga, alzantot, faster-alzantot, textfooler) spend most of their time: iga-offline
makes about 100,000 candidate texts per example, each through
``generate_new_attacked_text``, which walks every word of the text in Python (two
``words_from_text`` calls and a ``str.index`` each), and then ``AttackedText.__init__``,
which splits the whole new text into words again.  Installed only while an attack item
runs (``memo.memoized``).

* ``token_memo``: ``words_from_text`` splits a string at whitespace and turns each piece
  into words on its own (strip, a regular expression, strip), then drops empty words and
  the words to ignore.  So the words of a text are the concatenation of its pieces' words:
  each distinct piece is split once, by TextAttack's own function, and remembered.  Texts
  with CJK characters (which TextAttack segments as a whole, with jieba) and calls with
  words to ignore go to TextAttack's function unchanged.
* ``fast_generate``: in ``generate_new_attacked_text`` an unchanged word only moves the
  cursor through the text (its own characters and the spacing before it are copied, one
  word index is counted), and where it lands depends only on the text left, not on the
  other words.  The first time a text is the base of a second candidate, its "plan" is
  made by running TextAttack's own loop body over its words unchanged, recording the
  cursor before each word and checking that every word was such a plain copy; then each
  candidate runs the loop body (``_step``, TextAttack's code verbatim) only at the words it
  changes, and copies each run of unchanged words between them in one slice, as long as
  the text left is the one the plan saw there (a deleted first word also takes the space
  after it: from there the words are walked one by one, as TextAttack does).  Candidates
  of a text whose plan is not plain, whose word count differs, or made once, take
  TextAttack's own method.
* ``cached_text``: ``AttackedText.text`` joins the inputs anew at every use, and the
  constraint cache hashes and compares candidates by it (eight million joins for three
  iga-offline examples).  The inputs are set once, in ``__init__`` (a private copy that
  TextAttack never changes), so each text keeps its join.

``memo.memoized`` checks that the installed method is the one ``_step`` copies (a hash of its
source): another TextAttack keeps its own method.  ``benchmarks/bench_attacks.py`` compares
the item's log with TextAttack's own ``Attacker`` byte for byte.
"""

from __future__ import annotations

import hashlib
import inspect
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

CJK = re.compile("[\u4e00-\u9fff]")  # TextAttack's test for jieba segmentation
MAX_TOKENS = 200_000  # distinct whitespace pieces kept; past it the memo starts over
MAX_PLANS = 4_096  # planned base texts kept; past it the plans start over
# sha256 of TextAttack 0.3.11's AttackedText.generate_new_attacked_text source (with the
# fix for QData/TextAttack#631), the code that _step and fast_generate follow.
GENERATE_SHA256 = "a991b58e18aa19065042be156d4938bb6c29a77f4a48a84bef9ae164ed477056"


def token_memo(words_from_text: Callable[..., list[str]]) -> Callable[..., list[str]]:
    known: dict[str, list[str]] = {}

    def split(s: str, words_to_ignore: Sequence[str] = ()) -> list[str]:
        if words_to_ignore or not isinstance(s, str) or CJK.search(s):
            return words_from_text(s, list(words_to_ignore))
        words: list[str] = []  # a fresh list each call: callers may change it
        for piece in s.split():
            found = known.get(piece)
            if found is None:
                if len(known) >= MAX_TOKENS:
                    known.clear()
                # TextAttack's answer for the piece alone: its words, without empty ones.
                found = known[piece] = words_from_text(piece, [])
            words += found
        return words

    return split


TEXT = "_nlp_gate_text"  # the instance attribute keeping an AttackedText's joined inputs


def cached_text(self: Any) -> str:
    """``AttackedText.text``, joined once per text."""
    text: str | None = self.__dict__.get(TEXT)
    if text is None:
        text = self.__dict__[TEXT] = "\n".join(self._text_input.values())
    return text


def generate_source_hash(attacked_text_class: Any) -> str:
    source = inspect.getsource(attacked_text_class.generate_new_attacked_text)
    return hashlib.sha256(source.encode()).hexdigest()


@dataclass
class _State:
    """The locals of TextAttack's loop in ``generate_new_attacked_text``."""

    perturbed_text: str
    original_text: str
    new_attack_attrs: dict[str, Any]
    new_i: int = 0


@dataclass
class _Plan:
    words: list[str]  # the base's words when planned
    full: str  # its inputs joined by SPLIT_TOKEN: the loop's starting original_text
    cursor: list[int]  # per word, and after the last: characters of full consumed
    counted: list[int]  # per word, and after the last: new_i at that point
    plain: bool  # every unchanged word only copies full[cursor[k]:cursor[k + 1]]


@dataclass
class _Plans:
    plans: dict[tuple[str, ...], _Plan] = field(default_factory=dict)
    seen: set[tuple[str, ...]] = field(default_factory=set)  # bases of one candidate so far


def _step(
    attacked_text_class: Any,
    split: Callable[[str], list[str]],
    state: _State,
    i: int,
    input_word: str,
    adv_word_seq: str,
) -> None:
    """One pass of TextAttack's loop body, verbatim but for the locals kept in ``state``."""
    SPLIT_TOKEN = attacked_text_class.SPLIT_TOKEN  # TextAttack's name
    original_text = state.original_text
    new_attack_attrs = state.new_attack_attrs
    if input_word in SPLIT_TOKEN and SPLIT_TOKEN in original_text:
        split_start = original_text.index(SPLIT_TOKEN)
        split_end = split_start + len(SPLIT_TOKEN)
        if split_start <= original_text.index(input_word) < split_end:
            word_start = original_text.replace(SPLIT_TOKEN, "").index(input_word) + len(SPLIT_TOKEN)
        else:
            word_start = original_text.index(input_word)
    else:
        word_start = original_text.index(input_word)
    word_end = word_start + len(input_word)
    state.perturbed_text += original_text[:word_start]
    original_text = original_text[word_end:]
    adv_words = split(adv_word_seq)
    adv_num_words = len(adv_words)
    num_words_diff = adv_num_words - len(split(input_word))
    if num_words_diff != 0:
        shifted_modified_indices = set()
        for modified_idx in new_attack_attrs["modified_indices"]:
            if modified_idx < i:
                shifted_modified_indices.add(modified_idx)
            elif modified_idx > i:
                shifted_modified_indices.add(modified_idx + num_words_diff)
        new_attack_attrs["modified_indices"] = shifted_modified_indices
        new_idx_map = new_attack_attrs["original_index_map"].copy()
        if num_words_diff == -1:
            new_idx_map[new_idx_map == i] = -1
        new_idx_map[new_idx_map > i] += num_words_diff
        if num_words_diff > 0 and input_word != adv_words[0]:
            new_idx_map[new_idx_map == i] += num_words_diff
        new_attack_attrs["original_index_map"] = new_idx_map
    for _ in range(i, i + adv_num_words):
        if input_word != adv_word_seq:
            new_attack_attrs["modified_indices"].add(state.new_i)
            new_attack_attrs["newly_modified_indices"].add(state.new_i)
        state.new_i += 1
    if adv_num_words == 0 and len(original_text):
        if i == 0:
            if original_text[0] == " ":
                original_text = original_text[1:]
        else:
            if state.perturbed_text[-1] == " ":
                state.perturbed_text = state.perturbed_text[:-1]
    state.perturbed_text += adv_word_seq
    state.original_text = original_text


def _new_attrs(base: Any) -> dict[str, Any]:
    """The attributes TextAttack's method starts the new text with."""
    new_attack_attrs: dict[str, Any] = {}
    if "label_names" in base.attack_attrs:
        new_attack_attrs["label_names"] = base.attack_attrs["label_names"]
    new_attack_attrs["newly_modified_indices"] = set()
    new_attack_attrs["previous_attacked_text"] = base
    new_attack_attrs["modified_indices"] = base.attack_attrs["modified_indices"].copy()
    new_attack_attrs["original_index_map"] = base.attack_attrs["original_index_map"].copy()
    return new_attack_attrs


def _plan(cls: Any, split: Callable[[str], list[str]], base: Any) -> _Plan:
    words = base.words
    full = cls.SPLIT_TOKEN.join(base._text_input.values())
    state = _State("", full, _new_attrs(base))
    cursor, counted, plain = [0], [0], True
    for i, word in enumerate(words):
        before, left = state.new_i, state.original_text
        length = len(state.perturbed_text)
        _step(cls, split, state, i, word, word)
        used = len(left) - len(state.original_text)
        plain = plain and state.new_i > before and state.perturbed_text[length:] == left[:used]
        cursor.append(len(full) - len(state.original_text))
        counted.append(state.new_i)
    return _Plan(list(words), full, cursor, counted, plain)


def fast_generate(
    cls: Any, generate: Callable[..., Any], split: Callable[[str], list[str]]
) -> Callable[..., Any]:
    """``generate_new_attacked_text`` of ``cls`` (TextAttack's ``AttackedText``) through plans
    of the base texts; ``generate`` is TextAttack's own method."""
    store = _Plans()

    def generate_new_attacked_text(self: Any, new_words: Iterable[str]) -> Any:
        key = tuple(self._text_input.values())
        plan = store.plans.get(key)
        if plan is None:
            if key not in store.seen:  # a base of one candidate is not worth a plan
                if len(store.seen) >= MAX_PLANS * 16:
                    store.seen.clear()
                store.seen.add(key)
                return generate(self, new_words)
            if len(store.plans) >= MAX_PLANS:
                store.plans.clear()
                store.seen.clear()
            plan = store.plans[key] = _plan(cls, split, self)
        words = self.words
        if not (
            plan.plain
            and isinstance(new_words, list)
            and len(new_words) == len(words)
            and words == plan.words
        ):
            return generate(self, new_words)
        state = _State("", plan.full, _new_attrs(self))
        full, cursor, n = plan.full, plan.cursor, len(words)
        at = 0  # the next word to process
        for i in [k for k in range(n) if words[k] != new_words[k]] + [n]:
            if at < i:  # unchanged words at..i-1
                if len(state.original_text) == len(full) - cursor[at]:  # where the plan was
                    state.perturbed_text += full[cursor[at] : cursor[i]]
                    state.original_text = full[cursor[i] :]
                    state.new_i += plan.counted[i] - plan.counted[at]
                else:
                    for k in range(at, i):
                        _step(cls, split, state, k, words[k], new_words[k])
            if i < n:
                _step(cls, split, state, i, words[i], new_words[i])
            at = i + 1
        perturbed_text = state.perturbed_text + state.original_text
        perturbed_input = OrderedDict(
            zip(self._text_input.keys(), perturbed_text.split(cls.SPLIT_TOKEN))
        )
        return cls(perturbed_input, attack_attrs=state.new_attack_attrs)

    return generate_new_attacked_text
