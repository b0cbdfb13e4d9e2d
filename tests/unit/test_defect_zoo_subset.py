"""The defect zoo built for some datasets only (``ensure_defect_zoo(datasets=...)``, what
``python -m workshop.power --datasets`` and the power test ask for): which models a build makes,
and when a zoo already in place serves the request.  That a subset's models are the same
bytes as the whole zoo's is measured (11 of 11 ``weights_sha256`` of yelp_polarity equal,
CHANGELOG 0.3.13), not retrained here: a build is minutes."""

from __future__ import annotations

from pathlib import Path

import pytest

from nlp_gate.zoo.card import ModelResult, ZooCard
from workshop.defects import VARIANTS, build


def _card(paths: list[str], recipe_hash: str) -> ZooCard:
    models = tuple(
        ModelResult(
            dataset=p.split("/")[0],
            family="bert",
            path=p,
            seed=1,
            accuracy=0.9,
            heldout_size=10,
            num_parameters=1,
            train_seconds=1.0,
            weights_sha256="0" * 64,
        )
        for p in paths
    )
    return ZooCard(
        recipe_hash=recipe_hash,
        recipe={},
        versions={},
        models=models,
        bases=(),
        build_seconds=1.0,
        built_at="2026-11-28T00:00:00+00:00",
        build_pid=1,
    )


def test_variants_of_a_dataset_are_its_models_only() -> None:
    yelp = build.variants_of(["yelp_polarity"])
    assert yelp and {v.dataset for v in yelp} == {"yelp_polarity"}
    assert len(yelp) == sum(v.dataset == "yelp_polarity" for v in VARIANTS)
    assert build.variants_of(None) == VARIANTS
    with pytest.raises(ValueError, match="sst2"):
        build.variants_of(["sst2"])


def test_a_card_holds_a_subset_not_the_whole_zoo() -> None:
    yelp = build.variants_of(["yelp_polarity"])
    card = _card([v.path for v in yelp], "h")
    assert build.holds(card, yelp)
    assert not build.holds(card, VARIANTS)
    assert build.holds(_card([v.path for v in VARIANTS], "h"), yelp)


def test_a_zoo_in_place_serves_a_subset_and_a_smaller_one_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[tuple[str, ...]] = []

    def fake_build(
        workdir: Path, expected: str, jobs: int, wanted: tuple[build.Variant, ...]
    ) -> ZooCard:
        built.append(tuple(v.path for v in wanted))
        workdir.mkdir(parents=True)
        card = _card([v.path for v in wanted], expected)
        card.write(workdir)
        return card

    monkeypatch.setattr(build, "_build_into", fake_build)
    root = tmp_path / "defect-zoo"
    yelp = build.variants_of(["yelp_polarity"])
    build.ensure_defect_zoo(root, datasets=["yelp_polarity"])
    build.ensure_defect_zoo(root, datasets=["yelp_polarity"])  # in place: no build
    assert built == [tuple(v.path for v in yelp)]
    whole = build.ensure_defect_zoo(root)  # holds too few: the whole zoo is built
    assert built[-1] == tuple(v.path for v in VARIANTS)
    assert build.holds(whole, VARIANTS)
    build.ensure_defect_zoo(root, datasets=["qqp"])  # the whole zoo serves a subset
    assert len(built) == 2
