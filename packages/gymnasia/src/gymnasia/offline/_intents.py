"""What the offline model understood: one intent, or what it understood and what stops it.

An intent carries every value it will send, already read whole and checked against the tools'
ranges; ``Unclear`` says which action was understood and which problem keeps it from acting
(the model then asks back and writes nothing).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Final, Literal

Action = Literal[
    "save_measurement",
    "save_goal",
    "delete_measurement",
    "read_measurement",
    "list_measurements",
    "save_note",
    "read_note",
    "delete_note",
    "read_meal",
    "add_food",
    "search_foods",
    "search_exercises",
    "create_routine",
    "suggest_feature",
    "several",
]
Problem = Literal[
    "number_ambiguous",
    "number_malformed",
    "number_negative",
    "out_of_range",
    "date_bad",
    "date_missing",
    "date_future",
    "date_old",
    "date_many",
    "year_missing",
    "date_vague",
    "unit_missing",
    "unit_wrong",
    "field_missing",
    "value_missing",
    "value_many",
    "negated",
    "conditional",
    "mixed",
    "value_in_delete",
    "meal_missing",
    "meal_ambiguous",
    "meal_many",
    "grams_missing",
    "food_missing",
    "key_missing",
    "note_value_missing",
    "routine_name_missing",
    "category_missing",
    "exercises_missing",
    "series_missing",
    "load_missing",
    "rest_missing",
    "filter_unsupported",
    "title_missing",
    "not_measured",
    "not_yours",
    "intention",
    "not_stated",
    "multiplied",
    "partial",
    "not_yours_meal",
    "load_qualified",
    "number_extra",
]
NEEDS_FIELD: Final = frozenset({"out_of_range", "unit_missing", "unit_wrong", "value_many"})
"""Problems that are about one named value (a field, the grams, a series' reps ...)."""
WRITE_ACTIONS: Final = frozenset(
    {
        "save_measurement",
        "save_goal",
        "delete_measurement",
        "save_note",
        "delete_note",
        "add_food",
        "create_routine",
        "several",
    }
)


@dataclass(frozen=True, slots=True)
class Unclear:
    """An action understood, and the problem that keeps the model from acting on it."""

    action: Action
    problem: Problem
    subject: str = ""
    field: str | None = None

    def __post_init__(self) -> None:
        if self.problem in NEEDS_FIELD and self.field is None:
            msg = f"the problem {self.problem!r} is about a value: give its field"
            raise ValueError(msg)


@dataclass(frozen=True, slots=True)
class ReadMeasurement:
    """Read one date; ``fallback``: read this date too when the first has no record."""

    date: dt.date
    fields: tuple[str, ...] = ()
    fallback: dt.date | None = None
    values_given: bool = False
    """The message also had a value (as if to save it): the reply says nothing was saved."""
    kind: Literal["read_measurement"] = "read_measurement"


@dataclass(frozen=True, slots=True)
class ListMeasurements:
    """List the measurements of a date range (both included)."""

    start: dt.date
    end: dt.date
    fields: tuple[str, ...] = ()
    values_given: bool = False
    kind: Literal["list_measurements"] = "list_measurements"


@dataclass(frozen=True, slots=True)
class SaveMeasurement:
    """Save these fields (tool units: kg, %, cm) for one date; ``written`` is what the user
    wrote for each field, when a unit was converted."""

    date: dt.date
    values: tuple[tuple[str, float], ...]
    written: tuple[tuple[str, str], ...] = ()
    kind: Literal["save_measurement"] = "save_measurement"


@dataclass(frozen=True, slots=True)
class ReadGoals:
    """Read the user's goals (one per measure)."""

    kind: Literal["read_goals"] = "read_goals"


@dataclass(frozen=True, slots=True)
class SaveGoal:
    """Save the goal of one measure (tool units), by a date after today or with none."""

    measure: str
    target: float
    by_date: dt.date | None = None
    kind: Literal["save_goal"] = "save_goal"


@dataclass(frozen=True, slots=True)
class DeleteMeasurement:
    """Delete one date's whole record (a person confirms it), or, when ``fields`` names some,
    empty only those fields of it."""

    date: dt.date
    fields: tuple[str, ...] = ()
    kind: Literal["delete_measurement"] = "delete_measurement"


@dataclass(frozen=True, slots=True)
class SaveNote:
    """Save a memory note: its key and its value, verbatim."""

    key: str
    value: str
    kind: Literal["save_note"] = "save_note"


@dataclass(frozen=True, slots=True)
class ReadNote:
    """Read one memory note."""

    key: str
    kind: Literal["read_note"] = "read_note"


@dataclass(frozen=True, slots=True)
class ListNotes:
    """List the memory notes' keys."""

    kind: Literal["list_notes"] = "list_notes"


@dataclass(frozen=True, slots=True)
class DeleteNote:
    """Delete one memory note (a person confirms it)."""

    key: str
    kind: Literal["delete_note"] = "delete_note"


@dataclass(frozen=True, slots=True)
class SuggestFeature:
    """Open a feature request."""

    title: str
    description: str
    kind: Literal["suggest_feature"] = "suggest_feature"


@dataclass(frozen=True, slots=True)
class ReadMeals:
    """Read these meals of one date (all five when the user named none)."""

    date: dt.date
    meals: tuple[str, ...]
    values_given: bool = False
    kind: Literal["read_meals"] = "read_meals"


@dataclass(frozen=True, slots=True)
class AddFood:
    """Log grams of a food (found by ``query`` in the food table) in a meal of a date, and
    of each food in ``more`` (its query and grams: "150 g de lentejas y 100 g de arroz")."""

    date: dt.date
    meal: str
    query: str
    grams: float
    more: tuple[tuple[str, float], ...] = ()
    kind: Literal["add_food"] = "add_food"

    @property
    def foods(self) -> tuple[tuple[str, float], ...]:
        """Every food to log, in the order said: its query and grams."""
        return ((self.query, self.grams), *self.more)


@dataclass(frozen=True, slots=True)
class SearchFoods:
    """Search the food table with these arguments."""

    arguments: tuple[tuple[str, Any], ...]
    kind: Literal["search_foods"] = "search_foods"


@dataclass(frozen=True, slots=True)
class SearchExercises:
    """Search the exercise table with these arguments."""

    arguments: tuple[tuple[str, str], ...]
    kind: Literal["search_exercises"] = "search_exercises"


@dataclass(frozen=True, slots=True)
class ReadRoutines:
    """List the user's routines."""

    kind: Literal["read_routines"] = "read_routines"


@dataclass(frozen=True, slots=True)
class RoutineStep:
    """One exercise of a routine to create: found by ``query``; ``sets`` equal series."""

    query: str
    sets: int
    reps: int
    weight_kg: float
    rest_seconds: int


@dataclass(frozen=True, slots=True)
class CreateRoutine:
    """Create a routine: find each exercise, then save it."""

    name: str
    category: str
    steps: tuple[RoutineStep, ...]
    kind: Literal["create_routine"] = "create_routine"


Intent = (
    ReadMeasurement
    | ListMeasurements
    | SaveMeasurement
    | SaveGoal
    | ReadGoals
    | DeleteMeasurement
    | SaveNote
    | ReadNote
    | ListNotes
    | DeleteNote
    | SuggestFeature
    | ReadMeals
    | AddFood
    | SearchFoods
    | SearchExercises
    | ReadRoutines
    | CreateRoutine
)
