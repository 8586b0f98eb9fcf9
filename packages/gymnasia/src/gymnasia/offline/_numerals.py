"""Numbers written in words, read whole: "setenta y siete con cuatro", "setenta e sete vírgula
quatro", "seventy-seven point four" are one ``Number`` (77.4), as if typed in digits.

A run of number words becomes a number only when it is well formed in its language (tens
before units, "y"/"e"/"and" where the language puts it); a lone "un", "una", "um", "uma" or
"one" stays a word (it is an article far more often than a count). A decimal part follows
"coma", "punto", "vírgula", "ponto" or "point" as digits ("point two five"), or "con" as one
digit ("setenta y siete con cuatro"), so "diez con sesenta kilos" is not 10.6; "y medio", "e
meio" or "and a half" is .5. A run next to a number word it could not take ("setenta siete",
"hundred and fifty" without its "a") is malformed: the parser asks rather than read a part of
it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Final, Literal

from ._lex import Number, Token, Word

Kind = Literal["unit", "teen", "tens", "hundreds", "hundred", "thousand"]

_ES: Final = {
    "cero": 0, "uno": 1, "un": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5,
    "seis": 6, "siete": 7, "ocho": 8, "nueve": 9, "diez": 10, "once": 11, "doce": 12,
    "trece": 13, "catorce": 14, "quince": 15, "dieciseis": 16, "diecisiete": 17,
    "dieciocho": 18, "diecinueve": 19, "veinte": 20, "veintiuno": 21, "veintiun": 21,
    "veintiuna": 21, "veintidos": 22, "veintitres": 23, "veinticuatro": 24,
    "veinticinco": 25, "veintiseis": 26, "veintisiete": 27, "veintiocho": 28,
    "veintinueve": 29, "treinta": 30, "cuarenta": 40, "cincuenta": 50, "sesenta": 60,
    "setenta": 70, "ochenta": 80, "noventa": 90, "cien": 100, "ciento": 100,
    "doscientos": 200, "doscientas": 200, "trescientos": 300, "trescientas": 300,
    "cuatrocientos": 400, "cuatrocientas": 400, "quinientos": 500, "quinientas": 500,
    "seiscientos": 600, "seiscientas": 600, "setecientos": 700, "setecientas": 700,
    "ochocientos": 800, "ochocientas": 800, "novecientos": 900, "novecientas": 900,
    "mil": 1000,
}  # fmt: skip
_PT: Final = {
    "zero": 0, "um": 1, "uma": 1, "dois": 2, "duas": 2, "tres": 3, "quatro": 4, "cinco": 5,
    "seis": 6, "sete": 7, "oito": 8, "nove": 9, "dez": 10, "onze": 11, "doze": 12,
    "treze": 13, "catorze": 14, "quatorze": 14, "quinze": 15, "dezesseis": 16,
    "dezasseis": 16, "dezessete": 17, "dezassete": 17, "dezoito": 18, "dezenove": 19,
    "dezanove": 19, "vinte": 20, "trinta": 30, "quarenta": 40, "cinquenta": 50,
    "sessenta": 60, "setenta": 70, "oitenta": 80, "noventa": 90, "cem": 100, "cento": 100,
    "duzentos": 200, "duzentas": 200, "trezentos": 300, "trezentas": 300,
    "quatrocentos": 400, "quatrocentas": 400, "quinhentos": 500, "quinhentas": 500,
    "seiscentos": 600, "seiscentas": 600, "setecentos": 700, "setecentas": 700,
    "oitocentos": 800, "oitocentas": 800, "novecentos": 900, "novecentas": 900, "mil": 1000,
}  # fmt: skip
_EN: Final = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
}  # fmt: skip
_TABLES: Final = {"es": _ES, "pt": _PT, "en": _EN}
_AND: Final = {"es": frozenset({"y"}), "pt": frozenset({"e"}), "en": frozenset({"and"})}
_POINT: Final = {
    "es": frozenset({"coma", "punto"}),
    "pt": frozenset({"virgula", "ponto"}),
    "en": frozenset({"point"}),
}
_ONE_DIGIT_POINT: Final = {"es": frozenset({"con"}), "pt": frozenset(), "en": frozenset()}
_HALF: Final = {
    "es": (("y", "medio"), ("y", "media")),
    "pt": (("e", "meio"), ("e", "meia")),
    "en": (("and", "a", "half"),),
}
"""A half after a number in words: "setenta y seis y medio" is 76.5."""
_ARTICLE_ONES: Final = frozenset({"un", "una", "um", "uma", "one"})


def _kind(word: str, value: int) -> Kind:
    if word == "hundred":
        return "hundred"
    if value == 1000:
        return "thousand"
    if value >= 100:
        return "hundreds"
    if value >= 20 and value % 10 == 0:
        return "tens"
    return "teen" if value >= 10 else "unit"


@dataclass
class _Run:
    """A whole number being read: the thousands so far, the group below a thousand, and the
    kind of the last word."""

    thousands: int = 0
    group: int = 0
    last: Kind | None = None

    @property
    def value(self) -> int:
        return self.thousands + self.group

    def takes(self, kind: Kind, value: int, *, joined: bool, lang: str) -> bool:
        """Add a word of ``kind`` (after "y"/"e"/"and" when ``joined``), if well formed."""
        tens_unit = self.last == "tens" and kind == "unit"
        after_hundreds = self.last in {"hundreds", "hundred", "thousand"}
        if joined and not (tens_unit or after_hundreds):
            return False
        if tens_unit and not joined and lang != "en":
            return False  # "setenta siete": Spanish and Portuguese join them with y / e
        if kind == "thousand":
            if self.thousands or self.last == "thousand":
                return False
            self.thousands, self.group = (self.group or 1) * 1000, 0
        elif kind == "hundred":
            if self.last != "unit" or self.group >= 10:
                return False
            self.group *= 100
        elif kind == "hundreds":
            if self.group:
                return False
            self.group = value
        elif kind in {"tens", "teen"}:
            if self.group % 100:
                return False
            self.group += value
        elif not (self.last is None or tens_unit or after_hundreds):
            return False
        else:
            self.group += value
        self.last = kind
        return True


def _parts(token: Token) -> list[str] | None:
    """The number words of a word ("seventy-seven": two), or None when it is not one."""
    if not isinstance(token, Word):
        return None
    return token.norm.split("-")


def _scaled(tokens: Sequence[Token], at: int) -> list[str] | None:
    """The words of token ``at``, with English "a"/"an" read as "one" before "hundred" or
    "thousand" ("a hundred and fifty")."""
    parts = _parts(tokens[at])
    following = _parts(tokens[at + 1]) if at + 1 < len(tokens) else None
    if parts in (["a"], ["an"]) and following in (["hundred"], ["thousand"]):
        return ["one"]
    return parts


def _number_word(tokens: Sequence[Token], at: int, lang: str) -> bool:
    """Whether token ``at`` (past a "y"/"e"/"and") is a number word of ``lang``."""
    if 0 <= at < len(tokens) and (_parts(tokens[at]) or [""])[0] in _AND[lang]:
        at += 1 if at + 1 < len(tokens) else 0
    parts = _parts(tokens[at]) if 0 <= at < len(tokens) else None
    return bool(parts) and all(p in _TABLES[lang] for p in parts or [])


def spell_numbers(tokens: Sequence[Token], lang: str | None) -> list[Token]:
    """``tokens`` with each well-formed run of number words replaced by one ``Number``."""
    if lang not in _TABLES:
        return list(tokens)
    out: list[Token] = []
    at = 0
    while at < len(tokens):
        read = _read(tokens, at, lang)
        if read is None:
            out.append(tokens[at])
            at += 1
            continue
        end, value = read
        first, last = tokens[at], tokens[end - 1]
        text = " ".join(t.text for t in tokens[at:end])
        if _number_word(tokens, end, lang) or _stranded_before(tokens, at, lang):
            out.append(Number(text, first.start, last.end, None, "malformed"))
        else:
            out.append(Number(text, first.start, last.end, value))
        at = end
    return out


def _stranded_before(tokens: Sequence[Token], at: int, lang: str) -> bool:
    """Whether a number word that no run took comes right before ``at`` ("hundred and
    fifty" without its "a": the fifty is not the number meant)."""
    before = at - 1
    if before >= 0 and (_parts(tokens[before]) or [""])[0] in _AND[lang]:
        before -= 1
    return before >= 0 and _number_word(tokens, before, lang)


def _integer(tokens: Sequence[Token], at: int, lang: str) -> tuple[int, int, int] | None:
    """The whole number of words from ``at``: its end, value and word count."""
    table, joins = _TABLES[lang], _AND[lang]
    run, end, words, joined = _Run(), at, 0, False
    i = at
    while i < len(tokens):
        parts = _scaled(tokens, i) if lang == "en" else _parts(tokens[i])
        if parts is None:
            break
        if len(parts) == 1 and parts[0] in joins and words:
            joined, i = True, i + 1
            continue
        if not all(p in table for p in parts):
            break
        if not all(
            run.takes(_kind(p, table[p]), table[p], joined=joined, lang=lang) for p in parts
        ):
            break
        words += len(parts)
        joined, i = False, i + 1
        end = i
    if words == 0:
        return None
    return end, run.value, words


def _read(tokens: Sequence[Token], at: int, lang: str) -> tuple[int, Decimal] | None:
    whole = _integer(tokens, at, lang)
    if whole is None:
        return None
    end, value, words = whole
    lone = words == 1 and (_parts(tokens[at]) or [""])[0] in _ARTICLE_ONES
    fraction = _fraction(tokens, end, lang) or _half(tokens, end, lang)
    if fraction is not None:
        return fraction[0], Decimal(f"{value}.{fraction[1]}")
    if lone:
        return None
    return end, Decimal(value)


def _half(tokens: Sequence[Token], at: int, lang: str) -> tuple[int, str] | None:
    """ "y medio", "e meio", "and a half" right after a number: where it ends, and "5"."""
    for words in _HALF[lang]:
        end = at + len(words)
        if end <= len(tokens) and all(
            _parts(tokens[at + k]) == [word] for k, word in enumerate(words)
        ):
            return end, "5"
    return None


def _fraction(tokens: Sequence[Token], at: int, lang: str) -> tuple[int, str] | None:
    """The decimal digits after "coma"/"punto"/"point" (digits, or one number under a
    hundred) or after "con" (one digit)."""
    marker = _parts(tokens[at]) if at < len(tokens) else None
    if marker is None or len(marker) != 1:
        return None
    table = _TABLES[lang]
    one_digit = marker[0] in _ONE_DIGIT_POINT[lang]
    if not (one_digit or marker[0] in _POINT[lang]):
        return None
    digits, i = "", at + 1
    while i < len(tokens):
        parts = _parts(tokens[i])
        if parts is None or len(parts) != 1 or table.get(parts[0], 10) > 9:
            break
        digits += str(table[parts[0]])
        i += 1
        if one_digit:
            break
    if digits:
        return i, digits
    if one_digit:
        return None
    whole = _integer(tokens, at + 1, lang)
    if whole is None or whole[1] >= 100:
        return None
    return whole[0], str(whole[1])
