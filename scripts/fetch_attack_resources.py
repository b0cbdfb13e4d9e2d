#!/usr/bin/env python
"""Pre-populate the attack resource bundle: one directory the suite reads with --nlp-resources.

On a connected machine (downloads everything the selected recipes need)::

    python scripts/fetch_attack_resources.py DIR                    # every recipe
    python scripts/fetch_attack_resources.py --recipe textfooler DIR
    python scripts/fetch_attack_resources.py --with-data DIR        # + evaluation splits

Offline, from Debian packages (WordNet; the Snowball stop list standing in for NLTK's; the
homoglyph table from Unicode's confusables) and from the embedded default (the zoo's masked
LM, shipped with the package)::

    apt-get install wordnet-base wordnet-sense-index liblingua-stopwords-perl \
        python3-confusable-homoglyphs
    python scripts/fetch_attack_resources.py --from-debian --stand-ins [DIR]

Then copy DIR to the air-gapped machine and run
``pytest tests_behavioral -m adversarial --nlp-resources=DIR`` (add ``--nlp-data-dir=DIR/data``
for a hub profile's evaluation splits).  DIR defaults to ``.cache/attack-resources``, where the
suite looks without the option.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nlp_gate.kinds.attacks import fetch  # noqa: E402  # after the sys.path set-up above
from nlp_gate.kinds.attacks.bundle import Bundle  # noqa: E402  # after the sys.path set-up above


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = Path(os.environ.get("NLP_GATE_CACHE", REPO / ".cache")) / "attack-resources"
    parser.add_argument(
        "bundle",
        nargs="?",
        type=Path,
        default=default,
        help=f"the bundle directory (default: {default})",
    )
    parser.add_argument(
        "--recipe",
        action="append",
        default=[],
        help="only what this recipe needs (repeatable; default: all recipes)",
    )
    parser.add_argument(
        "--from-debian",
        action="store_true",
        help="build NLTK's wordnet and stopwords from installed Debian packages (no network)",
    )
    parser.add_argument(
        "--stand-ins",
        action="store_true",
        help="install the zoo's masked LM, the offline variants' stand-in for "
        "the hub masked LMs (no network: shipped with nlp-gate, sha256 "
        "checked)",
    )
    parser.add_argument(
        "--with-data",
        action="store_true",
        help="also save the profiles' evaluation splits under DIR/data (for --nlp-data-dir)",
    )
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress lines (on stderr) while the zoo or the masked LM trains",
    )
    args = parser.parse_args(argv)
    if args.quiet:
        from nlp_gate import progress

        progress.quiet()
    bundle = Bundle(args.bundle.resolve())
    try:
        done = []
        if args.from_debian:
            done += fetch.from_debian(bundle)
        if args.stand_ins:
            done += fetch.stand_ins(bundle)
        if not (args.from_debian or args.stand_ins):
            done = fetch.fetch(bundle, fetch.needs_of(args.recipe))
            if args.with_data:
                from nlp_gate.eval_sets import HUB_SPLITS, export

                done += [str(p) for p in export(bundle.root / "data", list(HUB_SPLITS))]
    except fetch.FetchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # builds write into private folders, removed on the way out
        print("interrupted; nothing half-made was kept", file=sys.stderr)
        return 130
    print("\n".join(done))
    print(f"bundle: {bundle.root}  (pytest ... --nlp-resources={bundle.root})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
