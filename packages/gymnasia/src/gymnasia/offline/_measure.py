"""Measurements: save fields for a date, read a date (with a fallback), list a range.

A value is saved only when everything about it was read whole: its number (no ambiguous
thousands separator, not negative), its unit (kg or lb for weight, % for body fat, cm, m or in
for girths and height; lb, m and in are converted), the field it belongs to, the tool's range
for that field, and exactly one date the tools accept. Anything less is ``Unclear``. The range
and the date rule are the tools' own (``gymnasia.rules``), asked here, never copied.

A goal ("quiero llegar a 74 kg", "my target weight is 70 kg") is saved as a goal, never as a
measurement: one value of one field, with no date or a date after today (its deadline).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal
from typing import Final

from ..rules import GIRTHS, MEASUREMENT_LIMITS, date_problem
from ..store import MEASUREMENT_FIELDS
from ._intents import (
    Action,
    DeleteMeasurement,
    Intent,
    ListMeasurements,
    Problem,
    ReadGoals,
    ReadMeasurement,
    SaveGoal,
    SaveMeasurement,
    Unclear,
)
from ._sentence import Quantity, Sentence

FIELDS: Final = MEASUREMENT_FIELDS
_LENGTH: Final[dict[str | None, Decimal]] = {
    "cm": Decimal(1),
    "m": Decimal(100),
    "in": Decimal("2.54"),
}
FACTORS: Final[dict[str, dict[str | None, Decimal]]] = {
    "weight_kg": {"kg": Decimal(1), "lb": Decimal("0.45359237")},
    "body_fat_pct": {"pct": Decimal(1), None: Decimal(1)},
    **dict.fromkeys(GIRTHS, _LENGTH),
    "height_cm": _LENGTH,
}
_IMPLIED: Final = {"kg": "weight_kg", "lb": "weight_kg", "pct": "body_fat_pct", "m": "height_cm"}
_MEASURING_UNITS: Final = frozenset({"kg", "lb", "cm", "m", "in", "pct"})
_TO: Final = frozenset({"a", "to", "para", "ate", "hasta"})
_LINK: Final = frozenset({"de", "of", "da", "do", "del"})
_STOP: Final = ",;"


def parse_measurements(s: Sentence) -> Intent | Unclear | None:
    """A measurement intent, if the message is about measurements."""
    measured = any(q.unit in _MEASURING_UNITS for q in s.quantities)
    plain, negated = s.actions(), s.actions(negated=True)
    if _reads_goals(s, plain, negated):
        return ReadGoals()
    if not (s.has("field") or s.has("noun", "measurement") or measured):
        return None
    conditional = {v.action for v in s.verbs if v.conditional and not v.negated}
    if "save" in plain and plain & {"read", "list", "delete"}:
        return Unclear("several", "mixed")
    if "delete" in plain:
        return _delete(s)
    if "delete" in negated:
        return Unclear("delete_measurement", "negated")
    if "save" in conditional or (measured and s.has("if")):
        return Unclear("save_measurement", "conditional")
    goal = _goal(s) if measured else None
    if goal is not None:
        return goal
    has_values = bool(s.quantities)
    if "save" in plain or (has_values and not plain and not negated and not s.is_question()):
        return not_asked(s, "save_measurement") or _save(s)
    if "save" in negated and has_values and not plain:
        return Unclear("save_measurement", "negated")
    return _read(s)


# -- saving ----------------------------------------------------------------------------------


_HEDGES: Final = frozenset(
    {"casi", "quase", "almost", "nearly", "about", "around", "aproximadamente", "approximately"}
    | {"unos", "unas", "uns", "umas", "roughly", "aprox", "approx", "cerca", "~"}
)


def not_asked(s: Sentence, action: Action) -> Unclear | None:
    """What keeps a write from being one the person asked for (None: nothing): a negation or a
    condition anywhere in the message ("hoy no peso 80 kg", "si hoy peso 80 kg avísame"), a
    wish or a hedge without a save verb ("quiero pesar 75 kg"), a lift, another person, a pet,
    an object or a purchase ("mi perro pesa 30 kg", "levanté 100 kg"), or a comparison or an
    approximation right before a value ("peso más de 80 kg")."""
    if s.has("neg"):
        negated_verb = any(v.negated for v in s.verbs)
        return Unclear(action, "negated" if negated_verb else "not_stated")
    if s.has("if") or s.has("cond"):
        return Unclear(action, "conditional")
    if s.has("wish") and "save" not in s.actions():
        return Unclear(action, "intention")
    if s.has("other"):
        return Unclear(action, "not_yours")
    for quantity in s.quantities:
        before = quantity.index - 1
        if before < 0:
            continue
        item = s.items[before]
        if (item.means("compare") and item.norm not in _TO) or item.norm in _HEDGES:
            return Unclear(action, "not_measured")
    return None


def _save(s: Sentence) -> SaveMeasurement | Unclear:
    if s.has("goal") or any(not _reaches(s, i) for i in s.where("delta")):
        return Unclear("save_measurement", "not_measured")
    date = one_write_date(s, "save_measurement")
    if isinstance(date, Unclear):
        return date
    quantities = s.quantities
    if not quantities:
        return Unclear("save_measurement", "value_missing")
    values: dict[str, float] = {}
    written: dict[str, str] = {}
    for quantity in quantities:
        read = _field_value(s, quantity)
        if isinstance(read, Unclear):
            return read
        field, value = read
        if values.get(field, value) != value:
            return Unclear("save_measurement", "value_many", quantity.text, field)
        values[field] = value
        if quantity.unit in {"lb", "in", "m"}:
            written[field] = quantity.text
    missing = [f for f in s.values("field") if f not in values]
    if missing:
        return Unclear("save_measurement", "value_missing", field=missing[0])
    ordered = tuple((f, values[f]) for f in FIELDS if f in values)
    return SaveMeasurement(date, ordered, tuple(written.items()))


def _reads_goals(s: Sentence, plain: set[str], negated: set[str]) -> bool:
    """A look-up of the goals: a goal word, no value or date, and a read, a list or a question
    ("Muéstrame mis objetivos", "¿Cuál es mi meta de peso?", "Show me my goals")."""
    if not s.has("goal") or s.quantities or s.dates or negated or "save" in plain:
        return False
    return bool(plain & {"read", "list"}) or s.is_question()


def _goal(s: Sentence) -> SaveGoal | Unclear | None:
    """A goal: a goal word ("objetivo", "meta", "target"), or a wish without a save verb
    ("quiero llegar a 74 kg"), for one value, with no date or a date after today. None: not a
    goal (a date of today or before makes it read as about a measurement)."""
    if not (s.has("goal") or (s.has("wish") and "save" not in s.actions())):
        return None
    dates = [ref.value for ref in s.dates]
    if any(day is None or day <= s.today for day in dates) or len(set(dates)) > 1:
        return None
    by_date = dates[0] if dates else None
    if s.has("neg") or s.has("if") or s.has("cond") or s.has("other"):
        return None  # not_asked says why, as for a measurement
    if any(not _reaches(s, i) for i in s.where("delta")):
        return Unclear("save_goal", "not_measured")  # "bajar 5 kg" is a change, not a target
    if len(s.quantities) != 1:
        return Unclear("save_goal", "value_missing" if not s.quantities else "mixed")
    read = _field_value(s, s.quantities[0])
    if isinstance(read, Unclear):
        return dataclasses.replace(read, action="save_goal")
    field, value = read
    return SaveGoal(field, value, by_date)


def _delete(s: Sentence) -> DeleteMeasurement | Unclear:
    """ "Borra la medición del 2020-01-01" deletes the record; "borra mi cintura del ..." empties
    only the fields named. A value in the message makes it unclear which one is meant."""
    if s.quantities:
        return Unclear("delete_measurement", "value_in_delete")
    date = one_write_date(s, "delete_measurement")
    if isinstance(date, Unclear):
        return date
    named = set(s.values("field"))
    return DeleteMeasurement(date, tuple(f for f in FIELDS if f in named))


def _reaches(s: Sentence, index: int) -> bool:
    """Whether a change word says where the value ended up ("he bajado a 76 kg", "I'm down
    to 76 kg"): then the number is the measured value, not the change."""
    after = index + 1
    return (
        after + 1 < len(s.items)
        and s.items[after].norm in _TO
        and s.items[after + 1].token.kind == "number"
    )


def one_write_date(s: Sentence, action: Action) -> dt.date | Unclear:
    """The single date a write is for: readable, not in the future, and only one."""
    for ref in s.dates:
        if ref.problem is not None:
            return Unclear(action, ref.problem, ref.text)
        if ref.end is not None:
            return Unclear(action, "date_bad", ref.text)  # a whole month is not one date
    distinct = {ref.value for ref in s.dates if ref.value is not None}
    if not distinct:
        return Unclear(action, "date_missing")
    if len(distinct) > 1:
        return Unclear(action, "date_many", ", ".join(ref.text for ref in s.dates))
    (date,) = distinct
    problem = date_problem(date, s.today)  # the tools' rule, not a copy of it
    if problem == "date_in_future":
        return Unclear(action, "date_future", s.dates[0].text)
    if problem == "date_too_old":
        return Unclear(action, "date_old", s.dates[0].text)
    return date


def _field_value(s: Sentence, quantity: Quantity) -> tuple[str, float] | Unclear:
    number = quantity.number
    problem = number_problem(quantity)
    if problem is not None:
        return Unclear("save_measurement", problem, quantity.text)
    assert number.value is not None
    field = _field_for(s, quantity)
    if field is None:
        return Unclear("save_measurement", "field_missing", quantity.text)
    factors = FACTORS[field]
    if quantity.unit not in factors:
        problem = "unit_missing" if quantity.unit is None else "unit_wrong"
        return Unclear("save_measurement", problem, quantity.text, field)
    value = float(round(number.value * factors[quantity.unit], 2))
    low, high = MEASUREMENT_LIMITS[field]
    if not low <= value <= high:
        return Unclear("save_measurement", "out_of_range", quantity.text, field)
    return field, value


def number_problem(quantity: Quantity) -> Problem | None:
    """Why the quantity's number cannot be used as a value (None: it can)."""
    number = quantity.number
    if number.problem == "ambiguous":
        return "number_ambiguous"
    if number.problem is not None or number.value is None:
        return "number_malformed"
    if number.value < 0:
        return "number_negative"
    return None


def _field_for(s: Sentence, quantity: Quantity) -> str | None:
    """The field a value belongs to: "82 cm de cintura", "cintura: 82 cm", "82 cm waist", or
    the only field its unit can measure (kg: weight, %: body fat, m: height)."""
    linked = quantity.end
    if linked < len(s.items) and s.items[linked].norm in _LINK:
        field = _field_at(s, linked + 1)
        if field is not None:
            return field
    clause = s.clause_of[quantity.index]
    for i in range(quantity.index - 1, -1, -1):
        if s.clause_of[i] != clause or s.mark_at(i, _STOP) or s.items[i].token.kind == "number":
            break
        field = _field_at(s, i)
        if field is not None:
            return field
    following = _field_at(s, quantity.end)
    if following is not None:
        return following
    return _IMPLIED.get(quantity.unit or "")


def _field_at(s: Sentence, index: int) -> str | None:
    if not 0 <= index < len(s.items):
        return None
    return s.items[index].value("field")


# -- reading ---------------------------------------------------------------------------------


def _read(s: Sentence) -> Intent | Unclear:
    found = _read_dates(s)
    if isinstance(found, ReadMeasurement | ListMeasurements) and s.quantities:
        return dataclasses.replace(found, values_given=True)
    return found


def _read_dates(s: Sentence) -> Intent | Unclear:
    fields = tuple(s.values("field"))
    for ref in s.dates:
        if ref.problem is not None:
            return Unclear("read_measurement", ref.problem, ref.text)
    last = last_days(s)
    if isinstance(last, Unclear):
        return last
    if last is not None:
        return ListMeasurements(*last, fields=fields)
    month = next((ref for ref in s.dates if ref.end is not None), None)
    if month is not None and len(s.dates) == 1 and month.value is not None:
        return ListMeasurements(month.value, month.end or month.value, fields)
    dates = [ref.value for ref in s.dates if ref.value is not None]
    if not dates:
        return Unclear("read_measurement", "date_missing")
    if len(dates) == 1:
        return ReadMeasurement(dates[0], fields)
    if len(dates) > 2:
        return Unclear("read_measurement", "date_many", ", ".join(r.text for r in s.dates))
    if s.conditional():
        return ReadMeasurement(dates[0], fields, fallback=dates[1])
    start, end = sorted(dates)
    return ListMeasurements(start, end, fields)


def last_days(s: Sentence) -> tuple[dt.date, dt.date] | Unclear | None:
    """A span up to today: "the last 7 days", "últimas 2 semanas", "last week"; a span that
    starts before the calendar does is ``Unclear``."""
    for i in s.where("last"):
        count, unit_at = 1, i + 1
        quantity = next((q for q in s.quantities if q.index == i + 1), None)
        if quantity is not None and quantity.number.value is not None:
            count, unit_at = int(quantity.number.value), i + 2
        if unit_at >= len(s.items) or count < 1:
            continue
        unit = s.items[unit_at].value("unit")
        days = {"day": 1, "week": 7}.get(unit or "")
        if days is not None:
            try:
                return s.today - dt.timedelta(days=count * days - 1), s.today
            except OverflowError:
                return Unclear("list_measurements", "date_bad", s.raw(i, unit_at + 1))
    return None
