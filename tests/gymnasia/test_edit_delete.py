"""Editing and deleting the user's data through the Coach's tools (run by the executor, with
its ledger in the same database), and the store's edits on SQLite and PostgreSQL.

Deletes need a person: the first run of a delete pauses with a pending call and changes
nothing; the same call then runs only once approved, and a denial runs nothing.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gymnasia import catalog
from gymnasia.cli import main
from gymnasia.store import DateTaken, GymStore
from gymnasia.tools import build_tools
from gymnasia.web import create_app
from surefoot import Lang, Ok, SqlLedger, ToolError, ToolSet, open_database
from surefoot.executor import CallRecord, Executor, TurnState
from surefoot.sql import Database
from surefoot.testing import call

DAY = "2020-01-02"


@dataclass
class Harness:
    """One database with the Coach's tools and an executor whose ledger lives in it."""

    db: Database
    store: GymStore
    tools: ToolSet
    executor: Executor

    def batch(self, name: str, arguments: dict[str, Any], state: TurnState) -> Any:
        return asyncio.run(self.executor.run_batch([call(name, arguments)], state))

    def run(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        lang: Lang = "es",
        decision: bool | None = None,
    ) -> CallRecord:
        """Run one call as its own user turn; a call that needs a person pauses first and is
        then run again with ``decision`` (which must be given)."""
        conversation = uuid.uuid4().hex
        first = self.batch(name, arguments, TurnState(conversation, 0, lang=lang))
        if first.pending is None:
            assert decision is None, "this call did not ask for a person"
            return first.records[0]
        assert first.records == ()
        assert decision is not None, f"{name} waits for a person"
        state = TurnState(conversation, 0, lang=lang, decisions={first.pending.key: decision})
        return self.batch(name, arguments, state).records[0]

    def ok(self, name: str, arguments: dict[str, Any], **kw: Any) -> dict[str, Any]:
        outcome = self.run(name, arguments, **kw).outcome
        assert isinstance(outcome, Ok), outcome
        return outcome.data

    def error(self, name: str, arguments: dict[str, Any], **kw: Any) -> ToolError:
        outcome = self.run(name, arguments, **kw).outcome
        assert isinstance(outcome, ToolError), outcome
        return outcome

    def pauses(self, name: str, arguments: dict[str, Any]) -> Any:
        """Run a call that must wait for a person; what the batch returned."""
        result = self.batch(name, arguments, TurnState(uuid.uuid4().hex, 0))
        assert result.pending is not None
        assert result.records == ()
        return result

    def count(self, table: str) -> int:
        return int(self.db.query(f"SELECT COUNT(*) FROM {table}")[0][0])


def _harness(url: str, user: str = "default") -> Harness:
    db = open_database(url)
    store = GymStore(db, user=user)
    tools = build_tools(store)
    return Harness(db, store, tools, Executor(tools, ledger=SqlLedger(db, user=user)))


@pytest.fixture
def coach(sqlite_url: str) -> Iterator[Harness]:
    harness = _harness(sqlite_url)
    harness.ok("write_measurement", {"date": DAY, "weight_kg": 80.5, "waist_cm": 90.0})
    yield harness
    harness.db.close()


# -- declarations ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "confirm"),
    [
        ("edit_measurement", "unlikely"),
        ("delete_measurement", True),
        ("edit_meal_item", False),
        ("delete_meal_item", True),
        ("rename_routine", False),
        ("add_routine_exercise", False),
        ("reorder_routine_exercises", False),
        ("remove_routine_exercise", True),
        ("delete_routine", True),
    ],
)
def test_edits_are_atomic_writes_and_removals_need_a_person(
    coach: Harness, name: str, confirm: bool | str
) -> None:
    """Every edit is an atomic write; deletes and removals also need a person's yes, and a
    measurement's correction asks one when its value is unlikely (a policy)."""
    tool = coach.tools.get(name)
    assert tool is not None
    asks = "unlikely" if callable(tool.confirm) else tool.confirm
    assert (tool.effect, tool.atomic, asks, tool.idempotent) == ("write", True, confirm, False)
    assert tool.spec().parameters["additionalProperties"] is False


def test_edit_measurement_schema_has_every_field(coach: Harness) -> None:
    """edit_measurement takes the date, every stored field, new_date and clear."""
    tool = coach.tools.get("edit_measurement")
    assert tool is not None
    params = tool.spec().parameters
    assert params["required"] == ["date"]
    assert set(params["properties"]) == {
        "date",
        "new_date",
        "clear",
        "weight_kg",
        "body_fat_pct",
        "neck_cm",
        "chest_cm",
        "waist_cm",
        "hips_cm",
        "biceps_cm",
        "quadriceps_cm",
        "calf_cm",
        "height_cm",
    }


# -- measurements ----------------------------------------------------------------------------


def test_edit_measurement_replaces_clears_and_keeps(coach: Harness) -> None:
    """Given fields replace, cleared fields empty (after the person's yes), the rest is kept;
    returned as saved."""
    arguments = {"date": DAY, "weight_kg": 79.9, "neck_cm": 38.0, "clear": ["waist_cm"]}
    saved = coach.ok("edit_measurement", arguments, decision=True)
    assert (saved["weight_kg"], saved["neck_cm"], saved["waist_cm"]) == (79.9, 38.0, None)
    assert coach.store.read_measurement(dt.date(2020, 1, 2)) == saved


def test_edit_measurement_moves_to_a_free_date(coach: Harness) -> None:
    """new_date moves the record; the old date then has none."""
    saved = coach.ok("edit_measurement", {"date": DAY, "new_date": "2020-01-03"})
    assert saved["date"] == "2020-01-03"
    assert saved["weight_kg"] == 80.5
    assert coach.store.read_measurement(dt.date(2020, 1, 2)) is None


def test_edit_measurement_onto_a_taken_date_is_a_conflict(coach: Harness) -> None:
    """Moving onto a date with its own record changes neither record."""
    coach.ok("write_measurement", {"date": "2020-01-03", "weight_kg": 80.0})
    error = coach.error("edit_measurement", {"date": DAY, "new_date": "2020-01-03"}, lang="en")
    assert (error.code, error.recovery.value) == ("conflict", "choose_alternative")
    assert "2020-01-03" in error.message
    assert coach.store.read_measurement(dt.date(2020, 1, 3))["weight_kg"] == 80.0  # type: ignore[index]
    assert coach.store.read_measurement(dt.date(2020, 1, 2))["weight_kg"] == 80.5  # type: ignore[index]


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("es", "No existe un registro de medidas para el 2020-03-04; no se ha cambiado nada"),
        ("pt", "Não existe um registro de medidas para 2020-03-04; nada foi alterado"),
        ("en", "There is no measurement record for 2020-03-04; nothing was changed"),
    ],
)
def test_edit_measurement_of_a_missing_date_is_not_found(
    coach: Harness, lang: Lang, words: str
) -> None:
    """A date without a record: not_found, in the turn's language, nothing written."""
    before = coach.count("gym_measurements")
    error = coach.error("edit_measurement", {"date": "2020-03-04", "weight_kg": 70.0}, lang=lang)
    assert (error.code, error.recovery.value) == ("not_found", "choose_alternative")
    assert error.message.startswith(words)
    assert "list_measurements" in error.message
    assert coach.count("gym_measurements") == before


@pytest.mark.parametrize(
    "arguments",
    [
        {"date": DAY},
        {"date": DAY, "new_date": DAY},
        {"date": DAY, "weight_kg": 80.0, "clear": ["weight_kg"]},
        {"date": DAY, "clear": ["weight_kg", "waist_cm"]},
    ],
)
def test_edit_measurement_without_a_real_change_is_refused(
    coach: Harness, arguments: dict[str, Any]
) -> None:
    """No change, a field both set and cleared, or a record left empty: invalid_arguments,
    and the record is as it was."""
    before = coach.store.read_measurement(dt.date(2020, 1, 2))
    error = coach.error("edit_measurement", arguments)
    assert error.code == "invalid_arguments"
    assert "no se ha cambiado nada" in error.message
    assert coach.store.read_measurement(dt.date(2020, 1, 2)) == before


def test_edit_measurement_keeps_the_ranges(coach: Harness) -> None:
    """The same ranges as write_measurement: out of range is refused before running."""
    record = coach.run("edit_measurement", {"date": DAY, "neck_cm": 5.0})
    assert isinstance(record.outcome, ToolError)
    assert (record.outcome.code, record.executed) == ("invalid_arguments", False)


def test_delete_measurement_waits_for_a_person_then_deletes_once(coach: Harness) -> None:
    """Paused: nothing deleted. Approved: deleted, the old values returned."""
    coach.pauses("delete_measurement", {"date": DAY})
    assert coach.count("gym_measurements") == 1
    deleted = coach.ok("delete_measurement", {"date": DAY}, decision=True)
    assert deleted == {"deleted": {**deleted["deleted"], "date": DAY, "weight_kg": 80.5}}
    assert coach.count("gym_measurements") == 0


def test_denied_delete_measurement_deletes_nothing(coach: Harness) -> None:
    """A denial: the handler never runs."""
    record = coach.run("delete_measurement", {"date": DAY}, decision=False)
    assert isinstance(record.outcome, ToolError)
    assert (record.outcome.code, record.executed) == ("denied", False)
    assert coach.count("gym_measurements") == 1


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("es", "No existe un registro de medidas para el 2021-01-01"),
        ("pt", "Não existe um registro de medidas para 2021-01-01"),
        ("en", "There is no measurement record for 2021-01-01"),
    ],
)
def test_delete_measurement_of_a_missing_date_is_not_found(
    coach: Harness, lang: Lang, words: str
) -> None:
    error = coach.error("delete_measurement", {"date": "2021-01-01"}, lang=lang)  # no question
    assert (error.code, error.recovery.value) == ("not_found", "choose_alternative")
    assert error.message.startswith(words)
    assert coach.count("gym_measurements") == 1


def test_another_users_record_is_not_found(sqlite_url: str) -> None:
    """Edits and deletes see only the user's own rows."""
    mine = _harness(sqlite_url, user="ana")
    mine.ok("write_measurement", {"date": DAY, "weight_kg": 60.0})
    meal = mine.ok(
        "add_meal_food",
        {"date": DAY, "meal": "lunch", "food_id": "olive_oil", "grams": 10.0},
    )
    other = _harness(sqlite_url, user="bea")
    try:
        assert other.error("edit_measurement", {"date": DAY, "weight_kg": 61.0}).code == (
            "not_found"
        )
        assert other.error("delete_measurement", {"date": DAY}).code == "not_found"
        item = meal["items"][0]["item_id"]
        assert other.error("edit_meal_item", {"item_id": item, "grams": 5.0}).code == "not_found"
        assert other.error("delete_meal_item", {"item_id": item}, decision=True).code == (
            "not_found"
        )
        assert mine.store.read_measurement(dt.date(2020, 1, 2))["weight_kg"] == 60.0  # type: ignore[index]
        assert mine.count("gym_meal_items") == 1
    finally:
        other.db.close()
        mine.db.close()


# -- meal items ------------------------------------------------------------------------------


def _lunch(coach: Harness) -> list[int]:
    for food, grams in (("white_rice_cooked", 150.0), ("olive_oil", 10.0)):
        coach.ok("add_meal_food", {"date": DAY, "meal": "lunch", "food_id": food, "grams": grams})
    items = coach.ok("read_meal", {"date": DAY, "meal": "lunch"})["items"]
    return [item["item_id"] for item in items]


def test_read_meal_gives_item_ids(coach: Harness) -> None:
    """Each item read carries a distinct item_id that edit and delete take."""
    ids = _lunch(coach)
    assert len(set(ids)) == 2
    assert all(isinstance(i, int) for i in ids)


def test_edit_meal_item_changes_grams_and_recomputes(coach: Harness) -> None:
    """A new amount: the meal is returned with totals from the food table."""
    rice, _ = _lunch(coach)
    meal = coach.ok("edit_meal_item", {"item_id": rice, "grams": 200.0})
    assert meal["item_id"] == rice
    assert (meal["items"][0]["item_id"], meal["items"][0]["grams"]) == (rice, 200.0)
    kcal = catalog.foods()["white_rice_cooked"].per_100g["energy_kcal"] * 2
    assert meal["items"][0]["energy_kcal"] == round(kcal, 1)


def test_edit_meal_item_moves_to_another_meal_and_date(coach: Harness) -> None:
    """Moving an item: it leaves its meal and is in the new one (returned)."""
    rice, oil = _lunch(coach)
    meal = coach.ok("edit_meal_item", {"item_id": oil, "meal": "Cena", "date": "2020-01-03"})
    assert (meal["date"], meal["meal"]) == ("2020-01-03", "dinner")
    assert [i["item_id"] for i in meal["items"]] == [oil]
    left = coach.ok("read_meal", {"date": DAY, "meal": "lunch"})
    assert [i["item_id"] for i in left["items"]] == [rice]


def test_edit_meal_item_to_an_unknown_food_changes_nothing(coach: Harness) -> None:
    rice, _ = _lunch(coach)
    error = coach.error("edit_meal_item", {"item_id": rice, "food_id": "unicorn"}, lang="en")
    assert (error.code, error.recovery.value) == ("not_found", "choose_alternative")
    assert "nothing was changed" in error.message
    assert coach.store.meal_item(rice)["food_id"] == "white_rice_cooked"  # type: ignore[index]


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("es", "No hay ningún alimento anotado con el id 999"),
        ("pt", "Não há nenhum alimento registrado com o id 999"),
        ("en", "There is no logged food with the id 999"),
    ],
)
def test_edit_and_delete_of_a_missing_item_are_not_found(
    coach: Harness, lang: Lang, words: str
) -> None:
    _lunch(coach)
    for name, args, decision in (
        ("edit_meal_item", {"item_id": 999, "grams": 10.0}, None),
        ("delete_meal_item", {"item_id": 999}, True),
    ):
        error = coach.error(name, args, lang=lang, decision=decision)
        assert (error.code, error.recovery.value) == ("not_found", "choose_alternative")
        assert error.message.startswith(words)
        assert "read_meal" in error.message
    assert coach.count("gym_meal_items") == 2


def test_edit_meal_item_without_a_change_is_refused(coach: Harness) -> None:
    rice, _ = _lunch(coach)
    assert coach.error("edit_meal_item", {"item_id": rice}).code == "invalid_arguments"


def test_delete_meal_item_waits_then_deletes_only_that_item(coach: Harness) -> None:
    rice, oil = _lunch(coach)
    coach.pauses("delete_meal_item", {"item_id": rice})
    assert coach.count("gym_meal_items") == 2
    done = coach.ok("delete_meal_item", {"item_id": rice}, decision=True)
    assert done["deleted"]["food_id"] == "white_rice_cooked"
    assert [i["item_id"] for i in done["meal"]["items"]] == [oil]
    denied = coach.run("delete_meal_item", {"item_id": oil}, decision=False)
    assert (denied.executed, coach.count("gym_meal_items")) == (False, 1)


# -- routines --------------------------------------------------------------------------------

SERIES = [{"reps": 5, "weight_kg": 100.0, "rest_seconds": 180}]


def _routine(coach: Harness) -> None:
    coach.ok(
        "create_routine",
        {
            "name": "Pierna",
            "category": "strength",
            "exercises": [
                {"exercise_id": "back_squat", "series": SERIES},
                {"exercise_id": "romanian_deadlift", "series": SERIES * 2},
                {"exercise_id": "plank", "series": [{**SERIES[0], "weight_kg": 0.0}]},
            ],
        },
    )


def _order(routine: dict[str, Any]) -> list[str]:
    return [e["exercise_id"] for e in routine["exercises"]]


def test_rename_routine_keeps_its_exercises(coach: Harness) -> None:
    _routine(coach)
    saved = coach.ok("rename_routine", {"routine": "PIERNA", "new_name": "Pierna fuerte"})
    assert saved["name"] == "Pierna fuerte"
    assert _order(saved) == ["back_squat", "romanian_deadlift", "plank"]
    assert [r["name"] for r in coach.store.routines()] == ["Pierna fuerte"]


def test_rename_onto_another_routines_name_is_a_conflict(coach: Harness) -> None:
    _routine(coach)
    coach.ok(
        "create_routine",
        {
            "name": "Torso",
            "category": "strength",
            "exercises": [{"exercise_id": "plank", "series": SERIES}],
        },
    )
    error = coach.error("rename_routine", {"routine": "Torso", "new_name": "piérna"})
    assert (error.code, error.recovery.value) == ("conflict", "choose_alternative")
    assert sorted(r["name"] for r in coach.store.routines()) == ["Pierna", "Torso"]
    # renaming to its own name in another case is allowed
    assert coach.ok("rename_routine", {"routine": "torso", "new_name": "TORSO"})["name"] == "TORSO"


def test_add_routine_exercise_at_the_end_and_at_a_position(coach: Harness) -> None:
    _routine(coach)
    end = coach.ok(
        "add_routine_exercise",
        {"routine": "Pierna", "exercise_id": "dumbbell_walking_lunge", "series": SERIES},
    )
    assert _order(end)[-1] == "dumbbell_walking_lunge"
    first = coach.ok(
        "add_routine_exercise",
        {"routine": "Pierna", "exercise_id": "leg_press", "series": SERIES, "position": 1},
    )
    assert _order(first) == [
        "leg_press",
        "back_squat",
        "romanian_deadlift",
        "plank",
        "dumbbell_walking_lunge",
    ]
    assert (
        first["exercises"][2]["series"]
        == [{"reps": 5, "weight_kg": 100.0, "rest_seconds": 180}] * 2
    )


def test_add_routine_exercise_refusals_change_nothing(coach: Harness) -> None:
    _routine(coach)
    unknown = coach.error(
        "add_routine_exercise", {"routine": "Pierna", "exercise_id": "flying", "series": SERIES}
    )
    assert unknown.code == "not_found"
    far = coach.error(
        "add_routine_exercise",
        {"routine": "Pierna", "exercise_id": "plank", "series": SERIES, "position": 9},
    )
    assert (far.code, far.recovery.value) == ("not_found", "correct_arguments")
    assert _order(coach.store.routines()[0]) == ["back_squat", "romanian_deadlift", "plank"]


def test_reorder_routine_exercises(coach: Harness) -> None:
    _routine(coach)
    saved = coach.ok("reorder_routine_exercises", {"routine": "Pierna", "order": [3, 1, 2]})
    assert _order(saved) == ["plank", "back_squat", "romanian_deadlift"]
    assert len(saved["exercises"][2]["series"]) == 2  # series travel with their exercise
    for bad in ([1, 2], [1, 1, 2], [1, 2, 4]):
        error = coach.error("reorder_routine_exercises", {"routine": "Pierna", "order": bad})
        assert error.code == "invalid_arguments"
    assert _order(coach.store.routines()[0]) == ["plank", "back_squat", "romanian_deadlift"]


def test_remove_routine_exercise_needs_a_person(coach: Harness) -> None:
    _routine(coach)
    coach.pauses("remove_routine_exercise", {"routine": "Pierna", "position": 2})
    assert len(coach.store.routines()[0]["exercises"]) == 3
    saved = coach.ok("remove_routine_exercise", {"routine": "Pierna", "position": 2}, decision=True)
    assert _order(saved) == ["back_squat", "plank"]
    missing = coach.error(
        "remove_routine_exercise", {"routine": "Pierna", "position": 3}, decision=True
    )
    assert missing.code == "not_found"


def test_the_last_exercise_cannot_be_removed(coach: Harness) -> None:
    coach.ok(
        "create_routine",
        {
            "name": "Core",
            "category": "strength",
            "exercises": [{"exercise_id": "plank", "series": SERIES}],
        },
    )
    error = coach.error(
        "remove_routine_exercise", {"routine": "core", "position": 1}, decision=True, lang="en"
    )
    assert error.code == "invalid_arguments"
    assert "delete_routine" in error.message
    assert len(coach.store.routines()[0]["exercises"]) == 1


def test_delete_routine_needs_a_person_and_cascades(coach: Harness) -> None:
    _routine(coach)
    coach.pauses("delete_routine", {"routine": "pierna"})
    assert coach.count("gym_routines") == 1
    deleted = coach.ok("delete_routine", {"routine": "pierna"}, decision=True)
    assert deleted["deleted"]["name"] == "Pierna"
    assert [
        coach.count(t) for t in ("gym_routines", "gym_routine_exercises", "gym_routine_series")
    ] == [0, 0, 0]


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("es", "No hay ninguna rutina llamada «Brazos»; no se ha cambiado nada"),
        ("pt", "Não há nenhuma rotina chamada «Brazos»; nada foi alterado"),
        ("en", "There is no routine named 'Brazos'; nothing was changed"),
    ],
)
def test_routine_edits_of_a_missing_routine_are_not_found(
    coach: Harness, lang: Lang, words: str
) -> None:
    _routine(coach)
    calls = [
        ("rename_routine", {"routine": "Brazos", "new_name": "X"}, None),
        (
            "add_routine_exercise",
            {"routine": "Brazos", "exercise_id": "plank", "series": SERIES},
            None,
        ),
        ("reorder_routine_exercises", {"routine": "Brazos", "order": [1]}, None),
        ("remove_routine_exercise", {"routine": "Brazos", "position": 1}, True),
        ("delete_routine", {"routine": "Brazos"}, True),
    ]
    for name, args, decision in calls:
        error = coach.error(name, args, lang=lang, decision=decision)
        assert (error.code, error.recovery.value) == ("not_found", "choose_alternative"), name
        assert error.message.startswith(words)
        assert "read_routines" in error.message


# -- the store on both databases -------------------------------------------------------------


@pytest.fixture
def two_users(db_url: str) -> Iterator[tuple[GymStore, GymStore]]:
    """Ana (with two measurements, one lunch item and a routine) and Bea, on SQLite and on
    PostgreSQL."""
    db = open_database(db_url)
    store = GymStore(db, user="ana")
    with store.transaction() as tx:
        store.upsert_measurement(tx, dt.date(2020, 1, 2), {"weight_kg": 80.0, "waist_cm": 90.0})
        store.upsert_measurement(tx, dt.date(2020, 1, 3), {"weight_kg": 79.0})
        store.add_meal_item(tx, dt.date(2020, 1, 2), "lunch", "olive_oil", 10)
        store.create_routine(
            tx, "Pierna", "strength", [("back_squat", [(5, 100.0, 180)]), ("plank", [])]
        )
    yield store, GymStore(db, user="bea")
    db.close()


def test_store_measurement_edits(two_users: tuple[GymStore, GymStore]) -> None:
    """update (replace, clear, refuse a taken date) and delete, only on the user's rows."""
    store, other = two_users
    day, next_day = dt.date(2020, 1, 2), dt.date(2020, 1, 3)
    with store.transaction() as tx:
        saved = store.update_measurement(tx, day, {"neck_cm": 38.0}, clear=["waist_cm"])
    assert saved is not None
    assert (saved["weight_kg"], saved["neck_cm"], saved["waist_cm"]) == (80.0, 38.0, None)
    with pytest.raises(DateTaken), store.transaction() as tx:
        store.update_measurement(tx, day, {}, new_date=next_day)
    with other.transaction() as tx:
        assert other.update_measurement(tx, day, {"weight_kg": 1.0}) is None
        assert other.delete_measurement(tx, day) is None
    assert store.read_measurement(day) == saved
    with store.transaction() as tx:
        assert store.delete_measurement(tx, day) == saved
    assert [r["date"] for r in store.list_measurements()] == ["2020-01-03"]


def test_store_meal_item_edits(two_users: tuple[GymStore, GymStore]) -> None:
    store, other = two_users
    day, next_day = dt.date(2020, 1, 2), dt.date(2020, 1, 3)
    ((item_id, *_),) = store.meal_entries(day)
    with other.transaction() as tx:
        assert other.update_meal_item(tx, item_id, {"grams": 1.0}) is None
        assert other.delete_meal_item(tx, item_id) is None
    with store.transaction() as tx:
        moved = store.update_meal_item(tx, item_id, {"grams": 12.5, "date": next_day})
    assert moved == {
        "item_id": item_id,
        "date": "2020-01-03",
        "meal": "lunch",
        "food_id": "olive_oil",
        "grams": 12.5,
    }
    with store.transaction() as tx:
        assert store.delete_meal_item(tx, item_id) == moved
    assert store.meal_log() == []


def test_store_routine_edits(two_users: tuple[GymStore, GymStore]) -> None:
    store, other = two_users
    with store.transaction() as tx:
        routine = store.find_routine("PIERNA", tx=tx)
        assert routine is not None
        assert other.find_routine("Pierna", tx=tx) is None
        assert store.rename_routine(tx, routine, "Piernas")
        store.replace_routine_exercises(
            tx, routine, [("plank", []), ("back_squat", [(3, 90.0, 60), (3, 95.0, 60)])]
        )
    (saved,) = store.routines()
    assert saved["name"] == "Piernas"
    assert [e["exercise_id"] for e in saved["exercises"]] == ["plank", "back_squat"]
    assert [s["weight_kg"] for s in saved["exercises"][1]["series"]] == [90.0, 95.0]
    with other.transaction() as tx:
        assert not other.delete_routine(tx, routine)
    with store.transaction() as tx:
        assert store.delete_routine(tx, routine)
    assert store.routines() == []
    assert int(store.db.query("SELECT COUNT(*) FROM gym_routine_series")[0][0]) == 0


# -- the command line ------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """What one command did."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


@pytest.fixture
def gymnasia(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    """Call the CLI in-process like a person would; ``answer`` is what they type at a prompt
    (None: no input at all)."""
    for name in ("GYMNASIA_DB", "GYMNASIA_LANG", "GYMNASIA_TODAY"):
        monkeypatch.delenv(name, raising=False)

    def invoke(*args: str, answer: str | None = None) -> Run:
        capsys.readouterr()
        monkeypatch.setattr(sys, "argv", ["gymnasia", *args])
        monkeypatch.setattr(sys, "stdin", io.StringIO("" if answer is None else answer + "\n"))
        with pytest.raises(SystemExit) as exited:
            main()
        captured = capsys.readouterr()
        code = exited.value.code
        return Run(code if isinstance(code, int) else 1, captured.out, captured.err)

    return invoke


def _one_line(run: Run, code: int = 2) -> str:
    """The single ``gymnasia: ...`` line a refused command prints on stderr (under ``--json``
    the message of the one ``{"error", "message"}`` object on stdout, stderr empty)."""
    assert run.code == code, run
    if run.out:
        assert run.err == ""
        assert run.out.count("\n") == 1
        value = json.loads(run.out)
        assert set(value) == {"error", "message"}
        return f"gymnasia: {value['message']}"
    lines = [line for line in run.err.splitlines() if line.startswith("gymnasia: ")]
    assert len(lines) == 1, run.err
    assert "Traceback" not in run.err
    return lines[0]


@pytest.fixture
def cli_db(sqlite_url: str) -> str:
    """A database with one measurement, a lunch of two items and one routine."""
    store = GymStore(open_database(sqlite_url))
    with store.transaction() as tx:
        store.upsert_measurement(tx, dt.date(2020, 1, 2), {"weight_kg": 80.0, "waist_cm": 90.0})
        store.add_meal_item(tx, dt.date(2020, 1, 2), "lunch", "white_rice_cooked", 150)
        store.add_meal_item(tx, dt.date(2020, 1, 2), "lunch", "olive_oil", 10)
        store.create_routine(
            tx,
            "Pierna",
            "strength",
            [("back_squat", [(5, 100.0, 180)]), ("leg_press", [(10, 150.0, 90)])],
        )
    store.db.close()
    return sqlite_url


def _measurement(url: str, day: str) -> dict[str, Any] | None:
    store = GymStore(open_database(url, create=False))
    try:
        return store.read_measurement(dt.date.fromisoformat(day))
    finally:
        store.db.close()


FIELD_VALUES = {
    "weight_kg": "80,5",
    "body_fat_pct": "18,2",
    "neck_cm": "38",
    "chest_cm": "101,5",
    "waist_cm": "84.5",
    "hips_cm": "98",
    "biceps_cm": "35,5",
    "quadriceps_cm": "58",
    "calf_cm": "38,5",
    "height_cm": "178",
}


def test_measurements_add_takes_every_field_and_a_decimal_comma(
    gymnasia: Any, sqlite_url: str
) -> None:
    """One flag per stored field; 80,5 and 84.5 are both numbers."""
    flags = [x for name, v in FIELD_VALUES.items() for x in ("--" + name.replace("_", "-"), v)]
    run = gymnasia("measurements", "add", "2020-02-01", *flags, "--db", sqlite_url, "--json")
    assert run.code == 0, run
    expected = {name: float(v.replace(",", ".")) for name, v in FIELD_VALUES.items()}
    assert run.json() == {"date": "2020-02-01", **expected}
    assert _measurement(sqlite_url, "2020-02-01") == run.json()
    text = gymnasia("measurements", "add", "2020-02-02", "--weight-kg", "80,5", "--db", sqlite_url)
    assert text.out == "guardado: 2 feb 2020: peso 80,5 kg\n"


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("es", "gymnasia: valor no válido «8,5» para --weight-kg: usa un número entre 20 y 400"),
        ("pt", "gymnasia: valor inválido «8,5» para --weight-kg: use um número entre 20 e 400"),
        ("en", "gymnasia: invalid value '8,5' for --weight-kg: use a number from 20 to 400"),
    ],
)
def test_measurements_add_out_of_range_is_one_localized_line(
    gymnasia: Any, cli_db: str, lang: str, line: str
) -> None:
    run = gymnasia("measurements", "add", DAY, "--weight-kg", "8,5", "--db", cli_db, "--lang", lang)
    assert _one_line(run) == line
    assert _measurement(cli_db, DAY)["weight_kg"] == 80.0  # type: ignore[index]


@pytest.mark.parametrize("value", ["abc", "80,5,1", "nan", "inf", "1e9", ""])
def test_measurements_add_refuses_what_is_not_a_number(
    gymnasia: Any, cli_db: str, value: str
) -> None:
    run = gymnasia("measurements", "add", DAY, "--neck-cm", value, "--db", cli_db)
    assert "--neck-cm" in _one_line(run)


def test_measurements_add_without_a_value_is_one_line(gymnasia: Any, cli_db: str) -> None:
    line = _one_line(gymnasia("measurements", "add", DAY, "--db", cli_db, "--lang", "pt"))
    assert line == "gymnasia: indique pelo menos um valor, p. ex. --weight-kg 76,5"


def test_measurements_edit_sets_clears_and_moves(gymnasia: Any, cli_db: str) -> None:
    run = gymnasia(
        "measurements",
        "edit",
        DAY,
        "--neck-cm",
        "38,5",
        "--clear",
        "waist-cm",
        "--new-date",
        "2020-01-05",
        "--db",
        cli_db,
    )
    assert run.code == 0, run
    assert run.out == "actualizado: 5 ene 2020: peso 80 kg, cuello 38,5 cm\n"
    assert _measurement(cli_db, DAY) is None
    moved_row = _measurement(cli_db, "2020-01-05")
    assert moved_row is not None
    assert (moved_row["neck_cm"], moved_row["waist_cm"]) == (38.5, None)
    again = gymnasia(
        "measurements", "edit", "2020-01-05", "--weight-kg", "79", "--db", cli_db, "--json"
    )
    assert again.json()["weight_kg"] == 79.0


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("es", "gymnasia: no hay registro para el 2021-01-01"),
        ("pt", "gymnasia: não há registro para 2021-01-01"),
        ("en", "gymnasia: no record for 2021-01-01"),
    ],
)
def test_measurements_edit_and_delete_of_a_missing_date(
    gymnasia: Any, cli_db: str, lang: str, line: str
) -> None:
    """Exit 1 and one localized line, as `measurements show` does; nothing is asked."""
    edit = gymnasia(
        "measurements", "edit", "2021-01-01", "--weight-kg", "70", "--db", cli_db, "--lang", lang
    )
    assert _one_line(edit, 1) == line
    delete = gymnasia("measurements", "delete", "2021-01-01", "--db", cli_db, "--lang", lang)
    assert _one_line(delete, 1) == line
    assert "?" not in delete.err


@pytest.mark.parametrize(
    "args",
    [
        (DAY,),
        (DAY, "--clear", "weight_kg", "--clear", "waist_cm"),
        (DAY, "--weight-kg", "80", "--clear", "weight-kg"),
        (DAY, "--clear", "belly_cm"),
        (DAY, "--new-date", "2020-13-01"),
        (DAY, "--new-date", "2020-01-03", "--neck-cm", "300"),
    ],
)
def test_measurements_edit_mistakes_change_nothing(
    gymnasia: Any, cli_db: str, args: tuple[str, ...]
) -> None:
    before = _measurement(cli_db, DAY)
    _one_line(gymnasia("measurements", "edit", *args, "--db", cli_db))
    assert _measurement(cli_db, DAY) == before


def test_measurements_edit_onto_a_taken_date(gymnasia: Any, cli_db: str) -> None:
    gymnasia("measurements", "add", "2020-01-03", "--weight-kg", "70", "--db", cli_db, "--yes")
    run = gymnasia(
        "measurements", "edit", DAY, "--new-date", "2020-01-03", "--db", cli_db, "--lang", "en"
    )
    assert _one_line(run) == "gymnasia: 2020-01-03 already has a measurement record of its own"
    assert _measurement(cli_db, DAY)["weight_kg"] == 80.0  # type: ignore[index]


@pytest.mark.parametrize(
    ("lang", "answer", "deleted"),
    [
        ("es", "s", True),
        ("es", "sí", True),
        ("pt", "sim", True),
        ("en", "y", True),
        ("en", "yes", True),
        ("es", "n", False),
        ("es", "", False),
        ("en", "s", False),
        ("pt", None, False),
    ],
)
def test_measurements_delete_asks_in_the_users_language(
    gymnasia: Any, cli_db: str, lang: str, answer: str | None, deleted: bool
) -> None:
    """The question goes to stderr; only a yes in that language deletes; no input is a no."""
    run = gymnasia("measurements", "delete", DAY, "--db", cli_db, "--lang", lang, answer=answer)
    question = {
        "es": "¿Borrar la medida del 2020-01-02 (peso 80 kg, cintura 90 cm)? [s/N]",
        "pt": "Excluir a medida de 2020-01-02 (peso 80 kg, cintura 90 cm)? [s/N]",
        "en": "Delete the measurement of 2020-01-02 (weight 80 kg, waist 90 cm)? [y/N]",
    }[lang]
    assert run.err.startswith(question)
    assert (_measurement(cli_db, DAY) is None) == deleted
    if deleted:
        assert run.code == 0
        assert run.out.split(":")[0] == {"es": "borrado", "pt": "excluído", "en": "deleted"}[lang]
    else:
        assert _one_line(run, 1).startswith("gymnasia: ")
        assert run.out == ""


def test_measurements_delete_yes_and_json(gymnasia: Any, cli_db: str) -> None:
    run = gymnasia("measurements", "delete", DAY, "--yes", "--json", "--db", cli_db)
    assert run.code == 0
    assert run.err == ""
    assert run.json()["deleted"]["weight_kg"] == 80.0
    assert _measurement(cli_db, DAY) is None


def _lunch_ids(gymnasia: Any, db: str) -> list[int]:
    shown = gymnasia("meals", "show", DAY, "--meal", "lunch", "--json", "--db", db).json()
    return [item["item_id"] for item in shown["items"]]


def test_meals_show_lists_item_ids(gymnasia: Any, cli_db: str) -> None:
    rice, oil = _lunch_ids(gymnasia, cli_db)
    text = gymnasia("meals", "show", DAY, "--db", cli_db).out
    assert f"[{rice}] 150 g" in text
    assert f"[{oil}] 10 g" in text


def test_meals_edit_changes_and_moves_an_item(gymnasia: Any, cli_db: str) -> None:
    rice, oil = _lunch_ids(gymnasia, cli_db)
    run = gymnasia("meals", "edit", str(rice), "--grams", "200,5", "--db", cli_db, "--json")
    assert run.code == 0, run
    assert [(i["item_id"], i["grams"]) for i in run.json()["items"]] == [(rice, 200.5), (oil, 10.0)]
    moved_meal = gymnasia(
        "meals", "edit", str(oil), "--meal", "Cena", "--date", "2020-01-03", "--db", cli_db
    )
    assert moved_meal.code == 0
    assert "Cena" in moved_meal.out.splitlines()  # the meal by its name, not its id
    assert _lunch_ids(gymnasia, cli_db) == [rice]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("abc", "--grams", "10"), "abc"),
        (("-3", "--grams", "10"), "-3"),
        (("{rice}",), "--grams"),
        (("{rice}", "--grams", "0"), "0"),
        (("{rice}", "--food", "unicorn"), "unicorn"),
        (("{rice}", "--meal", "brunch"), "brunch"),
        (("{rice}", "--date", "2020-W01-3"), "2020-W01-3"),
    ],
)
def test_meals_edit_mistakes_are_one_line(
    gymnasia: Any, cli_db: str, args: tuple[str, ...], needle: str
) -> None:
    rice, _ = _lunch_ids(gymnasia, cli_db)
    filled = [a.format(rice=rice) for a in args]
    assert needle in _one_line(gymnasia("meals", "edit", *filled, "--db", cli_db))
    assert _lunch_ids(gymnasia, cli_db)[0] == rice


def test_meals_edit_and_delete_of_a_missing_item(gymnasia: Any, cli_db: str) -> None:
    edit = gymnasia("meals", "edit", "999", "--grams", "5", "--db", cli_db, "--lang", "en")
    assert _one_line(edit, 1) == (
        "gymnasia: there is no logged food with the id 999 ('gymnasia meals show' shows the ids)"
    )
    delete = gymnasia("meals", "delete", "999", "--db", cli_db, "--yes")
    assert "999" in _one_line(delete, 1)


def test_meals_delete_asks_first(gymnasia: Any, cli_db: str) -> None:
    rice, oil = _lunch_ids(gymnasia, cli_db)
    kept = gymnasia("meals", "delete", str(rice), "--db", cli_db, answer="n")
    assert kept.err.startswith("¿Borrar 150 g de Arroz blanco cocido de Comida del 2020-01-02?")
    assert _lunch_ids(gymnasia, cli_db) == [rice, oil]
    done = gymnasia("meals", "delete", str(rice), "--db", cli_db, "--json", answer="s")
    assert done.code == 0
    assert done.json()["deleted"]["food_id"] == "white_rice_cooked"
    assert _lunch_ids(gymnasia, cli_db) == [oil]


def _routine_steps(gymnasia: Any, db: str) -> list[tuple[str, list[Any]]]:
    (routine,) = gymnasia("routines", "list", "--json", "--db", db).json()
    return [
        (s["exercise_id"], [tuple(x.values()) for x in s["series"]]) for s in routine["exercises"]
    ]


def test_routines_create_from_the_command_line(gymnasia: Any, sqlite_url: str) -> None:
    run = gymnasia(
        "routines",
        "create",
        "Torso",
        "--category",
        "hypertrophy",
        "--exercise",
        "barbell_bench_press 8x60/90 8x62,5/90",
        "--exercise",
        "plank 1x0/60",
        "--db",
        sqlite_url,
    )
    assert run.code == 0, run
    assert run.out == "rutina «Torso» guardada: 2 ejercicio(s)\n"
    assert _routine_steps(gymnasia, sqlite_url) == [
        ("barbell_bench_press", [(8, 60.0, 90), (8, 62.5, 90)]),
        ("plank", [(1, 0.0, 60)]),
    ]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--category", "power", "--exercise", "plank 1x0/60"), "power"),
        (("--category", "strength", "--exercise", "plank"), "plank"),
        (("--category", "strength", "--exercise", "flying 1x0/60"), "flying"),
        (("--category", "strength", "--exercise", "plank 1x0"), "1x0"),
        (("--category", "strength", "--exercise", "plank 0x0/60"), "0x0/60"),
        (("--category", "strength", "--exercise", "plank 1x0/601"), "1x0/601"),
        (("--category", "strength", "--exercise", "plank 1x1001/60"), "1x1001/60"),
    ],
)
def test_routines_create_mistakes_are_one_line(
    gymnasia: Any, cli_db: str, args: tuple[str, ...], needle: str
) -> None:
    assert needle in _one_line(gymnasia("routines", "create", "Nueva", *args, "--db", cli_db))
    assert len(gymnasia("routines", "list", "--json", "--db", cli_db).json()) == 1


def test_routines_create_refuses_a_taken_name(gymnasia: Any, cli_db: str) -> None:
    run = gymnasia(
        "routines",
        "create",
        "PIÉRNA",
        "--category",
        "strength",
        "--exercise",
        "plank 1x0/60",
        "--db",
        cli_db,
        "--lang",
        "en",
    )
    assert _one_line(run) == "gymnasia: there is already a routine named 'PIÉRNA'"


def test_routines_change_from_the_command_line(gymnasia: Any, cli_db: str) -> None:
    """rename, add-exercise (at the end and at a place), reorder, remove-exercise, delete."""
    assert gymnasia("routines", "rename", "pierna", "Pierna A", "--db", cli_db).code == 0
    added = gymnasia("routines", "add-exercise", "pierna a", "plank", "1x0/60", "--db", cli_db)
    assert added.code == 0
    assert "3. Plancha" in added.out
    gymnasia(
        "routines",
        "add-exercise",
        "Pierna A",
        "dumbbell_walking_lunge",
        "12x20/60",
        "12x20/60",
        "--position",
        "1",
        "--db",
        cli_db,
    )
    order = [step for step, _ in _routine_steps(gymnasia, cli_db)]
    assert order == ["dumbbell_walking_lunge", "back_squat", "leg_press", "plank"]
    reordered = gymnasia(
        "routines", "reorder", "Pierna A", "4", "3", "2", "1", "--db", cli_db, "--json"
    )
    assert [s["exercise_id"] for s in reordered.json()["exercises"]] == order[::-1]
    kept = gymnasia("routines", "remove-exercise", "Pierna A", "1", "--db", cli_db, answer="n")
    assert kept.err.startswith("¿Quitar Plancha (posición 1) de la rutina «Pierna A»?")
    assert len(_routine_steps(gymnasia, cli_db)) == 4
    removed = gymnasia("routines", "remove-exercise", "Pierna A", "1", "--db", cli_db, "--yes")
    assert removed.code == 0
    assert [s for s, _ in _routine_steps(gymnasia, cli_db)] == order[::-1][1:]
    assert gymnasia("routines", "delete", "pierna a", "--db", cli_db, answer="").code == 1
    gone = gymnasia("routines", "delete", "pierna a", "--db", cli_db, answer="s")
    assert gone.out == "rutina «Pierna A» borrada\n"
    assert gymnasia("routines", "list", "--json", "--db", cli_db).json() == []


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("rename", "Brazos", "B"), 1),
        (("add-exercise", "Brazos", "plank", "1x0/60"), 1),
        (("reorder", "Brazos", "1"), 1),
        (("remove-exercise", "Brazos", "1", "--yes"), 1),
        (("delete", "Brazos", "--yes"), 1),
        (("reorder", "Pierna", "1", "1"), 2),
        (("reorder", "Pierna", "2"), 2),
        (("remove-exercise", "Pierna", "3", "--yes"), 2),
        (("add-exercise", "Pierna", "plank", "1x0/60", "--position", "4"), 2),
        (("add-exercise", "Pierna", "plank", "1x0/60", "--position", "0"), 2),
    ],
)
def test_routine_change_mistakes_change_nothing(
    gymnasia: Any, cli_db: str, args: tuple[str, ...], code: int
) -> None:
    before = _routine_steps(gymnasia, cli_db)
    line = _one_line(gymnasia("routines", *args, "--db", cli_db), code)
    if code == 1:
        assert line == (
            "gymnasia: no hay ninguna rutina llamada «Brazos» "
            "('gymnasia routines list' las muestra)"
        )
    assert _routine_steps(gymnasia, cli_db) == before


def test_the_last_exercise_is_not_removed_from_the_command_line(gymnasia: Any, cli_db: str) -> None:
    gymnasia("routines", "remove-exercise", "Pierna", "2", "--yes", "--db", cli_db)
    line = _one_line(
        gymnasia("routines", "remove-exercise", "Pierna", "1", "--yes", "--db", cli_db)
    )
    assert "gymnasia routines delete" in line
    assert len(_routine_steps(gymnasia, cli_db)) == 1


def test_the_real_entry_point_asks_before_deleting(cli_db: str) -> None:
    """`python -m gymnasia measurements delete`: "n" keeps, "s" deletes."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}

    def real(answer: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "gymnasia", "measurements", "delete", DAY, "--db", cli_db],
            input=answer,
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )

    kept = real("n\n")
    assert (kept.returncode, kept.stdout) == (1, "")
    assert kept.stderr.endswith("gymnasia: no se ha borrado nada\n")
    assert _measurement(cli_db, DAY) is not None
    done = real("s\n")
    assert done.returncode == 0
    assert done.stdout.startswith("borrado: 2 ene 2020")
    assert _measurement(cli_db, DAY) is None


# -- one date parser -------------------------------------------------------------------------

DATES = [
    "2020-01-02",
    "2020-W01-3",
    "20200102",
    "2020-1-2",
    "2020-02-30",
    "2020-01-02T00:00",
    "\uff12\uff10\uff12\uff10-01-02",
    " 2020-01-02",
]


@pytest.mark.parametrize("text", DATES)
def test_the_cli_and_the_tools_accept_the_same_dates(gymnasia: Any, cli_db: str, text: str) -> None:
    """Whatever a tool refuses as a date, every command refuses too (one localized line)."""
    harness = _harness(cli_db)
    try:
        record = harness.run("read_measurement", {"date": text})
    finally:
        harness.db.close()
    tool_accepts = not (
        isinstance(record.outcome, ToolError) and record.outcome.code == "invalid_arguments"
    )
    runs = [
        gymnasia("measurements", "show", text, "--db", cli_db, "--json"),
        gymnasia("meals", "show", text, "--db", cli_db, "--json"),
        gymnasia("measurements", "list", "--from", text, "--db", cli_db, "--json"),
        gymnasia("measurements", "add", text, "--weight-kg", "80", "--db", cli_db, "--json"),
    ]
    for run in runs:
        if tool_accepts:
            assert run.code == 0, run
        else:
            assert _one_line(run) == f"gymnasia: fecha no válida «{text}»: usa AAAA-MM-DD"
    assert tool_accepts == (text == "2020-01-02")


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("es", "gymnasia: fecha no válida «2020-W01-3»: usa AAAA-MM-DD"),
        ("pt", "gymnasia: data inválida «2020-W01-3»: use AAAA-MM-DD"),
        ("en", "gymnasia: invalid date '2020-W01-3': use YYYY-MM-DD"),
    ],
)
def test_an_iso_week_date_is_refused_in_each_language(
    gymnasia: Any, cli_db: str, lang: str, line: str
) -> None:
    run = gymnasia("measurements", "delete", "2020-W01-3", "--yes", "--db", cli_db, "--lang", lang)
    assert _one_line(run) == line


# -- the web API -----------------------------------------------------------------------------

WEB = "http://127.0.0.1:8000"


@pytest.fixture
def web(cli_db: str) -> Iterator[TestClient]:
    with TestClient(create_app(db=cli_db, lang="es"), base_url=WEB) as client:
        yield client


def test_web_edit_sets_clears_and_moves(web: TestClient, cli_db: str) -> None:
    """A number sets, null empties, a missing field keeps; new_date moves."""
    response = web.post(
        f"/api/measurements/{DAY}/edit",
        json={"weight_kg": 79.5, "waist_cm": None, "new_date": "2020-01-04"},
    )
    assert response.status_code == 200, response.text
    saved = response.json()["measurement"]
    assert (saved["date"], saved["weight_kg"], saved["waist_cm"]) == ("2020-01-04", 79.5, None)
    assert _measurement(cli_db, DAY) is None
    assert _measurement(cli_db, "2020-01-04") == saved


@pytest.mark.parametrize(
    ("path", "body", "status", "error", "lang", "words"),
    [
        ("2021-01-01/edit", {"weight_kg": 70.0}, 404, "not_found", "en", "no longer exists"),
        ("2021-01-01/delete", {}, 404, "not_found", "pt", "já não existe"),
        ("2020-W01-3/edit", {"weight_kg": 70.0}, 422, "invalid_date", "es", "AAAA-MM-DD"),
        ("2020-W01-3/delete", {}, 422, "invalid_date", "en", "YYYY-MM-DD"),
        (f"{DAY}/edit", {"weight_kg": 5.0}, 422, "invalid", "es", "Peso (kg): usa un número"),
        (f"{DAY}/edit", {"neck_cm": "38"}, 422, "invalid", "en", "Neck (cm): use a number"),
        (f"{DAY}/edit", {"mood": 1}, 422, "invalid", "pt", "«mood»"),
        (f"{DAY}/edit", {"new_date": "2020-1-4"}, 422, "invalid", "en", "YYYY-MM-DD"),
        (f"{DAY}/edit", {"weight_kg": None, "waist_cm": None}, 422, "empty", "es", "bórrala"),
    ],
)
def test_web_edit_and_delete_refusals_change_nothing(
    web: TestClient,
    cli_db: str,
    path: str,
    body: dict[str, Any],
    status: int,
    error: str,
    lang: str,
    words: str,
) -> None:
    """Each refusal names its reason in the page's language and leaves the record as it was."""
    before = _measurement(cli_db, DAY)
    response = web.post(f"/api/measurements/{path}?lang={lang}", json=body)
    assert response.status_code == status, response.text
    assert response.json()["error"] == error
    assert words in response.json()["message"]
    assert _measurement(cli_db, DAY) == before


def test_web_edit_onto_a_taken_date_is_409(web: TestClient, cli_db: str) -> None:
    web.post(f"/api/measurements/{DAY}/edit", json={"weight_kg": 80.0})
    store = GymStore(open_database(cli_db))
    with store.transaction() as tx:
        store.upsert_measurement(tx, dt.date(2020, 1, 3), {"weight_kg": 70.0})
    store.db.close()
    response = web.post(f"/api/measurements/{DAY}/edit", json={"new_date": "2020-01-03"})
    assert response.status_code == 409
    assert response.json()["error"] == "conflict"
    assert _measurement(cli_db, DAY) is not None


def test_web_delete(web: TestClient, cli_db: str) -> None:
    response = web.post(f"/api/measurements/{DAY}/delete", json={})
    assert response.status_code == 200
    assert response.json()["deleted"]["weight_kg"] == 80.0
    assert _measurement(cli_db, DAY) is None
    assert web.post(f"/api/measurements/{DAY}/delete", json={}).status_code == 404


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "http://evil.example"},
        {"sec-fetch-site": "cross-site"},
        {"origin": WEB, "content-type": "text/plain"},
    ],
)
def test_web_edits_from_elsewhere_are_refused(
    web: TestClient, cli_db: str, headers: dict[str, str]
) -> None:
    """The app's guard refuses a cross-origin or non-JSON POST before it reaches the route."""
    before = _measurement(cli_db, DAY)
    for path, body in ((f"{DAY}/delete", "{}"), (f"{DAY}/edit", '{"weight_kg": 70}')):
        response = web.post(
            f"/api/measurements/{path}",
            content=body,
            headers={"content-type": "application/json", **headers},
        )
        assert response.status_code in (403, 415), response.text
    assert _measurement(cli_db, DAY) == before


def test_measurements_page_offers_edit_and_delete(web: TestClient) -> None:
    page = web.get("/measurements?lang=pt").text
    assert page.count('class="button secondary small edit-measurement"') == 1
    assert '<dialog id="delete-dialog"' in page
    assert "Não é possível desfazer." in page
    assert 'data-values="{&quot;weight_kg&quot;:80.0,' in page


def test_the_tools_edit_and_delete_on_both_databases(db_url: str) -> None:
    """Through the executor with its ledger in the same database: an edit, a delete that
    waits for a person, and a not_found, on SQLite and on PostgreSQL."""
    coach = _harness(db_url)
    try:
        coach.ok("write_measurement", {"date": DAY, "weight_kg": 80.0})
        item = coach.ok(
            "add_meal_food", {"date": DAY, "meal": "lunch", "food_id": "olive_oil", "grams": 10.0}
        )["items"][0]["item_id"]
        assert coach.ok("edit_measurement", {"date": DAY, "neck_cm": 38.0})["neck_cm"] == 38.0
        edited = coach.ok("edit_meal_item", {"item_id": item, "grams": 12.0})
        assert edited["items"][0]["grams"] == 12.0
        coach.pauses("delete_measurement", {"date": DAY})
        coach.pauses("delete_meal_item", {"item_id": item})
        assert coach.count("gym_measurements") == coach.count("gym_meal_items") == 1
        coach.ok("delete_measurement", {"date": DAY}, decision=True)
        coach.ok("delete_meal_item", {"item_id": item}, decision=True)
        assert coach.count("gym_measurements") == coach.count("gym_meal_items") == 0
        missing = coach.error("delete_measurement", {"date": DAY})  # nobody is asked
        assert (missing.code, missing.recovery.value) == ("not_found", "choose_alternative")
        committed = coach.db.query("SELECT COUNT(*) FROM sf_ledger WHERE state = 'committed'")
        assert int(committed[0][0]) == 6
    finally:
        coach.db.close()
