"""Training tools: the bundled exercise table and the user's routines."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal

from pydantic import Field, StringConstraints

from surefoot import Arguments, ErrorCode, Lang, Recovery, ToolContext, ToolError, ToolSet
from surefoot.sql import Tx

from . import catalog
from .faults import Faults
from .rules import AMOUNT_LIMITS
from .texts import t

if TYPE_CHECKING:
    from .store import GymStore
    from .tools import StoreOf

RoutineCategory = Literal["strength", "hypertrophy", "cardio", "flexibility"]
MAX_EXERCISES: Final = 30
_REPS, _LOAD, _REST = AMOUNT_LIMITS["reps"], AMOUNT_LIMITS["load"], AMOUNT_LIMITS["rest"]


class Series(Arguments):
    """One series."""

    reps: Annotated[int, Field(ge=_REPS[0], le=_REPS[1])]
    weight_kg: Annotated[float, Field(ge=_LOAD[0], le=_LOAD[1], description="Load; 0: bodyweight")]
    rest_seconds: Annotated[int, Field(ge=_REST[0], le=_REST[1])]


class RoutineExercise(Arguments):
    """One exercise and its series, in order."""

    exercise_id: Annotated[
        str, Field(min_length=1, max_length=100, description="From search_exercises")
    ]
    series: Annotated[list[Series], Field(min_length=1, max_length=int(AMOUNT_LIMITS["sets"][1]))]


RoutineName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
ExerciseId = Annotated[
    str, Field(min_length=1, max_length=100, description="From search_exercises")
]
RoutineRef = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=100),
    Field(description="Its current name"),
]
Position = Annotated[int, Field(ge=1, le=MAX_EXERCISES, description="From 1")]
Plan = list[tuple[str, list[tuple[int, float, int]]]]
Query = Annotated[str, Field(min_length=1, max_length=100, description="Name words, any language")]


def routine_json(routine: dict[str, Any], lang: Lang) -> dict[str, Any]:
    """A stored routine as the tools return it: exercise names from the table, in ``lang``."""
    table = catalog.exercises()
    steps = []
    for step in routine["exercises"]:
        known = table.get(step["exercise_id"])
        steps.append(
            {
                "exercise_id": step["exercise_id"],
                "name": known.name(lang) if known else None,
                "muscle_group": known.muscle_group if known else None,
                "series": step["series"],
            }
        )
    return {"name": routine["name"], "category": routine["category"], "exercises": steps}


def register_training_tools(tools: ToolSet, stores: StoreOf, faults: Faults) -> None:
    """Declare ``search_exercises``, ``read_routines``, ``create_routine`` and the routine
    edits (``rename_routine``, ``add_routine_exercise``, ``reorder_routine_exercises``, and
    ``remove_routine_exercise`` and ``delete_routine``, which a person confirms) on ``tools``."""

    @tools.tool
    def search_exercises(
        ctx: ToolContext,
        query: Query | None = None,
        muscle_group: catalog.MuscleGroup | None = None,
        equipment: catalog.Equipment | None = None,
    ) -> dict[str, Any]:
        """Search the exercise table: every filter given must hold; up to 15 exercises, and
        total_matches."""
        faults.on_read(ctx.tool)
        found, total = catalog.search_exercises(
            lang=ctx.lang, query=query, muscle_group=muscle_group, equipment=equipment
        )
        return {"exercises": [item.to_json(ctx.lang) for item in found], "total_matches": total}

    @tools.tool
    def read_routines(ctx: ToolContext) -> dict[str, Any]:
        """The user's saved training routines, with their exercises and series."""
        faults.on_read(ctx.tool)
        return {"routines": [routine_json(r, ctx.lang) for r in stores(ctx).routines()]}

    @tools.tool(effect="write", destructive=False, atomic=True)
    def create_routine(
        ctx: ToolContext,
        name: RoutineName,
        category: RoutineCategory,
        exercises: Annotated[list[RoutineExercise], Field(min_length=1, max_length=MAX_EXERCISES)],
    ) -> dict[str, Any] | ToolError:
        """Save a new training routine under a new name: its exercises in order, each with
        its series."""
        table = catalog.exercises()
        unknown = [e.exercise_id for e in exercises if e.exercise_id not in table]
        if unknown:
            return ToolError(
                "not_found",
                t(ctx.lang, "exercise_not_found", ids=", ".join(dict.fromkeys(unknown))),
                Recovery.CHOOSE_ALTERNATIVE,
            )
        plan = [
            (e.exercise_id, [(s.reps, s.weight_kg, s.rest_seconds) for s in e.series])
            for e in exercises
        ]
        store = stores(ctx)
        with store.transaction() as tx:
            routine_id = store.create_routine(tx, name, category, plan)
            if routine_id is None:
                message = t(ctx.lang, "routine_exists", name=name)
                return ToolError("conflict", message, Recovery.CHOOSE_ALTERNATIVE)
            saved = routine_json(store.routines(routine_id, tx=tx)[0], ctx.lang)
            faults.before_commit(ctx)
            ctx.commit_in(tx, saved)
        faults.after_commit(ctx)
        return saved

    _register_routine_edits(tools, stores, faults)


def plan_of(routine: dict[str, Any]) -> Plan:
    """A stored routine's exercises as ``create_routine`` and ``replace_routine_exercises``
    take them."""
    return [
        (
            step["exercise_id"],
            [(s["reps"], s["weight_kg"], s["rest_seconds"]) for s in step["series"]],
        )
        for step in routine["exercises"]
    ]


def moved(plan: Plan, order: list[int]) -> Plan | None:
    """``plan`` in the ``order`` given as its current positions (from 1), or None when
    ``order`` does not name each position exactly once."""
    if sorted(order) != list(range(1, len(plan) + 1)):
        return None
    return [plan[position - 1] for position in order]


class _Refused(Exception):  # noqa: N818 - carries the expected condition out of the transaction
    def __init__(self, code: str, message: str, recovery: Recovery) -> None:
        super().__init__(message)
        self.error = ToolError(code, message, recovery)


def _change(
    store: GymStore,
    faults: Faults,
    ctx: ToolContext,
    routine: str,
    edit: Callable[[Tx, int, dict[str, Any]], None],
    result: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> dict[str, Any] | ToolError:
    """Find ``routine``, let ``edit(tx, routine_id, stored)`` change it (or raise ``_Refused``:
    then nothing is written), and return the routine as saved (or ``result(stored)``)."""
    try:
        with store.transaction() as tx:
            routine_id = store.find_routine(routine, tx=tx)
            if routine_id is None:
                message = t(ctx.lang, "routine_not_found", name=routine)
                raise _Refused("not_found", message, Recovery.CHOOSE_ALTERNATIVE)
            stored = store.routines(routine_id, tx=tx)[0]
            edit(tx, routine_id, stored)
            if result is not None:
                saved = result(stored)
            else:
                saved = routine_json(store.routines(routine_id, tx=tx)[0], ctx.lang)
            faults.before_commit(ctx)
            ctx.commit_in(tx, saved)
    except _Refused as refused:
        return refused.error
    faults.after_commit(ctx)
    return saved


def _known(lang: Lang, exercise_id: str) -> None:
    if exercise_id not in catalog.exercises():
        message = t(lang, "exercise_unknown_change", ids=exercise_id)
        raise _Refused("not_found", message, Recovery.CHOOSE_ALTERNATIVE)


def _position_in(lang: Lang, stored: dict[str, Any], position: int) -> None:
    count = len(stored["exercises"])
    if position > count:
        message = t(
            lang, "routine_position_missing", name=stored["name"], count=count, position=position
        )
        raise _Refused("not_found", message, Recovery.CORRECT_ARGUMENTS)


def _register_routine_edits(tools: ToolSet, stores: StoreOf, faults: Faults) -> None:
    @tools.tool(effect="write", atomic=True)
    def rename_routine(
        ctx: ToolContext, routine: RoutineRef, new_name: RoutineName
    ) -> dict[str, Any] | ToolError:
        """Rename one of the user's routines (its exercises are kept)."""
        store = stores(ctx)

        def edit(tx: Tx, routine_id: int, stored: dict[str, Any]) -> None:
            del stored
            if not store.rename_routine(tx, routine_id, new_name):
                message = t(ctx.lang, "routine_name_taken", name=new_name)
                raise _Refused("conflict", message, Recovery.CHOOSE_ALTERNATIVE)

        return _change(store, faults, ctx, routine, edit)

    @tools.tool(effect="write", destructive=False, atomic=True)
    def add_routine_exercise(
        ctx: ToolContext,
        routine: RoutineRef,
        exercise_id: ExerciseId,
        series: Annotated[
            list[Series], Field(min_length=1, max_length=int(AMOUNT_LIMITS["sets"][1]))
        ],
        position: Annotated[Position | None, Field(description="From 1; default: last")] = None,
    ) -> dict[str, Any] | ToolError:
        """Add one exercise with its series to a routine, at the end or at a position (the
        ones from there move down)."""
        store = stores(ctx)

        def edit(tx: Tx, routine_id: int, stored: dict[str, Any]) -> None:
            _known(ctx.lang, exercise_id)
            plan = plan_of(stored)
            if len(plan) >= MAX_EXERCISES:
                message = t(ctx.lang, "routine_too_long", name=stored["name"], count=len(plan))
                raise _Refused(ErrorCode.INVALID_ARGUMENTS, message, Recovery.CHOOSE_ALTERNATIVE)
            if position is not None and position > len(plan) + 1:
                _position_in(ctx.lang, stored, position)
            step = (exercise_id, [(s.reps, s.weight_kg, s.rest_seconds) for s in series])
            at = len(plan) if position is None else position - 1
            store.replace_routine_exercises(tx, routine_id, [*plan[:at], step, *plan[at:]])

        return _change(store, faults, ctx, routine, edit)

    @tools.tool(effect="write", atomic=True)
    def reorder_routine_exercises(
        ctx: ToolContext,
        routine: RoutineRef,
        order: Annotated[
            list[Position],
            Field(
                min_length=1,
                max_length=MAX_EXERCISES,
                description="Each position once, in the new order: [3,1,2] puts the third first",
            ),
        ],
    ) -> dict[str, Any] | ToolError:
        """Put a routine's exercises in a new order (each keeps its series)."""
        store = stores(ctx)

        def edit(tx: Tx, routine_id: int, stored: dict[str, Any]) -> None:
            plan = moved(plan_of(stored), order)
            if plan is None:
                count = len(stored["exercises"])
                message = t(ctx.lang, "routine_order_invalid", name=stored["name"], count=count)
                raise _Refused(ErrorCode.INVALID_ARGUMENTS, message, Recovery.CORRECT_ARGUMENTS)
            store.replace_routine_exercises(tx, routine_id, plan)

        return _change(store, faults, ctx, routine, edit)

    _register_routine_removals(tools, stores, faults)


def _register_routine_removals(tools: ToolSet, stores: StoreOf, faults: Faults) -> None:
    @tools.tool(effect="write", confirm=True, atomic=True)
    def remove_routine_exercise(
        ctx: ToolContext, routine: RoutineRef, position: Position
    ) -> dict[str, Any] | ToolError:
        """Remove the exercise at one position from a routine; the ones after it move up (a
        person confirms)."""
        store = stores(ctx)

        def edit(tx: Tx, routine_id: int, stored: dict[str, Any]) -> None:
            _position_in(ctx.lang, stored, position)
            plan = plan_of(stored)
            if len(plan) == 1:
                message = t(ctx.lang, "routine_last_exercise", name=stored["name"])
                raise _Refused(ErrorCode.INVALID_ARGUMENTS, message, Recovery.CHOOSE_ALTERNATIVE)
            store.replace_routine_exercises(tx, routine_id, plan[: position - 1] + plan[position:])

        return _change(store, faults, ctx, routine, edit)

    @tools.tool(effect="write", confirm=True, atomic=True)
    def delete_routine(ctx: ToolContext, routine: RoutineRef) -> dict[str, Any] | ToolError:
        """Delete a whole routine (a person confirms)."""
        store = stores(ctx)

        def edit(tx: Tx, routine_id: int, stored: dict[str, Any]) -> None:
            del stored
            store.delete_routine(tx, routine_id)

        def result(stored: dict[str, Any]) -> dict[str, Any]:
            return {"deleted": routine_json(stored, ctx.lang)}

        return _change(store, faults, ctx, routine, edit, result)
