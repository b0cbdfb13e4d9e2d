"""How allure-pytest files each gated item: the kind's labels before it runs, what its verdict
learnt after (parameters, description, attachments, the tag ``recorded``).

Per item, through ``allure.dynamic``: the run-level Allure files (the release summary,
environment, categories) are ``report/formats/allure.py``'s, written once at the end.  Without the
[allure] extra (allure-pytest) there is nobody to label for: both functions do nothing.
"""

from __future__ import annotations

from typing import Any

from nlp_gate.extras import ALLURE
from nlp_gate.kinds.base import Case, ItemKind, Verdict

# Asked once: every item's setup and call label through here.
INSTALLED = ALLURE.available


def label_case(kind: ItemKind[Any], case: Case) -> None:
    """Epic, feature, story and parameters of the item, from its kind."""
    if not INSTALLED:
        return
    import allure

    labels = kind.labels(case)
    allure.dynamic.parameter(kind.argname, case.id, mode=allure.parameter_mode.HIDDEN)
    if labels is not None:
        allure.dynamic.epic(labels.epic)
        allure.dynamic.feature(labels.feature)
        allure.dynamic.story(labels.story)
        for name, value in labels.parameters.items():
            allure.dynamic.parameter(name, value)
        if labels.description:
            allure.dynamic.description(labels.description)


def label_verdict(verdict: Verdict, status: str | None = None) -> None:
    """What running the item learnt: its parameters, description and attachments; an item
    recorded, not gated (``status``) gets the tag ``recorded``: Allure's statuses are fixed
    (passed, failed, broken, skipped, unknown), so it stays passed, and the tag shows beside
    its name and filters the tree."""
    if not INSTALLED:
        return
    import allure

    if status == "recorded":
        allure.dynamic.tag("recorded")

    for name, value in verdict.parameters.items():
        allure.dynamic.parameter(name, value)
    if verdict.description:
        allure.dynamic.description(verdict.description)
    if verdict.description_html:
        allure.dynamic.description_html(verdict.description_html)
    types = {"json": allure.attachment_type.JSON, "html": allure.attachment_type.HTML}
    for a in verdict.attachments:
        allure.attach(
            a.body, name=a.name, attachment_type=types.get(a.kind, allure.attachment_type.TEXT)
        )
