"""Gymnasia's one catalogue of words, and how numbers and dates are written in each language.

Every text Gymnasia shows is an entry ``key -> {es, pt, en}`` in one section of this catalogue:

* ``app`` — tool messages, replies and command-line text (``gymnasia.texts``);
* ``web`` — the web pages (``gymnasia.web._i18n``);
* ``words`` — a write or a tool call in words: its action, its arguments, its state
  (``gymnasia.words``, for the web's writes page and approval card and the ``writes`` and
  ``diagnostics`` commands);
* ``help`` — ``--help``, keyed by the English text each command declares
  (``gymnasia.cli._help``);
* ``format`` — month names and the date pattern (here).

A section keeps its entries in its own module (so two features can add entries without
touching the same lines) and registers them with ``register``; ``texts.t`` and ``web._i18n.ui``
read through ``entry``. Portuguese is Brazilian Portuguese throughout. ``sections`` loads every
section, for the checks that walk the whole catalogue (``tests/gymnasia/test_i18n.py``).

Numbers are written with a decimal comma in es and pt (``77,4``) and a point in en (``77.4``);
dates in sentences and listings as ``3 dic 2020`` / ``3 de dez. de 2020`` / ``3 Dec 2020``,
and a moment (when a write was made) as that date and the time in UTC
(``3 dic 2020, 14:05 UTC``).
Dates a person types back into a command (``measurements show DATE``) stay ``YYYY-MM-DD``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, TypeAlias

if TYPE_CHECKING:  # the words load without the harness (``gymnasia --help`` uses them)
    from surefoot import Lang

Table: TypeAlias = "Mapping[str, Mapping[Lang, str]]"

_SECTIONS: Final[dict[str, Table]] = {}

_FORMAT: Final[dict[str, dict[Lang, str]]] = {
    "date": {
        "es": "{day} {month} {year}",
        "pt": "{day} de {month} de {year}",
        "en": "{day} {month} {year}",
    },
    "months": {
        "es": "ene feb mar abr may jun jul ago sept oct nov dic",
        "pt": "jan. fev. mar. abr. mai. jun. jul. ago. set. out. nov. dez.",
        "en": "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec",
    },
}


def register(section: str, table: Table) -> Table:
    """Add ``table`` to the catalogue as ``section`` (once per section); returns it."""
    if _SECTIONS.setdefault(section, table) is not table:
        msg = f"the catalogue already has a section {section!r}"
        raise ValueError(msg)
    return table


register("format", _FORMAT)


def entry(section: str, key: str, lang: Lang) -> str:
    """The catalogue's text ``key`` of ``section`` in ``lang``, as written (not filled in)."""
    return _SECTIONS[section][key][lang]


def sections() -> Mapping[str, Table]:
    """Every section of the catalogue, each module that holds one imported first."""
    from . import (
        texts,  # noqa: F401 - importing registers the section
        words,  # noqa: F401 - importing registers the section
    )
    from .cli import _help  # noqa: F401 - importing registers the section
    from .web import _i18n  # noqa: F401 - importing registers the section

    return dict(_SECTIONS)


def number(value: float, lang: Lang) -> str:
    """A number as people write it: ``77,4`` in es/pt, ``77.4`` in en; no trailing ``.0``."""
    formatted = f"{value:.2f}".rstrip("0").rstrip(".")
    return formatted if lang == "en" else formatted.replace(".", ",")


def quantity(value: float, unit: str, lang: Lang) -> str:
    """``value`` with its unit as people write it: ``77,4 kg``, ``18%``."""
    return f"{number(value, lang)}{'' if unit == '%' else ' '}{unit}"


def day(value: dt.date, lang: Lang) -> str:
    """A calendar date in words: ``3 dic 2020``, ``3 de dez. de 2020``, ``3 Dec 2020``."""
    month = _FORMAT["months"][lang].split()[value.month - 1]
    return _FORMAT["date"][lang].format(day=value.day, month=month, year=value.year)


def moment(timestamp: float, lang: Lang) -> str:
    """A moment (seconds since the epoch) as its date in words and its time in UTC:
    ``3 dic 2020, 14:05 UTC``."""
    when = dt.datetime.fromtimestamp(timestamp, dt.UTC)
    return f"{day(when.date(), lang)}, {when:%H:%M} UTC"
