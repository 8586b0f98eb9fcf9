"""Training tools: search_exercises, read_routines, create_routine."""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from gymnasia import catalog
from gymnasia.faults import Faults
from gymnasia.store import GymStore
from gymnasia.tools import build_tools
from surefoot import Lang, Ok, SqlLedger, ToolError, ToolSet, open_database
from surefoot.executor import Executor, TurnState
from surefoot.sql import Database
from surefoot.testing import call


@dataclass
class Harness:
    """One database with the Coach's tools and an executor whose ledger lives in it."""

    db: Database
    store: GymStore
    tools: ToolSet
    executor: Executor

    def run(self, name: str, arguments: dict[str, Any], *, lang: Lang = "es") -> Any:
        """Run one call as its own user turn; its outcome and whether the handler ran."""
        state = TurnState(conversation_id=uuid.uuid4().hex, user_turn=0, lang=lang)
        record = asyncio.run(self.executor.run_batch([call(name, arguments)], state)).records[0]
        return record.outcome, record.executed

    def ok(self, name: str, arguments: dict[str, Any], *, lang: Lang = "es") -> dict[str, Any]:
        """Run one call that must succeed; its data."""
        outcome, _ = self.run(name, arguments, lang=lang)
        assert isinstance(outcome, Ok), outcome
        return outcome.data

    def error(self, name: str, arguments: dict[str, Any]) -> tuple[ToolError, bool]:
        """Run one call that must fail; the error and whether the handler ran."""
        outcome, executed = self.run(name, arguments)
        assert isinstance(outcome, ToolError), outcome
        return outcome, executed

    def rows(self) -> tuple[int, ...]:
        """How many routines, routine exercises and series the database holds."""
        return tuple(
            int(self.db.query(f"SELECT COUNT(*) FROM {table}")[0][0])
            for table in ("gym_routines", "gym_routine_exercises", "gym_routine_series")
        )


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


def _series(reps: int = 10, weight_kg: float = 60, rest_seconds: int = 90) -> dict[str, Any]:
    return {"reps": reps, "weight_kg": weight_kg, "rest_seconds": rest_seconds}


def _routine(**changes: Any) -> dict[str, Any]:
    routine = {
        "name": "Pierna A",
        "category": "strength",
        "exercises": [
            {"exercise_id": "back_squat", "series": [_series(5, 100, 180), _series(5, 100, 180)]},
            {"exercise_id": "romanian_deadlift", "series": [_series(8, 70.5, 120)]},
            {"exercise_id": "plank", "series": [_series(1, 0, 60)]},
        ],
    }
    routine.update(changes)
    return routine


# -- schemas -----------------------------------------------------------------------------------


def _string_branch(prop: dict[str, Any]) -> dict[str, Any]:
    assert prop["type"] == "string"  # an optional filter is its plain type, not anyOf-null
    return prop


def test_search_exercises_enums_come_from_the_data(coach: Harness) -> None:
    """muscle_group and equipment enums are exactly the values in the bundled table."""
    tool = coach.tools.get("search_exercises")
    assert tool is not None
    props = tool.spec().parameters["properties"]
    table = catalog.exercises().values()
    assert sorted(_string_branch(props["muscle_group"])["enum"]) == sorted(
        {e.muscle_group for e in table}
    )
    assert sorted(_string_branch(props["equipment"])["enum"]) == sorted(
        {e.equipment for e in table}
    )


def test_create_routine_schema_is_strict_all_the_way_down(coach: Harness) -> None:
    """Every object in create_routine's schema forbids extra fields; ranges are declared."""
    tool = coach.tools.get("create_routine")
    assert tool is not None
    assert (tool.effect, tool.idempotent, tool.atomic) == ("write", False, True)
    schema = tool.spec().parameters
    assert schema["additionalProperties"] is False
    assert schema["properties"]["category"]["enum"] == [
        "strength",
        "hypertrophy",
        "cardio",
        "flexibility",
    ]
    exercises = schema["properties"]["exercises"]
    assert exercises["minItems"] == 1
    exercise = exercises["items"]  # each nested model is written in place (used once)
    assert "$defs" not in schema
    assert exercise["additionalProperties"] is False
    assert exercise["properties"]["series"]["items"]["additionalProperties"] is False
    series = exercise["properties"]["series"]["items"]["properties"]
    assert (series["reps"]["minimum"], series["reps"]["maximum"]) == (1, 100)
    assert series["weight_kg"]["minimum"] == 0
    assert (series["rest_seconds"]["minimum"], series["rest_seconds"]["maximum"]) == (0, 600)


# -- search_exercises --------------------------------------------------------------------------


def test_search_ignores_case_and_accents(coach: Harness) -> None:
    """A query finds names in any language regardless of case and accents."""
    found = coach.ok("search_exercises", {"query": "PRESS DE BANCA"})["exercises"]
    assert "barbell_bench_press" in [e["id"] for e in found]
    pt = coach.ok("search_exercises", {"query": "supino"})["exercises"]
    assert "barbell_bench_press" in [e["id"] for e in pt]
    squats = coach.ok("search_exercises", {"query": "sentadilla bulgara"})["exercises"]
    assert [e["id"] for e in squats] == ["bulgarian_split_squat"]


def test_search_returns_localized_rows(coach: Harness) -> None:
    """Each exercise has its id, name and description in the turn's language, and its tags."""
    found = coach.ok("search_exercises", {"query": "plank"}, lang="pt")["exercises"]
    plank = next(e for e in found if e["id"] == "plank")
    table = catalog.exercises()["plank"]
    assert plank == {
        "id": "plank",
        "name": table.names["pt"],
        "muscle_group": table.muscle_group,
        "equipment": table.equipment,
        "difficulty": table.difficulty,
        "description": table.description["pt"],
    }


def test_search_filters_and_limit(coach: Harness) -> None:
    """Filters all hold; at most 15 come back, with the total number of matches."""
    data = coach.ok("search_exercises", {"muscle_group": "chest", "equipment": "dumbbell"})
    assert data["exercises"]
    assert all(
        (e["muscle_group"], e["equipment"]) == ("chest", "dumbbell") for e in data["exercises"]
    )
    everything = coach.ok("search_exercises", {})
    assert len(everything["exercises"]) == 15
    assert everything["total_matches"] == len(catalog.exercises())


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"muscle_group": "pecho"}, "muscle_group"),
        ({"equipment": "smith"}, "equipment"),
        ({"query": 7}, "query"),
        ({"difficulty": "beginner"}, "difficulty"),
    ],
)
def test_search_rejects_bad_arguments(
    coach: Harness, arguments: dict[str, Any], field: str
) -> None:
    """Values outside the data's enums and unknown fields are refused before running."""
    error, executed = coach.error("search_exercises", arguments)
    assert (error.code, executed, error.details[0].field) == ("invalid_arguments", False, field)


def test_search_read_fault_is_unavailable(sqlite_url: str) -> None:
    """An injected read failure is `unavailable`, choose_alternative."""
    harness = _harness(sqlite_url, Faults({"search_exercises": "read_error"}))
    error, _ = harness.error("search_exercises", {})
    assert (error.code, error.recovery.value) == ("unavailable", "choose_alternative")
    harness.db.close()


# -- routines ----------------------------------------------------------------------------------


def test_no_routines_is_an_empty_list(coach: Harness) -> None:
    """Before any routine is saved, read_routines succeeds with an empty list."""
    assert coach.ok("read_routines", {}) == {"routines": []}


def test_create_then_read_a_routine(coach: Harness) -> None:
    """A created routine comes back with its exercises and series in order, named in lang."""
    saved = coach.ok("create_routine", _routine(), lang="en")
    table = catalog.exercises()
    assert saved == {
        "name": "Pierna A",
        "category": "strength",
        "exercises": [
            {
                "exercise_id": "back_squat",
                "name": table["back_squat"].names["en"],
                "muscle_group": table["back_squat"].muscle_group,
                "series": [_series(5, 100.0, 180), _series(5, 100.0, 180)],
            },
            {
                "exercise_id": "romanian_deadlift",
                "name": table["romanian_deadlift"].names["en"],
                "muscle_group": table["romanian_deadlift"].muscle_group,
                "series": [_series(8, 70.5, 120)],
            },
            {
                "exercise_id": "plank",
                "name": table["plank"].names["en"],
                "muscle_group": table["plank"].muscle_group,
                "series": [_series(1, 0.0, 60)],
            },
        ],
    }
    assert coach.ok("read_routines", {}, lang="en") == {"routines": [saved]}
    assert coach.rows() == (1, 3, 4)


def test_unknown_exercise_is_not_found_and_named(coach: Harness) -> None:
    """Unknown exercise ids are not_found / choose_alternative naming each; nothing saved."""
    exercises = [
        {"exercise_id": "back_squat", "series": [_series()]},
        {"exercise_id": "moon_jump", "series": [_series()]},
        {"exercise_id": "sky_press", "series": [_series()]},
    ]
    error, executed = coach.error("create_routine", _routine(exercises=exercises))
    assert (error.code, error.recovery.value, executed) == ("not_found", "choose_alternative", True)
    assert "moon_jump" in error.message
    assert "sky_press" in error.message
    assert "back_squat" not in error.message
    assert "search_exercises" in error.message
    assert coach.rows() == (0, 0, 0)


def test_a_name_is_used_once(coach: Harness) -> None:
    """A second routine whose name differs only in case or accents is a conflict."""
    coach.ok("create_routine", _routine(name="Pierna día 1"))
    error, _ = coach.error("create_routine", _routine(name="  PIERNA DIA 1 "))
    assert (error.code, error.recovery.value) == ("conflict", "choose_alternative")
    assert "read_routines" in error.message
    assert coach.rows() == (1, 3, 4)
    assert [r["name"] for r in coach.ok("read_routines", {})["routines"]] == ["Pierna día 1"]


def _one_series(**values: Any) -> dict[str, Any]:
    return _routine(exercises=[{"exercise_id": "push_up", "series": [{**_series(), **values}]}])


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        (_routine(exercises=[]), "exercises"),
        (_routine(exercises=[{"exercise_id": "push_up", "series": []}]), "exercises.0.series"),
        (_routine(exercises=[{"exercise_id": "push_up"}]), "exercises.0.series"),
        (_routine(category="yoga"), "category"),
        (_routine(name="   "), "name"),
        (_one_series(reps=0), "exercises.0.series.0.reps"),
        (_one_series(reps=101), "exercises.0.series.0.reps"),
        (_one_series(reps="10"), "exercises.0.series.0.reps"),
        (_one_series(reps=10.5), "exercises.0.series.0.reps"),
        (_one_series(weight_kg=-2.5), "exercises.0.series.0.weight_kg"),
        (_one_series(weight_kg="60kg"), "exercises.0.series.0.weight_kg"),
        (_one_series(rest_seconds=601), "exercises.0.series.0.rest_seconds"),
        (_one_series(tempo="3-1-1"), "exercises.0.series.0.tempo"),
        (_routine(notes="x"), "notes"),
    ],
)
def test_create_rejects_bad_arguments_without_running(
    coach: Harness, arguments: dict[str, Any], field: str
) -> None:
    """Schema failures (also nested) are invalid_arguments naming the field; nothing saved."""
    error, executed = coach.error("create_routine", arguments)
    assert (error.code, error.recovery.value, executed) == (
        "invalid_arguments",
        "correct_arguments",
        False,
    )
    assert field in [d.field for d in error.details]
    assert coach.rows() == (0, 0, 0)
    assert coach.db.query("SELECT COUNT(*) FROM sf_ledger")[0][0] == 0


def test_failure_before_commit_saves_no_part(sqlite_url: str) -> None:
    """A create failing inside its transaction leaves no routine, exercise or series."""
    harness = _harness(sqlite_url, Faults({"create_routine": "before_commit"}))
    error, _ = harness.error("create_routine", _routine())
    assert (error.code, error.recovery.value) == ("not_applied", "stop_turn")
    assert harness.rows() == (0, 0, 0)
    harness.db.close()


def test_lost_acknowledgement_keeps_one_routine(sqlite_url: str) -> None:
    """After commit the ledger proves the routine was saved: success, saved once."""
    harness = _harness(sqlite_url, Faults({"create_routine": "after_commit"}))
    assert harness.ok("create_routine", _routine())["name"] == "Pierna A"
    assert harness.rows() == (1, 3, 4)
    harness.db.close()


def test_read_routines_fault_is_unavailable(sqlite_url: str) -> None:
    """An injected read failure is `unavailable`, never an empty list."""
    harness = _harness(sqlite_url, Faults({"read_routines": "read_error"}))
    error, _ = harness.error("read_routines", {})
    assert error.code == "unavailable"
    harness.db.close()


# -- the store, on both databases --------------------------------------------------------------


def test_routines_round_trip_per_user(db_url: str) -> None:
    """Routines keep their order, exercises and series, per user (SQLite and PostgreSQL)."""
    db = open_database(db_url)
    ana, bea = GymStore(db, user="ana"), GymStore(db, user="bea")
    with ana.transaction() as tx:
        first = ana.create_routine(tx, "Empuje", "hypertrophy", [("push_up", [(12, 0.0, 60)])])
        second = ana.create_routine(
            tx, "Tirón", "strength", [("pull_up", [(5, 10.0, 120), (4, 10.0, 120)])]
        )
        taken = ana.create_routine(tx, "EMPUJE", "cardio", [("burpee", [(10, 0.0, 30)])])
        other = bea.create_routine(tx, "Empuje", "cardio", [("burpee", [(10, 0.0, 30)])])
    assert first is not None
    assert second is not None
    assert other is not None
    assert taken is None
    assert [(r["name"], r["category"]) for r in ana.routines()] == [
        ("Empuje", "hypertrophy"),
        ("Tirón", "strength"),
    ]
    assert ana.routines(second)[0]["exercises"] == [
        {
            "exercise_id": "pull_up",
            "series": [
                {"reps": 5, "weight_kg": 10.0, "rest_seconds": 120},
                {"reps": 4, "weight_kg": 10.0, "rest_seconds": 120},
            ],
        }
    ]
    assert [r["category"] for r in bea.routines()] == ["cardio"]
    db.close()


def test_delete_all_removes_routines_and_their_parts(db_url: str) -> None:
    """Deleting a user's data removes their routines, exercises and series, and meal items."""
    db = open_database(db_url)
    ana, bea = GymStore(db, user="ana"), GymStore(db, user="bea")
    with ana.transaction() as tx:
        ana.create_routine(tx, "Empuje", "hypertrophy", [("push_up", [(12, 0.0, 60)])])
        bea.create_routine(tx, "Empuje", "hypertrophy", [("push_up", [(12, 0.0, 60)])])
        ana.add_meal_item(tx, dt.date(2020, 1, 2), "lunch", "rolled_oats", 50)
    ana.delete_all()
    assert ana.routines() == []
    assert ana.meal_items(dt.date(2020, 1, 2)) == []
    assert len(bea.routines()) == 1
    counts = [
        db.query(f"SELECT COUNT(*) FROM {table}")[0][0]
        for table in ("gym_routine_exercises", "gym_routine_series")
    ]
    assert counts == [1, 1]
    db.close()
