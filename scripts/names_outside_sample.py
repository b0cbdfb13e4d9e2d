"""Which values of a native test's searched slot its fixed sample contains, and which not.

A defect on a value the sample lacks (a bias against one first name) passes the test's
fail-rate gate and only its search (``-m search``) can find it; this lists those values, in
the search's order (shortest first), for a seed (``--nlp-seed``, default 1):

    .venv/bin/python scripts/names_outside_sample.py nlp_gate.native_tests.test_ner \\
        test_sentiment_speaker_name_does_not_matter
"""

from __future__ import annotations

import argparse
import importlib
import re

from nlp_gate.native.definition import definition_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module", help="the test module, e.g. nlp_gate.native_tests.test_ner")
    parser.add_argument("function", help="a native test declaring search=SearchSpace(...)")
    parser.add_argument("--seed", type=int, default=1, help="--nlp-seed (default 1)")
    args = parser.parse_args()
    definition = definition_of(getattr(importlib.import_module(args.module), args.function))
    if definition is None or definition.search is None:
        raise SystemExit(f"{args.function} declares no search space")
    test = definition.generate(args.seed)
    texts = [t for case in test.data for t in (case if isinstance(case, list) else [case])]
    words = {w for t in texts for w in re.findall(r"[\w'-]+", str(t))}
    values = definition.search.lexicons()[definition.search.perturb]
    inside = [v for v in values if v in words]
    outside = [v for v in values if v not in words]
    print(
        f"{len(test.data)} cases, seed {args.seed}; slot {definition.search.perturb!r}: "
        f"{len(inside)} of {len(values)} values in the fixed sample"
    )
    print("in the sample:    " + ", ".join(inside))
    print("not in the sample: " + ", ".join(outside))


if __name__ == "__main__":
    main()
