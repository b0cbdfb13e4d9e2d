"""The markers of CheckList test items, whichever kind runs them (released CheckList tests,
native tests, their comparisons and searches): capability, test type, task and suite.

Part of the CheckList harness this folder holds beside the ``checklist`` kind (``kind.py``):
what every kind that runs a CheckList test shares.
"""

from __future__ import annotations

import pytest

from nlp_gate.suites.catalog import TestInfo

# CheckList's capabilities, as its suites name them; each is a marker (lower case).
CAPABILITIES = (
    "Vocabulary",
    "Taxonomy",
    "Robustness",
    "NER",
    "Fairness",
    "Temporal",
    "Negation",
    "Coref",
    "SRL",
    "Logic",
)
CAPABILITY_MARKERS = tuple(c.lower() for c in CAPABILITIES)
TYPE_MARKERS = ("mft", "inv", "dir")


def capability_marker(capability: str) -> str:
    name = capability.lower().replace(" ", "_")
    if name not in CAPABILITY_MARKERS:
        raise pytest.UsageError(
            f"suite capability {capability!r} has no registered marker; "
            f"known: {', '.join(CAPABILITY_MARKERS)}"
        )
    return name


# Task markers (``-m "fairness and entailment"``); a released suite's marker names its suite.
TASK_MARKERS = {
    "sentiment": "sentiment items (released suite sentiment, seed Table 2)",
    "paraphrase": "paraphrase items (QQP/MRPC; released suite qqp, seed Table 3)",
    "entailment": "entailment items (RTE)",
}
RELEASED_SUITE_MARKERS = {
    "sentiment": "CheckList's released sentiment suite (seed Table 2)",
    "qqp": "CheckList's released QQP suite (seed Table 3)",
}


def suite_marks(info: TestInfo, task: str) -> list[pytest.MarkDecorator]:
    """The suite (released suites only), task, capability and type markers of a test's items.

    A task missing from ``TASK_MARKERS`` (a models file's own task) gets no task marker:
    markers are registered at configure, before any models file is read.
    """
    names = [info.suite] if info.suite in RELEASED_SUITE_MARKERS else []
    names += [task] if task in TASK_MARKERS else []
    names += [capability_marker(info.capability), info.type]
    return [getattr(pytest.mark, n) for n in dict.fromkeys(names)]
