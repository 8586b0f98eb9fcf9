"""Grounding: the arguments a tool declares must come from the person's own words.

A write declares which of its arguments the person must have said::

    @tools.tool(effect="write", grounded={"weight_kg": Grounded.number("kg"),
                                          "date": Grounded.date()})

Before the handler runs, the executor reads the conversation's user messages (the journal's
``UserMessage`` texts, so every adapter and every resume reads the same words) and sorts each
declared value into one of three:

* **said**: the number is written there with the declared unit or with none ("77,4 kg",
  "77.4", "setenta y siete", "setenta y siete coma cuatro"), or the date is given (an ISO
  date, "30/11", "30 de noviembre", "hoy", "ayer", "hace 3 días", "el lunes pasado"). The call
  runs as before.
* **derived**: the value is arithmetic on what was said: a unit conversion ("170 lb" for
  ``weight_kg`` 77.1), a product or a sum ("2x150 g" for 300 g). The call waits for the
  person's confirmation, through the same approvals as ``confirm=True``.
* **not said**: the number is not there, or only with another unit ("220 g" for
  ``weight_kg``), or the date is not one the person gave ("the other day"). The call does not
  run: ``not_in_message`` with ``choose_alternative``, a message telling the model to ask the
  person, and a detail naming each field.

Numbers and dates are looked for in every user message of the conversation (the person may
give the value in one turn and say "save it" in the next, or answer "kg" to a question about
it). A relative date ("hoy", "ayer", "hace 3 días") counts from the day its message was said:
the journal keeps that day with each user message, so "hoy" written yesterday grounds
yesterday's date, never today's; an earlier message whose day is not known grounds no relative
date, and the current one counts from the turn's today when its own day is not known. What it
cannot see is listed in the docs (``docs/concepts/grounding.md``).
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Final, Literal

from ._exceptions import ConfigurationError
from ._outcome import Detail, ErrorCode, Recovery, ToolError
from ._texts import Lang, text

# -- units ---------------------------------------------------------------------------------

_MASS: Final = {
    "g": Decimal(1),
    "kg": Decimal(1000),
    "lb": Decimal("453.59237"),
    "oz": Decimal("28.349523125"),
}
_LENGTH: Final = {
    "cm": Decimal(1),
    "mm": Decimal("0.1"),
    "m": Decimal(100),
    "in": Decimal("2.54"),
    "ft": Decimal("30.48"),
}
_DIMENSIONS: Final[dict[str, dict[str, Decimal]]] = {
    "mass": _MASS,
    "length": _LENGTH,
    "percent": {"%": Decimal(1)},
}
UNITS: Final = frozenset(unit for table in _DIMENSIONS.values() for unit in table)
"""The units a grounded number may declare."""

_SPELLINGS: Final[dict[str, tuple[str, ...]]] = {
    "kg": (
        "kg", "kgs", "kilo", "kilos", "kilogramo", "kilogramos", "kilograma", "kilogramas",
        "kilogram", "kilograms", "kilogramme", "kilogrammes", "quilo", "quilos",
        "quilograma", "quilogramas",
    ),
    "g": (
        "g", "gr", "grs", "gramo", "gramos", "grama", "gramas", "gram", "grams", "gramme",
        "grammes",
    ),
    "lb": ("lb", "lbs", "libra", "libras", "pound", "pounds"),
    "oz": ("oz", "onza", "onzas", "onca", "oncas", "ounce", "ounces"),
    "cm": (
        "cm", "cms", "centimetro", "centimetros", "centimeter", "centimeters", "centimetre",
        "centimetres",
    ),
    "mm": (
        "mm", "milimetro", "milimetros", "millimeter", "millimeters", "millimetre",
        "millimetres",
    ),
    "m": ("m", "metro", "metros", "meter", "meters", "metre", "metres"),
    "in": ("inch", "inches", "pulgada", "pulgadas", "polegada", "polegadas"),
    "ft": ("ft", "foot", "feet", "pie", "pies"),
    "%": ("pct", "percent", "per cent", "por ciento", "por cento", "porciento"),
}  # fmt: skip
_UNIT_OF: Final = {spelled: unit for unit, words in _SPELLINGS.items() for spelled in words}
_UNIT_WORD: Final = re.compile(
    r"\s*(?:(%)|(\")|("
    + "|".join(sorted((re.escape(w) for w in _UNIT_OF), key=len, reverse=True))
    + r"|in)(?![a-z]))"
)


def _dimension(unit: str) -> dict[str, Decimal] | None:
    return next((table for table in _DIMENSIONS.values() if unit in table), None)


# -- the declaration -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Grounded:
    """What one argument must be in the person's words: a number (with its unit) or a date.

    Build it with ``Grounded.number("kg")`` or ``Grounded.date()``."""

    kind: Literal["number", "date"]
    unit: str | None = None
    optional: bool = False
    """Set by the harness when the tool is declared: the argument has a default, so a value
    the person did not give may also be left out (the refusal says so)."""

    @classmethod
    def number(cls, unit: str | None = None) -> Grounded:
        """A number the person wrote, in ``unit`` (one of ``kg g lb oz cm mm m in ft %``) or
        with no unit written; None: any unit. The same number in another unit of the same
        kind ("170 lb" for kg) is a conversion the person is asked to confirm."""
        if unit is not None and unit not in UNITS:
            msg = f"unknown unit {unit!r} for a grounded number; use one of {sorted(UNITS)}"
            raise ConfigurationError(msg)
        return cls("number", unit)

    @classmethod
    def date(cls) -> Grounded:
        """A calendar date the person gave: written out, or relative to the day they said it."""
        return cls("date")


# -- what the person wrote -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number the person wrote, with the unit written right after it (None: none)."""

    value: Decimal
    unit: str | None
    text: str
    start: int = 0
    """Where ``text`` starts in its message."""
    message: int = 0
    """Which user message of the conversation it is in."""


def fold(text: str) -> str:
    """Lower case without accents: "Días" and "dias" read the same."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


_WORD_NUMBERS: Final[dict[str, int]] = {
    # es
    "un": 1, "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6,
    "siete": 7, "ocho": 8, "nueve": 9, "diez": 10, "once": 11, "doce": 12, "trece": 13,
    "catorce": 14, "quince": 15, "dieciseis": 16, "diecisiete": 17, "dieciocho": 18,
    "diecinueve": 19, "veinte": 20, "veintiuno": 21, "veintiuna": 21, "veintidos": 22,
    "veintitres": 23, "veinticuatro": 24, "veinticinco": 25, "veintiseis": 26,
    "veintisiete": 27, "veintiocho": 28, "veintinueve": 29,
    # pt
    "um": 1, "uma": 1, "dois": 2, "duas": 2, "quatro": 4, "sete": 7, "oito": 8, "nove": 9,
    "dez": 10, "onze": 11, "doze": 12, "treze": 13, "quatorze": 14, "quinze": 15,
    "dezesseis": 16, "dezasseis": 16, "dezessete": 17, "dezassete": 17, "dezoito": 18,
    "dezenove": 19, "dezanove": 19, "vinte": 20,
    # en
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20,
}  # fmt: skip
_TENS: Final[dict[str, int]] = {
    "treinta": 30, "cuarenta": 40, "cincuenta": 50, "sesenta": 60, "setenta": 70,
    "ochenta": 80, "noventa": 90,
    "trinta": 30, "quarenta": 40, "cinquenta": 50, "sessenta": 60, "oitenta": 80,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90, "vinte": 20, "twenty": 20,
}  # fmt: skip
_HUNDREDS: Final[dict[str, int]] = {
    "cien": 100, "ciento": 100, "cem": 100, "cento": 100, "hundred": 100,
    "doscientos": 200, "doscientas": 200, "trescientos": 300, "trescientas": 300,
    "cuatrocientos": 400, "cuatrocientas": 400, "quinientos": 500, "quinientas": 500,
    "seiscientos": 600, "seiscientas": 600, "setecientos": 700, "setecientas": 700,
    "ochocientos": 800, "ochocientas": 800, "novecientos": 900, "novecientas": 900,
    "duzentos": 200, "duzentas": 200, "trezentos": 300, "trezentas": 300,
    "quatrocentos": 400, "quatrocentas": 400, "quinhentos": 500, "quinhentas": 500,
    "seiscentos": 600, "seiscentas": 600, "setecentos": 700, "setecentas": 700,
    "oitocentos": 800, "oitocentas": 800, "novecentos": 900, "novecentas": 900,
}  # fmt: skip
_POINT: Final = frozenset({"coma", "punto", "virgula", "ponto", "point"})
_ONE_DIGIT_POINT: Final = frozenset({"con"})
_HALF: Final = (("y", "medio"), ("y", "media"), ("e", "meio"), ("e", "meia"), ("and", "a", "half"))
_AND: Final = frozenset({"y", "e", "and"})
_MINUS: Final = "-\u2212"
_TOKEN: Final = re.compile(r"[-\u2212]?[0-9]+(?:[.,][0-9]+)*|[a-z]+")


def _digits(raw: str) -> Decimal | None:
    """A written number: "77,4" and "77.4" are 77.4; "1.234.567" and "1,234.5" group
    thousands; a single separator is always the decimal mark ("1,077" is 1.077)."""
    negative = raw[0] in _MINUS
    body = raw.lstrip(_MINUS)
    marks = [ch for ch in body if ch in ".,"]
    if len(marks) > 1:
        decimal = marks[-1] if marks[-1] != marks[0] else None
        whole, _, fraction = body.rpartition(decimal) if decimal else (body, "", "")
        groups = re.split(r"[.,]", whole)
        grouping = marks[:-1] if decimal else marks
        if set(grouping) != {marks[0]} or any(len(g) != 3 for g in groups[1:]):
            return None  # "1.234.5", "1,2.3": no reading is sure
        body = "".join(groups) + ("." + fraction if decimal else "")
    try:
        value = Decimal(body.replace(",", "."))
    except InvalidOperation:
        return None
    return -value if negative else value


def _word_number(tokens: Sequence[re.Match[str]], start: int) -> tuple[int, int] | None:
    """The number written in words from ``tokens[start]``, and how many tokens it took:
    "siete", "setenta y siete", "seventy-seven", "ciento veinte", "one hundred and five"."""

    def word(at: int) -> str:
        return tokens[at][0] if at < len(tokens) else ""

    at, total = start, 0
    if word(at) in _HUNDREDS:
        total, at = _HUNDREDS[word(at)], at + 1
    elif word(at) in _WORD_NUMBERS and word(at + 1) == "hundred":
        total, at = 100 * _WORD_NUMBERS[word(at)], at + 2
    if total and word(at) in _AND and (word(at + 1) in _TENS or word(at + 1) in _WORD_NUMBERS):
        at += 1
    if word(at) in _TENS:
        tens, at = _TENS[word(at)], at + 1
        unit_at = at + 1 if word(at) in _AND else at
        if _WORD_NUMBERS.get(word(unit_at), 10) < 10:
            return total + tens + _WORD_NUMBERS[word(unit_at)], unit_at + 1 - start
        return total + tens, at - start
    if word(at) in _WORD_NUMBERS:
        return total + _WORD_NUMBERS[word(at)], at + 1 - start
    return (total, at - start) if total else None


def _decimals(tokens: Sequence[re.Match[str]], at: int) -> tuple[str, int] | None:
    """The decimal part written in words after a number, and how many tokens it took: "coma
    cuatro", "vírgula quatro", "point two five" (digits, or one number under a hundred: "punto
    veinticinco"), "con cuatro" (one digit), "y medio", "e meio", "and a half" (5)."""

    def word(i: int) -> str:
        return tokens[i][0] if i < len(tokens) else ""

    for half in _HALF:
        if all(word(at + k) == part for k, part in enumerate(half)):
            return "5", len(half)
    marker = word(at)
    if marker not in _POINT and marker not in _ONE_DIGIT_POINT:
        return None
    digits, i = "", at + 1
    while _WORD_NUMBERS.get(word(i), 10) < 10:
        digits, i = digits + str(_WORD_NUMBERS[word(i)]), i + 1
        if marker in _ONE_DIGIT_POINT:
            break
    if digits:
        return digits, i - at
    if marker in _ONE_DIGIT_POINT:
        return None
    whole = _word_number(tokens, at + 1)
    if whole is None or whole[0] >= 100:
        return None
    return str(whole[0]), whole[1] + 1


def _folded_with_origins(text: str) -> tuple[str, list[int]]:
    """``fold(text)`` and, for each of its characters, where it came from in ``text``."""
    out: list[str] = []
    origins: list[int] = []
    for index, ch in enumerate(text):
        folded = fold(ch)
        out.append(folded)
        origins.extend([index] * len(folded))
    origins.append(len(text))
    return "".join(out), origins


def quantities(text: str, message: int = 0) -> list[Quantity]:
    """The numbers in ``text`` (digits or simple words), each with the unit written after it
    (its ``text`` is as the person wrote it). A date's digits are no quantity."""
    folded, origins = _folded_with_origins(text)
    folded = _mask_dates(folded)
    tokens = list(_TOKEN.finditer(folded))
    found: list[Quantity] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        value: Decimal | None
        if token[0][-1].isdigit():
            value, end, used = _digits(token[0]), token.end(), 1
        else:
            worded = _word_number(tokens, index)
            if worded is None:
                index += 1
                continue
            number, used = worded
            fraction = _decimals(tokens, index + used)
            if fraction is not None:
                used += fraction[1]
            value = Decimal(f"{number}.{fraction[0]}" if fraction else number)
            end = tokens[index + used - 1].end()
        index += used
        if value is None:
            continue
        read = _with_unit(folded, end)
        for quantity_end, unit in read:
            begin = origins[token.start()]
            found.append(Quantity(value, unit, text[begin : origins[quantity_end]], begin, message))
        last = max(quantity_end for quantity_end, _ in read)
        while index < len(tokens) and tokens[index].start() < last:
            index += 1  # the unit's own words ("por ciento") are no number
    return found


def _with_unit(folded: str, end: int) -> list[tuple[int, str | None]]:
    """Where the quantity ending at ``end`` ends with its unit, and the unit (None: none)."""
    spelled = _UNIT_WORD.match(folded, end)
    if spelled is None:
        return [(end, None)]
    word = spelled.group(3)
    unit = "%" if spelled.group(1) else "in" if spelled.group(2) else _UNIT_OF.get(word or "", "in")
    if word == "in":  # "32 in today", but also "150 in the morning": both readings
        return [(spelled.end(), unit), (end, None)]
    return [(spelled.end(), unit)]


# -- dates -----------------------------------------------------------------------------------

_MONTHS: Final[dict[str, int]] = {
    "enero": 1, "janeiro": 1, "january": 1, "jan": 1,
    "febrero": 2, "fevereiro": 2, "february": 2, "feb": 2,
    "marzo": 3, "marco": 3, "march": 3,
    "abril": 4, "april": 4, "apr": 4,
    "mayo": 5, "maio": 5, "may": 5,
    "junio": 6, "junho": 6, "june": 6, "jun": 6,
    "julio": 7, "julho": 7, "july": 7, "jul": 7,
    "agosto": 8, "august": 8, "aug": 8,
    "septiembre": 9, "setiembre": 9, "setembro": 9, "september": 9, "sept": 9, "sep": 9,
    "octubre": 10, "outubro": 10, "october": 10, "oct": 10,
    "noviembre": 11, "novembro": 11, "november": 11, "nov": 11,
    "diciembre": 12, "dezembro": 12, "december": 12, "dec": 12,
}  # fmt: skip
_MONTH: Final = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")(?![a-z])"
_ORD: Final = r"(?:st|nd|rd|th|º|ª|o|a)?"
_ISO: Final = re.compile(r"(?<![0-9])([0-9]{4})[-/.]([0-9]{1,2})[-/.]([0-9]{1,2})(?![0-9])")
_DAY_MONTH: Final = re.compile(
    r"(?<![0-9.,/])([0-9]{1,2})/([0-9]{1,2})(?:/([0-9]{4}|[0-9]{2}))?(?![0-9/])"
    r"|(?<![0-9.,/-])([0-9]{1,2})([-.])([0-9]{1,2})\5([0-9]{4})(?![0-9])"
)
_WRITTEN: Final = re.compile(
    r"(?<![0-9])([0-9]{1,2})" + _ORD + r"\s+(?:de\s+|of\s+)?" + _MONTH
    + r"(?:,?\s+(?:de\s+|del\s+|of\s+)?([0-9]{4}))?"
    + r"|" + _MONTH + r"\s+(?:the\s+)?([0-9]{1,2})" + _ORD + r"(?![0-9])(?:,?\s+([0-9]{4}))?"
)  # fmt: skip
_RELATIVE: Final[tuple[tuple[re.Pattern[str], int], ...]] = (
    (re.compile(r"\b(?:anteayer|antier|antes de ayer|anteontem|antes de ontem)\b"), -2),
    (re.compile(r"\bthe day before yesterday\b"), -2),
    (re.compile(r"\b(?:pasado manana|depois de amanha|the day after tomorrow)\b"), 2),
    (re.compile(r"\b(?:hoy|hoje|today|tonight|esta manana|this morning)\b"), 0),
    (re.compile(r"\b(?:ayer|ontem|yesterday|anoche|last night)\b"), -1),
    (re.compile(r"\b(?:tomorrow|amanha)\b|(?<!la )(?<!esta )(?<!pasado )\bmanana\b"), 1),
)
_WEEKDAYS: Final = re.compile(
    r"\b(?:(lunes|segunda-feira|segunda feira|segunda|monday)"
    r"|(martes|terca-feira|terca feira|terca|tuesday)"
    r"|(miercoles|quarta-feira|quarta feira|quarta|wednesday)"
    r"|(jueves|quinta-feira|quinta feira|quinta|thursday)"
    r"|(viernes|sexta-feira|sexta feira|sexta|friday)"
    r"|(sabado|saturday)|(domingo|sunday))\b"
)
_AGO: Final = re.compile(
    r"\b(?:hace|ha)\s+([0-9]+|[a-z]+)\s+(dias?|semanas?)\b"
    r"|\b([0-9]+|[a-z]+)\s+(days?|weeks?)\s+ago\b"
)


def _mask_dates(folded: str) -> str:
    """``folded`` with every written date blanked, so its digits are no quantity."""
    for pattern in (_ISO, _DAY_MONTH, _WRITTEN, _AGO):
        folded = pattern.sub(lambda m: " " * len(m[0]), folded)
    return folded


def _date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _in_years(month: int, day: int, today: dt.date | None) -> list[dt.date]:
    """A day and month without a year: in today's year or the one before (the person most
    likely speaks of the last one)."""
    if today is None:
        return []
    found = (_date(year, month, day) for year in (today.year, today.year - 1))
    return [d for d in found if d is not None]


def absolute_dates(text: str, today: dt.date | None) -> set[dt.date]:
    """The dates written out in ``text``: ISO ("2024-03-01"), day/month ("30/11",
    "30/11/2024"; month/day only when it cannot be day/month), day and month name ("30 de
    noviembre", "November 30, 2024")."""
    folded = fold(text)
    found: set[dt.date] = set()
    for m in _ISO.finditer(folded):
        day = _date(int(m[1]), int(m[2]), int(m[3]))
        found |= {day} if day else set()
    for m in _DAY_MONTH.finditer(folded):
        first, second, year = (m[1], m[2], m[3]) if m[1] else (m[4], m[6], m[7])
        a, b = int(first), int(second)
        order = [(a, b)] if _date(2000, b, a) else [(b, a)]  # 2000: a leap year
        for day_n, month_n in order:
            if year is None:
                found.update(_in_years(month_n, day_n, today))
            else:
                full = int(year) + (2000 if len(year) == 2 else 0)
                day = _date(full, month_n, day_n)
                found |= {day} if day else set()
    for m in _WRITTEN.finditer(folded):
        day_s, month_s, year_s = (m[1], m[2], m[3]) if m[1] else (m[5], m[4], m[6])
        month_n = _MONTHS[month_s]
        if year_s is None:
            found.update(_in_years(month_n, int(day_s), today))
        else:
            day = _date(int(year_s), month_n, int(day_s))
            found |= {day} if day else set()
    return found


def relative_dates(text: str, today: dt.date) -> set[dt.date]:
    """The days ``text`` names from ``today``: hoy/hoje/today, ayer/ontem/yesterday,
    anteayer/anteontem, mañana/amanhã/tomorrow, "hace 3 días", "há 2 semanas", "3 days ago",
    and a weekday ("el lunes pasado", "na sexta", "last Friday": the last one before today)."""
    folded = fold(text)
    offsets = {offset for pattern, offset in _RELATIVE if pattern.search(folded)}
    for m in _AGO.finditer(folded):
        count_s, unit = (m[1], m[2]) if m[1] else (m[3], m[4])
        count = int(count_s) if count_s.isdigit() else _WORD_NUMBERS.get(count_s)
        if count is None and count_s in ("a", "an"):
            count = 1
        if count is not None:
            offsets.add(-count * (7 if unit.startswith(("sem", "week")) else 1))
    for m in _WEEKDAYS.finditer(folded):
        weekday = next(n for n in range(7) if m[n + 1])
        offsets.add(-((today.weekday() - weekday) % 7 or 7))
    days: set[dt.date] = set()
    for offset in offsets:
        try:
            days.add(today + dt.timedelta(days=offset))
        except OverflowError:
            continue
    return days


# -- the verdict -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Missing:
    """A declared value the person did not give. ``said``: the same number with another
    unit, when that is what they wrote ("220 g")."""

    field: str
    kind: Literal["number", "date"]
    unit: str | None = None
    said: str | None = None
    optional: bool = False
    """The argument may be left out (it has a default)."""


@dataclass(frozen=True, slots=True)
class Derived:
    """A declared value that is arithmetic on what the person wrote (``said``)."""

    field: str
    said: str
    value: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """What grounding found for one call: values not given, and values derived."""

    missing: tuple[Missing, ...] = ()
    derived: tuple[Derived, ...] = ()


NO_FINDINGS: Final = Verdict()


@dataclass(frozen=True, slots=True)
class Words:
    """What the person wrote in a conversation, read once per turn: the quantities and dates
    of every user message, each relative date counted from the day its message was said."""

    quantities: tuple[Quantity, ...]
    dates: frozenset[dt.date]
    texts: tuple[str, ...] = ()

    @classmethod
    def read(
        cls,
        texts: Sequence[str],
        today: dt.date | None,
        said_on: Sequence[dt.date | None] = (),
    ) -> Words:
        """Read ``texts`` (the conversation's user messages, oldest first; the last is the
        current turn's) with ``today`` as the turn's date. ``said_on``: the day each text was
        said, where known; a relative date counts from its own message's day (the current
        message's: ``today`` when its own is not known; an earlier one's: none)."""
        found = [q for index, text in enumerate(texts) for q in quantities(text, index)]
        dates: set[dt.date] = set()
        for index, written in enumerate(texts):
            day = said_on[index] if index < len(said_on) else None
            if day is None and index == len(texts) - 1:
                day = today
            dates |= absolute_dates(written, day or today)
            if day is not None:
                dates |= relative_dates(written, day)
        return cls(tuple(found), frozenset(dates), tuple(texts))


def check(
    grounded: Sequence[tuple[str, Grounded]], values: dict[str, object], words: Words
) -> Verdict:
    """Sort each declared value given in ``values`` into said, derived or missing."""
    missing: list[Missing] = []
    derived: list[Derived] = []
    for field, spec in grounded:
        value = values.get(field)
        if spec.kind == "date":
            if isinstance(value, dt.date) and value not in words.dates:
                missing.append(Missing(field, "date", optional=spec.optional))
            continue
        if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
            continue  # not given (None), or not a number: the schema decides
        number = Decimal(str(value))
        found, said = _number(number, spec.unit, words)
        if found == "derived":
            assert said is not None
            derived.append(Derived(field, said, format(number.normalize(), "f")))
        elif found == "missing":
            missing.append(Missing(field, "number", spec.unit, said, spec.optional))
    if not missing and not derived:
        return NO_FINDINGS
    return Verdict(tuple(missing), tuple(derived))


Found = Literal["said", "derived", "missing"]


def _number(value: Decimal, unit: str | None, words: Words) -> tuple[Found, str | None]:
    """Whether ``value`` (in ``unit``) was said, derived (from which words) or is missing
    (with the words that give the same number in another unit, if any)."""
    seen = words.quantities
    if any(q.value == value and (q.unit is None or unit is None or q.unit == unit) for q in seen):
        return "said", None
    table = _dimension(unit) if unit is not None else None
    if table is not None and unit is not None:
        exponent = value.as_tuple().exponent
        places = exponent if isinstance(exponent, int) else 0
        tolerance = Decimal(5) * Decimal(10) ** (places - 1)  # half of the last digit given
        for q in seen:
            if q.unit is not None and q.unit != unit and q.unit in table:
                exact = q.value * table[q.unit] / table[unit]
                if abs(exact - value) <= tolerance:
                    return "derived", q.text
    arithmetic = _arithmetic(value, unit, table, words)
    if arithmetic is not None:
        return "derived", arithmetic
    other = next((q for q in seen if q.value == value and q.unit is not None), None)
    return "missing", other.text if other is not None else None


def _arithmetic(
    value: Decimal, unit: str | None, table: dict[str, Decimal] | None, words: Words
) -> str | None:
    """A product of two numbers written ("2x150 g": 300 g) or a sum of two amounts
    ("150 g y 100 g": 250 g), exactly, in ``unit`` (converted when needed); the words that
    say it, as written."""
    recent = words.quantities[-40:]

    def both(a: Quantity, b: Quantity, sign: str) -> str:
        text = words.texts[a.message] if a.message < len(words.texts) else ""
        if a.message == b.message and 0 <= b.start - (a.start + len(a.text)) <= 3:
            return text[a.start : b.start + len(b.text)]  # "2x150 g", "2 x 150 g"
        return f"{a.text} {sign} {b.text}"

    def in_unit(amount: Decimal, of: str | None) -> Decimal | None:
        if of is None or unit is None or of == unit:
            return amount
        if table is None or of not in table:
            return None
        return amount * table[of] / table[unit]

    for i, a in enumerate(recent):
        for b in recent[i + 1 :]:
            if a.unit is None or b.unit is None:
                product = in_unit(a.value * b.value, a.unit or b.unit)
                if product is not None and product == value:
                    return both(a, b, "x")
            if a.unit is not None and b.unit is not None:
                first, second = in_unit(a.value, a.unit), in_unit(b.value, b.unit)
                if first is not None and second is not None and first + second == value:
                    return both(a, b, "+")
    return None


def refusal(tool: str, missing: Sequence[Missing], lang: Lang) -> ToolError:
    """``not_in_message`` for the grounded arguments of ``tool`` the person did not give."""
    fields = ", ".join(m.field for m in missing)
    return ToolError(
        ErrorCode.NOT_IN_MESSAGE,
        text(lang, "not_in_message", name=tool, fields=fields),
        Recovery.CHOOSE_ALTERNATIVE,
        details=tuple(_missing_detail(m, lang) for m in missing),
    )


def _missing_detail(missing: Missing, lang: Lang) -> Detail:
    """One grounded argument the person did not give, in ``lang``."""
    if missing.kind == "date":
        problem, expected = text(lang, "grounding_no_date"), text(lang, "grounding_date_expected")
    else:
        unit = missing.unit
        key = "grounding_number_expected" if unit else "grounding_any_expected"
        expected = text(lang, key, unit=unit)
        if missing.said is not None and unit is not None:
            problem = text(lang, "grounding_other_unit", said=missing.said, unit=unit)
        else:
            problem = text(lang, "grounding_no_number")
    if missing.optional:
        expected = text(lang, "grounding_or_leave_out", expected=expected)
    return Detail(missing.field, problem, expected)
