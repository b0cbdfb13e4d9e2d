"""Model sources (``nlp_gate.sources``): which source each string is, asked in one place, in
``SOURCES`` order with the checkpoint last; ``register`` puts a new one before the built-in
ones; the models-file keys come from the sources.  The toy source gated end to end:
``tests/integration/test_toy_source.py``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nlp_gate import sources
from nlp_gate.config.specs import ModelSpec
from nlp_gate.sources.base import ModelSource, SourceContext
from nlp_gate.sources.checkpoint import CheckpointSource
from nlp_gate.sources.endpoint import EndpointSource
from nlp_gate.sources.function import FunctionSource
from nlp_gate.sources.mlflow import MlflowSource
from nlp_gate.sources.zoo import ZooSource


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        ("zoo:sst2/bert", ZooSource),
        ("predict:mypkg.models:predict_proba", FunctionSource),
        ("models:/sst2-bert@champion", MlflowSource),
        ("runs:/0123abcd/model", MlflowSource),
        ("https://models.example.com/sst2/predict", EndpointSource),
        ("textattack/bert-base-uncased-SST-2", CheckpointSource),
        ("./checkpoints/bert", CheckpointSource),
    ],
)
def test_a_spec_source_is_recognised_by_one_source(source: str, kind: type) -> None:
    assert isinstance(sources.source_of(source), kind)


@pytest.mark.parametrize(
    ("given", "kind", "split"),
    [
        ("mypkg.models:predict@v3", FunctionSource, ("mypkg.models:predict", "v3")),
        ("models:/sst2-bert@champion", MlflowSource, ("models:/sst2-bert@champion", None)),
        ("http://localhost:8080/predict@2", EndpointSource, ("http://localhost:8080/predict", "2")),
        ("org/model@v2", CheckpointSource, ("org/model", "v2")),
        ("zoo:sst2/bert", CheckpointSource, ("zoo:sst2/bert", None)),  # the models file's only
    ],
)
def test_an_nlp_model_source_is_recognised_without_its_revision(
    given: str, kind: type, split: tuple[str, str | None]
) -> None:
    source = sources.source_given(given)
    assert isinstance(source, kind)
    assert source.split_revision(given) == split


def test_an_existing_folder_named_like_a_function_is_a_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mymod:predict").mkdir()
    assert isinstance(sources.source_given("mymod:predict"), CheckpointSource)


class Toy(ModelSource):
    name = "toy"

    def recognises(self, source: str) -> bool:
        return source.startswith("toy://")

    def load(self, spec: ModelSpec, context: SourceContext) -> Any:
        raise NotImplementedError


@pytest.fixture
def toy() -> Iterator[ModelSource]:
    source = sources.register(Toy())
    yield source
    sources.SOURCES.remove(source)


def test_a_registered_source_is_asked_before_the_fallback(toy: ModelSource) -> None:
    assert sources.source_of("toy://x") is toy
    assert sources.source_given("toy://x") is toy
    assert isinstance(sources.SOURCES[-1], CheckpointSource)
    assert isinstance(sources.source_of("org/model"), CheckpointSource)


def test_the_models_file_keys_are_the_sources() -> None:
    assert sources.entry_keys() == ("id", "predict", "zoo")
