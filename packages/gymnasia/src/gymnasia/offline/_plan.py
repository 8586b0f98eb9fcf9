"""Planning: from an intent and the outcomes so far in this turn, the next step.

A step is either tool calls (several reads may go in one step) or the final reply. Planning is
a pure function of the intent and the outcomes, so the same turn replays the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, assert_never

from surefoot import Outcome, Recovery, ToolError
from surefoot.messages import ToolCall

from .. import catalog
from ._intents import (
    AddFood,
    CreateRoutine,
    DeleteMeasurement,
    DeleteNote,
    Intent,
    ListMeasurements,
    ListNotes,
    ReadGoals,
    ReadMeals,
    ReadMeasurement,
    ReadNote,
    ReadRoutines,
    SaveGoal,
    SaveMeasurement,
    SaveNote,
    SearchExercises,
    SearchFoods,
    SuggestFeature,
)
from ._replies import Replies
from ._words import FUNCTION_WORDS

Results = Sequence[tuple[ToolCall, Outcome]]


@dataclass(frozen=True, slots=True)
class Say:
    """The final reply of the turn."""

    text: str


@dataclass(frozen=True, slots=True)
class Call:
    """Tool calls to make next, in order."""

    calls: tuple[tuple[str, dict[str, Any]], ...]


Step = Say | Call


def _one(name: str, arguments: dict[str, Any]) -> Call:
    return Call(((name, arguments),))


def plan(intent: Intent, results: Results, say: Replies) -> Step:
    """The next step for ``intent``, given this turn's outcomes so far."""
    if isinstance(intent, ReadMeasurement | ListMeasurements | ReadMeals):
        return _looked_up(intent, results, say)
    if isinstance(intent, SaveMeasurement):
        return _measurements(intent, results, say)
    if isinstance(intent, DeleteMeasurement):
        return _delete(intent, results, say)
    if isinstance(intent, SaveGoal):
        if not results:
            arguments: dict[str, Any] = {"measure": intent.measure, "target": intent.target}
            if intent.by_date is not None:
                arguments["by_date"] = intent.by_date.isoformat()
            return _one("save_goal", arguments)
        return Say(say.goal_saved(results[-1][1]))
    if isinstance(intent, ReadGoals):
        return _one("read_goals", {}) if not results else Say(say.goals(results[-1][1]))
    if isinstance(intent, SaveNote | ReadNote | ListNotes | DeleteNote | SuggestFeature):
        return _memory(intent, results, say)
    return _diet_and_training(intent, results, say)


def _looked_up(
    intent: ReadMeasurement | ListMeasurements | ReadMeals, results: Results, say: Replies
) -> Step:
    """A read; when the message also gave a value (as if to save it), the reply says that
    nothing was saved."""
    if isinstance(intent, ReadMeals):
        step = _diet_and_training(intent, results, say)
    else:
        step = _measurements(intent, results, say)
    if isinstance(step, Say) and intent.values_given:
        return Say(f"{step.text} {say.t('offline_read_not_saved')}")
    return step


# -- measurements ------------------------------------------------------------------------------


def _measurements(
    intent: ReadMeasurement | ListMeasurements | SaveMeasurement, results: Results, say: Replies
) -> Step:
    last = results[-1][1] if results else None
    match intent:
        case ReadMeasurement():
            return _read(intent, results, say)
        case ListMeasurements(start=start, end=end, fields=fields):
            if last is None:
                arguments = {"date_from": start.isoformat(), "date_to": end.isoformat()}
                return _one("list_measurements", arguments)
            return Say(say.listed(start.isoformat(), end.isoformat(), last, fields))
        case SaveMeasurement(date=date, values=values):
            if last is None:
                return _one("write_measurement", {"date": date.isoformat(), **dict(values)})
            return Say(say.saved(intent, last))
        case _:
            assert_never(intent)


def _delete(intent: DeleteMeasurement, results: Results, say: Replies) -> Step:
    """Empty the fields named, or delete the record; when emptying them would leave the record
    with no value at all, the tool says so and the whole record goes (a person confirms it)."""
    date = intent.date.isoformat()
    if not results:
        if intent.fields:
            return _one("edit_measurement", {"date": date, "clear": list(intent.fields)})
        return _one("delete_measurement", {"date": date})
    last = results[-1][1]
    if len(results) == 1 and intent.fields and _would_be_empty(last):
        return _one("delete_measurement", {"date": date})
    fields = intent.fields if results[-1][0].name == "edit_measurement" else ()
    return Say(say.deleted(date, fields, last))


def _would_be_empty(outcome: Outcome) -> bool:
    return (
        isinstance(outcome, ToolError)
        and outcome.code == "invalid_arguments"
        and any(detail.field == "clear" for detail in outcome.details)
    )


def _read(intent: ReadMeasurement, results: Results, say: Replies) -> Step:
    first = intent.date.isoformat()
    if not results:
        return _one("read_measurement", {"date": first})
    outcome = results[0][1]
    wants_alternative = (
        isinstance(outcome, ToolError) and outcome.recovery is Recovery.CHOOSE_ALTERNATIVE
    )
    if intent.fallback is not None and len(results) == 1 and wants_alternative:
        return _one("read_measurement", {"date": intent.fallback.isoformat()})
    parts = [say.read(first, outcome, intent.fields)]
    if intent.fallback is not None and len(results) > 1:
        parts.append(say.read(intent.fallback.isoformat(), results[1][1], intent.fields))
    return Say(" ".join(parts))


# -- memory and feature requests ---------------------------------------------------------------


def _memory(
    intent: SaveNote | ReadNote | ListNotes | DeleteNote | SuggestFeature,
    results: Results,
    say: Replies,
) -> Step:
    last = results[-1][1] if results else None
    match intent:
        case SaveNote(key=key, value=value):
            if last is None:
                return _one("save_memory", {"key": key, "description": key, "value": value})
            return Say(say.note_saved(key, last))
        case ReadNote(key=key):
            return _one("read_memory", {"key": key}) if last is None else Say(say.note(key, last))
        case DeleteNote(key=key):
            if last is None:
                return _one("delete_memory", {"key": key})
            return Say(say.note_deleted(key, last))
        case ListNotes():
            return _one("list_memory_keys", {}) if last is None else Say(say.keys(last))
        case SuggestFeature(title=title, description=description):
            if last is None:
                arguments = {"title": title, "description": description}
                return _one("create_feature_issue", arguments)
            return Say(say.feature(last))
        case _:
            assert_never(intent)


# -- diet and training -------------------------------------------------------------------------


def _diet_and_training(
    intent: ReadMeals | AddFood | SearchFoods | SearchExercises | ReadRoutines | CreateRoutine,
    results: Results,
    say: Replies,
) -> Step:
    last = results[-1][1] if results else None
    match intent:
        case ReadMeals(date=date, meals=meals):
            if last is None:
                return Call(
                    tuple(("read_meal", {"date": date.isoformat(), "meal": m}) for m in meals)
                )
            named = len(meals) < 5
            return Say(say.meals(date.isoformat(), [o for _, o in results], named=named))
        case AddFood():
            return _add_food(intent, results, say)
        case SearchFoods(arguments=arguments):
            if last is None:
                return _one("search_foods", dict(arguments))
            return Say(say.foods(last, dict(arguments).get("sort_by")))
        case SearchExercises(arguments=arguments):
            if last is None:
                return _one("search_exercises", dict(arguments))
            return Say(say.exercises(last))
        case ReadRoutines():
            return _one("read_routines", {}) if last is None else Say(say.routines(last))
        case CreateRoutine():
            return _create_routine(intent, results, say)
        case _:
            assert_never(intent)


def _add_food(intent: AddFood, results: Results, say: Replies) -> Step:
    """Each food in turn: search it, then log it (a search that finds no single food, or a
    log that fails, ends the turn saying so, after what was logged before it)."""
    foods = intent.foods
    done = [
        say.food_added(grams, results[2 * k + 1][1])
        for k, (_, grams) in enumerate(foods)
        if 2 * k + 1 < len(results)
    ]
    logged = len(results) % 2 == 0 and bool(results)  # the last call was a log
    if logged and (len(results) == 2 * len(foods) or isinstance(results[-1][1], ToolError)):
        return Say(" ".join(done))
    query, grams = foods[len(results) // 2]
    if len(results) % 2 == 0:
        return _one("search_foods", {"query": query})
    picked = pick(results[-1][1], query, "foods", say)
    if isinstance(picked, Say):
        return Say(" ".join([*done, picked.text]))
    arguments = {
        "date": intent.date.isoformat(),
        "meal": intent.meal,
        "food_id": picked,
        "grams": grams,
    }
    return _one("add_meal_food", arguments)


def _create_routine(intent: CreateRoutine, results: Results, say: Replies) -> Step:
    steps = intent.steps
    if not results:
        return Call(tuple(("search_exercises", {"query": s.query}) for s in steps))
    if len(results) > len(steps):
        return Say(say.routine_created(results[-1][1]))
    exercises = []
    for step, (_, outcome) in zip(steps, results, strict=True):
        picked = pick(outcome, step.query, "exercises", say)
        if isinstance(picked, Say):
            return picked
        series = {"reps": step.reps, "weight_kg": step.weight_kg, "rest_seconds": step.rest_seconds}
        exercises.append({"exercise_id": picked, "series": [series] * step.sets})
    arguments = {"name": intent.name, "category": intent.category, "exercises": exercises}
    return _one("create_routine", arguments)


# -- picking one row of a search ---------------------------------------------------------------


def _words(text: str) -> tuple[str, ...]:
    cleaned = "".join(ch if ch.isalnum() else " " for ch in catalog.fold(text))
    return tuple(w for w in cleaned.split() if w not in FUNCTION_WORDS)


def _names(kind: str, row_id: str) -> list[str]:
    table = catalog.foods() if kind == "foods" else catalog.exercises()
    row = table.get(row_id)
    spelled = [row_id.replace("_", " ")]
    return spelled + list(row.names.values()) if row is not None else spelled


def pick(outcome: Outcome, query: str, kind: str, say: Replies) -> str | Say:
    """The one row a search found for ``query``: the only match, or the one whose name (in any
    language) or id is exactly the query. Otherwise the reply that asks which, or says none."""
    noun = "food" if kind == "foods" else "exercise"
    if isinstance(outcome, ToolError):
        return Say(say.t("tool_trouble", why=say.why(outcome)))
    rows = outcome.data.get(kind) or []
    if not rows:
        return Say(say.none_found(noun, query))
    if len(rows) == 1 and outcome.data.get("total_matches", 1) == 1:
        return str(rows[0]["id"])
    wanted = _words(query)
    exact = [r for r in rows if any(_words(n) == wanted for n in _names(kind, str(r["id"])))]
    if len(exact) == 1:
        return str(exact[0]["id"])
    options = [str(r.get("name", r["id"])) for r in rows[:6]]
    return Say(say.choose(noun, query, options))
