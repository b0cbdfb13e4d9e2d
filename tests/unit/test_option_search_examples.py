"""`--nlp-search-examples N`: the search items of a native test that declares a search space
(`-m search`).  A pure-Python model, name-invariant but for one planted first name that the
test's fixed sample lacks, passes the sample's gate; its search finds the name, shrinks the
case to the shortest texts one token apart, and the next run replays it from Hypothesis's
example database.  A clean model's search finds nothing; without the option the searches skip
with the reason.  With and without xdist.

Its fast tests; the slow ones, and the story, in
``tests/integration/test_option_search_examples.py``."""

from __future__ import annotations

import re
from typing import Any

import pytest

from nlp_gate.native import SearchSpace, behavioral_test
from nlp_gate.native.definition import NativeTestError
from nlp_gate.native.search_space import SearchSpaceError


@pytest.mark.parametrize(
    ("declare", "message"),
    [
        (
            lambda: SearchSpace("{who} liked it.", {"who": ["A", "B"]}, perturb="what"),
            "perturb='what' is no field of the template; fields: who",
        ),
        (
            lambda: SearchSpace("{who!r} liked it.", {"who": ["A", "B"]}, perturb="who"),
            "must be a plain {slot} name",
        ),
        (
            lambda: behavioral_test(
                capability="NER",
                type="mft",
                task="sentiment",
                search=SearchSpace("{who} liked it.", {"who": ["A", "B"]}, "who"),
            ),
            "search= needs an INV or DIR test",
        ),
    ],
)
def test_a_wrong_search_space_is_refused_where_it_is_declared(declare: Any, message: str) -> None:
    with pytest.raises((SearchSpaceError, NativeTestError), match=re.escape(message)):
        declare()


def test_lexicons_are_read_when_searched_and_sorted_shortest_first() -> None:
    space = SearchSpace(
        ("Is {who} here?", "Is {who} there?"),
        lambda: {"who": ["Tom", "Al", "Bea", "Al"]},
        perturb="who",
    )
    assert space.lexicons() == {"who": ("Al", "Bea", "Tom")}
    assert space.fill({"who": "Al"}) == ("Is Al here?", "Is Al there?")
    with pytest.raises(SearchSpaceError, match="slot 'who' needs two values to swap"):
        SearchSpace("{who}", {"who": ["Al"]}, perturb="who").lexicons()
