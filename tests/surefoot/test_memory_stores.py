"""The memory stores keep the contract the SQL stores keep (tests and ephemeral agents rely on
it): the ledger's states, attempts and leases, and the journal's leases with their fencing
tokens. A hand-driven clock stands in for time."""

from __future__ import annotations

from typing import Any

import pytest

from surefoot import ConversationBusyError, MemoryJournal, MemoryLedger, StoreError
from surefoot.journal import ModelRef
from surefoot.messages import UserMessage


class Clock:
    """Time that moves only when told to."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def claim(ledger: MemoryLedger, key: str = "k1", *, conversation: str = "c1") -> Any:
    return ledger.claim(
        key=key,
        conversation_id=conversation,
        tool="save",
        fingerprint="fp-" + key,
        arguments={"key": key},
        lease_seconds=30,
    )


# -- the ledger ------------------------------------------------------------------------------


def test_a_claim_owns_a_new_key_once() -> None:
    """The first claim owns attempt 1 of a pending row; a second one gets the row, not owned."""
    ledger = MemoryLedger()
    first = claim(ledger)
    second = claim(ledger)
    assert (first.owned, first.entry.state, first.entry.attempt) == (True, "pending", 1)
    assert (second.owned, second.entry) == (False, first.entry)
    assert ledger.get("missing") is None


def test_the_memory_ledger_cannot_join_a_database_transaction() -> None:
    """Atomic writes need a SQL ledger: ``commit_in`` says so and changes nothing."""
    ledger = MemoryLedger()
    claim(ledger)
    with pytest.raises(StoreError, match="SqlLedger"):
        ledger.commit_in(object(), "k1", 1, {"saved": True})
    entry = ledger.get("k1")
    assert entry is not None
    assert entry.state == "pending"


def test_finalize_only_for_the_claimed_attempt_of_an_open_row() -> None:
    """Another attempt, a missing key, or a settled row: refused. An ``unknown`` row may still
    be settled by its attempt."""
    clock = Clock()
    ledger = MemoryLedger(clock=clock)
    claim(ledger)
    assert not ledger.finalize("k1", 2, "committed", result={})
    assert not ledger.finalize("missing", 1, "committed", result={})
    assert ledger.finalize("k1", 1, "unknown", error={"error": "outcome_unknown"})
    clock.now += 5
    assert ledger.finalize("k1", 1, "committed", result={"saved": 1})
    assert not ledger.finalize("k1", 1, "failed", error={"error": "x"})
    entry = ledger.get("k1")
    assert entry is not None
    assert (entry.state, entry.result, entry.error) == ("committed", {"saved": 1}, None)
    assert entry.updated_at == entry.created_at + 5


def test_a_lease_expires_unless_renewed_and_expiry_fences_the_attempt() -> None:
    """Renewing keeps a pending row alive; past its lease it reads as expired, ``expire``
    makes it unknown at attempt 2, and attempt 1 can neither renew nor settle it."""
    clock = Clock()
    ledger = MemoryLedger(clock=clock)
    claim(ledger)
    clock.now += 20
    assert ledger.renew("k1", 1, 30)
    clock.now += 20  # 40s after the claim, 20s after the renewal
    inside = ledger.expire("k1")
    assert inside is not None
    assert (inside.state, inside.attempt, inside.lease_expired) == ("pending", 1, False)
    clock.now += 11
    seen = ledger.get("k1")
    assert seen is not None
    assert seen.lease_expired
    expired = ledger.expire("k1")
    assert expired is not None
    assert (expired.state, expired.attempt) == ("unknown", 2)
    assert not ledger.renew("k1", 1, 30)
    assert not ledger.renew("k1", 2, 30)  # unknown rows have no lease to renew
    assert not ledger.renew("missing", 1, 30)
    assert not ledger.finalize("k1", 1, "committed", result={})
    assert ledger.finalize("k1", 2, "failed", error={"error": "not_applied"})


def test_expire_of_an_orphan_does_not_wait_and_settled_rows_stay() -> None:
    """``orphaned``: its worker is known to be dead, so the lease is not waited for. Settled
    and missing rows are left as they are."""
    ledger = MemoryLedger()
    claim(ledger, "k1")
    claim(ledger, "k2")
    assert ledger.finalize("k2", 1, "committed", result={})
    orphan = ledger.expire("k1", orphaned=True)
    assert orphan is not None
    assert (orphan.state, orphan.attempt) == ("unknown", 2)
    settled = ledger.expire("k2", orphaned=True)
    assert settled is not None
    assert (settled.state, settled.attempt) == ("committed", 1)
    assert ledger.expire("missing") is None


def test_entries_filter_by_conversation_and_state() -> None:
    """Oldest first, filtered on conversation and state."""
    ledger = MemoryLedger()
    for index, conversation in enumerate(["a", "b", "a"]):
        claim(ledger, f"k{index}", conversation=conversation)
    ledger.finalize("k2", 1, "committed", result={})
    assert [e.key for e in ledger.entries()] == ["k0", "k1", "k2"]
    assert [e.key for e in ledger.entries(conversation_id="a")] == ["k0", "k2"]
    assert [e.key for e in ledger.entries(state="pending")] == ["k0", "k1"]
    assert [e.key for e in ledger.entries(conversation_id="a", state="committed")] == ["k2"]


# -- the journal -----------------------------------------------------------------------------


def test_one_writer_at_a_time_and_a_new_holder_fences_the_old_one() -> None:
    """While a lease is live nobody else gets one; once it lapses the next holder gets a
    higher fence, and the old holder can neither append, renew nor release it."""
    clock = Clock()
    journal = MemoryJournal(clock=clock)
    old = journal.acquire("c1", seconds=10)
    assert old is not None
    assert journal.acquire("c1", seconds=10) is None
    clock.now += 8
    assert journal.renew(old, seconds=10)
    clock.now += 8  # inside the renewed lease
    assert journal.acquire("c1", seconds=10) is None
    clock.now += 3
    new = journal.acquire("c1", seconds=10)
    assert new is not None
    assert new.fence == old.fence + 1
    with pytest.raises(ConversationBusyError):
        journal.append("c1", UserMessage("tarde"), lease=old)
    assert not journal.renew(old, seconds=10)
    journal.release(old)  # not the holder: nothing happens
    assert journal.acquire("c1", seconds=10) is None
    journal.append("c1", UserMessage("a tiempo"), lease=new)
    assert journal.load("c1") == [UserMessage("a tiempo")]
    journal.release(new)
    assert journal.acquire("c1", seconds=10) is not None


def test_a_lease_of_a_conversation_never_acquired_cannot_append() -> None:
    """A lease made up for a conversation this journal never handed out is refused."""
    journal = MemoryJournal()
    lease = journal.acquire("c1", seconds=10)
    assert lease is not None
    foreign = type(lease)("c2", lease.owner, lease.fence)
    with pytest.raises(ConversationBusyError):
        journal.append("c2", UserMessage("hola"), lease=foreign)
    assert not journal.renew(foreign, seconds=10)
    journal.release(foreign)
    assert journal.load("c2") == []


def test_conversations_exist_once_they_have_messages_most_recent_first() -> None:
    """A conversation only held, never written, does not exist; the list is most recently
    written first; the model is recorded when an append names it."""
    journal = MemoryJournal()
    for conversation in ("c1", "c2", "empty"):
        lease = journal.acquire(conversation, seconds=10)
        assert lease is not None
        if conversation != "empty":
            journal.append(conversation, UserMessage(conversation), lease=lease)
        journal.release(lease)
    assert journal.conversations() == ["c2", "c1"]
    lease = journal.acquire("c1", seconds=10)
    assert lease is not None
    journal.append("c1", UserMessage("otra"), lease=lease, model=ModelRef("p", "m"))
    journal.append("c1", UserMessage("y otra"), lease=lease)
    assert journal.conversations() == ["c1", "c2"]
    assert (journal.exists("c1"), journal.exists("empty"), journal.exists("nope")) == (
        True,
        False,
        False,
    )
    assert journal.model_of("c1") == ModelRef("p", "m")  # kept when an append names none
    assert journal.model_of("c2") is None
    assert journal.model_of("nope") is None
    assert journal.load("nope") == []


def test_load_many_is_load_of_each_conversation_in_the_order_asked() -> None:
    journal = MemoryJournal()
    for cid in ("a", "b"):
        lease = journal.acquire(cid, seconds=30)
        assert lease is not None
        journal.append(cid, UserMessage(f"{cid}1"), UserMessage(f"{cid}2"), lease=lease)
        journal.release(lease)
    got = journal.load_many(["b", "missing", "a", "b"])
    assert list(got) == ["b", "missing", "a"]
    assert got == {"b": journal.load("b"), "missing": [], "a": journal.load("a")}
    assert [m.text for m in got["a"]] == ["a1", "a2"]  # type: ignore[union-attr]
