"""The documentation site's shape, which `mkdocs build --strict` (scripts/docs.sh) does not
check: the user guide starts with the tutorial, a team's path from `pip install`, and its pages
hold no dated measurement log nor a path of this repository's checkout (those belong under
docs/measurements/ and docs/development/). Links, anchors and included README sections are
the strict build's to check."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from fixtures.gate_run import REPO

DOCS = REPO / "docs"


def nav_section(title: str) -> Any:
    nav = yaml.safe_load((REPO / "mkdocs.yml").read_text())["nav"]
    return {key: value for entry in nav for key, value in entry.items()}[title]


def pages(section: Any) -> list[str]:
    """The pages of a nav entry: one page, or a list of titled pages."""
    if isinstance(section, str):
        return [section]
    return [page for entry in section for page in pages(next(iter(entry.values())))]


def test_the_tutorial_is_the_first_page_of_the_user_guide() -> None:
    assert pages(nav_section("User guide"))[0] == "guide/tutorial.md"
    tutorial = (DOCS / "guide" / "tutorial.md").read_text()
    # It starts from the team's own install, not from a clone of this repository.
    first_block = re.search(r"```\w*\n(.*?)```", tutorial, re.S)
    assert first_block is not None
    assert re.search(r"pip install [\"']?nlp-gate", first_block.group(1)), first_block.group(1)
    assert "scripts/" not in tutorial and "git clone" not in tutorial


def test_this_repositorys_own_commands_have_a_section_of_their_own() -> None:
    development = pages(nav_section("Development"))
    assert development and all(p.startswith("development/") for p in development), development
    assert "scripts/gate.sh" in (DOCS / development[0]).read_text()


# What a user page must not carry: when a measurement was made, and this checkout's paths.
NOT_FOR_USERS = {
    r"\b20\d\d-\d\d-\d\d\b": "a date (a measurement log belongs in docs/measurements/)",
    r"\.\./shared/": "a folder beside this repository's checkout",
    r"/tmp/": "a scratch folder of a measurement",
    r"scripts/(gate|setup|test|test_fast)\.sh": "this repository's own job (docs/development/)",
    r"benchmarks/": "this repository's benchmarks (docs/measurements/)",
}


@pytest.mark.parametrize(
    "page",
    [DOCS / "index.md", *sorted((DOCS / "guide").glob("*.md"))],
    ids=lambda p: str(Path(p).relative_to(DOCS)),
)
def test_user_pages_hold_no_measurement_log_or_checkout_path(page: Path) -> None:
    text = page.read_text()
    found = [
        f"{m.group()!r} ({why})"
        for pattern, why in NOT_FOR_USERS.items()
        for m in re.finditer(pattern, text)
    ]
    assert not found, found
