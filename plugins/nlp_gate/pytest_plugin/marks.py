"""nlp-gate's markers, and how its items carry them in a run.

Each kind names its markers (``ItemKind.markers``: ``fairness``, ``regression``, ...) and puts
them on its cases (``Case.marks``).  In a run, every item of ours carries each of them as
``nlp_<name>``, and by its bare name too unless the team's own configuration registers that
name: a team whose tests have their own ``regression`` marker keeps ``-m regression`` for
its tests alone, and selects ours with ``-m nlp_regression``.  Where no one else registers a
name (this repository, most repositories), ``-m fairness`` selects ours as it always did.

"The team's own" is read at the plugin's ``pytest_configure``, which runs last
(``trylast``): by then pytest holds the ini file's ``markers`` lines and those the conftests
and other plugins added (``config.addinivalue_line``).  An xdist worker reads the same
configuration and conftests, so it spells the marks as its controller does.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pytest

from nlp_gate.kinds import KINDS

PREFIX = "nlp_"
# Every marker of ours (bare name -> description), from the kinds.
MARKERS = {name: doc for kind in KINDS for name, doc in kind.markers.items()}
# The bare names our items carry in this run (those nobody else registered).
BARE_KEY = pytest.StashKey[frozenset[str]]()


def register(config: pytest.Config) -> None:
    """Register ``nlp_<name>`` for each marker, and the bare names nobody registered before
    (for ``--strict-markers`` and ``pytest --markers``)."""
    taken = {line.split(":")[0].split("(")[0].strip() for line in config.getini("markers")}
    config.stash[BARE_KEY] = frozenset(MARKERS) - taken
    for name, doc in MARKERS.items():
        config.addinivalue_line("markers", f"{PREFIX}{name}: {doc} (nlp-gate)")
        if name not in taken:
            config.addinivalue_line("markers", f"{name}: {doc} (nlp-gate; also {PREFIX}{name})")


def names(config: pytest.Config) -> list[str]:
    """The names that select our items in this run: the bare one where ours, else prefixed."""
    bare = config.stash.get(BARE_KEY, frozenset())
    return sorted(n if n in bare else f"{PREFIX}{n}" for n in MARKERS)


def spelled(config: pytest.Config, params: Iterable[Any]) -> list[Any]:
    """A kind's parameter sets (``pytest.param``) with their marks as this run spells them."""
    bare = config.stash.get(BARE_KEY, frozenset())
    return [pytest.param(*p.values, marks=list(_spell(p.marks, bare)), id=p.id) for p in params]


def _spell(
    marks: Iterable[pytest.MarkDecorator | pytest.Mark], bare: frozenset[str]
) -> Iterator[pytest.MarkDecorator | pytest.Mark]:
    for mark in marks:
        if mark.name not in MARKERS:  # xdist_group, skip: not ours to spell
            yield mark
            continue
        prefixed: pytest.MarkDecorator = getattr(pytest.mark, PREFIX + mark.name)
        yield prefixed.with_args(*mark.args, **mark.kwargs)
        if mark.name in bare:
            yield mark
