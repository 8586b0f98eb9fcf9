"""The journal: each conversation's neutral transcript, who may write it, and the approvals
its calls asked for.

One writer per conversation. A turn first ``acquire``s the conversation (a lease with a fencing
token, decided by the journal's database, not by an in-process lock), renews it while it runs
and ``release``s it at the end. Every ``append`` checks the token in the same commit, so a
writer whose lease was taken over can never interleave its messages with the new holder's.

Each ``append`` is durable when it returns (for SQL journals, one commit) and may carry several
messages: the loop journals a stop_turn's results together with the harness's stop message, so
no crash can leave the first without the second. The model's response is appended *before* its
tool calls run, and the results after, so a killed process leaves a transcript that
``Agent.resume`` can finish.

Approvals are bound to the exact call: an approval names the conversation, the user turn, the
tool, the fingerprint of the validated arguments and the write's idempotency key (which the
ordinal of identical calls makes unique). A decision is only ever applied to that call.

A journal belongs to one user (tenant); conversations of other users are not found.
"""

from __future__ import annotations

import itertools
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ._exceptions import ConversationBusyError
from ._frozen import quick_init
from ._ledger import DEFAULT_USER
from ._messages import AssistantMessage, HarnessMessage, Message


@quick_init
@dataclass(frozen=True, slots=True)
class Lease:
    """A conversation held by one writer; ``fence`` grows with every new holder.
    ``orphaned``: it was taken over from a holder provably dead (a process of this machine
    that no longer runs), so that holder's unsettled writes can be settled at once."""

    conversation_id: str
    owner: str
    fence: int
    orphaned: bool = False


@quick_init
@dataclass(frozen=True, slots=True)
class ModelRef:
    """Which model a turn runs on (never its key), so a resumed turn continues on it."""

    provider: str
    model: str
    base_url: str | None = None


@dataclass(frozen=True, slots=True)
class Approval:
    """A confirmation a call asked for, and the person's decision (None while undecided)."""

    id: str
    conversation_id: str
    user_turn: int
    key: str
    call_id: str
    tool: str
    fingerprint: str
    arguments: dict[str, Any]
    approved: bool | None = None


def approval_id(key: str) -> str:
    """The id a person uses to decide on the write with idempotency key ``key``."""
    return "ap_" + key.removeprefix("sfk_")[:24]


class Journal(Protocol):
    """Where transcripts live. ``MemoryJournal`` and ``SqlJournal`` implement it."""

    @property
    def user(self) -> str:
        """Whose conversations these are."""
        ...

    def load(self, conversation_id: str) -> list[Message]:
        """The messages of a conversation, in order (empty if it does not exist)."""
        ...

    def load_many(self, conversation_ids: Sequence[str]) -> dict[str, list[Message]]:
        """``load`` of each conversation, by id (empty for one that does not exist), in as few
        reads as the store allows: a list of conversations reads them all at once."""
        ...

    def append(
        self, conversation_id: str, *messages: Message, lease: Lease, model: ModelRef | None = None
    ) -> None:
        """Durably add ``messages`` at the end, in one commit, if ``lease`` is still the
        conversation's; raise ``ConversationBusyError`` otherwise. ``model`` records the model the
        turn runs on."""
        ...

    def exists(self, conversation_id: str) -> bool:
        """Whether the conversation has any message."""
        ...

    def conversations(self) -> list[str]:
        """Conversation ids with messages, most recent first."""
        ...

    def acquire(self, conversation_id: str, *, seconds: float) -> Lease | None:
        """Hold the conversation for ``seconds`` (None if another live writer holds it)."""
        ...

    def renew(self, lease: Lease, *, seconds: float) -> bool:
        """Extend ``lease``; False if it was taken over."""
        ...

    def release(self, lease: Lease) -> None:
        """Let go of ``lease`` (nothing happens if it was taken over)."""
        ...

    def model_of(self, conversation_id: str) -> ModelRef | None:
        """The model the conversation's last turn runs on, if recorded."""
        ...

    def request_approval(self, approval: Approval) -> Approval:
        """Record that a call waits for a decision (once); returns the stored approval."""
        ...

    def decide(self, conversation_id: str, approval_id: str, *, approved: bool) -> bool:
        """Record a person's decision on an undecided approval; False if there is none."""
        ...

    def approvals(
        self,
        *,
        conversation_id: str | None = None,
        user_turn: int | None = None,
        decided: bool | None = None,
    ) -> list[Approval]:
        """Approvals, oldest first, optionally filtered."""
        ...


@dataclass(slots=True)
class _Conversation:
    messages: list[Message]
    owner: str | None = None
    fence: int = 0
    lease_until: float = 0.0
    model: ModelRef | None = None
    approvals: list[str] = field(default_factory=list)


def turn_ended(messages: list[Message]) -> bool:
    """Whether the transcript's last turn has ended (or it has none): nothing in it waits for
    a decision or a resume."""
    if not messages:
        return True
    last = messages[-1]
    if isinstance(last, HarnessMessage):
        return True
    return isinstance(last, AssistantMessage) and not last.tool_calls and last.finish != "pause"


class MemoryJournal:
    """A journal kept in memory (leases and approvals too).

    It keeps at most ``limit`` conversations (None: no limit). When a turn lets go of its
    conversation and there are more, the least recently written conversations that are
    *finished* are forgotten, with their approvals: no writer holds them, their last turn
    ended (nothing waits for a decision or a resume), and ``retain`` (if set) does not claim
    them. An ``Agent`` with the in-memory ledger sets ``retain`` to "the ledger has a write
    of it not yet settled" and ``on_evict`` to forget its settled writes, so a conversation
    with an unsettled write or a pending approval is never forgotten (and may keep the
    journal above its limit until it is settled). A forgotten conversation is as if it never
    existed."""

    def __init__(
        self,
        *,
        user: str = DEFAULT_USER,
        clock: Any = time.monotonic,
        limit: int | None = 10_000,
    ) -> None:
        self.user = user
        self.limit = limit
        self.retain: Callable[[str], bool] | None = None
        self.on_evict: Callable[[str], None] | None = None
        self._clock = clock
        # least recently written first; an OrderedDict, so that the oldest is found at once
        # (a dict that is deleted from at the front skips every deleted slot to reach it)
        self._conversations: OrderedDict[str, _Conversation] = OrderedDict()
        self._approvals: dict[str, Approval] = {}
        self._owners = itertools.count(1)

    def _evict(self) -> None:
        """Forget finished conversations, least recently written first, down to ``limit``."""
        if self.limit is None or len(self._conversations) <= self.limit:
            return
        now = self._clock()
        excess = len(self._conversations) - self.limit
        victims: list[tuple[str, _Conversation]] = []
        for cid, found in self._conversations.items():  # least recently written first
            if len(victims) >= excess:
                break
            if self._evictable(cid, found, now):
                victims.append((cid, found))
        for cid, found in victims:
            del self._conversations[cid]
            for aid in found.approvals:
                self._approvals.pop(aid, None)
            if self.on_evict is not None:
                self.on_evict(cid)

    def _evictable(self, cid: str, found: _Conversation, now: float) -> bool:
        if found.owner is not None and found.lease_until >= now:
            return False
        if not turn_ended(found.messages):
            return False
        if any(self._approvals[a].approved is None for a in found.approvals):
            return False
        return self.retain is None or not self.retain(cid)

    def load(self, conversation_id: str) -> list[Message]:
        found = self._conversations.get(conversation_id)
        return list(found.messages) if found is not None else []

    def load_many(self, conversation_ids: Sequence[str]) -> dict[str, list[Message]]:
        return {cid: self.load(cid) for cid in conversation_ids}

    def append(
        self, conversation_id: str, *messages: Message, lease: Lease, model: ModelRef | None = None
    ) -> None:
        found = self._conversations.get(conversation_id)
        if found is None or found.owner != lease.owner or found.fence != lease.fence:
            raise ConversationBusyError(conversation_id)
        found.messages.extend(messages)
        if model is not None:
            found.model = model
        # most recent first in ``conversations``: move to the end of the insertion order
        self._conversations.move_to_end(conversation_id)

    def exists(self, conversation_id: str) -> bool:
        found = self._conversations.get(conversation_id)
        return found is not None and bool(found.messages)

    def conversations(self) -> list[str]:
        return [cid for cid, c in reversed(self._conversations.items()) if c.messages]

    def acquire(self, conversation_id: str, *, seconds: float) -> Lease | None:
        found = self._conversations.get(conversation_id)
        if found is None:
            found = self._conversations[conversation_id] = _Conversation([])
        now = self._clock()
        if found.owner is not None and found.lease_until >= now:
            return None
        # an owner only has to differ from every other of this journal (it lives in memory)
        found.owner, found.fence = f"m{next(self._owners)}", found.fence + 1
        found.lease_until = now + seconds
        return Lease(conversation_id, found.owner, found.fence)

    def renew(self, lease: Lease, *, seconds: float) -> bool:
        found = self._conversations.get(lease.conversation_id)
        if found is None or (found.owner, found.fence) != (lease.owner, lease.fence):
            return False
        found.lease_until = self._clock() + seconds
        return True

    def release(self, lease: Lease) -> None:
        found = self._conversations.get(lease.conversation_id)
        if found is not None and found.owner == lease.owner and found.fence == lease.fence:
            found.owner, found.lease_until = None, 0.0
            if self.limit is not None and len(self._conversations) > self.limit:
                self._evict()

    def model_of(self, conversation_id: str) -> ModelRef | None:
        found = self._conversations.get(conversation_id)
        return found.model if found is not None else None

    def request_approval(self, approval: Approval) -> Approval:
        stored = self._approvals.setdefault(approval.id, replace(approval, approved=None))
        found = self._conversations.setdefault(approval.conversation_id, _Conversation([]))
        if approval.id not in found.approvals:
            found.approvals.append(approval.id)
        return stored

    def decide(self, conversation_id: str, approval_id: str, *, approved: bool) -> bool:
        found = self._approvals.get(approval_id)
        if found is None or found.conversation_id != conversation_id or found.approved is not None:
            return False
        self._approvals[approval_id] = replace(found, approved=approved)
        return True

    def approvals(
        self,
        *,
        conversation_id: str | None = None,
        user_turn: int | None = None,
        decided: bool | None = None,
    ) -> list[Approval]:
        if conversation_id is not None:  # that conversation's own, not every approval
            found = self._conversations.get(conversation_id)
            ids = found.approvals if found is not None else []
            candidates = [self._approvals[i] for i in ids if i in self._approvals]
        else:
            candidates = list(self._approvals.values())
        return [
            a
            for a in candidates
            if conversation_id in (None, a.conversation_id)
            and user_turn in (None, a.user_turn)
            and (decided is None or (a.approved is not None) == decided)
        ]
