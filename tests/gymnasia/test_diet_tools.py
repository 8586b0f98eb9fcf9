"""Diet tools: search_foods, read_meal, add_meal_food, through the executor."""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from gymnasia import catalog, meals
from gymnasia.faults import Faults
from gymnasia.store import GymStore
from gymnasia.tools import build_tools
from surefoot import Agent, Lang, Ok, SqlLedger, ToolError, ToolSet, open_database
from surefoot.executor import CallRecord, Executor, TurnState
from surefoot.sql import Database
from surefoot.testing import ScriptedModel, call, turn

DAY = "2020-01-02"


@dataclass
class Harness:
    """One database with the Coach's tools and an executor whose ledger lives in it."""

    db: Database
    store: GymStore
    tools: ToolSet
    executor: Executor

    def run(self, name: str, arguments: dict[str, Any], *, lang: Lang = "es") -> CallRecord:
        """Run one call as its own user turn."""
        state = TurnState(conversation_id=uuid.uuid4().hex, user_turn=0, lang=lang)
        return asyncio.run(self.executor.run_batch([call(name, arguments)], state)).records[0]

    def ok(self, name: str, arguments: dict[str, Any], *, lang: Lang = "es") -> dict[str, Any]:
        """Run one call that must succeed; its data."""
        outcome = self.run(name, arguments, lang=lang).outcome
        assert isinstance(outcome, Ok), outcome
        return outcome.data

    def error(self, name: str, arguments: dict[str, Any]) -> tuple[ToolError, bool]:
        """Run one call that must fail; the error and whether the handler ran."""
        record = self.run(name, arguments)
        assert isinstance(record.outcome, ToolError), record.outcome
        return record.outcome, record.executed

    def item_rows(self) -> int:
        """How many meal items the database holds."""
        return int(self.db.query("SELECT COUNT(*) FROM gym_meal_items")[0][0])

    def ledger_rows(self) -> int:
        """How many writes the ledger knows."""
        return int(self.db.query("SELECT COUNT(*) FROM sf_ledger")[0][0])


def _harness(url: str, faults: Faults | None = None) -> Harness:
    db = open_database(url)
    store = GymStore(db)
    tools = build_tools(store, faults)
    return Harness(db, store, tools, Executor(tools, ledger=SqlLedger(db)))


@pytest.fixture
def coach(sqlite_url: str) -> Iterator[Harness]:
    """The tools over a fresh SQLite database."""
    harness = _harness(sqlite_url)
    yield harness
    harness.db.close()


def _per_100g(food_id: str, nutrient: str) -> float:
    return catalog.foods()[food_id].per_100g[nutrient]


# -- schemas -----------------------------------------------------------------------------------


def test_search_foods_enums_come_from_the_data(coach: Harness) -> None:
    """The category enum is exactly the categories in the bundled table; sort_by is an enum."""
    tool = coach.tools.get("search_foods")
    assert tool is not None
    props = tool.spec().parameters["properties"]
    category, sort_by = props["category"], props["sort_by"]
    assert (category["type"], sort_by["type"]) == ("string", "string")
    assert sorted(category["enum"]) == sorted({f.category for f in catalog.foods().values()})
    assert set(sort_by["enum"]) >= {"name", "calories", "protein"}
    assert tool.spec().parameters["additionalProperties"] is False
    assert tool.effect == "read"


def test_meal_argument_is_a_described_string(coach: Harness) -> None:
    """meal is declared as a string whose description names the accepted ids and labels."""
    for name in ("read_meal", "add_meal_food"):
        tool = coach.tools.get(name)
        assert tool is not None
        meal = tool.spec().parameters["properties"]["meal"]
        assert meal["type"] == "string"
        assert "enum" not in meal
        assert all(meal_id in meal["description"] for meal_id in meals.MEAL_IDS)


def test_add_meal_food_is_a_non_idempotent_atomic_write(coach: Harness) -> None:
    """add_meal_food appends, so it is declared a write that is not idempotent, atomic."""
    tool = coach.tools.get("add_meal_food")
    assert tool is not None
    assert (tool.effect, tool.idempotent, tool.atomic, tool.confirm) == (
        "write",
        False,
        True,
        False,
    )
    params = tool.spec().parameters
    assert set(params["required"]) == {"date", "meal", "food_id", "grams"}
    assert (params["properties"]["grams"]["minimum"], params["properties"]["grams"]["maximum"]) == (
        1,
        5000,
    )


# -- meals -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("breakfast", "breakfast"),
        ("Desayuno", "breakfast"),
        ("cafe da manha", "breakfast"),
        ("ALMUERZO", "mid_morning"),
        ("mid-morning snack", "mid_morning"),
        ("Mid morning", "mid_morning"),
        ("Lanche da manhã", "mid_morning"),
        ("comida", "lunch"),
        ("almoço", "lunch"),
        ("Almoco", "lunch"),
        ("  Lunch ", "lunch"),
        ("merienda", "afternoon"),
        ("lanche da tarde", "afternoon"),
        ("Afternoon Snack", "afternoon"),
        ("Cena", "dinner"),
        ("JANTAR", "dinner"),
        ("dinner", "dinner"),
    ],
)
def test_meal_ids_and_labels_resolve(text: str, expected: str) -> None:
    """An id or any label in es/pt/en names its meal, whatever the case and accents."""
    assert meals.resolve(text) == expected


@pytest.mark.parametrize("text", ["", "tea", "brunch", "desayunos", "lunch time"])
def test_other_words_are_not_meals(text: str) -> None:
    """Anything that is not an id or a label resolves to nothing."""
    assert meals.resolve(text) is None


def test_labels_follow_each_language() -> None:
    """Labels are Spain's Spanish, Portuguese and English usage."""
    assert [meals.label(m, "es") for m in meals.MEAL_IDS] == [
        "Desayuno",
        "Almuerzo",
        "Comida",
        "Merienda",
        "Cena",
    ]
    assert meals.label("lunch", "pt") == "Almoço"
    assert meals.label("afternoon", "en") == "Afternoon snack"


# -- search_foods ------------------------------------------------------------------------------


def test_search_ignores_case_and_accents(coach: Harness) -> None:
    """A query finds names regardless of case and accents, in any language."""
    plain = coach.ok("search_foods", {"query": "atun"})["foods"]
    accented = coach.ok("search_foods", {"query": "ATÚN"})["foods"]
    assert plain == accented
    assert plain
    assert all("atún" in food["name"].lower() for food in plain)
    english = coach.ok("search_foods", {"query": "tuna"})["foods"]
    assert {f["id"] for f in english} == {f["id"] for f in plain}


def test_search_returns_names_in_the_turns_language(coach: Harness) -> None:
    """Each food has its id, its name in the conversation's language, category and values."""
    found = coach.ok("search_foods", {"query": "arroz blanco"}, lang="en")["foods"]
    rice = next(f for f in found if f["id"] == "white_rice_cooked")
    table = catalog.foods()["white_rice_cooked"]
    assert rice == {
        "id": "white_rice_cooked",
        "name": table.names["en"],
        "category": table.category,
        "per_100g": dict(table.per_100g),
    }


def test_search_returns_at_most_fifteen(coach: Harness) -> None:
    """Without filters every food matches, but at most 15 come back, with the total count."""
    data = coach.ok("search_foods", {})
    assert len(data["foods"]) == 15
    assert data["total_matches"] == len(catalog.foods())


def test_search_filters_all_hold(coach: Harness) -> None:
    """category, max_calories and min_protein must all hold for every food returned."""
    args = {"category": "meat", "max_calories": 200, "min_protein": 20.5}
    found = coach.ok("search_foods", args)["foods"]
    assert found
    for food in found:
        assert food["category"] == "meat"
        assert food["per_100g"]["energy_kcal"] <= 200
        assert food["per_100g"]["protein_g"] >= 20.5


def test_sort_by_calories_and_protein(coach: Harness) -> None:
    """calories sorts lowest first; protein sorts highest first."""
    by_kcal = coach.ok("search_foods", {"category": "fruits", "sort_by": "calories"})["foods"]
    kcal = [f["per_100g"]["energy_kcal"] for f in by_kcal]
    assert kcal == sorted(kcal)
    by_protein = coach.ok("search_foods", {"sort_by": "protein"})["foods"]
    protein = [f["per_100g"]["protein_g"] for f in by_protein]
    assert protein == sorted(protein, reverse=True)
    assert protein[0] == max(f.per_100g["protein_g"] for f in catalog.foods().values())


def test_no_match_is_an_empty_success(coach: Harness) -> None:
    """A search that finds nothing is a success with no foods."""
    assert coach.ok("search_foods", {"query": "unicornio"}) == {"foods": [], "total_matches": 0}


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"category": "carne"}, "category"),
        ({"max_calories": "200"}, "max_calories"),
        ({"min_protein": -1}, "min_protein"),
        ({"sort_by": "sugar"}, "sort_by"),
        ({"query": ""}, "query"),
        ({"limit": 50}, "limit"),
    ],
)
def test_search_rejects_bad_arguments(
    coach: Harness, arguments: dict[str, Any], field: str
) -> None:
    """Values outside the data's enums, strings for numbers and extra fields are refused."""
    error, executed = coach.error("search_foods", arguments)
    assert (error.code, error.recovery.value, executed) == (
        "invalid_arguments",
        "correct_arguments",
        False,
    )
    assert error.details[0].field == field


def test_search_read_fault_is_unavailable(sqlite_url: str) -> None:
    """An injected read failure is `unavailable`, choose_alternative."""
    harness = _harness(sqlite_url, Faults({"search_foods": "read_error"}))
    error, executed = harness.error("search_foods", {"query": "pollo"})
    assert (error.code, error.recovery.value, executed) == (
        "unavailable",
        "choose_alternative",
        True,
    )
    harness.db.close()


# -- read_meal ---------------------------------------------------------------------------------


def test_empty_meal_is_a_success(coach: Harness) -> None:
    """A meal with nothing logged is a success: no items, zero totals, the localized label."""
    data = coach.ok("read_meal", {"date": DAY, "meal": "Merienda"}, lang="pt")
    assert data == {
        "date": DAY,
        "meal": "afternoon",
        "label": "Lanche da tarde",
        "items": [],
        "totals": dict.fromkeys(catalog.NUTRIENTS, 0.0),
    }


def test_unknown_meal_lists_the_valid_ids(coach: Harness) -> None:
    """An unknown meal is invalid_arguments with details naming every valid id; not run."""
    error, executed = coach.error("read_meal", {"date": DAY, "meal": "brunch"})
    assert (error.code, error.recovery.value, executed) == (
        "invalid_arguments",
        "correct_arguments",
        False,
    )
    (detail,) = error.details
    assert detail.field == "meal"
    assert detail.expected is not None
    assert all(meal_id in detail.expected for meal_id in meals.MEAL_IDS)


@pytest.mark.parametrize("date", ["02/01/2020", "2020-02-30", "2020-1-2", "20200102"])
def test_read_meal_needs_a_calendar_date(coach: Harness, date: str) -> None:
    """Only real YYYY-MM-DD dates are accepted."""
    error, executed = coach.error("read_meal", {"date": date, "meal": "lunch"})
    assert (error.code, executed, error.details[0].field) == ("invalid_arguments", False, "date")


def test_read_meal_fault_is_unavailable(sqlite_url: str) -> None:
    """An injected read failure is `unavailable`, not an empty meal."""
    harness = _harness(sqlite_url, Faults({"read_meal": "read_error"}))
    error, _ = harness.error("read_meal", {"date": DAY, "meal": "lunch"})
    assert error.code == "unavailable"
    harness.db.close()


# -- add_meal_food -----------------------------------------------------------------------------


def test_totals_are_computed_from_the_food_table(coach: Harness) -> None:
    """Item values and totals are the table's per-100 g values * grams / 100, to 1 decimal."""
    coach.ok(
        "add_meal_food",
        {"date": DAY, "meal": "Comida", "food_id": "white_rice_cooked", "grams": 150},
    )
    data = coach.ok(
        "add_meal_food",
        {"date": DAY, "meal": "lunch", "food_id": "chicken_breast_roasted", "grams": 120.5},
    )
    assert data["meal"] == "lunch"
    assert data["label"] == "Comida"
    assert [(i["food_id"], i["grams"]) for i in data["items"]] == [
        ("white_rice_cooked", 150.0),
        ("chicken_breast_roasted", 120.5),
    ]
    for nutrient in catalog.NUTRIENTS:
        rice = _per_100g("white_rice_cooked", nutrient) * 150 / 100
        chicken = _per_100g("chicken_breast_roasted", nutrient) * 120.5 / 100
        assert data["items"][0][nutrient] == round(rice, 1)
        assert data["items"][1][nutrient] == round(chicken, 1)
        assert data["totals"][nutrient] == round(rice + chicken, 1)
    assert coach.ok("read_meal", {"date": DAY, "meal": "lunch"}) == data


def test_the_model_cannot_supply_nutrients(coach: Harness) -> None:
    """A call that tries to pass its own energy_kcal is rejected as an extra field; no write."""
    error, executed = coach.error(
        "add_meal_food",
        {"date": DAY, "meal": "lunch", "food_id": "rolled_oats", "grams": 50, "energy_kcal": 1},
    )
    assert (error.code, executed) == ("invalid_arguments", False)
    assert error.details[0].field == "energy_kcal"
    assert (coach.item_rows(), coach.ledger_rows()) == (0, 0)


def test_adding_appends_never_replaces(coach: Harness) -> None:
    """The same food added twice (in one turn or two) gives two items."""
    args = {"date": DAY, "meal": "breakfast", "food_id": "rolled_oats", "grams": 40}
    state = TurnState(conversation_id="c1", user_turn=0)
    batch = asyncio.run(coach.executor.run_batch([call("add_meal_food", args)] * 2, state))
    assert all(isinstance(r.outcome, Ok) for r in batch.records)
    coach.ok("add_meal_food", args)
    items = coach.ok("read_meal", {"date": DAY, "meal": "breakfast"})["items"]
    assert [i["grams"] for i in items] == [40.0, 40.0, 40.0]


def test_meals_and_dates_stay_apart(coach: Harness) -> None:
    """An item belongs to one meal of one date; other meals and dates do not see it."""
    coach.ok(
        "add_meal_food", {"date": DAY, "meal": "dinner", "food_id": "banana_raw", "grams": 120}
    )
    assert coach.ok("read_meal", {"date": DAY, "meal": "lunch"})["items"] == []
    assert coach.ok("read_meal", {"date": "2020-01-03", "meal": "dinner"})["items"] == []
    assert len(coach.ok("read_meal", {"date": DAY, "meal": "Cena"})["items"]) == 1


def test_unknown_food_is_not_found(coach: Harness) -> None:
    """An unknown food id is not_found / choose_alternative, pointing at search_foods; no row."""
    error, executed = coach.error(
        "add_meal_food", {"date": DAY, "meal": "lunch", "food_id": "unicorn_steak", "grams": 100}
    )
    assert (error.code, error.recovery.value, executed) == ("not_found", "choose_alternative", True)
    assert "search_foods" in error.message
    assert "unicorn_steak" in error.message
    assert coach.item_rows() == 0


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"grams": 0}, "grams"),
        ({"grams": 0.5}, "grams"),
        ({"grams": 5001}, "grams"),
        ({"grams": "150"}, "grams"),
        ({"grams": "150g"}, "grams"),
        ({"meal": "elevenses"}, "meal"),
        ({"meal": 3}, "meal"),
        ({"date": "02/01/2020"}, "date"),
        ({"food_id": ""}, "food_id"),
    ],
)
def test_add_rejects_bad_arguments_without_running(
    coach: Harness, changes: dict[str, Any], field: str
) -> None:
    """Schema failures are invalid_arguments with details; the handler never runs."""
    args = {"date": DAY, "meal": "lunch", "food_id": "rolled_oats", "grams": 50, **changes}
    error, executed = coach.error("add_meal_food", args)
    assert (error.code, error.recovery.value, executed) == (
        "invalid_arguments",
        "correct_arguments",
        False,
    )
    assert error.details[0].field == field
    assert (coach.item_rows(), coach.ledger_rows()) == (0, 0)


def test_missing_grams_is_reported(coach: Harness) -> None:
    """A required argument left out is named in details."""
    error, _ = coach.error(
        "add_meal_food", {"date": DAY, "meal": "lunch", "food_id": "rolled_oats"}
    )
    assert [(d.field, d.expected) for d in error.details] == [("grams", "un valor (obligatorio)")]


def test_failure_before_commit_saves_nothing(sqlite_url: str) -> None:
    """A write failing inside its transaction stops the turn and leaves no item."""
    harness = _harness(sqlite_url, Faults({"add_meal_food": "before_commit"}))
    error, _ = harness.error(
        "add_meal_food", {"date": DAY, "meal": "lunch", "food_id": "rolled_oats", "grams": 50}
    )
    assert (error.code, error.recovery.value) == ("not_applied", "stop_turn")
    assert harness.item_rows() == 0
    harness.db.close()


def test_lost_acknowledgement_keeps_exactly_one_item(sqlite_url: str) -> None:
    """After commit the ledger proves the write landed: success, and one item, not two."""
    harness = _harness(sqlite_url, Faults({"add_meal_food": "after_commit"}))
    data = harness.ok(
        "add_meal_food", {"date": DAY, "meal": "lunch", "food_id": "rolled_oats", "grams": 50}
    )
    assert [i["food_id"] for i in data["items"]] == ["rolled_oats"]
    assert harness.item_rows() == 1
    harness.db.close()


def test_reads_in_a_turn_see_its_earlier_writes(sqlite_url: str) -> None:
    """An agent that adds a food and then reads the meal in the next round sees the item."""
    db = open_database(sqlite_url)
    store = GymStore(db)
    model = ScriptedModel(
        [
            turn(
                call(
                    "add_meal_food",
                    {"date": DAY, "meal": "Cena", "food_id": "egg_fried", "grams": 92},
                )
            ),
            turn(call("read_meal", {"date": DAY, "meal": "dinner"})),
            turn("Anotado."),
        ]
    )
    agent = Agent(model=model, tools=build_tools(store), ledger=SqlLedger(db))
    result = agent.run_turn_sync("Cené un huevo frito de 92 g el 2020-01-02.")
    model.assert_consumed()
    assert result.stop_reason == "completed"
    added, read = (record.outcome for record in result.calls)
    assert isinstance(added, Ok)
    assert isinstance(read, Ok)
    assert read.data["items"] == added.data["items"]
    assert [i["food_id"] for i in read.data["items"]] == ["egg_fried"]
    assert read.data["totals"]["energy_kcal"] == round(
        _per_100g("egg_fried", "energy_kcal") * 0.92, 1
    )
    db.close()


# -- the store, on both databases --------------------------------------------------------------


def test_meal_items_keep_order_and_owner(db_url: str) -> None:
    """Items come back in the order added, per user, per date and meal (SQLite and PostgreSQL)."""
    db = open_database(db_url)
    mine, theirs = GymStore(db, user="ana"), GymStore(db, user="bea")
    day = dt.date(2020, 1, 2)
    with mine.transaction() as tx:
        mine.add_meal_item(tx, day, "lunch", "white_rice_cooked", 150)
        mine.add_meal_item(tx, day, "lunch", "olive_oil", 10.5)
        mine.add_meal_item(tx, day, "dinner", "banana_raw", 100)
        theirs.add_meal_item(tx, day, "lunch", "cola", 330)
    assert mine.meal_items(day, "lunch") == [
        ("lunch", "white_rice_cooked", 150.0),
        ("lunch", "olive_oil", 10.5),
    ]
    assert [food for _, food, _ in mine.meal_items(day)] == [
        "white_rice_cooked",
        "olive_oil",
        "banana_raw",
    ]
    assert theirs.meal_items(day) == [("lunch", "cola", 330.0)]
    assert mine.meal_items(dt.date(2020, 1, 3)) == []
    db.close()
