"""Tokens: the offline model reads whole words, whole numbers and whole dates, never fragments.

``tokenize`` cuts a message into ``Word``, ``Number``, ``DateLiteral`` and ``Mark`` tokens, each
with its span in the original text. A run of digits and separators is always read as one
number: ``77,4`` and ``77.4`` are 77.4, ``1.077,4`` and ``1,077.4`` are 1077.4, while ``1,077``
(a thousands separator or a decimal comma?) is marked ambiguous, and ``7,7,4``, ``70-80`` and
``1/2`` malformed — the parser asks back rather than read a part of them. A run of digits
joined by hyphens is one date literal: ``2020-01-04`` is a date, ``12020-01-045`` is a date
that does not exist, never 2020-01-04.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Final, Literal

from ..catalog import fold

NumberProblem = Literal["ambiguous", "malformed"]
_MINUS: Final = "-\u2212"  # hyphen-minus and the minus sign
_CURLY_APOSTROPHE: Final = "\u2019"


@dataclass(frozen=True, slots=True)
class Word:
    """A run of letters (with inner apostrophes or hyphens: ``don't``, ``mid-morning``)."""

    text: str
    start: int
    end: int
    norm: str
    kind: Literal["word"] = "word"


@dataclass(frozen=True, slots=True)
class Number:
    """A whole number as written; ``value`` is None when it cannot be read for sure."""

    text: str
    start: int
    end: int
    value: Decimal | None
    problem: NumberProblem | None = None
    kind: Literal["number"] = "number"


@dataclass(frozen=True, slots=True)
class DateLiteral:
    """Digits joined by hyphens or slashes; ``value`` only for a real ``YYYY-MM-DD`` date."""

    text: str
    start: int
    end: int
    value: dt.date | None
    kind: Literal["date"] = "date"


@dataclass(frozen=True, slots=True)
class Mark:
    """One punctuation mark or symbol."""

    text: str
    start: int
    end: int
    kind: Literal["mark"] = "mark"


Token = Word | Number | DateLiteral | Mark

_SCANNER: Final = re.compile(
    r"""
    (?P<date>\d+(?:-\d+){2,}|\d+(?:/\d+){2,}|\d{4}-[Ww]\d+(?:-\d+)?)
    | (?P<fraction>\d+/\d+)
    | (?P<number>(?:(?<![\w.,])[-\u2212+])?(?:(?<!\d)[.,])?\d(?:[\d.,-]*\d)?)
    | (?P<word>[^\W\d_]+(?:['\u2019-][^\W\d_]+)*)
    | (?P<space>\s+)
    | (?P<mark>.)
    """,
    re.VERBOSE | re.DOTALL,
)
_ISO_DATE: Final = re.compile(r"\d{4}-\d{2}-\d{2}")
_GROUPED: Final = re.compile(r"(\d{1,3})((?:([.,])\d{3})(?:\3\d{3})*)(?:([.,])(\d+))?")


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text``, in order (spaces dropped)."""
    tokens: list[Token] = []
    for found in _SCANNER.finditer(text):
        kind, raw, start, end = found.lastgroup, found.group(), found.start(), found.end()
        if kind == "date":
            tokens.append(DateLiteral(raw, start, end, read_date(raw)))
        elif kind == "fraction":
            tokens.append(Number(raw, start, end, None, "malformed"))  # 1/2: not one number
        elif kind == "number":
            value, problem = read_number(raw)
            tokens.append(Number(raw, start, end, value, problem))
        elif kind == "word":
            tokens.append(Word(raw, start, end, fold(raw).replace(_CURLY_APOSTROPHE, "'")))
        elif kind == "mark":
            tokens.append(Mark(raw, start, end))
    return tokens


def read_date(text: str) -> dt.date | None:
    """``text`` as a calendar date if it is exactly ``YYYY-MM-DD`` and exists, else None."""
    if not _ISO_DATE.fullmatch(text):
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def read_number(text: str) -> tuple[Decimal | None, NumberProblem | None]:
    """``text`` as a number, or why it cannot be read for sure."""
    sign = -1 if text[0] in _MINUS else 1
    body = text.lstrip("+" + _MINUS)
    if "-" in body or body[0] in ".,":
        return None, "malformed"  # a range (70-80) or a bare fraction (,5)
    separators = [ch for ch in body if ch in ".,"]
    if not separators:
        return sign * Decimal(body), None
    if len(separators) == 1:
        whole, fraction = re.split(r"[.,]", body)
        if len(fraction) == 3 and len(whole) <= 3 and whole != "0":
            return None, "ambiguous"  # 1,077: a thousands separator or a decimal comma
        return sign * Decimal(f"{whole}.{fraction}"), None
    grouped = _GROUPED.fullmatch(body)
    if grouped is None or grouped.group(4) == grouped.group(3):
        return None, "malformed"
    digits = grouped.group(1) + grouped.group(2).replace(grouped.group(3), "")
    fraction = grouped.group(5) or "0"
    return sign * Decimal(f"{digits}.{fraction}"), None
