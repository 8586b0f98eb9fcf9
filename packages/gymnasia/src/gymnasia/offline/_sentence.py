"""A message read as a sentence: items, clauses, actions, dates and quantities.

Clauses end at ``.``, ``;``, ``!`` and ``?``, and a fallback phrase ("si no existe", "if there
is none") opens a conditional clause. An action is negated when a negation comes before it in
its clause ("No crees ni cambies nada" negates both verbs). Dates are ISO literals, relative days
(hoy, ayer, hoje, ontem, today, yesterday...) counted from the model's today, or written out
with a year ("4 de enero de 2020", "January 4, 2020"); a date that cannot be read whole is kept
with its problem, never dropped, so a write can refuse it.
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass, field
from typing import Final

from ..catalog import fold
from ._dates import DateProblem, DateRef, ago_after, day_month, is_day_month, latest, relative
from ._lex import DateLiteral, Mark, Number, Word, tokenize
from ._numerals import spell_numbers
from ._words import ConceptKind, Item, tag

_CLAUSE_END: Final = frozenset(".;!?")
_OPENING: Final = {'"': '"', "\u201c": "\u201d", "\u00ab": "\u00bb"}
_ARTICLES: Final = frozenset(
    {"a", "an", "the", "el", "la", "los", "las", "un", "una", "o", "os", "as", "um", "uma"}
    | {"my", "your", "this", "that", "mi", "tu", "su", "meu", "minha", "seu", "sua"}
)
_ORDINAL: Final = frozenset({"st", "nd", "rd", "th", "\u00ba", "\u00aa"})
_QUANTITY_UNITS: Final = frozenset({"kg", "lb", "g", "cm", "m", "in", "pct", "kcal", "s", "min"})


@dataclass(frozen=True, slots=True)
class Verb:
    """An action word: what it asks for, where, and whether it is negated or conditional."""

    action: str
    index: int
    negated: bool
    conditional: bool


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number and the unit written after it (items ``index`` to ``end``, exclusive)."""

    number: Number
    unit: str | None
    index: int
    end: int
    text: str


@dataclass(frozen=True)
class Sentence:
    """One user message, analysed."""

    text: str
    items: tuple[Item, ...]
    today: dt.date
    clause_of: tuple[int, ...] = field(repr=False)
    date_items: frozenset[int] = field(repr=False)
    dates: tuple[DateRef, ...] = ()

    # -- looking things up ------------------------------------------------------------------

    def where(self, kind: ConceptKind, value: str | None = None) -> list[int]:
        """Indexes of the items that may stand for ``kind`` (with ``value``)."""
        return [i for i, item in enumerate(self.items) if item.means(kind, value)]

    def has(self, kind: ConceptKind, value: str | None = None) -> bool:
        """Whether some item may stand for ``kind`` (with ``value``)."""
        return any(item.means(kind, value) for item in self.items)

    def values(self, kind: ConceptKind) -> list[str]:
        """The values of ``kind`` concepts, in order of appearance (each once)."""
        seen = [v for item in self.items for v in item.values(kind)]
        return list(dict.fromkeys(seen))

    def raw(self, start: int, end: int) -> str:
        """The original text of items ``start`` to ``end`` (exclusive), trimmed."""
        if start >= end:
            return ""
        return self.text[self.items[start].token.start : self.items[end - 1].token.end].strip()

    def mark_at(self, index: int, marks: str) -> bool:
        """Whether item ``index`` is one of the punctuation ``marks``."""
        if not 0 <= index < len(self.items):
            return False
        token = self.items[index].token
        return isinstance(token, Mark) and token.text in marks

    # -- clauses and actions ----------------------------------------------------------------

    @functools.cached_property
    def clauses(self) -> tuple[tuple[int, ...], ...]:
        """The item indexes of each clause, in order."""
        members: dict[int, list[int]] = {}
        for i, clause in enumerate(self.clause_of):
            members.setdefault(clause, []).append(i)
        return tuple(tuple(found) for found in members.values())

    def is_question(self) -> bool:
        """A question mark, or a clause that opens with an interrogative word."""
        if any(self.mark_at(i, "?¿") for i in range(len(self.items))):
            return True
        return any(self.items[clause[0]].means("ask") for clause in self.clauses)

    @functools.cached_property
    def verbs(self) -> tuple[Verb, ...]:
        """Every action word, with its negation and condition."""
        found: list[Verb] = []
        for clause in self.clauses:
            conditional = any(self.items[i].means("cond") for i in clause)
            negated = False
            for i in clause:
                item = self.items[i]
                if not self._noun_after_article(i):
                    found.extend(Verb(a, i, negated, conditional) for a in item.values("verb"))
                negated = negated or item.means("neg")
        return tuple(found)

    def _noun_after_article(self, index: int) -> bool:
        """ "a check", "the record", "la lista": a verb's word used as a noun. After "a", an
        infinitive ("a guardar") is still a verb."""
        if index == 0:
            return False
        before, word = self.items[index - 1].norm, self.items[index].norm
        return before in _ARTICLES and not (before == "a" and word.endswith("r"))

    def actions(self, *, negated: bool = False) -> set[str]:
        """The actions asked for in plain (not conditional) clauses; ``negated`` ones or not."""
        return {v.action for v in self.verbs if v.negated == negated and not v.conditional}

    def conditional(self) -> bool:
        """Whether the message has a fallback clause ("si no existe ...")."""
        return self.has("cond")

    # -- quantities -------------------------------------------------------------------------

    @functools.cached_property
    def quantities(self) -> tuple[Quantity, ...]:
        """Every number outside a date, with the unit written right after it (if any)."""
        found: list[Quantity] = []
        for i, item in enumerate(self.items):
            token = item.token
            if not isinstance(token, Number) or i in self.date_items:
                continue
            unit = self._unit_after(i)
            end = i + 2 if unit else i + 1
            found.append(Quantity(token, unit, i, end, self.raw(i, end)))
        return tuple(found)

    def _unit_after(self, index: int) -> str | None:
        if index + 1 >= len(self.items):
            return None
        after = self.items[index + 1]
        return next((u for u in after.values("unit") if u in _QUANTITY_UNITS), None)


def read_sentence(text: str, today: dt.date, lang: str | None = None) -> Sentence:
    """Analyse ``text`` (written in ``lang``, when known); relative dates count from
    ``today``."""
    items = _unquote(tuple(tag(text, spell_numbers(tokenize(text), lang), lang)))
    clause_of = _clauses(items)
    dates, used = _dates(text, items, today, lang)
    return Sentence(text, items, today, clause_of, frozenset(used), tuple(dates))


def _quoted(items: tuple[Item, ...]) -> set[int]:
    """Indexes of the items between quotation marks ("…", “…”, «…»). A straight double quote
    right after a number is an inch mark (32"), not a quotation mark."""
    inside: set[int] = set()
    opened: tuple[int, str] | None = None
    for i, item in enumerate(items):
        mark = item.token.text if isinstance(item.token, Mark) else ""
        inch = mark == '"' and i > 0 and items[i - 1].token.end == item.token.start
        if opened is None and mark in _OPENING and not inch:
            opened = (i, _OPENING[mark])
        elif opened is not None and mark == opened[1]:
            inside.update(range(opened[0] + 1, i))
            opened = None
    return inside


def _unquote(items: tuple[Item, ...]) -> tuple[Item, ...]:
    """Quoted material is mentioned, not meant: its numbers, dates and words stand for
    nothing (``as written: {"date": "02/01/2020"}`` is no date of the request)."""
    quoted = _quoted(items)
    return tuple(
        Item(Word(item.token.text, item.token.start, item.token.end, fold(item.token.text)))
        if i in quoted
        else item
        for i, item in enumerate(items)
    )


def _clauses(items: tuple[Item, ...]) -> tuple[int, ...]:
    clause, out = 0, list[int]()
    for item in items:
        if item.means("cond") and out:
            clause += 1
        out.append(clause)
        token = item.token
        if isinstance(token, Mark) and token.text in _CLAUSE_END:
            clause += 1
    return tuple(out)


# -- dates ---------------------------------------------------------------------------------


def _dates(
    text: str, items: tuple[Item, ...], today: dt.date, lang: str | None
) -> tuple[list[DateRef], set[int]]:
    found: list[DateRef] = []
    used: set[int] = set()
    for i in range(len(items)):
        if i in used:
            continue
        read = _date_at(text, items, i, today, lang)
        if read is not None:
            found.append(read[0])
            used.update(read[1])
    return sorted(found, key=lambda d: d.index), used


def _date_at(
    text: str, items: tuple[Item, ...], i: int, today: dt.date, lang: str | None
) -> tuple[DateRef, set[int]] | None:
    """The date that starts at item ``i`` and the items it takes (None: none starts there)."""
    item, token = items[i], items[i].token
    day_first = isinstance(token, DateLiteral) or (
        isinstance(token, Number) and token.problem == "malformed"
    )
    if day_first and is_day_month(token):
        assert isinstance(token, DateLiteral | Number)
        return day_month(token, i, today, lang), {i}
    if isinstance(token, DateLiteral):
        problem: DateProblem | None = None if token.value else "date_bad"
        return DateRef(token.value, token.text, i, problem), {i}
    if isinstance(token, Number):
        return ago_after(text, items, i, today)
    if item.means("day"):
        offset = int(item.value("day") or 0)
        try:
            return DateRef(today + dt.timedelta(days=offset), token.text, i), {i}
        except OverflowError:  # before 0001-01-01 or after 9999-12-31
            return DateRef(None, token.text, i, "date_bad"), {i}
    if item.means("month"):
        return _written_date(text, items, i, today)
    return relative(text, items, i, today)


def _number_at(items: tuple[Item, ...], index: int, low: int, high: int) -> int | None:
    if not 0 <= index < len(items):
        return None
    token = items[index].token
    if not isinstance(token, Number) or token.value is None:
        return None
    value = token.value
    if value != value.to_integral_value() or not low <= value <= high:
        return None
    return int(value)


def _skip(items: tuple[Item, ...], index: int, step: int, words: frozenset[str]) -> int:
    """``index`` moved by ``step`` past any glue words (de, of, ",")."""
    while 0 <= index < len(items) and items[index].norm in words:
        index += step
    return index


_GLUE: Final = frozenset({"de", "of", ",", "the", "del"}) | _ORDINAL
_BEFORE_MONTH: Final = frozenset({"de", "of", "the"}) | _ORDINAL


def _written_date(
    text: str, items: tuple[Item, ...], month_at: int, today: dt.date
) -> tuple[DateRef, set[int]] | None:
    """A month name with its day (before or after it) and year: "4 de enero de 2020",
    "January 4, 2020", "the 4th of January 2020"; without a year, the latest such day not
    after today ("30 de noviembre"), if it is recent (``_dates.latest``)."""
    before = _skip(items, month_at - 1, -1, _BEFORE_MONTH)
    after = _skip(items, month_at + 1, 1, _GLUE)
    day_at = before if _number_at(items, before, 1, 31) is not None else None
    if day_at is None and _number_at(items, after, 1, 31) is not None:
        day_at, after = after, _skip(items, after + 1, 1, _GLUE)
    if day_at is None:
        return _month_span(text, items, month_at, after)
    year = _number_at(items, after, 1000, 9999)
    last = after if year is not None else max(day_at, month_at)
    first = min(day_at, month_at)
    raw = text[items[first].token.start : items[last].token.end]
    used = set(range(first, last + 1))
    month, day = int(items[month_at].value("month") or 0), _number_at(items, day_at, 1, 31) or 0
    if year is None:
        recent = latest(day, month, today)
        if isinstance(recent, dt.date):
            return DateRef(recent, raw, first), used
        return DateRef(None, raw, first, recent), used
    try:
        return DateRef(dt.date(year, month, day), raw, first), used
    except ValueError:
        return DateRef(None, raw, first, "date_bad"), used


def _month_span(
    text: str, items: tuple[Item, ...], month_at: int, year_at: int
) -> tuple[DateRef, set[int]] | None:
    """A month and its year ("enero de 2020", "January 2020"): the whole month."""
    year = _number_at(items, year_at, 1000, 9999)
    if year is None:
        return None
    month = int(items[month_at].value("month") or 0)
    first = dt.date(year, month, 1)
    last = (
        dt.date(year, 12, 31) if month == 12 else dt.date(year, month + 1, 1) - dt.timedelta(days=1)
    )
    raw = text[items[month_at].token.start : items[year_at].token.end]
    span = DateRef(first, raw, month_at, end=last)
    return span, set(range(month_at, year_at + 1))
