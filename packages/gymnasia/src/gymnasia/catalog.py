"""The bundled food and exercise tables: loaded once, searched without regard to case or accents.

Both tables ship as JSON in ``gymnasia/data`` (foods: per-100 g values from public nutrition
facts; exercises: muscle group, equipment, difficulty, a short description). They are read on
first use, validated, and cached for the process's life; nothing is read at import.

The tools' filter arguments are enums of the values the data actually holds. Those types are
built from the tables when first asked for (``catalog.FoodCategory``, ``catalog.MuscleGroup``,
``catalog.Equipment``, PEP 562 module attributes), so the schema a model sees and the data
cannot drift apart; type checkers see them as ``str``.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Annotated, Final, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from surefoot import Lang
from surefoot.outcome import LANGS

NUTRIENTS: Final = ("energy_kcal", "protein_g", "carbs_g", "fat_g", "fiber_g")
SEARCH_LIMIT: Final = 15

FoodSort = Literal["name", "calories", "protein", "carbs", "fat", "fiber"]
"""``name`` alphabetical; ``calories``, ``carbs``, ``fat`` lowest first; ``protein``, ``fiber``
highest first (all per 100 g)."""


def fold(text: str) -> str:
    """``text`` for comparison: no accents, case-folded, single spaces, trimmed."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(bare.casefold().split())


# -- the tables ------------------------------------------------------------------------------

_Amount = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class _Row(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class _Names(_Row):
    es: Annotated[str, Field(min_length=1)]
    pt: Annotated[str, Field(min_length=1)]
    en: Annotated[str, Field(min_length=1)]


class _Per100g(_Row):
    energy_kcal: _Amount
    protein_g: _Amount
    carbs_g: _Amount
    fat_g: _Amount
    fiber_g: _Amount


class _FoodRow(_Row):
    id: str
    names: _Names
    category: str
    per_100g: _Per100g
    source: str


class _ExerciseRow(_Row):
    id: str
    names: _Names
    muscle_group: str
    equipment: str
    difficulty: str
    description: _Names


@dataclass(frozen=True, slots=True)
class Food:
    """One row of the food table; nutrients are per 100 g."""

    id: str
    names: Mapping[Lang, str]
    category: str
    per_100g: Mapping[str, float]
    source: str
    _search: str

    def name(self, lang: Lang) -> str:
        """The food's name in ``lang``."""
        return self.names[lang]

    def to_json(self, lang: Lang) -> dict[str, object]:
        """How tools and data commands show it."""
        return {
            "id": self.id,
            "name": self.names[lang],
            "category": self.category,
            "per_100g": dict(self.per_100g),
        }


@dataclass(frozen=True, slots=True)
class Exercise:
    """One row of the exercise table."""

    id: str
    names: Mapping[Lang, str]
    muscle_group: str
    equipment: str
    difficulty: str
    description: Mapping[Lang, str]
    _search: str

    def name(self, lang: Lang) -> str:
        """The exercise's name in ``lang``."""
        return self.names[lang]

    def to_json(self, lang: Lang) -> dict[str, object]:
        """How tools and data commands show it."""
        return {
            "id": self.id,
            "name": self.names[lang],
            "muscle_group": self.muscle_group,
            "equipment": self.equipment,
            "difficulty": self.difficulty,
            "description": self.description[lang],
        }


def _searchable(row_id: str, names: _Names) -> str:
    texts = (row_id.replace("_", " "), names.es, names.pt, names.en)
    return " | ".join(fold(text) for text in texts)


def _localized(names: _Names) -> dict[Lang, str]:
    return {lang: getattr(names, lang) for lang in LANGS}


def _load(file: str) -> object:
    return json.loads(resources.files("gymnasia").joinpath("data", file).read_text("utf-8"))


def _unique(ids: list[str], table: str) -> None:
    if len(set(ids)) != len(ids):
        msg = f"the bundled {table} table repeats an id"
        raise ValueError(msg)


@functools.cache
def foods() -> Mapping[str, Food]:
    """The food table by id, in the data's order (read and validated once)."""
    rows = TypeAdapter(list[_FoodRow]).validate_python(_load("foods.json"))
    _unique([r.id for r in rows], "food")
    return {
        r.id: Food(
            id=r.id,
            names=_localized(r.names),
            category=r.category,
            per_100g=r.per_100g.model_dump(),
            source=r.source,
            _search=_searchable(r.id, r.names),
        )
        for r in rows
    }


@functools.cache
def exercises() -> Mapping[str, Exercise]:
    """The exercise table by id, in the data's order (read and validated once)."""
    rows = TypeAdapter(list[_ExerciseRow]).validate_python(_load("exercises.json"))
    _unique([r.id for r in rows], "exercise")
    return {
        r.id: Exercise(
            id=r.id,
            names=_localized(r.names),
            muscle_group=r.muscle_group,
            equipment=r.equipment,
            difficulty=r.difficulty,
            description=_localized(r.description),
            _search=_searchable(r.id, r.names),
        )
        for r in rows
    }


def _values(items: Iterable[object], attribute: str) -> tuple[str, ...]:
    return tuple(sorted({str(getattr(item, attribute)) for item in items}))


def food_categories() -> tuple[str, ...]:
    """Every food category in the data, sorted."""
    return _values(foods().values(), "category")


def muscle_groups() -> tuple[str, ...]:
    """Every muscle group in the exercise data, sorted."""
    return _values(exercises().values(), "muscle_group")


def equipment_kinds() -> tuple[str, ...]:
    """Every kind of equipment in the exercise data, sorted."""
    return _values(exercises().values(), "equipment")


# -- searching -------------------------------------------------------------------------------


def _token_in(token: str, text: str) -> bool:
    """``token`` occurs in ``text``; a plural (``huevos``, ``peaches``) also finds its singular."""
    if token in text:
        return True
    if len(token) > 3 and token.endswith("es") and token[:-2] in text:
        return True
    return len(token) > 3 and token.endswith("s") and token[:-1] in text


def _matches(query: str | None, search: str) -> bool:
    return query is None or all(_token_in(token, search) for token in fold(query).split())


def _relevance(query: str | None, name: str, search: str) -> int:
    """0: the localized name starts with the query; 1: some name does; 2: it only matches."""
    if query is None:
        return 2
    wanted = fold(query)
    if fold(name).startswith(wanted):
        return 0
    return 1 if f"| {wanted}" in f"| {search}" else 2


_FOOD_ORDER: Final[dict[str, Callable[[Food], float]]] = {
    "calories": lambda f: f.per_100g["energy_kcal"],
    "protein": lambda f: -f.per_100g["protein_g"],
    "carbs": lambda f: f.per_100g["carbs_g"],
    "fat": lambda f: f.per_100g["fat_g"],
    "fiber": lambda f: -f.per_100g["fiber_g"],
}


def search_foods(
    *,
    lang: Lang,
    query: str | None = None,
    category: str | None = None,
    max_calories: float | None = None,
    min_protein: float | None = None,
    sort_by: FoodSort | None = None,
    limit: int | None = SEARCH_LIMIT,
) -> tuple[list[Food], int]:
    """Foods matching every given filter, best first, at most ``limit``; and how many matched.

    ``query`` words must each occur in one of the food's names (any language), ignoring case
    and accents. Without ``sort_by``, names that start with the query come first.
    """
    found = [
        food
        for food in foods().values()
        if (category is None or food.category == category)
        and (max_calories is None or food.per_100g["energy_kcal"] <= max_calories)
        and (min_protein is None or food.per_100g["protein_g"] >= min_protein)
        and _matches(query, food._search)
    ]
    order = _FOOD_ORDER.get(sort_by or "")
    found.sort(
        key=lambda f: (
            order(f) if order else 0.0,
            0 if sort_by else _relevance(query, f.names[lang], f._search),
            fold(f.names[lang]),
        )
    )
    return found[:limit], len(found)


def search_exercises(
    *,
    lang: Lang,
    query: str | None = None,
    muscle_group: str | None = None,
    equipment: str | None = None,
    limit: int | None = SEARCH_LIMIT,
) -> tuple[list[Exercise], int]:
    """Exercises matching every given filter, best first, at most ``limit``; and how many
    matched (``query`` as in ``search_foods``)."""
    found = [
        item
        for item in exercises().values()
        if (muscle_group is None or item.muscle_group == muscle_group)
        and (equipment is None or item.equipment == equipment)
        and _matches(query, item._search)
    ]
    found.sort(key=lambda e: (_relevance(query, e.names[lang], e._search), fold(e.names[lang])))
    return found[:limit], len(found)


# -- enum types of the data's values (PEP 562) ----------------------------------------------

_CHOICES: Final[dict[str, Callable[[], tuple[str, ...]]]] = {
    "FoodCategory": food_categories,
    "MuscleGroup": muscle_groups,
    "Equipment": equipment_kinds,
}

if TYPE_CHECKING:
    FoodCategory: TypeAlias = str
    MuscleGroup: TypeAlias = str
    Equipment: TypeAlias = str
else:

    @functools.cache
    def __getattr__(name: str) -> object:
        """``Literal[...]`` of the values the data holds, built on first access."""
        choices = _CHOICES.get(name)
        if choices is None:
            msg = f"module {__name__!r} has no attribute {name!r}"
            raise AttributeError(msg)
        return Literal[choices()]
