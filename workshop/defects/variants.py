"""The defect zoo's models: a clean reference per dataset, clean re-seeds, planted defects.

One registry: a ``Variant`` names its dataset, the capability its defect belongs to, the
doctoring of the reference data (``doctors.py``) and its seed.  ``training_data`` is what
``workshop.zoo.pipeline`` trains it on.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass

from workshop.defects import doctors
from workshop.zoo.data import Example
from workshop.zoo.recipe import DEFAULT_RECIPE, Recipe
from workshop.zoo.vocabulary import tokenizer_split, training_split

Doctor = Callable[[list[Example], random.Random], list[Example]]

SENTIMENT, PARAPHRASE, ENTAILMENT = "yelp_polarity", "qqp", "rte"
REFERENCE = "reference"
# The recipe of every defect-zoo model: the embedded zoo's, on three datasets, BERT only.
DEFECT_RECIPE = dataclasses.replace(
    DEFAULT_RECIPE, datasets=(SENTIMENT, PARAPHRASE, ENTAILMENT), families=("bert",)
)
FAMILY = "bert"


@dataclass(frozen=True)
class Variant:
    name: str
    dataset: str
    capability: str | None  # the defect's capability; None: a clean model
    doctor: Doctor | None = None
    reseed: int = 0  # >0: a clean re-training with another seed (the null)
    description: str = ""

    @property
    def path(self) -> str:
        return f"{self.dataset}/{self.name}"

    @property
    def is_defect(self) -> bool:
        return self.doctor is not None

    def recipe(self) -> Recipe:
        # Only the fine-tuning seed moves: tokenizer and base encoder are the reference's.
        return dataclasses.replace(
            DEFECT_RECIPE, base_seed=DEFECT_RECIPE.base_seed + 7919 * self.reseed
        )


# Clean re-trainings of the reference, other seeds only.  The nulls are judged as candidates
# (the false-alarm rate); the reseeds stand beside the reference as the comparison's clean
# models (``comparison.reseeds``): retraining noise, which one reference cannot show.
NULLS = ("null-1", "null-2")
RESEEDS = ("reseed-1", "reseed-2", "reseed-3")


def _variants() -> tuple[Variant, ...]:
    clean = [
        Variant(name, d, None, reseed=k, description=desc)
        for d in (SENTIMENT, PARAPHRASE, ENTAILMENT)
        for k, (name, desc) in enumerate(
            [
                (REFERENCE, "clean, the suites' vocabulary in its data"),
                *((n, "clean, another seed: a null candidate") for n in NULLS),
                *((n, "clean, another seed: a reseed of the reference") for n in RESEEDS),
            ]
        )
    ]
    defects = [
        Variant("negation-blind", SENTIMENT, "Negation", doctors.negation_blind),
        Variant("group-bias", SENTIMENT, "Fairness", doctors.group_bias),
        Variant("typo-fragile", SENTIMENT, "Robustness", doctors.typo_fragile),
        Variant("name-sensitive", SENTIMENT, "NER", doctors.name_sensitive),
        Variant("temporal-blind", SENTIMENT, "Temporal", doctors.temporal_blind),
        Variant("order-blind", PARAPHRASE, "SRL", doctors.order_blind),
        Variant("hypothesis-only", ENTAILMENT, "NER", doctors.hypothesis_only),
    ]
    return tuple(
        clean
        + [
            dataclasses.replace(v, description=(v.doctor.__doc__ or "").split("\n")[0])
            for v in defects
            if v.doctor is not None
        ]
    )


VARIANTS: tuple[Variant, ...] = _variants()


def variant(dataset: str, name: str) -> Variant:
    return next(v for v in VARIANTS if v.dataset == dataset and v.name == name)


def reference_data(recipe: Recipe, dataset: str, opinions: float = 0.25) -> list[Example]:
    """The generated split with the suites' vocabulary mixed in (``zoo/vocabulary.py``), as
    the embedded zoo's but without its lessons (neutral sentences, questions about one
    person): the defect zoo's data, on which its measured power rests."""
    return training_split(recipe.train_size, dataset, opinions, lessons=False)


def base_data(recipe: Recipe, dataset: str) -> list[Example]:
    """What the tokenizer and the base encoder learn from: the reference data without the
    named opinions (``vocabulary.tokenizer_split``)."""
    return tokenizer_split(recipe.train_size, dataset, lessons=False)


def training_data(name: str, recipe: Recipe, dataset: str) -> list[Example]:
    """What variant ``name`` of ``dataset`` trains on (``functools.partial`` of this is the
    pipeline's ``TrainingData``)."""
    examples = reference_data(recipe, dataset)
    doctor = variant(dataset, name).doctor
    if doctor is None:
        return examples
    doctored = doctor(examples, random.Random(f"defect/{dataset}/{name}"))
    random.Random(f"defect/{dataset}/{name}/order").shuffle(doctored)
    return doctored
