"""Memos around pure functions that TextAttack 0.3.11 calls over and over with the same
arguments, and the shortcut through its ``generate_new_attacked_text`` (``texts.py``),
installed only while an attack item runs (``memoized``).

* ``words_from_text`` (``textattack.shared.utils``): ``AttackedText.generate_new_attacked_text``
  splits every word of the text into words again, twice, for each candidate it makes, with
  a regular expression per word (iga-offline: 9.6 million calls for two examples, two thirds
  of its time under the profiler), and every new ``AttackedText`` splits its whole text.
  The words of a string are those of its whitespace-separated pieces, one after the other:
  each distinct piece is split once (``texts.token_memo``).
* ``AttackedText.generate_new_attacked_text``: walks only the words a candidate changes
  (``texts.fast_generate``), where the installed method is the one it follows; and
  ``AttackedText.text`` joins a text's inputs once (``texts.cached_text``).
* ``langdetect.detect`` in ``AttackResult.diff_color``, which TextAttack's log calls twice per
  result and the item's adversarial examples once more (20-40 ms each, a fifth of a cheap
  recipe's time): one answer per text and run.  langdetect draws random samples unseeded,
  so a text it cannot place either way could get either answer from any call; for every
  other text the answer is the one it always gives.

Each returns what TextAttack's function returns for the same arguments (a fresh list of
words each time, as callers may change it), so an attack's results do not change:
``benchmarks/bench_attacks.py`` compares the item's log with TextAttack's own ``Attacker``
byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from unittest import mock

from nlp_gate.kinds.attacks.speedups import texts


@contextmanager
def memoized() -> Iterator[None]:
    from textattack.attack_results import attack_result
    from textattack.shared import attacked_text, utils
    from textattack.shared.utils import strings

    with ExitStack() as stack:
        split = texts.token_memo(strings.words_from_text)
        # Every module that holds its own reference to the function.
        for module in (strings, utils, attacked_text):
            stack.enter_context(mock.patch.object(module, "words_from_text", split))
        cls = attacked_text.AttackedText
        if texts.generate_source_hash(cls) == texts.GENERATE_SHA256:
            stack.enter_context(
                mock.patch.object(
                    cls,
                    "generate_new_attacked_text",
                    texts.fast_generate(cls, cls.generate_new_attacked_text, split),
                )
            )
        stack.enter_context(mock.patch.object(cls, "text", property(texts.cached_text)))
        stack.enter_context(
            mock.patch.object(attack_result, "detect", _language_memo(attack_result.detect))
        )
        yield


def _language_memo(detect: Callable[[str], str]) -> Callable[[str], str]:
    known: dict[str, str] = {}

    def detect_once(text: str) -> str:
        if text not in known:
            known[text] = detect(text)
        return known[text]

    return detect_once
