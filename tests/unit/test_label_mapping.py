"""Loading guards and label mapping: the seed's two silent mistakes must be loud."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nlp_gate.config.profiles import load_profile
from nlp_gate.engine.checkpoint import ModelLoadError, validate_classifier
from nlp_gate.engine.loading import load_classifier
from nlp_gate.engine.predictor import LoadOptions
from nlp_gate.kinds.checklist import run as checklist_run
from nlp_gate.kinds.checklist.run import NEUTRAL_MARGIN, binary_to_three_class
from nlp_gate.zoo import embedded

SPEC = load_profile("paper").get("sst2", "bert")
CLASSIFIER = {
    "architectures": ["BertForSequenceClassification"],
    "id2label": {"0": "LABEL_0", "1": "LABEL_1"},
}


def test_generic_labels_are_mapped_by_the_models_file(tmp_path: Path) -> None:
    """A checkpoint whose outputs are LABEL_0 / LABEL_1 says nothing about which is which: it
    loads under either order of the models file's ``labels``, and that order alone decides
    which output a prediction reads as which class."""
    validate_classifier("m", SPEC, CLASSIFIER, missing_keys=[])  # no refusal: nothing to contradict
    # The embedded zoo's sst2/bert (under 1 MB), its output names made generic.
    checkpoint = tmp_path / "generic"
    shutil.copytree(embedded.WEIGHTS / "zoo" / "sst2" / "bert", checkpoint)
    config = json.loads((checkpoint / "config.json").read_text())
    config["id2label"] = {"0": "LABEL_0", "1": "LABEL_1"}
    config["label2id"] = {"LABEL_0": 0, "LABEL_1": 1}
    (checkpoint / "config.json").write_text(json.dumps(config))
    texts = ["a great , wonderful film", "an awful , boring film"]

    def probabilities(labels: tuple[str, str]) -> np.ndarray:
        spec = dataclasses.replace(SPEC, source=str(checkpoint), revision=None, labels=labels)
        classifier = load_classifier(spec, str(checkpoint), LoadOptions(device="cpu"))
        return classifier.predict_proba(texts)  # columns in task order: negative, positive

    as_trained = probabilities(("negative", "positive"))
    assert as_trained.argmax(axis=1).tolist() == [1, 0]  # the model tells the two apart
    swapped = probabilities(("positive", "negative"))
    np.testing.assert_allclose(swapped, as_trained[:, ::-1], atol=1e-6)


def test_fill_mask_checkpoint_is_refused() -> None:
    config = {**CLASSIFIER, "architectures": ["AlbertForMaskedLM"]}
    with pytest.raises(ModelLoadError, match="not a sequence classifier"):
        validate_classifier("m", SPEC, config, missing_keys=[])


def test_newly_initialised_head_is_refused() -> None:
    with pytest.raises(ModelLoadError, match="classifier.weight"):
        validate_classifier(
            "m", SPEC, CLASSIFIER, missing_keys=["classifier.weight", "classifier.bias"]
        )


def test_named_labels_that_contradict_the_models_file_are_refused() -> None:
    config = {**CLASSIFIER, "id2label": {"0": "POSITIVE", "1": "NEGATIVE"}}
    with pytest.raises(ModelLoadError, match="output 0 is named 'POSITIVE'"):
        validate_classifier("m", SPEC, config, missing_keys=[])


def test_output_count_must_match_the_task() -> None:
    config = {**CLASSIFIER, "id2label": {"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"}}
    with pytest.raises(ModelLoadError, match="3 outputs"):
        validate_classifier("m", SPEC, config, missing_keys=[])


@given(st.lists(st.floats(0, 1), min_size=1, max_size=50))
def test_neutral_band_is_one_third_to_two_thirds(p: list[float]) -> None:
    p_pos = np.array(p)
    preds, confs = binary_to_three_class(p_pos)
    expected = np.where(p_pos < 1 / 3, 0, np.where(p_pos > 2 / 3, 2, 1))
    # Exactly on an edge CheckList's README arithmetic takes no branch: an all-zero row,
    # which its argmax reads as negative.  Near an edge the two classes all but tie.
    exact = (p_pos == 0.5 - NEUTRAL_MARGIN / 2) | (p_pos == 0.5 + NEUTRAL_MARGIN / 2)
    assert (preds[exact] == 0).all() and (confs[exact] == 0).all()
    assert np.allclose(confs[~exact].sum(axis=1), 1)
    edge = np.isclose(p_pos, 1 / 3) | np.isclose(p_pos, 2 / 3)
    assert (preds[~edge] == expected[~edge]).all()


def test_band_edges_read_as_checklists_readme_reads_them() -> None:
    # In float64, 0.5 + 1/6 == 2/3 (no branch: all zero), while 0.5 - 1/6 lies just above
    # 1/3 (so 1/3 is plainly negative), as in CheckList's own snippet.
    preds, confs = binary_to_three_class(np.array([1 / 3, 2 / 3, 0.5, 0.2, 0.8]))
    assert preds.tolist() == [0, 0, 1, 0, 2]
    assert confs[1].tolist() == [0, 0, 0]
    assert confs[0].tolist() == [1 - 1 / 3, 0, 1 / 3]


def test_the_comment_on_the_band_says_what_the_code_does() -> None:
    # Issue 50, point 7: the comment above NEUTRAL_MARGIN said the closed band [1/3, 2/3] was
    # neutral, while both edges read as negative (the test above).
    source = Path(checklist_run.__file__).read_text()
    comment = source.split("\nNEUTRAL_MARGIN =")[0].rsplit("\n\n", 1)[-1]
    preds, _ = binary_to_three_class(np.array([1 / 3, 2 / 3]))
    assert preds.tolist() == [0, 0]
    assert "[1/3, 2/3]" not in comment, comment
    assert "(1/3, 2/3)" in comment and "negative" in comment, comment
