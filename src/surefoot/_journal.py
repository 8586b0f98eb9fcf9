"""The journal: the neutral transcript of each conversation, and its confirmation decisions.

Each ``append`` is durable when it returns (for SQL journals, one commit). The turn loop
appends the model's response *before* running its tool calls, and the results after, so a
killed process leaves a transcript that ``Agent.resume`` can finish.
"""

from __future__ import annotations

from typing import Protocol

from ._messages import Message


class Journal(Protocol):
    """Where transcripts live. ``MemoryJournal`` and ``SqlJournal`` implement it."""

    def load(self, conversation_id: str) -> list[Message]:
        """The messages of a conversation, in order (empty if it does not exist)."""
        ...

    def append(self, conversation_id: str, message: Message) -> None:
        """Durably add ``message`` at the end."""
        ...

    def exists(self, conversation_id: str) -> bool:
        """Whether the conversation has any message."""
        ...

    def conversations(self) -> list[str]:
        """Conversation ids, most recent first."""
        ...

    def decide(self, conversation_id: str, call_id: str, *, approved: bool) -> bool:
        """Record a person's decision on a call; False if one was already recorded."""
        ...

    def decisions(self, conversation_id: str) -> dict[str, bool]:
        """Recorded decisions by call id."""
        ...


class MemoryJournal:
    """A journal kept in memory."""

    def __init__(self) -> None:
        self._messages: dict[str, list[Message]] = {}
        self._decisions: dict[str, dict[str, bool]] = {}

    def load(self, conversation_id: str) -> list[Message]:
        return list(self._messages.get(conversation_id, ()))

    def append(self, conversation_id: str, message: Message) -> None:
        self._messages.setdefault(conversation_id, []).append(message)

    def exists(self, conversation_id: str) -> bool:
        return bool(self._messages.get(conversation_id))

    def conversations(self) -> list[str]:
        return list(reversed(self._messages))

    def decide(self, conversation_id: str, call_id: str, *, approved: bool) -> bool:
        decided = self._decisions.setdefault(conversation_id, {})
        if call_id in decided:
            return False
        decided[call_id] = approved
        return True

    def decisions(self, conversation_id: str) -> dict[str, bool]:
        return dict(self._decisions.get(conversation_id, {}))
