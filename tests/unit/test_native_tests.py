"""Writing your own behavioral test: the README's example, written into a user's repository,
is gated, recorded, tabled and in the Allure results; committed case files replace the
generated ones; the gates may name native tests, and only those that exist.

Its fast tests; the slow ones, and the story, in ``tests/integration/test_native_tests.py``."""

from __future__ import annotations

import re

from fixtures.gate_run import REPO

README = REPO / "README.md"


def readme_example() -> str:
    """The first Python block of the README's "Writing your own behavioral test"."""
    section = README.read_text().split("## Writing your own behavioral test", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]  # not None here (else the test fails)


def test_the_readme_example_is_short() -> None:
    lines = readme_example().splitlines()
    assert 10 <= len(lines) <= 15, lines
