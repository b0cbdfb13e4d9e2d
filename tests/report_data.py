"""A fabricated results.json in the plugin's schema, for the report tests (no models needed)."""

from __future__ import annotations

import random
from typing import Any

from nlp_gate.report.layout import SEED_ROWS

SUITE_DATASETS = {"sentiment": ("rotten_tomatoes", "yelp_polarity", "sst2"),
                  "qqp": ("qqp", "mrpc")}
# Tests the seed omitted (kept in suite order after its rows).
EXTRA_TESTS = {
    "sentiment": [("Negation",
                   "simple negations: but it was not (neutral) should still be neutral")],
    "qqp": [("Logic", "Symmetry: f(a, b) = f(b, a)"), ("Logic", "Testing implications")],
}
# (suite, test, dataset, model) cells with special content
NOT_RUN = ("sentiment", "typos", "sst2", "albert")
ALL_FILTERED = ("qqp", "Testing implications", "mrpc", "bert")


def fabricated_results(
        models: tuple[str, str] = ("bert", "albert"), seed: int = 0,
        fixed: dict[tuple[str, str, str, str], float] | None = None) -> dict[str, Any]:
    rng = random.Random(seed)
    fixed = fixed or {}
    run_models = [{"dataset": d, "model": m, "model_id": f"zoo:{d}/{m}", "revision": None,
                   "labels": [], "location": f"/zoo/{d}/{m}"}
                  for datasets in SUITE_DATASETS.values() for d in datasets for m in models]
    run_models += [{"dataset": "rte", "model": m, "model_id": f"zoo:rte/{m}", "revision": "abc123",
                    "labels": [], "location": f"/zoo/rte/{m}"} for m in models]
    records: list[dict[str, Any]] = []
    for suite, datasets in SUITE_DATASETS.items():
        tests = [(c, t) for c, _, t in SEED_ROWS[suite]] + EXTRA_TESTS[suite]
        # Suite order is not the seed's order: the report must reorder (Fairness/Temporal).
        if suite == "sentiment":
            tests.sort(key=lambda ct: {"Temporal": 0, "Fairness": 1}.get(ct[0], -1)
                       if ct[0] in ("Temporal", "Fairness") else -1)
        for capability, test in tests:
            for dataset in datasets:
                for model in models:
                    key = (suite, test, dataset, model)
                    if key == NOT_RUN:
                        continue
                    n = 100
                    rate = fixed.get(key, round(rng.uniform(0, 100), 1))
                    n_failed = round(rate)
                    filtered = key == ALL_FILTERED
                    records.append({
                        "suite": suite, "capability": capability, "test": test, "type": "mft",
                        "dataset": dataset, "model": model, "model_id": f"zoo:{dataset}/{model}",
                        "n_cases": 0 if filtered else n, "n_failed": 0 if filtered else n_failed,
                        "fail_rate": None if filtered else rate, "threshold": 50.0,
                        "passed": filtered or rate <= 50.0})
    attacks = [{"recipe": recipe, "dataset": "rte", "model": m, "model_id": f"zoo:rte/{m}",
                "substitutes": subs, "attack_success_rate": 30.0 + 10 * i + 5 * j,
                "accuracy_under_attack": 50.0 - 10 * i - 5 * j,
                "avg_perturbed_word_pct": 12.5 + i, "avg_queries": 100.0 + 10 * j,
                "status": "ran", "successful": 3 + j, "failed": 5 - j, "skipped": 2,
                "threshold": {"max_attack_success_rate": 80.0}, "passed": True}
               for i, (recipe, subs) in enumerate((("deepwordbug", None),
                                                   ("textfooler", {"embedding": "minilm"}),
                                                   ("iga", ["minilm embeddings"])))
               for j, m in enumerate(models)]
    attacks.append({"recipe": "bae", "dataset": "rte", "model": models[0],
                    "model_id": f"zoo:rte/{models[0]}", "substitutes": [], "status": "skipped",
                    "reason": "needs hub model bert-base-uncased (python -m nlp_gate.kinds.attacks.fetch)",
                    "attack_success_rate": None, "accuracy_under_attack": None,
                    "avg_perturbed_word_pct": None, "avg_queries": None, "passed": None})
    accuracy = [{"dataset": d["dataset"], "model": d["model"], "accuracy": 80.0 + i,
                 "ci_low": 77.0 + i, "ci_high": 83.0 + i, "n": 500, "passed": True}
                for i, d in enumerate(run_models)]
    comparisons = [{"suite": "sentiment", "capability": "Fairness", "test": "protected: race",
                    "dataset": "sst2", "baseline": models[0], "candidate": models[1],
                    "baseline_fail_rate": 20.0, "candidate_fail_rate": 32.3, "delta": 12.3,
                    "ci_low": 4.1, "ci_high": 20.5, "p_adjusted": 0.0021,
                    "verdict": "worse", "passed": False}]
    failed = sum(not r["passed"] for r in records)
    return {"schema": 1,
            "run": {"profile": "tiny", "models_file": "fixtures/models.yaml", "models": run_models,
                    "seed": 1, "sample": 100, "suites": {"sentiment": "d5" * 32, "qqp": "60" * 32},
                    "device": "cpu", "dtype": "float32", "thresholds_file": "thresholds.yaml",
                    "packages": {"python": "3.11", "torch": "2.13.0"}},
            "summary": {"checklist_items": len(records), "passed": len(records) - failed,
                        "failed": failed},
            "records": records, "accuracy": accuracy, "attacks": attacks,
            "comparisons": comparisons}
