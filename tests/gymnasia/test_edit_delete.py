"""Editing and deleting the user's data through the Coach's tools (run by the executor, with
its ledger in the same database), and the store's edits on SQLite and PostgreSQL.

Deletes need a person: the first run of a delete pauses with a pending call and changes
nothing; the same call then runs only once approved, and a denial runs nothing.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from gymnasia import catalog
from gymnasia.store import DateTaken, GymStore
from gymnasia.tools import build_tools
from surefoot import (
    CallRecord,
    Database,
    Executor,
    Lang,
    Ok,
    SqlLedger,
    ToolError,
    ToolSet,
    TurnState,
    open_database,
)
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
        ("edit_measurement", False),
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
    coach: Harness, name: str, confirm: bool
) -> None:
    """Every edit is an atomic write; deletes and removals also need a person's yes."""
    tool = coach.tools.get(name)
    assert tool is not None
    assert (tool.effect, tool.atomic, tool.confirm, tool.idempotent) == (
        "write",
        True,
        confirm,
        False,
    )
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
    """Given fields replace, cleared fields empty, the rest is kept; returned as saved."""
    saved = coach.ok(
        "edit_measurement", {"date": DAY, "weight_kg": 79.9, "neck_cm": 38.0, "clear": ["waist_cm"]}
    )
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
    coach.ok("write_measurement", {"date": "2020-01-03", "weight_kg": 70.0})
    error = coach.error("edit_measurement", {"date": DAY, "new_date": "2020-01-03"}, lang="en")
    assert (error.code, error.recovery.value) == ("conflict", "choose_alternative")
    assert "2020-01-03" in error.message
    assert coach.store.read_measurement(dt.date(2020, 1, 3))["weight_kg"] == 70.0  # type: ignore[index]
    assert coach.store.read_measurement(dt.date(2020, 1, 2))["weight_kg"] == 80.5  # type: ignore[index]


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("es", "No existe un registro de medidas para el 2020-03-04; no se ha cambiado nada"),
        ("pt", "Não existe um registo de medidas para 2020-03-04; nada foi alterado"),
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
        ("pt", "Não existe um registo de medidas para 2021-01-01"),
        ("en", "There is no measurement record for 2021-01-01"),
    ],
)
def test_delete_measurement_of_a_missing_date_is_not_found(
    coach: Harness, lang: Lang, words: str
) -> None:
    error = coach.error("delete_measurement", {"date": "2021-01-01"}, lang=lang, decision=True)
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
        assert other.error("delete_measurement", {"date": DAY}, decision=True).code == "not_found"
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
        ("pt", "Não há nenhum alimento registado com o id 999"),
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
