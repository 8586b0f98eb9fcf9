"""``understand``: a message → an intent, what stops one (``Unclear``), or None.

Each domain parser claims the message or passes; the order settles overlaps: a feature request
and a note's verbatim text first (anything may follow their colon), then routines (whose
exercises may name a "peso muerto"), exercises, notes, foods, meals, and measurements last.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Final

from ._diet import parse_foods, parse_meals
from ._intents import Intent, Unclear
from ._measure import parse_measurements
from ._notes import parse_feature, parse_notes
from ._sentence import Sentence, read_sentence
from ._training import parse_exercises, parse_routines

_PARSERS: Final[tuple[Callable[[Sentence], Intent | Unclear | None], ...]] = (
    parse_feature,
    parse_routines,
    parse_exercises,
    parse_notes,
    parse_foods,
    parse_meals,
    parse_measurements,
)


def understand(
    text: str, *, today: dt.date | None = None, lang: str | None = None
) -> Intent | Unclear | None:
    """What ``text`` (written in ``lang``, when known) asks for; relative dates count from
    ``today`` (default: the clock's)."""
    day = today or dt.date.today()  # noqa: DTZ011 - a calendar date
    sentence = read_sentence(text, day, lang)
    for parser in _PARSERS:
        found = parser(sentence)
        if found is not None:
            return found
    return None
