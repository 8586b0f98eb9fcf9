"""The rules that guard the person's data, in one place: the tools check them before anything
runs (whatever model sent the call), and the offline parser asks the same functions instead of
keeping its own copy. ``docs/data-rules.md`` explains each threshold and where it comes
from.

* Dates: a measurement, a meal or a goal's record date is not after the person's today (their
  ``--today`` / ``GYMNASIA_TODAY``, else the clock's) and not more than ``MAX_YEARS_BACK``
  years before it. A goal's ``by_date`` is not before today.
* Absolute ranges: ``MEASUREMENT_LIMITS`` (outside them a value is refused by the schema).
* Plausibility: a value that is allowed but unlikely — a change against the person's nearest
  record faster than a body changes (``PACES``), or a first value outside the usual adult range
  (``USUAL``) — is not refused: the person is asked (``unlikely_question``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

if TYPE_CHECKING:  # the limits load without the harness (the command line's help shows them)
    from surefoot import Lang, ToolError

from .store import MEASUREMENT_FIELDS
from .texts import number, t

GIRTHS: Final = tuple(f for f in MEASUREMENT_FIELDS if f.endswith("_cm") and f != "height_cm")
"""The measures taken round the body with a tape (every ``*_cm`` field but height)."""

MEASUREMENT_LIMITS: Final[dict[str, tuple[float, float]]] = {
    "weight_kg": (20, 400),
    "body_fat_pct": (2, 75),
    **dict.fromkeys(GIRTHS, (10, 250)),
    "height_cm": (50, 260),
}
"""The accepted range of each measurement field, for the tools, the CLI, the web, import and
the offline parser: outside it a value is refused."""
assert tuple(MEASUREMENT_LIMITS) == MEASUREMENT_FIELDS

USUAL: Final[dict[str, tuple[float, float]]] = {
    "weight_kg": (35, 200),
    "body_fat_pct": (3, 60),
    "neck_cm": (25, 60),
    "chest_cm": (60, 160),
    "waist_cm": (50, 160),
    "hips_cm": (60, 170),
    "biceps_cm": (18, 60),
    "quadriceps_cm": (35, 90),
    "calf_cm": (25, 60),
    "height_cm": (130, 220),
}
"""Where almost every adult's value lies: a first value outside it is asked about."""
assert tuple(USUAL) == MEASUREMENT_FIELDS

AMOUNT_LIMITS: Final[dict[str, tuple[float, float]]] = {
    "grams": (1, 5000),
    "sets": (1, 20),
    "reps": (1, 100),
    "load": (0, 1000),
    "rest": (0, 600),
    "max_calories": (0, 1000),
    "min_protein": (0, 100),
}
"""The accepted range of the other amounts: grams of one logged food, series per exercise,
reps, load (kg) and rest (s) of a series, and the food search's limits (per 100 g)."""

MAX_YEARS_BACK: Final = 100
"""How far before today a record may be dated (a century: no one's own log is older)."""

DateProblem = Literal["date_in_future", "date_too_old"]


@dataclass(frozen=True, slots=True)
class Pace:
    """How far a field may move from the nearest record before it is unlikely: ``base`` at
    once (day-to-day noise), plus ``per_week`` (absolute) and ``per_week_share`` (of the last
    value) for each week between the two dates."""

    base: float
    per_week: float = 0.0
    per_week_share: float = 0.0

    def allowed(self, last: float, days: int) -> float:
        """The largest change that is still likely after ``days`` from a value of ``last``."""
        weeks = days / 7
        return self.base + (self.per_week + self.per_week_share * last) * weeks


PACES: Final[dict[str, Pace]] = {
    "weight_kg": Pace(base=2.0, per_week_share=0.015),
    "body_fat_pct": Pace(base=3.0, per_week=1.0),
    **dict.fromkeys(GIRTHS, Pace(base=3.0, per_week=1.0)),
    "height_cm": Pace(base=2.0, per_week=0.25),
}
"""The pace of each field; the docs page gives the physiology behind each number."""
assert tuple(PACES) == MEASUREMENT_FIELDS

_UNITS: Final = {"weight_kg": "kg", "body_fat_pct": "%"}


def oldest_date(today: dt.date) -> dt.date:
    """The earliest date a record may have: ``MAX_YEARS_BACK`` years before ``today``."""
    year = max(today.year - MAX_YEARS_BACK, dt.MINYEAR)
    try:
        return today.replace(year=year)
    except ValueError:  # 29 February in a year without one
        return today.replace(year=year, day=28)


def date_problem(date: dt.date, today: dt.date) -> DateProblem | None:
    """Why a record cannot be dated ``date`` when it is ``today`` (None: it can)."""
    if date > today:
        return "date_in_future"
    if date < oldest_date(today):
        return "date_too_old"
    return None


def date_refusal(
    lang: Lang, field: str, date: dt.date | None, today: dt.date, *, what: str
) -> ToolError | None:
    """The refusal of a record (``what``: measurement, meal) dated ``date`` in argument
    ``field``, or None when the date is allowed (or not given)."""
    from surefoot import Detail, Recovery, ToolError

    if date is None:
        return None
    problem = date_problem(date, today)
    if problem is None:
        return None
    oldest = oldest_date(today)
    facts = {
        "date": date.isoformat(),
        "today": today.isoformat(),
        "oldest": oldest.isoformat(),
        "years": MAX_YEARS_BACK,
        "what": t(lang, f"rule_record_{what}"),
    }
    if problem == "date_in_future":
        detail = Detail(field, f"is after today ({today})", f"a date on or before {today}")
    else:
        detail = Detail(field, f"is before {oldest}", f"a date from {oldest} to {today}")
    return ToolError(
        problem, t(lang, f"rule_{problem}", **facts), Recovery.CORRECT_ARGUMENTS, (detail,)
    )


def goal_target_refusal(lang: Lang, measure: str, target: float) -> ToolError | None:
    """The refusal of a goal whose ``target`` is outside ``MEASUREMENT_LIMITS`` for its
    ``measure`` (None: allowed)."""
    from surefoot import Detail, ErrorCode, Recovery, ToolError

    low, high = MEASUREMENT_LIMITS[measure]
    if low <= target <= high:
        return None
    message = t(
        lang,
        "rule_goal_out_of_range",
        target=number(target, lang),
        field=t(lang, f"offline_field_{measure}"),
        low=number(low, lang),
        high=number(high, lang),
    )
    detail = Detail("target", f"is outside {low}..{high}", f"{low} to {high}")
    return ToolError(ErrorCode.INVALID_ARGUMENTS, message, Recovery.CORRECT_ARGUMENTS, (detail,))


def goal_date_refusal(lang: Lang, by_date: dt.date | None, today: dt.date) -> ToolError | None:
    """The refusal of a goal whose ``by_date`` has already passed (None: allowed)."""
    from surefoot import Detail, Recovery, ToolError

    if by_date is None or by_date >= today:
        return None
    message = t(lang, "rule_goal_date_past", date=by_date.isoformat(), today=today.isoformat())
    detail = Detail("by_date", f"is before today ({today})", f"a date on or after {today}")
    return ToolError("date_in_past", message, Recovery.CORRECT_ARGUMENTS, (detail,))


Nearest = dict[str, tuple[dt.date, float]]
"""Per field, the person's nearest other record: its date and value."""


def unlikely_fields(
    values: dict[str, float], date: dt.date, nearest: Nearest
) -> list[tuple[str, float, tuple[dt.date, float] | None]]:
    """The fields of ``values`` (for ``date``) that are allowed but unlikely, each with the
    record it was compared with (None: there was none, and the value is outside ``USUAL``)."""
    found: list[tuple[str, float, tuple[dt.date, float] | None]] = []
    for field in MEASUREMENT_FIELDS:
        if field not in values:
            continue
        value = values[field]
        near = nearest.get(field)
        if near is None:
            low, high = USUAL[field]
            if not low <= value <= high:
                found.append((field, value, None))
            continue
        day, last = near
        allowed = PACES[field].allowed(last, abs((date - day).days))
        if abs(value - last) > allowed:
            found.append((field, value, near))
    return found


def unlikely_question(
    lang: Lang, values: dict[str, float], date: dt.date, nearest: Nearest, today: dt.date
) -> str | None:
    """The question a person answers before unlikely ``values`` are saved for ``date``, with
    the facts ("¿Guardar peso 220 kg para hoy? Tu último registro de peso fue 76 kg, el
    2026-12-03."); None when every value is likely."""
    found = unlikely_fields(values, date, nearest)
    if not found:
        return None
    asked = ", ".join(f"{_label(lang, f)} {_amount(lang, f, v)}" for f, v, _ in found)
    facts = []
    for field, _, near in found:
        if near is None:
            low, high = USUAL[field]
            facts.append(
                t(
                    lang,
                    "rule_unusual_first",
                    field=_label(lang, field),
                    low=_amount(lang, field, low),
                    high=_amount(lang, field, high),
                )
            )
        else:
            facts.append(
                t(
                    lang,
                    "rule_last_record",
                    field=_label(lang, field),
                    value=_amount(lang, field, near[1]),
                    when=when(lang, near[0], today),
                )
            )
    question = t(lang, "rule_confirm_save", values=asked, when=when(lang, date, today))
    return " ".join([question, *facts])


def when(lang: Lang, date: dt.date, today: dt.date) -> str:
    """A date as the person says it: "hoy", "ayer", or "el 2026-12-03"."""
    if date == today:
        return t(lang, "rule_today")
    if date == today - dt.timedelta(days=1):
        return t(lang, "rule_yesterday")
    return t(lang, "rule_for_date", date=date.isoformat())


def _label(lang: Lang, field: str) -> str:
    return t(lang, f"offline_field_{field}")


def _amount(lang: Lang, field: str, value: float) -> str:
    unit = _UNITS.get(field, "cm")
    return f"{number(value, lang)}{'' if unit == '%' else ' '}{unit}"
