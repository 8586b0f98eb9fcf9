"""The next turn read with the one before: a reply to the Coach's own question ("kg", "ayer",
"merienda") or a correction of the value just saved ("perdón, era 78").

Only when the new message alone is not understood. A reply completes the previous message
where its question pointed (the unit goes right after the number it was missing); a
correction replaces the one number of a measurement just saved (``write_measurement`` keeps
one record per date, so saving again corrects it). A correction of anything else is not
guessed: a meal item saved again would be a second item.
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
    """What ``text`` means read with the previous user message (None: nothing more)."""
    previous = _previous_user_text(messages)
    if previous is None:
        return None
    before = understand(previous, today=today, lang=lang)
    if isinstance(before, Unclear) and before.problem in _COMPLETES:
        return _completed(previous, before, text, today, lang)
    if isinstance(before, SaveMeasurement) and len(before.values) == 1:
        return _corrected(previous, text, today, lang)
    return None


def _previous_user_text(messages: Sequence[Message]) -> str | None:
    users = [m for m in messages if isinstance(m, UserMessage)]
    return users[-2].text if len(users) >= 2 else None


def _completed(
    previous: str, unclear: Unclear, text: str, today: dt.date, lang: str
) -> Intent | None:
    answer = text.strip().rstrip(".!")
    if not answer or len(answer.split()) > _SHORT:
        return None
    if unclear.problem == "unit_missing" and unclear.subject in previous:
        combined = previous.replace(unclear.subject, f"{unclear.subject} {answer}", 1)
    else:
        combined = f"{previous.rstrip(' .!?')} {answer}"
    found = understand(combined, today=today, lang=lang)
    return None if found is None or isinstance(found, Unclear) else found


def _corrected(previous: str, text: str, today: dt.date, lang: str) -> Intent | None:
    said = read_sentence(text, today, lang)
    words = {fold(item.token.text) for item in said.items}
    if not words & _CORRECTS or len(said.quantities) != 1 or said.dates or said.verbs:
        return None
    guarded = any(item.means(kind) for item in said.items for kind in _GUARDED)
    negated = any(item.means("neg") for item in said.items[1:])
    if guarded or negated:  # "no, era 78" opens with "no"; "ya no era 78" is no correction
        return None
    new = said.quantities[0]
    before = read_sentence(previous, today, lang)
    if len(before.quantities) != 1:
        return None
    old = before.quantities[0]
    end = old.number.end
    if new.unit is not None and old.unit is not None:
        end = before.items[old.end - 1].token.end
    replaced = f"{previous[: old.number.start]}{new.text}{previous[end:]}"
    found = understand(replaced, today=today, lang=lang)
    return found if isinstance(found, SaveMeasurement) else None
