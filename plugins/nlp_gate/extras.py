"""The optional features and the extra that installs each: the one place that names them.

``pip install nlp-gate`` is the core: the pytest plugin, CheckList's released suites and
native tests, ``module:function`` models and the reports.  What needs a heavy library comes
with an extra (pyproject.toml ``[project.optional-dependencies]``): checkpoints with
``[hf]``, TextAttack recipes with ``[attacks]``, Allure labels with ``[allure]``, the ONNX
Runtime backend with ``[onnx]``, integrated gradients with ``[explain]``.

A run that needs an extra that is not installed stops before any item runs, once, as a
usage error (exit 4) naming the extra and the command that installs it -- not with an
``ImportError`` in every item.  Whether a module is installed is asked with
``importlib.util.find_spec``, which finds it without importing it: checking must not cost
the seconds (and memory) of importing torch.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nlp_gate.config import ConfigurationError

DISTRIBUTION = "nlp-gate"


@dataclass(frozen=True)
class Feature:
    """An optional feature: the extra that installs it and the top-level modules it imports
    (those of its libraries that nlp-gate imports itself)."""

    name: str
    extra: str
    modules: tuple[str, ...]

    def missing(self) -> list[str]:
        """Its modules that are not installed, in order."""
        return [m for m in self.modules if not installed_module(m)]

    @property
    def available(self) -> bool:
        return not self.missing()


# Loading and running a checkpoint (a zoo model, a hub id, a local directory).
CHECKPOINTS = Feature("checkpoints", "hf", ("torch", "transformers", "tokenizers", "safetensors"))
# The embedded zoo's checkpoints are built on first use: its ALBERT tokenizer is trained with
# sentencepiece.
ZOO = Feature("the embedded zoo", "hf", (*CHECKPOINTS.modules, "sentencepiece"))
# Evaluation sets read from the Hugging Face hub (accuracy and attack items of a model that is
# not in the zoo, without --nlp-data-dir).
HUB_DATASETS = Feature("hub evaluation sets", "hf", ("datasets",))
# TextAttack brings torch, transformers, datasets and flair as its own dependencies.
ATTACKS = Feature("TextAttack recipes", "attacks", ("textattack",))
ALLURE = Feature("Allure labels", "allure", ("allure", "allure_pytest"))
ONNX = Feature("the ONNX Runtime backend", "onnx", ("onnxruntime", "onnx", "onnxscript"))
# MLflow model URIs (models:/..., runs:/...) resolved with MLflow's own client.
MLFLOW = Feature("MLflow model URIs", "mlflow", ("mlflow",))
# Integrated gradients of a checkpoint's failing examples (nlp_gate.explain); without it a
# checkpoint is explained by occlusion, as a prediction function is.
EXPLAIN = Feature("integrated gradients", "explain", ("captum",))

FEATURES = (CHECKPOINTS, ZOO, HUB_DATASETS, ATTACKS, ALLURE, ONNX, MLFLOW, EXPLAIN)


def installed_module(name: str) -> bool:
    """Whether the top-level module ``name`` can be imported, found without importing it."""
    try:
        return importlib.util.find_spec(name) is not None
    except ValueError:  # already imported, without a spec (a stand-in): it is there
        return True
    except ImportError:  # an import hook that refuses it
        return False


def install_command(extras: Iterable[str]) -> str:
    return f"pip install '{DISTRIBUTION}[{','.join(dict.fromkeys(extras))}]'"


@dataclass(frozen=True)
class Need:
    """Something this run does that needs ``feature``, said as the start of a sentence
    ("model sst2/bert is a checkpoint"); ``alternative``: how else to avoid the refusal."""

    feature: Feature
    what: str
    alternative: str = ""


def refusal(needs: Iterable[Need]) -> str | None:
    """One line per need whose feature is not installed, or None when nothing is missing.

    ``nlp-gate: model sst2/bert is a checkpoint, which needs the [hf] extra: pip install
    'nlp-gate[hf]' (missing: torch)``
    """
    lines = []
    for need in needs:
        missing = need.feature.missing()
        if missing:
            lines.append(
                f"nlp-gate: {need.what}, which needs the [{need.feature.extra}] extra: "
                f"{install_command([need.feature.extra])} (missing: "
                f"{', '.join(missing)})" + (f"; {need.alternative}" if need.alternative else "")
            )
    return "\n".join(lines) or None


def require(needs: Iterable[Need]) -> None:
    """Raise a ``ConfigurationError`` (exit 4 at start-up) naming each missing extra."""
    message = refusal(needs)
    if message is not None:
        raise ConfigurationError(message)


def eval_set_needs(selected: Mapping[str, Sequence[Any]], data_dir: Path | None) -> list[Need]:
    """What the selected items (kind name -> cases) need besides their models'
    (``nlp_gate.sources.item_needs``): an accuracy item of a model outside the zoo reads its
    evaluation set from the hub unless ``--nlp-data-dir`` gives it."""
    needs = []
    hub = [m for c in selected.get("accuracy", ()) for m in c.models if not m.is_zoo]
    if hub and data_dir is None:
        names = [f"{m.dataset}/{m.name}" for m in dict.fromkeys(hub)]
        items = (
            f"the accuracy item of {names[0]} reads its"
            if len(names) == 1
            else f"the accuracy items of {listed(names)} read their"
        )
        needs.append(
            Need(
                HUB_DATASETS,
                f"{items} evaluation set from the Hugging Face hub",
                "or give the sets with --nlp-data-dir (python -m nlp_gate.eval_sets "
                "writes them), or deselect the items: -m 'not accuracy'",
            )
        )
    return needs


@dataclass(frozen=True)
class Unmade:
    """The parameter of the one item that stands for a kind's items a missing extra keeps
    from being made (TextAttack names the recipes): it carries the kind's marker, so ``-m``
    and ``-k`` select or deselect it as they would the items, and a selection that keeps it
    is refused once, after collection (``selection.select``), before any item runs."""

    need: Need


def attack_need(datasets: Sequence[str]) -> Need:
    """The attack items of the datasets to attack (TextAttack lists the recipes: without it
    they cannot even be named)."""
    return Need(
        ATTACKS,
        f"this run asks for attack items (TextAttack recipes on {', '.join(datasets)})",
        "or run without the attack items (the packaged items attack rte when the "
        "profile has it, or each --nlp-attack-dataset)",
    )


def listed(names: Sequence[str], shown: int = 4) -> str:
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")
