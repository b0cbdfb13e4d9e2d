"""A native test's search space, and Hypothesis's search of it for a counterexample.

A native INV or DIR test runs a fixed sample of cases: a defect the sample misses (a bias
against one first name that no sampled case contains) goes unseen.  ``SearchSpace`` declares
the space those cases come from -- a template, the lexicon of each slot, and the slot whose
value the perturbation swaps -- and ``search`` lets Hypothesis look for a case whose swap
violates the test's expectation.  Generation, shrinking and the example database are
Hypothesis's own; nothing here shrinks.  Each lexicon is sorted by (length, text), because
Hypothesis shrinks a ``sampled_from`` towards its first element: the minimal counterexample is
the shortest text, and its replacement value (another ``sampled_from`` of the slot's lexicon,
filtered to differ) the smallest change that still violates.

Hypothesis is imported when a search runs, never when a test module declaring a space is
collected (``tests/integration/test_start_up.py``).
"""

from __future__ import annotations

import hashlib
import json
import string
import unittest
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

Lexicons = Mapping[str, Sequence[str]]


class SearchSpaceError(ValueError):
    """A search space declared wrongly; the message names the fix."""


@dataclass(frozen=True)
class SearchSpace:
    """The cases a native INV or DIR test samples from, for ``behavioral_test(search=...)``.

    ``template``: a text with ``{slot}`` fields (two texts for a pair task); ``slots``: each
    field's lexicon, or a function returning them (called when a search runs: reading
    CheckList's lexicons must not happen at collection); ``perturb``: the field whose value
    the perturbation swaps for another value of its lexicon.
    """

    template: str | tuple[str, str]
    slots: Lexicons | Callable[[], Lexicons]
    perturb: str

    def __post_init__(self) -> None:
        for text in self.texts:
            for _, field, spec, conversion in string.Formatter().parse(text):
                if field is not None and (not field.isidentifier() or spec or conversion):
                    raise SearchSpaceError(
                        f"template field {{{field}}} in {text!r} must be a "
                        "plain {slot} name (no format spec or conversion)"
                    )
        if not self.fields:
            raise SearchSpaceError(f"template {self.template!r} has no {{slot}} field")
        if self.perturb not in self.fields:
            raise SearchSpaceError(
                f"perturb={self.perturb!r} is no field of the template; "
                f"fields: {', '.join(self.fields)}"
            )

    @property
    def texts(self) -> tuple[str, ...]:
        return (self.template,) if isinstance(self.template, str) else tuple(self.template)

    @property
    def fields(self) -> tuple[str, ...]:
        """The template's slots, in order of first appearance."""
        names = [f for text in self.texts for _, f, _, _ in string.Formatter().parse(text) if f]
        return tuple(dict.fromkeys(names))

    def lexicons(self) -> dict[str, tuple[str, ...]]:
        """Each field's values, unique and sorted by (length, text): shortest first."""
        slots = self.slots() if callable(self.slots) else self.slots
        missing = [f for f in self.fields if not slots.get(f)]
        if missing:
            raise SearchSpaceError(
                f"no lexicon for slot(s) {', '.join(missing)} of {self.template!r}"
            )
        lexicons = {
            f: tuple(sorted({str(v) for v in slots[f]}, key=lambda v: (len(v), v)))
            for f in self.fields
        }
        if len(lexicons[self.perturb]) < 2:
            raise SearchSpaceError(f"slot {self.perturb!r} needs two values to swap")
        return lexicons

    def fill(self, values: Mapping[str, str]) -> Any:
        """The template filled: a text, or a pair (tuple) of texts."""
        filled = tuple(text.format_map(values) for text in self.texts)
        return filled[0] if isinstance(self.template, str) else filled

    def digest(self, lexicons: Mapping[str, Sequence[str]]) -> str:
        """What identifies the space's cases: an edit of template, slot or lexicon changes it."""
        blob = json.dumps([self.template, self.perturb, lexicons], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()


@dataclass(frozen=True)
class Candidate:
    """One case of a space: the original's slot values and the swap of the perturbed slot."""

    values: Mapping[str, str]
    slot: str
    replacement: str
    original: Any  # the filled template (a text or a pair)
    perturbed: Any  # the same with ``slot`` set to ``replacement``

    @property
    def value(self) -> str:
        return self.values[self.slot]


@dataclass(frozen=True)
class SearchResult:
    counterexample: Candidate | None  # the minimal violating case, or None
    tried: int  # cases judged up to the first violating one (all of them when none)
    replayed: bool  # the counterexample came from the example database, not a new search


def candidates(
    space: SearchSpace, lexicons: Mapping[str, Sequence[str]]
) -> SearchStrategy[Candidate]:
    """Hypothesis's strategy over the space: one ``sampled_from`` per slot, then the
    replacement from the perturbed slot's lexicon, filtered to differ from its value."""
    from hypothesis import strategies as st

    @st.composite
    def draw(draw: Any) -> Candidate:
        values = {f: draw(st.sampled_from(lexicons[f])) for f in space.fields}
        current = values[space.perturb]
        replacement = draw(st.sampled_from(lexicons[space.perturb]).filter(lambda v: v != current))
        return Candidate(
            values,
            space.perturb,
            replacement,
            space.fill(values),
            space.fill({**values, space.perturb: replacement}),
        )

    return draw()


class _Violation(Exception):
    """Raised inside Hypothesis's test: it marks a case as failing, to be shrunk."""


def search(
    space: SearchSpace,
    violates: Callable[[Any, Any], bool],
    *,
    examples: int,
    seed: int,
    database: Path,
) -> SearchResult:
    """Look for a case of ``space`` whose (original, perturbed) pair ``violates``.

    Two runs of one Hypothesis test against one example database (``database``: a folder,
    this search's own): the first only replays what the database holds (a counterexample a
    former run saved, already shrunk), so ``replayed`` is what Hypothesis did, not a guess;
    when that finds nothing, the second generates up to ``examples`` cases from ``seed`` and
    shrinks the first violating one, and Hypothesis saves it to the database.

    ``@seed`` makes the generation deterministic; it also turns the database off (Hypothesis
    keeps seeded runs out of it, as it does with ``derandomize`` and ``find(random=...)``), so
    the settings with the database are applied after it.  Every setting that matters is
    explicit: Hypothesis's ``ci`` profile (loaded where ``CI`` is set) changes none of them.
    """
    import hypothesis
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis.database import DirectoryBasedExampleDatabase

    strategy = candidates(space, space.lexicons())
    db = DirectoryBasedExampleDatabase(database)
    judged: list[int] = [0]
    first: list[int] = []  # how many were judged when the first violation came
    last: list[Candidate] = []  # Hypothesis runs the minimal failing case last

    def attempt(candidate: Candidate) -> None:
        judged[0] += 1
        if violates(candidate.original, candidate.perturbed):
            first[:] = first or [judged[0]]
            last[:] = [candidate]
            raise _Violation

    def run(phases: list[Phase], max_examples: int) -> bool:
        test = settings(
            database=db,
            max_examples=max_examples,
            phases=phases,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            report_multiple_bugs=False,
            verbosity=Verbosity.quiet,
            print_blob=False,
        )(hypothesis.seed(seed)(given(strategy)(attempt)))
        try:
            test()
        except _Violation:
            return True
        except unittest.SkipTest:  # the replay, when the database holds nothing to replay
            pass
        return False

    replayed = run([Phase.reuse], 1)
    found = replayed or run([Phase.generate, Phase.shrink], examples)
    return SearchResult(last[0] if found else None, first[0] if found else judged[0], replayed)
