"""MLflow model URIs told apart from other sources and parsed without mlflow (a core install
parses every models file), and named for the reports without '@' or '/'."""

from __future__ import annotations

import pytest

from nlp_gate.config.registry_uri import RegistryUriError, parse
from nlp_gate.config.specs import ModelSpec, Task
from nlp_gate.extras import MLFLOW
from nlp_gate.sources import model_needs, source_given, source_of
from nlp_gate.sources.mlflow import MlflowSource


def is_registry_source(source: str) -> bool:
    return isinstance(source_of(source), MlflowSource)


def _cli_source(given: str) -> tuple[str, str | None]:
    return source_given(given).split_revision(given)


@pytest.mark.parametrize(
    ("uri", "fields", "name"),
    [
        ("models:/sst2-bert/3", {"name": "sst2-bert", "version": "3"}, "sst2-bert-3"),
        (
            "models:/sst2-bert@champion",
            {"name": "sst2-bert", "alias": "champion"},
            "sst2-bert-champion",
        ),
        (
            "runs:/0123456789abcdef/model/sub",
            {"run_id": "0123456789abcdef", "path": "model/sub"},
            "run-01234567-model-sub",
        ),
    ],
)
def test_each_form_is_parsed_and_named(uri: str, fields: dict[str, str], name: str) -> None:
    parsed = parse(uri)
    assert {k: v for k, v in vars(parsed).items() if v is not None and k != "uri"} == fields
    assert parsed.model_name == name
    assert is_registry_source(uri)


@pytest.mark.parametrize(
    "uri", ["models:/sst2-bert", "models:/a/b/c", "runs:/abc", "models:/sst2-bert@"]
)
def test_a_uri_naming_no_version_or_artifact_is_refused(uri: str) -> None:
    with pytest.raises(RegistryUriError, match="models:/NAME/VERSION, models:/NAME@ALIAS"):
        parse(uri)


def test_a_hub_id_or_function_is_no_registry_source() -> None:
    assert not is_registry_source("textattack/bert-base-uncased-SST-2")
    assert not is_registry_source("mypkg.models:predict")


def test_the_alias_of_a_cli_source_stays_in_the_uri() -> None:
    # '@REV' is a hub revision elsewhere; in a registry URI it is the alias.
    assert _cli_source("models:/sst2-bert@champion") == ("models:/sst2-bert@champion", None)
    assert _cli_source("org/model@v2") == ("org/model", "v2")


def test_a_registry_model_needs_the_mlflow_extra_first() -> None:
    task = Task("sentiment", ("negative", "positive"), "sentiment")
    spec = ModelSpec(
        "sentiment", "sst2-bert-3", task, "models:/sst2-bert/3", None, ("negative", "positive")
    )
    needs = model_needs([spec])
    assert needs[0].feature is MLFLOW
    assert needs[0].what == "model sentiment/sst2-bert-3 is an MLflow model URI"
