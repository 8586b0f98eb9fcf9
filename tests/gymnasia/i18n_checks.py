"""What the language tests look for: English text from the catalogue, and English words, in
what a person sees in another language."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from gymnasia import i18n
from surefoot import Lang

ENGLISH_WORDS = frozenset(
    {"the", "and", "your", "you", "with", "this", "that", "from", "are", "is", "was", "not"}
    | {"have", "has", "of", "to", "what", "which", "there", "here", "yet"}
)
"""Words that are English and never Spanish or Portuguese."""


def _fragments(text: str) -> Iterator[str]:
    """The literal pieces of a catalogue text between its placeholders, lowercased."""
    for raw in re.split(r"\{[^}]*\}", text):
        piece = " ".join(raw.split()).strip(" .,:;!?()«»'\"…·-").lower()
        words = re.findall(r"[^\W\d_]+", piece)
        if len(words) >= 2 or (words and len(words[0]) >= 5):
            yield piece


@functools.cache
def english_only_fragments(lang: Lang) -> frozenset[str]:
    """Fragments of the English catalogue that the ``lang`` catalogue does not also contain."""
    english: set[str] = set()
    translated: set[str] = set()
    for table in i18n.sections().values():
        for texts in table.values():
            english.update(_fragments(texts["en"]))
            translated.update(_fragments(texts[lang]))
    return frozenset(f for f in english if not any(f in t for t in translated))


def english_in(text: str, lang: Lang) -> list[str]:
    """English catalogue text and English function words found in ``text`` (ids such as
    ``band_squat_to_press``, which commands take as they are, aside)."""
    lowered = " ".join(re.sub(r"\b\w+_\w+\b", " ", text).split()).lower()
    found = sorted(
        f for f in english_only_fragments(lang) if re.search(rf"\b{re.escape(f)}\b", lowered)
    )
    words = set(re.findall(r"[^\W\d_]+", lowered))
    return found + sorted(words & ENGLISH_WORDS)
