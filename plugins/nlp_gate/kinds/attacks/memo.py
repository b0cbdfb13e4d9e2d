"""Memos around two pure functions that TextAttack 0.3.11 calls over and over with the same
arguments, installed only while an attack item runs (``memoized``).

* ``words_from_text`` (``textattack.shared.utils``): ``AttackedText.generate_new_attacked_text``
  splits every word of the text into words again, twice, for each candidate it makes, with
  a regular expression per word: iga-offline called it 9.6 million times for two examples,
  two thirds of its time under the profiler.  Only short strings (a word or a few) are
  kept: a whole text is split once per ``AttackedText``, which keeps its words itself.
* ``langdetect.detect`` in ``AttackResult.diff_color``, which TextAttack's log calls twice per
  result and the item's adversarial examples once more (20-40 ms each, a fifth of a cheap
  recipe's time): one answer per text and run.  langdetect draws random samples unseeded,
  so a text it cannot place either way could get either answer from any call; for every
  other text the answer is the one it always gives.

Both return what the function returns for the same arguments (a fresh list of words each
time, as callers may change it), so an attack's results do not change:
``benchmarks/bench_attacks.py`` compares the item's log with TextAttack's own ``Attacker``
byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from unittest import mock

SHORT = 64  # characters: a string this long or shorter is a word or a few, not a text
MAX_WORDS = 100_000  # distinct short strings kept; past it the memo starts over


@contextmanager
def memoized() -> Iterator[None]:
    from textattack.attack_results import attack_result
    from textattack.shared import attacked_text, utils
    from textattack.shared.utils import strings

    with ExitStack() as stack:
        split = _words_memo(strings.words_from_text)
        # Every module that holds its own reference to the function.
        for module in (strings, utils, attacked_text):
            stack.enter_context(mock.patch.object(module, "words_from_text", split))
        stack.enter_context(mock.patch.object(attack_result, "detect",
                                              _language_memo(attack_result.detect)))
        yield


def _words_memo(words_from_text: Callable[..., list[str]]) -> Callable[..., list[str]]:
    known: dict[tuple[str, tuple[str, ...]], list[str]] = {}

    def split(s: str, words_to_ignore: Sequence[str] = ()) -> list[str]:
        if len(s) > SHORT:
            return words_from_text(s, list(words_to_ignore))
        key = (s, tuple(words_to_ignore))
        words = known.get(key)
        if words is None:
            if len(known) >= MAX_WORDS:
                known.clear()
            words = known[key] = words_from_text(s, list(words_to_ignore))
        return list(words)

    return split


def _language_memo(detect: Callable[[str], str]) -> Callable[[str], str]:
    known: dict[str, str] = {}

    def detect_once(text: str) -> str:
        if text not in known:
            known[text] = detect(text)
        return known[text]

    return detect_once
