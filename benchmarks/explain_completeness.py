"""Measurement: how complete the integrated gradients of ``nlp_gate.explain`` are (issue 61).

Run by hand::

    .venv/bin/python benchmarks/explain_completeness.py

Integrated gradients' words sum, in the limit of infinitely many steps, to the change of the
class probability from the baseline (every text token padding) to the input.  For ten inputs
of the embedded zoo (sst2 and qqp, bert and albert), this prints that change, the sum of the
attributions at ``gradients.N_STEPS`` steps, and the gap between them.
"""

from __future__ import annotations

from typing import Any

CASES: dict[str, list[Any]] = {
    "sst2": [
        "This is not a good movie, honestly.",
        "I loved the acting but the plot was awful.",
        "An unbelievably boring film.",
    ],
    "qqp": [
        ("How do I learn Python quickly?", "What is the best way to learn Python?"),
        ("Who is Tom's father?", "Whose father is Tom?"),
    ],
}


def main() -> None:
    import torch

    from nlp_gate.config.profiles import load_profile
    from nlp_gate.engine.loading import load_classifier
    from nlp_gate.engine.predictor import LoadOptions
    from nlp_gate.explain import gradients, words
    from nlp_gate.zoo import embedded

    profile = load_profile("tiny")
    print(f"{gradients.N_STEPS} steps")
    print("| model | input | change of p(class 0) | sum of attributions | gap | gap / change |")
    print("|---|---|---|---|---|---|")
    for dataset, examples in CASES.items():
        for family in ("bert", "albert"):
            spec = profile.get(dataset, family)
            location = str(embedded.WEIGHTS / "zoo" / spec.source.removeprefix("zoo:"))
            classifier = load_classifier(spec, location, LoadOptions(device="cpu"))
            tokenizer = classifier.tokenizer
            for example in examples:
                parts = example if isinstance(example, tuple) else (example,)
                encoded = tokenizer(*parts, return_tensors="pt")
                text = [i for i, s in enumerate(encoded.sequence_ids(0)) if s is not None]
                baseline = encoded["input_ids"].clone()
                baseline[0, text] = tokenizer.pad_token_id
                rest = {k: v for k, v in encoded.items() if k != "input_ids"}
                with torch.no_grad():
                    p = [
                        torch.softmax(classifier.model(input_ids=ids, **rest).logits, -1)[0, 0]
                        for ids in (encoded["input_ids"], baseline)
                    ]
                change = float(p[0] - p[1])
                scored = gradients.integrated_gradients(
                    classifier, example, words.spans(example), [0]
                )[0].sum()
                gap = abs(float(scored) - change)
                print(
                    f"| {dataset}/{family} | {example!r} | {change:+.4f} | {scored:+.4f} | "
                    f"{gap:.4f} | {gap / max(abs(change), 1e-9):.1%} |"
                )


if __name__ == "__main__":
    main()
