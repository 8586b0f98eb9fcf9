"""Seeding journals in tests: a transcript written as one writer would write it."""

from __future__ import annotations

from collections.abc import Iterable

from .._exceptions import ConversationBusyError
from .._journal import Journal
from .._messages import Message


def write_transcript(journal: Journal, conversation_id: str, messages: Iterable[Message]) -> None:
    """Append ``messages`` to ``conversation_id`` in one commit, holding the conversation
    for the write like a turn does (raises ``ConversationBusyError`` if a turn holds it)."""
    lease = journal.acquire(conversation_id, seconds=30.0)
    if lease is None:
        raise ConversationBusyError(conversation_id)
    try:
        journal.append(conversation_id, *messages, lease=lease)
    finally:
        journal.release(lease)
