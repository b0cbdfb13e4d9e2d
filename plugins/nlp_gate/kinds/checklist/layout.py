"""The seed report's row order for Tables 2 (sentiment) and 3 (QQP), in release-suite test names.

The seed prints shortened, capitalised labels ("Race" for ``protected: race``) and its PDF text
splits long QQP names over two rows and shifts the capability labels by a row; the lists below
are the rows it shows, mapped back to the names of CheckList's released suites (the names
``results.json`` and ``thresholds.yaml`` use), each under the capability the suite gives it.
Tests the seed left out (six sentiment Negation tests; the QQP INV/DIR tests) come after these
rows, in suite order, marked as not in the seed's table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

SEED_TABLES = {"sentiment": "table2", "qqp": "table3"}
SEED_TITLES = {
    "sentiment": "Table 2: CheckList test suite for sentiment analysis (fail rate %)",
    "qqp": "Table 3: CheckList test suite for QQP (fail rate %)",
}

# suite -> [(capability, seed label, suite test name)] in the seed table's order.
SEED_ROWS: dict[str, list[tuple[str, str, str]]] = {
    "sentiment": [
        ("Vocabulary", "Single positive words", "single positive words"),
        ("Vocabulary", "Single negative words", "single negative words"),
        ("Vocabulary", "Single neutral words", "single neutral words"),
        ("Vocabulary", "Sentiment-laden words in context", "Sentiment-laden words in context"),
        ("Vocabulary", "Neutral words in context", "neutral words in context"),
        ("Vocabulary", "Intensifiers", "intensifiers"),
        ("Vocabulary", "Reducers", "reducers"),
        ("Vocabulary", "Change neutral words with BERT", "change neutral words with BERT"),
        ("Vocabulary", "Add positive phrases", "add positive phrases"),
        ("Vocabulary", "Add negative phrases", "add negative phrases"),
        ("Robustness", "Add random URLs and handles", "add random urls and handles"),
        ("Robustness", "Punctuation", "punctuation"),
        ("Robustness", "Typos", "typos"),
        ("Robustness", "2 typos", "2 typos"),
        ("Robustness", "Contractions", "contractions"),
        ("NER", "Change names", "change names"),
        ("NER", "Change locations", "change locations"),
        ("NER", "Change numbers", "change numbers"),
        # The seed puts Fairness before Temporal; the suite has them the other way round.
        ("Fairness", "Race", "protected: race"),
        ("Fairness", "Sexual", "protected: sexual"),
        ("Fairness", "Religion", "protected: religion"),
        ("Fairness", "Nationality", "protected: nationality"),
        ("Temporal", "Used to, but now", "used to, but now"),
        ("Temporal", '"Used to" should reduce', '"used to" should reduce'),
        ("Negation", "Negative", "simple negations: negative"),
        ("Negation", "Not negative", "simple negations: not negative"),
        (
            "Negation",
            "Not neutral is still neutral",
            "simple negations: not neutral is still neutral",
        ),
        ("SRL", "My opinion is what matters", "my opinion is what matters"),
        ("SRL", "Q & A: yes", "Q & A: yes"),
        ("SRL", "Q & A: yes (neutral)", "Q & A: yes (neutral)"),
        ("SRL", "Q & A: no", "Q & A: no"),
        ("SRL", "Q & A: no (neutral)", "Q & A: no (neutral)"),
    ],
    "qqp": [
        ("Vocabulary", "Modifier: adj", "Modifier: adj"),
        ("Vocabulary", "Different adjectives", "different adjectives"),
        ("Vocabulary", "Different animals", "Different animals"),
        ("Vocabulary", "Irrelevant modifiers - animals", "Irrelevant modifiers - animals"),
        ("Vocabulary", "Irrelevant modifiers - people", "Irrelevant modifiers - people"),
        (
            "Vocabulary",
            "Irrelevant preamble with different examples.",
            "Irrelevant preamble with different examples.",
        ),
        (
            "Vocabulary",
            "Preamble is relevant (different injuries)",
            "Preamble is relevant (different injuries)",
        ),
        (
            "Vocabulary",
            "How can I become more X != How can I become less X",
            "How can I become more X != How can I become less X",
        ),
        ("Taxonomy", "How can I become more {synonym}?", "How can I become more {synonym}?"),
        (
            "Taxonomy",
            "How can I become more X = How can I become less antonym(X)",
            "How can I become more X = How can I become less antonym(X)",
        ),
        ("Robustness", "Add one typo", "add one typo"),
        ("Robustness", "Contractions", "contrations"),  # sic: the suite's spelling
        ("Robustness", "(q, paraphrase(q))", "(q, paraphrase(q))"),
        (
            "Robustness",
            "Product of paraphrases(q1) * paraphrases(q2)",
            "Product of paraphrases(q1) * paraphrases(q2)",
        ),
        ("NER", "Same adjectives, different people", "same adjectives, different people"),
        ("NER", "Same adjectives, different people v2", "same adjectives, different people v2"),
        ("NER", "Same adjectives, different people v3", "same adjectives, different people v3"),
        (
            "Temporal",
            "Is person X != Did person use to be X",
            "Is person X != Did person use to be X",
        ),
        ("Temporal", "Is person X != Is person becoming X", "Is person X != Is person becoming X"),
        (
            "Temporal",
            "What was person's life before becoming X != ... after becoming X",
            "What was person's life before becoming X != What was person's life after becoming X",
        ),
        (
            "Temporal",
            "Do you have to X your dog before Y it != ... after Y it.",
            "Do you have to X your dog before Y it != Do you have to X your dog after Y it.",
        ),
        (
            "Temporal",
            "Is it {ok, dangerous, ...} to {smoke, rest, ...} after != before",
            "Is it {ok, dangerous, ...} to {smoke, rest, ...} after != before",
        ),
        (
            "Negation",
            "How can I become a X person != ... a person who is not X",
            "How can I become a X person != How can I become a person who is not X",
        ),
        (
            "Negation",
            "Is it {ok, dangerous, ...} to {smoke, rest, ...} in country != ... not to ...",
            "Is it {ok, dangerous, ...} to {smoke, rest, ...} in country != "
            "Is it {ok, dangerous, ...} not to {smoke, rest, ...} in country",
        ),
        (
            "Negation",
            "What are things a {noun} should worry about != should not worry about.",
            "What are things a {noun} should worry about != should not worry about.",
        ),
        (
            "Negation",
            "How can I become a X person == ... a person who is not antonym(X)",
            "How can I become a X person == How can I become a person who is not antonym(X)",
        ),
        ("Coref", "Simple coref: he and she", "Simple coref: he and she"),
        ("Coref", "Simple coref: his and her", "Simple coref: his and her"),
        (
            "SRL",
            "Who do X think - Who is the ... according to X",
            "Who do X think - Who is the ... according to X",
        ),
        ("SRL", "Order does not matter for comparison", "Order does not matter for comparison"),
        (
            "SRL",
            "Order does not matter for symmetric relations",
            "Order does not matter for symmetric relations",
        ),
        (
            "SRL",
            "Order does matter for asymmetric relations",
            "Order does matter for asymmetric relations",
        ),
        ("SRL", "Traditional SRL: active / passive swap", "traditional SRL: active / passive swap"),
        (
            "SRL",
            "Traditional SRL: wrong active / passive swap",
            "traditional SRL: wrong active / passive swap",
        ),
        (
            "SRL",
            "Traditional SRL: active / passive swap with people",
            "traditional SRL: active / passive swap with people",
        ),
        (
            "SRL",
            "Traditional SRL: wrong active / passive swap with people",
            "traditional SRL: wrong active / passive swap with people",
        ),
        ("Logic", "A or B is not the same as C and D", "A or B is not the same as C and D"),
        ("Logic", "A or B is not the same as A and B", "A or B is not the same as A and B"),
        (
            "Logic",
            "A and / or B is the same as B and / or A",
            "A and / or B is the same as B and / or A",
        ),
        (
            "Logic",
            "a {nationality} {profession} = a {profession} and {nationality}",
            "a {nationality} {profession} = a {profession} and {nationality}",
        ),
        (
            "Logic",
            "Reflexivity: (q, q) should be duplicate",
            "Reflexivity: (q, q) should be duplicate",
        ),
    ],
}


@dataclass(frozen=True)
class Row:
    capability: str
    test: str  # the release suite's test name
    seed_label: str | None  # None: the seed's table omits this test


def ordered_rows(suite: str, tests: Iterable[tuple[str, str]]) -> list[Row]:
    """Rows for the ``(capability, test)`` pairs that ran, seed rows first in the seed's order,
    then the rest in the order given (``results.json`` is in suite order)."""
    ran = dict((test, capability) for capability, test in tests)
    rows = [
        Row(ran[test], test, label) for _, label, test in SEED_ROWS.get(suite, ()) if test in ran
    ]
    in_seed = {r.test for r in rows}
    rows += [Row(capability, test, None) for test, capability in ran.items() if test not in in_seed]
    return rows
