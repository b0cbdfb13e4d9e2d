"""Each model's items on one xdist worker under ``--dist loadgroup``, on every pytest.

pytest-xdist groups items by a suffix its workers write into each item's node id
(``item._nodeid = f"{nodeid}@{group}"``), which its controller splits off again to form the
work units.  pytest 9.2 derives ``nodeid`` from a structured id, so that write no longer takes
effect: every item becomes a unit of its own and a model's items spread over the workers,
silently (pytest-xdist#1386, open in pytest-xdist 3.8.0).  Each worker then loads every model
and, owning "whole models" as far as it knows (``options.owns_whole_models``), predicts all of
their inputs up front: the run costs a load and a full prefetch per model per worker.

So the plugin hands the groups over itself, through pytest-xdist's documented hooks:

* the controller gives each worker a file to write (``pytest_configure_node``);
* each worker writes its items' groups (node id -> group, read from their ``xdist_group``
  marks as xdist reads them) once it has selected its items, before it reports its
  collection to the controller;
* the controller's scheduler (``pytest_xdist_make_scheduler``) is xdist's own
  ``LoadGroupScheduling``, whose one method that names an item's group (``_split_scope``,
  the method ``LoadGroupScheduling`` itself overrides) reads it from those files first.

Where xdist's suffix still works (pytest before 9.2) the files name the same groups as the
suffixes, so the schedule is xdist's own either way.  Workers on another machine
(``--tx ssh=...``) cannot write the controller's files: there the grouping is xdist's alone.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

# workerinput key: the file a worker writes its items' groups to.
GROUPS_FILE_KEY = "nlp_gate_xdist_groups"
_FOLDER_KEY = pytest.StashKey[Path]()


def runs_loadgroup(config: pytest.Config) -> bool:
    return bool(config.getvalue("dist") == "loadgroup")


def group_of(item: pytest.Item) -> str | None:
    """The item's group as xdist's worker names it: its ``xdist_group`` names, sorted and
    joined by ``_`` (``None``: no such mark)."""
    names = {
        str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        for mark in item.iter_markers("xdist_group")
    }
    return "_".join(sorted(names)) if names else None


# -- on the controller ------------------------------------------------------------------------
def give_groups_file(config: pytest.Config, node: Any) -> None:
    """``pytest_configure_node``: the file this worker will write its groups to."""
    if not runs_loadgroup(config):
        return
    if _FOLDER_KEY not in config.stash:
        folder = Path(tempfile.mkdtemp(prefix="nlp-gate-xdist-groups-"))
        config.stash[_FOLDER_KEY] = folder
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    worker = node.workerinput["workerid"]
    node.workerinput[GROUPS_FILE_KEY] = str(config.stash[_FOLDER_KEY] / f"{worker}.json")


def read_groups(config: pytest.Config) -> dict[str, str]:
    """Every worker's groups (the workers collect the same items; xdist checks that)."""
    groups: dict[str, str] = {}
    folder = config.stash.get(_FOLDER_KEY, None)
    for path in sorted(folder.glob("*.json")) if folder is not None else []:
        groups.update(json.loads(path.read_text()))
    return groups


def make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``pytest_xdist_make_scheduler``: under ``--dist loadgroup``, xdist's own scheduler
    taking each item's group from the workers' files; otherwise xdist's choice (None)."""
    if not runs_loadgroup(config):
        return None
    # Imported here: only xdist's controller calls this hook.
    from xdist.scheduler import LoadGroupScheduling

    class HandedGroupScheduling(LoadGroupScheduling):  # type: ignore[misc]  # xdist is untyped
        groups: dict[str, str] | None = None

        def schedule(self) -> None:
            # Called once every worker has reported its collection: the files are written.
            if self.groups is None:
                self.groups = read_groups(config)
            super().schedule()

        def _split_scope(self, nodeid: str) -> str:
            group = (self.groups or {}).get(nodeid)
            return group if group is not None else super()._split_scope(nodeid)

    return HandedGroupScheduling(config, log)


# -- on a worker ------------------------------------------------------------------------------
def write_groups(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The groups of this worker's selected items, to the file the controller gave it (with
    the node ids the controller will be sent)."""
    target = getattr(config, "workerinput", {}).get(GROUPS_FILE_KEY)
    if target is None:
        return
    groups = {item.nodeid: group for item in items if (group := group_of(item)) is not None}
    partial = Path(f"{target}.partial")
    partial.write_text(json.dumps(groups))
    os.replace(partial, target)  # whole or absent when the controller reads it
