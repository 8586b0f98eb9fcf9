"""Training tools: the bundled exercise table and the user's routines."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from surefoot import Arguments, Lang, Recovery, ToolContext, ToolError, ToolSet

from . import catalog
from .faults import Faults
from .store import GymStore
from .texts import t

RoutineCategory = Literal["strength", "hypertrophy", "cardio", "flexibility"]


class Series(Arguments):
    """One series of an exercise."""

    reps: Annotated[int, Field(ge=1, le=100, description="Repetitions (1-100).")]
    weight_kg: Annotated[
        float, Field(ge=0, le=1000, description="Load in kg; 0 for bodyweight (0-1000).")
    ]
    rest_seconds: Annotated[
        int, Field(ge=0, le=600, description="Rest after this series, in seconds (0-600).")
    ]


class RoutineExercise(Arguments):
    """One exercise of a routine, with its series in order."""

    exercise_id: Annotated[
        str,
        Field(min_length=1, max_length=100, description="An exercise id from search_exercises."),
    ]
    series: Annotated[list[Series], Field(min_length=1, max_length=20)]


RoutineName = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=100),
    Field(description="The routine's name (unique among the user's routines)."),
]
Query = Annotated[
    str,
    Field(
        min_length=1,
        max_length=100,
        description="Words of the exercise's name in any language (case and accents ignored).",
    ),
]


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


def register_training_tools(tools: ToolSet, store: GymStore, faults: Faults) -> None:
    """Declare ``search_exercises``, ``read_routines`` and ``create_routine`` on ``tools``."""

    @tools.tool
    def search_exercises(
        ctx: ToolContext,
        query: Query | None = None,
        muscle_group: Annotated[
            catalog.MuscleGroup, Field(description="Only exercises for this muscle group.")
        ]
        | None = None,
        equipment: Annotated[
            catalog.Equipment, Field(description="Only exercises done with this equipment.")
        ]
        | None = None,
    ) -> dict[str, Any]:
        """Search the bundled exercise table. Every filter given must hold; at most 15
        exercises are returned, with total_matches telling how many matched. Use the ids with
        create_routine."""
        faults.on_read(ctx.tool)
        found, total = catalog.search_exercises(
            lang=ctx.lang, query=query, muscle_group=muscle_group, equipment=equipment
        )
        return {"exercises": [item.to_json(ctx.lang) for item in found], "total_matches": total}

    @tools.tool
    def read_routines(ctx: ToolContext) -> dict[str, Any]:
        """List the user's saved training routines, each with its exercises and series."""
        faults.on_read(ctx.tool)
        return {"routines": [routine_json(r, ctx.lang) for r in store.routines()]}

    @tools.tool(effect="write", atomic=True)
    def create_routine(
        ctx: ToolContext,
        name: RoutineName,
        category: Annotated[RoutineCategory, Field(description="What the routine trains for.")],
        exercises: Annotated[
            list[RoutineExercise],
            Field(min_length=1, max_length=30, description="The exercises, in order."),
        ],
    ) -> dict[str, Any] | ToolError:
        """Save a new training routine: its exercises in order, each with its series (reps,
        weight in kg, rest in seconds). Exercise ids come from search_exercises. A name the
        user already has is refused."""
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
