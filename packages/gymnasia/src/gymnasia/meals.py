"""The five meals of a day: canonical ids, their labels, and resolving what people write.

Ids are the contract (``breakfast``, ``mid_morning``, ``lunch``, ``afternoon``, ``dinner``);
labels follow each language's usage (Spain's Spanish: *Almuerzo* is the mid-morning meal,
*Comida* is lunch). ``resolve`` accepts an id or any label in any language, ignoring case,
accents and the difference between spaces, hyphens and underscores.
"""

from __future__ import annotations

from typing import Final, Literal

from surefoot import Lang
from surefoot.outcome import LANGS

from .catalog import fold

MealId = Literal["breakfast", "mid_morning", "lunch", "afternoon", "dinner"]

MEAL_IDS: Final[tuple[MealId, ...]] = ("breakfast", "mid_morning", "lunch", "afternoon", "dinner")

LABELS: Final[dict[str, dict[Lang, str]]] = {
    "breakfast": {"es": "Desayuno", "pt": "Café da manhã", "en": "Breakfast"},
    "mid_morning": {"es": "Almuerzo", "pt": "Lanche da manhã", "en": "Mid-morning snack"},
    "lunch": {"es": "Comida", "pt": "Almoço", "en": "Lunch"},
    "afternoon": {"es": "Merienda", "pt": "Lanche da tarde", "en": "Afternoon snack"},
    "dinner": {"es": "Cena", "pt": "Jantar", "en": "Dinner"},
}


def _meal_key(text: str) -> str:
    return "_".join(fold(text).replace("-", " ").replace("_", " ").split())


_BY_KEY: Final[dict[str, MealId]] = {
    _meal_key(name): meal for meal in MEAL_IDS for name in (meal, *LABELS[meal].values())
}


def resolve(text: str) -> MealId | None:
    """The meal id ``text`` names (an id or a label in es/pt/en), or None."""
    return _BY_KEY.get(_meal_key(text))


def label(meal: str, lang: Lang) -> str:
    """How the meal id ``meal`` is shown in ``lang``."""
    return LABELS[meal][lang]


def accepted_values() -> str:
    """Every accepted spelling, for schema descriptions and error details."""
    return "; ".join(
        f"{meal} ({' / '.join(LABELS[meal][lang] for lang in LANGS)})" for meal in MEAL_IDS
    )
