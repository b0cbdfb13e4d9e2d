"""The optional features and their extras (``nlp_gate.extras``): what a run's models and
selected items need installed, the one message that names the missing extra, and CheckList
imported without its notebook viewer (``nlp_gate.checklist_viewer``).

Its slow tests: ``tests/integration/test_extras.py`` (a run stopped at start with an import
blocker) and ``tests/integration/test_core_imports.py`` (what a core run imports)."""

from __future__ import annotations

import importlib.abc
import sys
import types
from pathlib import Path

import pytest

from nlp_gate import extras, sources
from nlp_gate.checklist_viewer import CORE, VIEWER, load_checklist
from nlp_gate.config.profiles import ModelSpec, Task
from nlp_gate.extras import Feature, Need
from nlp_gate.kinds.accuracy.kind import AccuracyCase

SENTIMENT = Task("sentiment", ("negative", "positive"), "sentiment")
ABSENT = "nlp_gate_test_no_such_module"


def _spec(name: str, source: str, dataset: str = "sst2") -> ModelSpec:
    return ModelSpec(dataset, name, SENTIMENT, source, None, ("negative", "positive"))


BERT = _spec("bert", "zoo:sst2/bert")
HUB = _spec("distil", "distilbert-base-uncased-finetuned-sst-2-english")
LEXICON = _spec("lexicon", "predict:mymod:predict")


class Refuse(importlib.abc.MetaPathFinder):
    """An import hook that refuses one module, as a blocker in a user's environment would."""

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == self.name:
            raise ModuleNotFoundError(f"{name} is blocked", name=name)


def test_a_module_is_found_without_importing_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    assert extras.installed_module("colorsys")
    assert "colorsys" not in sys.modules  # found, not imported
    assert not extras.installed_module(ABSENT)


def test_a_refused_or_a_specless_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "meta_path", [Refuse("colorsys"), *sys.meta_path])
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    assert not extras.installed_module("colorsys")  # the hook's refusal means: not there
    stand_in = types.ModuleType(ABSENT)  # imported already, with no spec (a stand-in)
    stand_in.__spec__ = None
    monkeypatch.setitem(sys.modules, ABSENT, stand_in)
    assert extras.installed_module(ABSENT)


def test_the_message_names_the_extra_the_command_and_what_is_missing() -> None:
    feature = Feature("checkpoints", "hf", ("json", ABSENT, "colorsys"))
    assert feature.missing() == [ABSENT] and not feature.available
    message = extras.refusal([Need(feature, "model sst2/bert is a checkpoint")])
    assert message == (
        "nlp-gate: model sst2/bert is a checkpoint, which needs the [hf] extra: "
        f"pip install 'nlp-gate[hf]' (missing: {ABSENT})"
    )
    with pytest.raises(extras.ConfigurationError, match=r"\[hf\] extra"):
        extras.require([Need(feature, "model sst2/bert is a checkpoint")])


def test_nothing_missing_is_no_message() -> None:
    installed = Feature("stdlib", "hf", ("json", "colorsys"))
    assert extras.refusal([Need(installed, "anything")]) is None
    extras.require([Need(installed, "anything")])  # does not raise
    assert extras.refusal([]) is None


def test_an_alternative_follows_the_command() -> None:
    feature = Feature("TextAttack recipes", "attacks", (ABSENT,))
    message = extras.refusal([Need(feature, "this run asks for attack items", "or not")])
    assert message is not None and message.endswith(f"(missing: {ABSENT}); or not")


def test_checkpoints_need_hf_and_a_function_nothing() -> None:
    assert sources.model_needs([LEXICON]) == []
    needs = sources.model_needs([BERT, HUB, LEXICON, BERT])
    assert [(n.feature, n.what) for n in needs] == [
        (extras.ZOO, "model sst2/bert is a checkpoint of the embedded zoo"),
        (extras.CHECKPOINTS, "model sst2/distil is a checkpoint"),
    ]
    assert {n.feature.extra for n in needs} == {"hf"}
    assert "torch" in extras.CHECKPOINTS.modules and "sentencepiece" in extras.ZOO.modules
    onnx = sources.model_needs([BERT, LEXICON], backend="onnx")
    assert [n.feature for n in onnx] == [extras.ZOO, extras.ONNX]
    assert sources.model_needs([LEXICON], backend="onnx") == []  # a function runs as it is
    many = sources.model_needs([_spec(f"m{i}", f"org/m{i}") for i in range(6)])
    assert many[0].what == "models sst2/m0, sst2/m1, sst2/m2, sst2/m3 and 2 more are checkpoints"


def test_registry_endpoint_and_function_models_do_not_ask_for_hf() -> None:
    # A registry URI's flavor is known once resolved: [mlflow] first, [hf] only then (for a
    # transformers flavor, asked by the registry's preflight); an endpoint loads nothing.
    registry = _spec("pyfunc", "models:/sst2-lexicon/1")
    endpoint = _spec("served", "https://models.example.com/sst2/predict")
    needs = sources.model_needs([registry, endpoint, LEXICON])
    assert [(n.feature, n.what) for n in needs] == [
        (extras.MLFLOW, "model sst2/pyfunc is an MLflow model URI")
    ]
    assert sources.model_needs([endpoint, LEXICON]) == []


def test_an_accuracy_item_of_a_function_needs_hub_datasets_without_a_data_dir() -> None:
    selected = {"accuracy": [AccuracyCase(0, LEXICON), AccuracyCase(1, BERT)], "checklist": []}
    needs = sources.item_needs(selected, data_dir=None)
    hub = [n for n in needs if n.feature is extras.HUB_DATASETS]
    assert len(hub) == 1 and hub[0].what.startswith("the accuracy item of sst2/lexicon reads")
    assert "--nlp-data-dir" in hub[0].alternative and "-m 'not accuracy'" in hub[0].alternative
    assert [n.feature for n in needs if n not in hub] == [extras.ZOO]  # bert's own need
    offline = sources.item_needs(selected, data_dir=Path("data"))
    assert extras.HUB_DATASETS not in [n.feature for n in offline]


def test_every_extra_of_pyproject_has_its_features() -> None:
    """The features name the extras that pyproject.toml declares (and no other)."""
    import tomllib

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())[
        "project"
    ]
    declared = set(project["optional-dependencies"])
    assert {f.extra for f in extras.FEATURES} | {"all"} == declared
    assert not any("torch" in d or "textattack" in d for d in project["dependencies"])


@pytest.fixture
def fresh_checklist(monkeypatch: pytest.MonkeyPatch) -> None:
    """CheckList's modules as if never imported in this process (restored afterwards)."""
    for name in [n for n in sys.modules if n == "checklist" or n.startswith("checklist.")]:
        monkeypatch.delitem(sys.modules, name)


@pytest.mark.usefixtures("fresh_checklist")
def test_checklist_is_loaded_without_its_notebook_viewer() -> None:
    load_checklist()
    assert all(name in sys.modules for name in CORE)
    assert not any(name in sys.modules for name in VIEWER)  # the stand-ins are gone again
    abstract_test = sys.modules["checklist.abstract_test"]
    with pytest.raises(RuntimeError, match="notebook viewer"):
        abstract_test.TestSummarizer()
    from checklist.test_types import MFT  # later imports find the loaded modules

    test = MFT(["a", "b"], labels=[0, 1])
    assert test.data == ["a", "b"]  # CheckList's own class, working
