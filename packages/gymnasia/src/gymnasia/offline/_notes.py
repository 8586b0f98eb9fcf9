"""Memory notes and feature requests: their keys and values are taken from the text verbatim.

"Guarda la nota objetivo: correr 10 km." saves key ``objetivo`` with the value after the colon,
exactly as written (only a final full stop is dropped), whatever it says.
"""

from __future__ import annotations

import re
from typing import Final

from ..catalog import fold
from ._intents import (
    DeleteNote,
    Intent,
    ListNotes,
    ReadNote,
    SaveNote,
    SuggestFeature,
    Unclear,
)
from ._lex import Mark
from ._sentence import Sentence
from ._words import FUNCTION_WORDS

_KEY: Final = re.compile(r"\s*(?:«([^»]+)»|\"([^\"]+)\"|“([^”]+)”|'([^']+)'|([\w-]+))")
_QUOTES: Final = frozenset("«\"“'")
_ANY: Final = frozenset({"alguna", "algun", "alguno", "alguma", "algum", "any", "some"})
_COLLECTIVE: Final = frozenset(
    {"notas", "notes", "memoria", "memorias", "memory", "memories", "recordatorios", "lembretes"}
)


def parse_feature(s: Sentence) -> Intent | Unclear | None:
    """A feature request: "Sugiere la función: TITLE. DESCRIPTION" (es/pt/en)."""
    colon = _first_mark(s, ":")
    verbs = [v for v in s.verbs if v.action == "suggest" and not v.negated]
    if colon is None or not verbs or verbs[0].index > colon:
        return None
    if not all(s.items[i].means("noun", "feature") or _glue(s, i) for i in _between(s, colon)):
        return None
    body = s.text[s.items[colon].token.end :].strip()
    title, _, description = body.partition(". ")
    title = title.strip().rstrip(".").strip()
    if not title:
        return Unclear("suggest_feature", "title_missing")
    return SuggestFeature(title, description.strip())


def _between(s: Sentence, colon: int) -> list[int]:
    first_verb = next(v.index for v in s.verbs if v.action == "suggest")
    return list(range(first_verb + 1, colon))


def _glue(s: Sentence, index: int) -> bool:
    return s.items[index].norm in FUNCTION_WORDS


def _first_mark(s: Sentence, mark: str) -> int | None:
    return next((i for i in range(len(s.items)) if s.mark_at(i, mark)), None)


def parse_notes(s: Sentence) -> Intent | Unclear | None:
    """Save, read, list or delete memory notes."""
    nouns = s.where("noun", "note")
    if not nouns:
        return None
    plain, negated = s.actions(), s.actions(negated=True)
    if "save" in plain:
        return _save(s, nouns)
    if "save" in negated:
        return Unclear("save_note", "negated")
    if "delete" in negated:
        return Unclear("delete_note", "negated")
    key = _key_after_any(s, nouns)
    if "delete" in plain:
        return DeleteNote(key) if key else Unclear("delete_note", "key_missing")
    if key:
        return ReadNote(key)
    collective = any(s.items[i].norm in _COLLECTIVE for i in nouns)
    if collective or "list" in plain or _any_note(s, nouns):
        return ListNotes()
    return Unclear("read_note", "key_missing")


def _any_note(s: Sentence, nouns: list[int]) -> bool:
    """A question about which notes exist: "¿Tengo alguna nota …?", "Any note …?"."""
    return any(i > 0 and s.items[i - 1].norm in _ANY for i in nouns)


def _save(s: Sentence, nouns: list[int]) -> SaveNote | Unclear:
    colon = _first_mark(s, ":")
    before = [i for i in nouns if colon is None or i < colon]
    key = _key_after_any(s, before)
    if not key:
        return Unclear("save_note", "key_missing")
    if colon is None:
        return Unclear("save_note", "note_value_missing")
    value = s.text[s.items[colon].token.end :].strip()
    value = value.removesuffix(".").strip() if not value.endswith("..") else value
    if not value:
        return Unclear("save_note", "note_value_missing")
    return SaveNote(key, value)


def _key_after_any(s: Sentence, nouns: list[int]) -> str | None:
    for noun in nouns:
        key = _key_after(s, noun)
        if key:
            return key
    return None


def _key_after(s: Sentence, noun: int) -> str | None:
    """The key written right after the note noun ("la nota objetivo", "the note «my goal»",
    "la nota llamada objetivo"), or None when what follows is not a key."""
    at = noun + 1
    if at < len(s.items) and s.items[at].means("called"):
        at += 1
    if at >= len(s.items):
        return None
    if isinstance(s.items[at].token, Mark) and s.items[at].norm not in _QUOTES:
        return None
    found = _KEY.match(s.text, s.items[at - 1].token.end)
    if found is None:
        return None
    quoted = next((g for g in found.groups()[:4] if g), None)
    if quoted is not None:
        return quoted.strip() or None
    word = found.group(5)
    glue = fold(word) in FUNCTION_WORDS or s.items[at].means("ask")
    return None if glue and word.islower() else word  # "la nota y …" is glue, "la nota Y" a key
