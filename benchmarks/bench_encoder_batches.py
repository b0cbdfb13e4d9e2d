"""Benchmark: how far the MiniLM encoder's batched cosines are from those of embeddings made
alone, the bound its margins rest on (``minilm.ERROR``; issue 49).

Run by hand (never as a timed test)::

    .venv/bin/python benchmarks/bench_encoder_batches.py [--texts 400] [--per-text 6]

Builds CLARE-like pairs from the zoo's rte and sst2 held-out texts (a window of 15 words
around a random position, and the same window with one word swapped for a random vocabulary
word), embeds every distinct window alone (``minilm.embed``) and in padded batches
(``minilm._embed_batched``, its batch size varied), and prints the largest difference of a
pair's cosine and of a row, the wall time of each way, and the bound with its headroom.
Exits 1 when a difference reaches a tenth of ``ERROR``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent


def pairs(texts: list[str], per_text: int, vocabulary: list[str]) -> list[tuple[str, str]]:
    rng = random.Random(0)
    out = []
    for text in texts:
        words = text.split()
        for _ in range(per_text):
            i = rng.randrange(len(words))
            window = words[max(0, i - 7) : i + 8]
            changed = list(window)
            changed[rng.randrange(len(window))] = rng.choice(vocabulary)
            out.append((" ".join(window), " ".join(changed)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--texts", type=int, default=400)
    parser.add_argument("--per-text", type=int, default=6)
    args = parser.parse_args(argv)

    from nlp_gate.kinds.attacks import offline
    from nlp_gate.kinds.attacks.bundle import Bundle
    from nlp_gate.zoo.build import default_zoo_root

    bundle = Bundle((REPO / ".cache" / "attack-resources").resolve())
    bundle.activate()
    offline.import_textattack(bundle)
    from nlp_gate.kinds.attacks import minilm

    zoo = default_zoo_root()
    texts = []
    for dataset in ("rte", "sst2"):
        for line in (zoo / dataset / "heldout.jsonl").read_text().splitlines():
            texts += [v for v in json.loads(line).values() if isinstance(v, str)]
    tokenizer, _ = minilm._minilm()
    vocabulary = [w for w in tokenizer.get_vocab() if w.isalpha() and w.islower()]
    chosen = pairs(texts[: args.texts], args.per_text, vocabulary)
    sentences = list(dict.fromkeys(s for pair in chosen for s in pair))
    index = {s: i for i, s in enumerate(sentences)}

    started = time.perf_counter()
    alone = minilm.embed(sentences)
    alone_s = time.perf_counter() - started
    worst = 0.0
    for size in (17, 64, 128):
        minilm.BATCH = size
        started = time.perf_counter()
        batched = minilm._embed_batched(sentences)
        batched_s = time.perf_counter() - started
        gap = max(
            abs(
                float(alone[index[a]] @ alone[index[b]])
                - float(batched[index[a]] @ batched[index[b]])
            )
            for a, b in chosen
        )
        rows = float(np.abs(alone - batched).max())
        worst = max(worst, gap)
        print(
            f"batches of {size:3d}: largest cosine difference {gap:.2e}, row {rows:.2e}; "
            f"alone {alone_s:.1f} s, batched {batched_s:.1f} s "
            f"({len(sentences)} sentences, {len(chosen)} pairs)"
        )
    print(f"ERROR = {minilm.ERROR:.3e}: headroom {minilm.ERROR / max(worst, 1e-30):.0f}x")
    return 0 if worst < minilm.ERROR / 10 else 1


if __name__ == "__main__":
    sys.exit(main())
