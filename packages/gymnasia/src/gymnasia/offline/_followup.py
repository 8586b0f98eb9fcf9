"""The next turn read with the one before: a reply to the Coach's own question ("kg", "ayer",
"merienda") or a correction of the value just saved ("perdón, era 78").

Only when the new message alone is not understood. A reply completes the previous message
where its question pointed (the unit goes right after the number it was missing); a
correction replaces the one number of a measurement just saved (``write_measurement`` keeps
one record per date, so saving again corrects it). A correction of anything else is not
guessed: a meal item saved again would be a second item.

A relative date keeps the day it was said: "Guarda mi peso: 77,4 hoy" answered "kg" the next
day saves 77,4 kg for the day "hoy" was written (the journal dates each user message), which is
the date grounding finds in the person's words too; "ayer" given as the answer counts from the
answer's own day.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Final

from surefoot.messages import Message, UserMessage

from ..catalog import fold
from ._intents import Intent, SaveMeasurement, Unclear
from ._parse import understand
from ._sentence import read_sentence

_COMPLETES: Final = frozenset(
    {"unit_missing", "date_missing", "meal_missing", "meal_ambiguous", "year_missing"}
    | {"date_vague"}
)
_CORRECTS: Final = frozenset(
    {"perdon", "perdona", "desculpa", "desculpe", "sorry", "oops", "ups", "corrijo", "corrige"}
    | {"corrija", "correct", "correction", "meant", "quise", "quis", "error", "erro", "mistake"}
    | {"equivoque", "enganei", "wrong", "era", "fue", "foi", "was", "not", "no", "nao"}
)
_SHORT: Final = 4
_GUARDED: Final = ("wish", "if", "cond", "other", "qualifier", "ask")


def follow_up(messages: Sequence[Message], text: str, today: dt.date, lang: str) -> Intent | None:
    """What ``text`` (said ``today``) means read with the previous user message (None:
    nothing more). The previous message's relative dates count from the day it was said."""
    users = [m for m in messages if isinstance(m, UserMessage)]
    if len(users) < 2:
        return None
    previous, day = users[-2].text, _said_on(users[-2], users[-1], today)
    before = understand(previous, today=day, lang=lang)
    if isinstance(before, Unclear) and before.problem in _COMPLETES:
        return _completed(previous, before, text, (day, today), lang)
    if isinstance(before, SaveMeasurement) and len(before.values) == 1:
        return _corrected(previous, text, (day, today), lang)
    return None


def _said_on(previous: UserMessage, current: UserMessage, today: dt.date) -> dt.date:
    """The day ``previous`` was said, counted back from ``today`` (the current message's) by
    the days between the two as the journal dated them: "hoy" written yesterday is
    yesterday. The same day when either message's day is not known."""
    if previous.said_on is None or current.said_on is None:
        return today
    return today - (current.said_on - previous.said_on)


def _completed(
    previous: str, unclear: Unclear, text: str, days: tuple[dt.date, dt.date], lang: str
) -> Intent | None:
    """``previous`` with the short ``text`` put where its question pointed. ``days``: the
    previous message's day and this one's; the whole counts from the day of the message that
    names a date ("kg" the next day completes "77,4 hoy" of the day before; "ayer" counts
    from the day it is said)."""
    answer = text.strip().rstrip(".!")
    if not answer or len(answer.split()) > _SHORT:
        return None
    if unclear.problem == "unit_missing" and unclear.subject in previous:
        combined = previous.replace(unclear.subject, f"{unclear.subject} {answer}", 1)
    else:
        combined = f"{previous.rstrip(' .!?')} {answer}"
    before, today = days
    day = today if read_sentence(answer, today, lang).dates else before
    found = understand(combined, today=day, lang=lang)
    return None if found is None or isinstance(found, Unclear) else found


def _corrected(previous: str, text: str, days: tuple[dt.date, dt.date], lang: str) -> Intent | None:
    """The measurement just saved with the one number of ``text`` in place of its own, for
    the date it was saved for (``days``: the previous message's day and this one's)."""
    before_day, today = days
    said = read_sentence(text, today, lang)
    words = {fold(item.token.text) for item in said.items}
    if not words & _CORRECTS or len(said.quantities) != 1 or said.dates or said.verbs:
        return None
    guarded = any(item.means(kind) for item in said.items for kind in _GUARDED)
    negated = any(item.means("neg") for item in said.items[1:])
    if guarded or negated:  # "no, era 78" opens with "no"; "ya no era 78" is no correction
        return None
    new = said.quantities[0]
    before = read_sentence(previous, before_day, lang)
    if len(before.quantities) != 1:
        return None
    old = before.quantities[0]
    end = old.number.end
    if new.unit is not None and old.unit is not None:
        end = before.items[old.end - 1].token.end
    replaced = f"{previous[: old.number.start]}{new.text}{previous[end:]}"
    found = understand(replaced, today=before_day, lang=lang)
    return found if isinstance(found, SaveMeasurement) else None
