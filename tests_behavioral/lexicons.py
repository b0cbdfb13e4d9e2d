"""The word lists the packaged native tests share, registered on CheckList's Editor.

Offline by design: CheckList's ``Editor.suggest`` needs a masked language model from the
hub, so every slot is filled from an explicit lexicon -- CheckList's own (``first_name``,
``male``, ``female``, ``last_name``, ``city``, ``country``, ``nationality``, ``religion``,
``religion_adj``, ``sexual_adj``) and the lists below, added with ``Editor.add_lexicon``.
Tuples keep their order stable: cases are drawn from them with seeded generators.

Class indices, in each task's class order (``models.yaml``): sentiment 0 negative,
1 positive; paraphrase 0 not_duplicate, 1 duplicate; entailment 0 entailment,
1 not_entailment.
"""

from __future__ import annotations

from nlp_gate.native import editor

NEGATIVE, POSITIVE = 0, 1
NOT_DUPLICATE, DUPLICATE = 0, 1
ENTAILMENT, NOT_ENTAILMENT = 0, 1

WORDS: dict[str, tuple[str, ...]] = {
    "pos_adj": (
        "good",
        "great",
        "excellent",
        "wonderful",
        "amazing",
        "fantastic",
        "brilliant",
        "lovely",
        "enjoyable",
        "delightful",
        "impressive",
        "pleasant",
    ),
    "neg_adj": (
        "bad",
        "terrible",
        "awful",
        "horrible",
        "poor",
        "disappointing",
        "dreadful",
        "lousy",
        "annoying",
        "unpleasant",
        "boring",
        "mediocre",
    ),
    "pos_verb": ("love", "enjoy", "like", "admire", "appreciate", "recommend"),
    "neg_verb": ("hate", "dislike", "despise", "regret", "loathe", "detest"),
    "pos_verb_past": ("loved", "enjoyed", "liked", "admired", "appreciated", "recommended"),
    "neg_verb_past": ("hated", "disliked", "despised", "regretted", "loathed", "detested"),
    "intensifier": ("really", "very", "truly", "absolutely", "incredibly", "extremely"),
    "thing": (
        "movie",
        "film",
        "book",
        "restaurant",
        "hotel",
        "meal",
        "show",
        "service",
        "product",
        "flight",
    ),
    "neutral_phrase": (
        "I watched it on a Tuesday.",
        "It was released last year.",
        "We went there after work.",
        "The tickets were bought online.",
        "My cousin told me about it.",
        "It is two hours long.",
    ),
    "profession": (
        "teacher",
        "doctor",
        "lawyer",
        "engineer",
        "nurse",
        "pilot",
        "chef",
        "farmer",
        "writer",
        "banker",
    ),
    "activity": (
        "cook rice",
        "learn French",
        "lose weight",
        "write a novel",
        "start a company",
        "fix a bike",
        "train a dog",
        "save money",
        "play chess",
        "grow tomatoes",
    ),
}

for _name, _values in WORDS.items():
    editor.add_lexicon(_name, list(_values), overwrite=True)
