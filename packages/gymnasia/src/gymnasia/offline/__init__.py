"""The ``offline`` model: deterministic, rule-based, no AI, clearly labelled as such.

It speaks surefoot's neutral model interface like any provider adapter, and reads a message
the way a parser does, not by searching it for patterns::

    text ─ _lex.tokenize ─▶ tokens (whole words, whole numbers, whole dates, marks)
         ─ _words.tag ─────▶ items (phrases merged; each with the concepts it may mean)
         ─ _sentence ──────▶ clauses, negation, conditions, dates, quantities with units
         ─ _parse ─────────▶ an intent (_measure, _notes, _diet, _training), or Unclear
         ─ _plan ──────────▶ tool calls, then a reply (_replies) from the outcomes' marks

When it is not sure — an ambiguous number, a date that does not exist, a value out of range, a
missing unit, meal or date — it says what it understood and asks, and writes nothing.
"""

from ._intents import Intent, Unclear
from ._model import OfflineModel
from ._parse import understand

__all__ = ["Intent", "OfflineModel", "Unclear", "understand"]
