"""What ``gymnasia export`` writes, read back: the file's shape checked whole before anything
is written, so ``gymnasia import`` either takes all of it or none of it.

The checks are the tools' own (the same ranges, meal ids, routine categories, calendar
dates and date rules of ``gymnasia.rules``, and every food and exercise id must be in the
catalogue, as ``meals add`` and ``create_routine`` require), plus what one user's data cannot
hold twice: a date's measurement, a note's key, a routine's name (compared without case or
accents).

``read_source`` reads the file itself with a bound: at most ``MAX_IMPORT_BYTES``, and only a
regular file (a device such as ``/dev/zero`` or a FIFO is refused without reading from it).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
import sys
from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from surefoot import CalendarDate, Lang

from . import catalog
from .catalog import fold
from .meals import MealId
from .rules import AMOUNT_LIMITS, MEASUREMENT_LIMITS, date_problem, oldest_date
from .texts import t
from .tools import BodyFat, Girth, Height, Key, MeasurementField, Text, Weight
from .training import MAX_EXERCISES, RoutineCategory

MAX_IMPORT_BYTES: Final = 64 * 1024 * 1024
"""The largest file ``import`` reads (64 MiB): a century of daily measurements and meals is a
few MiB; anything larger is not an export."""

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
    grams: Annotated[float, Field(ge=AMOUNT_LIMITS["grams"][0], le=AMOUNT_LIMITS["grams"][1])]


class SeriesRow(_Strict):
    reps: Annotated[int, Field(ge=AMOUNT_LIMITS["reps"][0], le=AMOUNT_LIMITS["reps"][1])]
    weight_kg: Annotated[float, Field(ge=AMOUNT_LIMITS["load"][0], le=AMOUNT_LIMITS["load"][1])]
    rest_seconds: Annotated[int, Field(ge=AMOUNT_LIMITS["rest"][0], le=AMOUNT_LIMITS["rest"][1])]


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


def read_source(file: str, lang: Lang) -> str:
    """The text of ``file`` (``-``: standard input), read with a bound; raises ``ExportError``
    (an ``import_unreadable`` line) for a file that is not regular, too large, or unreadable."""
    if file == "-":
        try:
            return _bounded(sys.stdin.read(MAX_IMPORT_BYTES + 1), file, lang)
        except (OSError, UnicodeDecodeError) as exc:
            raise _unreadable(lang, file, type(exc).__name__) from None
    try:
        handle = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise _unreadable(lang, file, exc.strerror or type(exc).__name__) from None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            raise _unreadable(lang, file, t(lang, "import_not_regular"))
        if info.st_size > MAX_IMPORT_BYTES:
            raise _unreadable(lang, file, _too_large(lang))
        with os.fdopen(handle, "rb", closefd=False) as stream:
            data = stream.read(MAX_IMPORT_BYTES + 1)
    except OSError as exc:
        raise _unreadable(lang, file, exc.strerror or type(exc).__name__) from None
    finally:
        os.close(handle)
    try:
        return _bounded(data.decode("utf-8"), file, lang)
    except UnicodeDecodeError:
        raise _unreadable(lang, file, "UnicodeDecodeError") from None


def _bounded(text: str, file: str, lang: Lang) -> str:
    if len(text) > MAX_IMPORT_BYTES:
        raise _unreadable(lang, file, _too_large(lang))
    return text


def _too_large(lang: Lang) -> str:
    return t(lang, "import_too_large", mib=MAX_IMPORT_BYTES // (1024 * 1024))


def _unreadable(lang: Lang, file: str, reason: str) -> ExportError:
    return ExportError(t(lang, "import_unreadable", file=file, reason=reason))


def read_export(text: str, lang: Lang, today: dt.date | None = None) -> ExportFile:
    """The export in ``text``, checked whole against the rules of ``today`` (default: the
    clock's); raises ``ExportError`` naming the first problem."""
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
    _references(lang, data)
    _dates(lang, data, today or dt.date.today())  # noqa: DTZ011 - a calendar date
    return data


def _references(lang: Lang, data: ExportFile) -> None:
    """Every food and exercise id names a row of the catalogue (as ``meals add`` checks)."""
    foods, exercises = catalog.foods(), catalog.exercises()
    for i, meal in enumerate(data.meals):
        if meal.food_id not in foods:
            where = f"meals[{i}].food_id"
            raise ExportError(t(lang, "import_unknown_food", where=where, value=meal.food_id))
    for i, routine in enumerate(data.routines):
        for j, step in enumerate(routine.exercises):
            if step.exercise_id not in exercises:
                where = f"routines[{i}].exercises[{j}].exercise_id"
                message = t(lang, "import_unknown_exercise", where=where, value=step.exercise_id)
                raise ExportError(message)


def _dates(lang: Lang, data: ExportFile, today: dt.date) -> None:
    """Measurements and meals dated from ``oldest_date(today)`` to ``today``, as the tools
    require (``gymnasia.rules``)."""
    dated = [(f"measurements[{i}].date", m.date) for i, m in enumerate(data.measurements)]
    dated += [(f"meals[{i}].date", m.date) for i, m in enumerate(data.meals)]
    for where, day in dated:
        problem = date_problem(day, today)
        if problem is not None:
            facts = {"today": today.isoformat(), "oldest": oldest_date(today).isoformat()}
            message = t(lang, f"import_{problem}", where=where, date=day.isoformat(), **facts)
            raise ExportError(message)


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
