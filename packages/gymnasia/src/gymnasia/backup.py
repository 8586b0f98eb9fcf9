"""What ``gymnasia export`` writes, read back: the file's shape checked whole before anything
is written, so ``gymnasia import`` either takes all of it or none of it.

The checks are the tools' own (the same ranges, meal ids, routine categories and calendar
dates), plus what one user's data cannot hold twice: a date's measurement, a note's key, a
routine's name (compared without case or accents).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from surefoot import CalendarDate, Lang

from .catalog import fold
from .meals import MealId
from .rules import MEASUREMENT_LIMITS
from .texts import t
from .tools import BodyFat, Girth, Height, Key, MeasurementField, Text, Weight
from .training import MAX_EXERCISES, RoutineCategory

Id = Annotated[str, Field(min_length=1, max_length=100)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class MeasurementRow(_Strict):
    date: CalendarDate
    weight_kg: Weight | None = None
    body_fat_pct: BodyFat | None = None
    neck_cm: Girth | None = None
    chest_cm: Girth | None = None
    waist_cm: Girth | None = None
    hips_cm: Girth | None = None
    biceps_cm: Girth | None = None
    quadriceps_cm: Girth | None = None
    calf_cm: Girth | None = None
    height_cm: Height | None = None


class NoteRow(_Strict):
    key: Key
    description: Text
    value: Text


class MealRow(_Strict):
    date: CalendarDate
    meal: MealId
    food_id: Id
    grams: Annotated[float, Field(ge=1, le=5000)]


class SeriesRow(_Strict):
    reps: Annotated[int, Field(ge=1, le=100)]
    weight_kg: Annotated[float, Field(ge=0, le=1000)]
    rest_seconds: Annotated[int, Field(ge=0, le=600)]


class StepRow(_Strict):
    exercise_id: Id
    series: Annotated[list[SeriesRow], Field(max_length=20)]


class RoutineRow(_Strict):
    name: Name
    category: RoutineCategory
    exercises: Annotated[list[StepRow], Field(max_length=MAX_EXERCISES)]


class GoalRow(_Strict):
    measure: MeasurementField
    target: float
    by_date: CalendarDate | None = None

    def model_post_init(self, context: Any, /) -> None:
        low, high = MEASUREMENT_LIMITS[self.measure]
        if not low <= self.target <= high:
            msg = f"target {self.target} is outside {low}..{high}"
            raise ValueError(msg)


class ExportFile(_Strict):
    """One user's data as ``export`` writes it (``user`` names whose it was)."""

    user: Annotated[str, Field(max_length=200)]
    measurements: list[MeasurementRow]
    memory: list[NoteRow]
    meals: list[MealRow]
    routines: list[RoutineRow]
    goals: list[GoalRow] = []
    """Absent from exports made before goals had a table of their own."""

    def rows(self) -> dict[str, list[dict[str, Any]]]:
        """The records as ``GymStore.import_all`` takes them."""
        return {
            "measurements": [m.model_dump(mode="json") for m in self.measurements],
            "memory": [n.model_dump() for n in self.memory],
            "meals": [m.model_dump(mode="json") for m in self.meals],
            "routines": [r.model_dump() for r in self.routines],
            "goals": [g.model_dump(mode="json") for g in self.goals],
        }


class ExportError(ValueError):
    """The file is not an export ``import`` can take; ``problem`` says where, in a language."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def read_export(text: str, lang: Lang) -> ExportFile:
    """The export in ``text``, checked whole; raises ``ExportError`` naming the first problem."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ExportError(t(lang, "import_not_json", line=exc.lineno)) from None
    try:
        data = ExportFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = _where(first.get("loc", ()))
        raise ExportError(f"{where}: {first.get('msg', '')}") from None
    _unique(lang, "measurements.date", [m.date.isoformat() for m in data.measurements], str)
    _unique(lang, "memory.key", [n.key for n in data.memory], str)
    _unique(lang, "routines.name", [r.name for r in data.routines], fold)
    _unique(lang, "goals.measure", [g.measure for g in data.goals], str)
    return data


def _where(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "$"


def _unique(lang: Lang, what: str, values: list[str], key: Any) -> None:
    seen: set[str] = set()
    for value in values:
        folded = key(value)
        if folded in seen:
            raise ExportError(t(lang, "import_duplicate", what=what, value=value))
        seen.add(folded)
