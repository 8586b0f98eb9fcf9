"""Dates said relative to today: a weekday ("el lunes pasado", "segunda passada", "last
Monday"), a count back ("hace 2 días", "há duas semanas", "3 days ago"), and a day and month
without a year ("30/11", "30 de noviembre", "November 30").

Each is resolved against the person's today (``--today``), never guessed: a weekday is the
last one before today ("el lunes" said on a Monday is unclear, today or a week ago?); a day
and month is the latest one not after today, and it is unclear when that is more than
``YEARLESS_DAYS`` back (a date half a year away needs its year). In English, "3/4" could be
3 April or 4 March: it is unclear unless one of the numbers is over 12.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from ._lex import DateLiteral, Number
from ._words import Item

DateProblem = Literal["date_bad", "year_missing", "date_vague"]
YEARLESS_DAYS: Final = 183
"""How far back a day and month without a year may be read as the latest one (half a year)."""

_PAST: Final = frozenset({"pasado", "pasada", "passado", "passada", "last", "past"})
_PAST_GLUE: Final = frozenset({"el", "la", "o", "a", "na", "no", "on", "em", "en", "this"})
_AGO_BEFORE: Final = frozenset({"hace", "ha", "faz"})
_AGO_AFTER: Final = frozenset({"ago"})
_ONE: Final = frozenset({"un", "una", "um", "uma", "a", "an", "one"})
_DAY_MONTH: Final = re.compile(r"(\d{1,2})/(\d{1,2})(?:/(\d{4}))?")


@dataclass(frozen=True, slots=True)
class DateRef:
    """A date as the user wrote it; ``value`` None when it cannot be read (``problem``). A
    month with its year ("enero de 2020") is a span: ``value`` is its first day, ``end`` its
    last."""

    value: dt.date | None
    text: str
    index: int
    problem: DateProblem | None = None
    end: dt.date | None = None


def latest(day: int, month: int, today: dt.date) -> dt.date | DateProblem:
    """The latest ``day``/``month`` not after ``today``, if it is at most ``YEARLESS_DAYS``
    back; else why not."""
    for year in (today.year, today.year - 1):
        try:
            found = dt.date(year, month, day)
        except ValueError:
            if not (month == 2 and day == 29):
                return "date_bad"
            continue
        if found <= today:
            return found if (today - found).days <= YEARLESS_DAYS else "year_missing"
    return "year_missing"


def _ref(value: dt.date | DateProblem, text: str, index: int) -> DateRef:
    if isinstance(value, dt.date):
        return DateRef(value, text, index)
    return DateRef(None, text, index, value)


def day_month(token: Number | DateLiteral, index: int, today: dt.date, lang: str | None) -> DateRef:
    """ "30/11", "30/11/2023" (day first in es and pt; in English unclear when both could be
    the month)."""
    found = _DAY_MONTH.fullmatch(token.text)
    if found is None:
        return DateRef(None, token.text, index, "date_bad")
    first, second = int(found.group(1)), int(found.group(2))
    if lang == "en" or lang is None:
        if first <= 12 and second <= 12 and first != second:
            return DateRef(None, token.text, index, "date_vague")
        if first <= 12:
            first, second = second, first
    if found.group(3) is None:
        return _ref(latest(first, second, today), token.text, index)
    try:
        return DateRef(dt.date(int(found.group(3)), second, first), token.text, index)
    except ValueError:
        return DateRef(None, token.text, index, "date_bad")


def is_day_month(token: object) -> bool:
    """Whether a token is written like "30/11" or "30/11/2023"."""
    return isinstance(token, Number | DateLiteral) and bool(_DAY_MONTH.fullmatch(token.text))


def relative(
    text: str, items: Sequence[Item], at: int, today: dt.date
) -> tuple[DateRef, set[int]] | None:
    """A weekday or a count back starting at item ``at`` (None: there is none)."""
    if items[at].means("weekday"):
        return _weekday(text, items, at, today)
    if items[at].norm in _AGO_BEFORE:
        return _ago(text, items, at, at + 1, today)
    if items[at].norm in _ONE:  # "a week ago"
        return ago_after(text, items, at, today)
    return None


def ago_after(
    text: str, items: Sequence[Item], at: int, today: dt.date
) -> tuple[DateRef, set[int]] | None:
    """ "3 days ago", "two weeks ago": a count at ``at`` whose unit is followed by "ago"."""
    if at + 2 < len(items) and items[at + 2].norm in _AGO_AFTER:
        found = _ago(text, items, at, at, today)
        if found is not None:
            return found[0], found[1] | {at + 2}
    return None


def _span(text: str, items: Sequence[Item], first: int, last: int) -> str:
    return text[items[first].token.start : items[last].token.end]


def _weekday(text: str, items: Sequence[Item], at: int, today: dt.date) -> tuple[DateRef, set[int]]:
    used = {at}
    past = False
    after = at + 1
    if after < len(items) and items[after].norm in _PAST:
        past, used = True, used | {after}
    before = at - 1
    if before >= 0 and items[before].norm in _PAST:
        past, used = True, used | {before}
    wanted = int(items[at].value("weekday") or 0)
    back = (today.weekday() - wanted) % 7
    raw = _span(text, items, min(used), max(used))
    if back == 0 and not past:
        return DateRef(None, raw, min(used), "date_vague"), used
    return DateRef(today - dt.timedelta(days=back or 7), raw, min(used)), used


def _ago(
    text: str, items: Sequence[Item], first: int, count_at: int, today: dt.date
) -> tuple[DateRef, set[int]] | None:
    unit_at = count_at + 1
    if unit_at >= len(items):
        return None
    days = {"day": 1, "week": 7}.get(items[unit_at].value("unit") or "")
    count = _count(items[count_at])
    if days is None or count is None:
        return None
    used = set(range(first, unit_at + 1))
    raw = _span(text, items, first, unit_at)
    try:
        return DateRef(today - dt.timedelta(days=count * days), raw, first), used
    except OverflowError:
        return DateRef(None, raw, first, "date_bad"), used


def _count(item: Item) -> int | None:
    token = item.token
    if isinstance(token, Number):
        value = token.value
        if value is None or value != value.to_integral_value() or not 0 < value < 100_000:
            return None
        return int(value)
    return 1 if item.norm in _ONE else None
