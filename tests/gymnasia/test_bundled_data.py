"""Checks on the food and exercise catalogues bundled with Gymnasia Coach."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

LANGUAGES = ("es", "pt", "en")
SNAKE_CASE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")

FOOD_CATEGORIES = {
    "cereals",
    "legumes",
    "vegetables",
    "fruits",
    "dairy",
    "eggs",
    "meat",
    "fish",
    "nuts_seeds",
    "fats_oils",
    "drinks",
    "sweets",
    "prepared",
}
FOOD_SOURCES = {"USDA FoodData Central", "BEDCA"}
NUTRIENTS = ("energy_kcal", "protein_g", "carbs_g", "fat_g", "fiber_g")
MUSCLE_GROUPS = {
    "chest",
    "back",
    "shoulders",
    "biceps",
    "triceps",
    "quadriceps",
    "hamstrings",
    "glutes",
    "calves",
    "core",
    "full_body",
    "cardio",
}
EQUIPMENT = {
    "barbell",
    "dumbbell",
    "machine",
    "cable",
    "bodyweight",
    "kettlebell",
    "band",
    "cardio_machine",
}
DIFFICULTIES = {"beginner", "intermediate", "advanced"}


def _data_dir() -> Path:
    """Find gymnasia/data next to the installed package, or in the source tree."""
    import gymnasia

    package_file = getattr(gymnasia, "__file__", None)
    if package_file is not None:  # a regular package with an __init__.py
        return Path(package_file).parent / "data"
    return Path(__file__).parents[2] / "packages" / "gymnasia" / "src" / "gymnasia" / "data"


def _load(name: str) -> list[dict[str, Any]]:
    """Read one bundled JSON file, which must hold a list of objects."""
    data = json.loads((_data_dir() / name).read_text(encoding="utf-8"))
    assert isinstance(data, list)
    assert all(isinstance(item, dict) for item in data)
    return data


@pytest.fixture(scope="module")
def foods() -> list[dict[str, Any]]:
    """The bundled food catalogue."""
    return _load("foods.json")


@pytest.fixture(scope="module")
def exercises() -> list[dict[str, Any]]:
    """The bundled exercise catalogue."""
    return _load("exercises.json")


def _assert_translated(item: dict[str, Any], field: str) -> None:
    """Check that item[field] holds exactly es/pt/en, each a non-empty string."""
    texts = item[field]
    assert set(texts) == set(LANGUAGES), (item["id"], field)
    for language in LANGUAGES:
        text = texts[language]
        assert isinstance(text, str), (item["id"], field, language)
        assert text.strip(), (item["id"], field, language)


def test_food_count(foods: list[dict[str, Any]]) -> None:
    """The food catalogue holds at least 60 foods."""
    assert len(foods) >= 60


def test_exercise_count(exercises: list[dict[str, Any]]) -> None:
    """The exercise catalogue holds at least 60 exercises."""
    assert len(exercises) >= 60


@pytest.mark.parametrize("name", ["foods.json", "exercises.json"])
def test_ids_are_unique_snake_case(name: str) -> None:
    """Every id is snake_case and appears only once in its file."""
    ids = [item["id"] for item in _load(name)]
    duplicates = [i for i, n in Counter(ids).items() if n > 1]
    assert not duplicates
    assert all(isinstance(i, str) and SNAKE_CASE.match(i) for i in ids)


def test_food_fields(foods: list[dict[str, Any]]) -> None:
    """Each food has exactly the expected keys, names in three languages and a known source."""
    for food in foods:
        assert set(food) == {"id", "names", "category", "per_100g", "source"}, food["id"]
        _assert_translated(food, "names")
        assert food["source"] in FOOD_SOURCES, food["id"]
        assert set(food["per_100g"]) == set(NUTRIENTS), food["id"]


def test_food_categories(foods: list[dict[str, Any]]) -> None:
    """Categories come from the fixed list, and each one has at least three foods."""
    used = Counter(food["category"] for food in foods)
    assert set(used) <= FOOD_CATEGORIES
    assert {c: used[c] for c in FOOD_CATEGORIES if used[c] < 3} == {}


def test_food_values_non_negative(foods: list[dict[str, Any]]) -> None:
    """All per-100 g values are non-negative numbers and macros fit in 100 g."""
    for food in foods:
        values = food["per_100g"]
        for nutrient in NUTRIENTS:
            value = values[nutrient]
            assert isinstance(value, int | float), (food["id"], nutrient)
            assert not isinstance(value, bool), (food["id"], nutrient)
            assert value >= 0, (food["id"], nutrient)
        assert values["fiber_g"] <= values["carbs_g"] or values["carbs_g"] == 0, food["id"]
        assert values["protein_g"] + values["carbs_g"] + values["fat_g"] <= 100.5, food["id"]


def test_food_energy_matches_macros(foods: list[dict[str, Any]]) -> None:
    """Energy is within 20% of 4/4/9 kcal per g of protein/carbs/fat for foods over 30 kcal.

    Carbohydrate here is total carbohydrate, fibre included (as in USDA tables). Fibre
    yields about 2 kcal/g rather than 4, so the estimate is a range: from counting fibre
    at 2 kcal/g up to counting it at 4 kcal/g. The stated energy must lie within 20% of
    some value in that range.
    """
    mismatched = []
    for food in foods:
        v = food["per_100g"]
        energy = v["energy_kcal"]
        if energy <= 30:
            continue
        high = 4 * v["protein_g"] + 4 * v["carbs_g"] + 9 * v["fat_g"]
        low = high - 2 * min(v["fiber_g"], v["carbs_g"])
        if not (low <= 1.2 * energy and high >= 0.8 * energy):
            mismatched.append((food["id"], energy, round(low), round(high)))
    assert mismatched == []


def test_exercise_fields(exercises: list[dict[str, Any]]) -> None:
    """Each exercise has exactly the expected keys, with names and descriptions in es/pt/en."""
    expected = {"id", "names", "muscle_group", "equipment", "difficulty", "description"}
    for exercise in exercises:
        assert set(exercise) == expected, exercise["id"]
        _assert_translated(exercise, "names")
        _assert_translated(exercise, "description")


def test_exercise_enums(exercises: list[dict[str, Any]]) -> None:
    """Muscle group, equipment and difficulty come from their fixed lists."""
    for exercise in exercises:
        assert exercise["muscle_group"] in MUSCLE_GROUPS, exercise["id"]
        assert exercise["equipment"] in EQUIPMENT, exercise["id"]
        assert exercise["difficulty"] in DIFFICULTIES, exercise["id"]


@pytest.mark.parametrize(
    ("field", "allowed"), [("muscle_group", MUSCLE_GROUPS), ("equipment", EQUIPMENT)]
)
def test_exercise_values_all_used(
    exercises: list[dict[str, Any]], field: str, allowed: set[str]
) -> None:
    """Every muscle group and every equipment type is used by at least two exercises."""
    used = Counter(exercise[field] for exercise in exercises)
    assert {value: used[value] for value in allowed if used[value] < 2} == {}
