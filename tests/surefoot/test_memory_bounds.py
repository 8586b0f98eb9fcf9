"""The in-memory stores stay bounded in a long-running process: ``MemoryJournal`` forgets
finished conversations beyond its limit (with their settled writes in the in-memory ledger),
never one that is held, waits for a decision, or has a write not yet settled;
``MemoryDiagnostics`` keeps the newest ``limit``."""

from __future__ import annotations

import asyncio
from typing import Any

from surefoot import Agent, MemoryJournal, MemoryLedger, ToolSet
from surefoot.diagnostics import MemoryDiagnostics
from surefoot.messages import UserMessage
from surefoot.testing import ScriptedModel, call, turn


def _tools() -> ToolSet:
    tools = ToolSet()

    @tools.tool(effect="write", idempotent=True)
    def save(n: int) -> dict[str, Any]:
        """Save a number."""
        return {"n": n}

    @tools.tool(effect="write", confirm=True)
    def delete(n: int) -> dict[str, Any]:
        """Delete a number (asks a person first)."""
        return {"deleted": n}

    @tools.tool(effect="write")
    def flaky(n: int) -> dict[str, Any]:
        """A write whose outcome cannot be known."""
        msg = f"connection lost after sending {n}"
        raise ConnectionError(msg)

    @tools.tool
    def fail(n: int) -> dict[str, Any]:
        """A read that always fails."""
        msg = f"no {n}"
        raise LookupError(msg)

    return tools


def _agent(limit: int) -> Agent:
    return Agent(
        model=ScriptedModel([]),
        tools=_tools(),
        lang="en",
        journal=MemoryJournal(limit=limit),
    )


def _turn(agent: Agent, tool: str, n: int, conversation_id: str | None = None) -> Any:
    agent.model = ScriptedModel([turn(call(tool, {"n": n})), turn("ok")])
    return agent.run_turn_sync(f"{tool} {n}", conversation_id=conversation_id)


def test_finished_conversations_beyond_the_limit_are_forgotten_with_their_writes() -> None:
    agent = _agent(limit=5)
    ids = [_turn(agent, "save", n).conversation_id for n in range(20)]
    assert agent.conversations() == list(reversed(ids[-5:]))
    assert not agent.exists(ids[0])
    assert {w.conversation_id for w in agent.writes()} == set(ids[-5:])
    # a forgotten id is as if it never existed: a new turn on it starts afresh
    again = _turn(agent, "save", 0, conversation_id=ids[0])
    assert again.calls[0].executed


def test_a_conversation_waiting_for_a_decision_is_never_forgotten() -> None:
    agent = _agent(limit=3)
    waiting = _turn(agent, "delete", 7)
    assert waiting.stop_reason == "awaiting_confirmation"
    for n in range(10):
        _turn(agent, "save", n)
    cid = waiting.conversation_id
    assert agent.exists(cid)
    pending = agent.pending_confirmation(cid)
    assert pending is not None
    assert agent.decide(cid, pending.id, approved=True)
    agent.model = ScriptedModel([turn("deleted")])
    resumed = asyncio.run(agent.resume(cid))
    assert resumed.stop_reason == "completed"
    assert resumed.calls[0].outcome.data == {"deleted": 7}  # type: ignore[union-attr]
    assert agent.exists(cid)  # resumed just now: the most recently written
    for n in range(3):
        _turn(agent, "save", 100 + n)
    assert not agent.exists(cid)  # decided and finished: now it may go, like any other


def test_a_conversation_with_an_unsettled_write_is_never_forgotten() -> None:
    agent = _agent(limit=3)
    unknown = _turn(agent, "flaky", 1)
    assert unknown.stop_reason == "stop_turn"  # the turn ended, the write did not settle
    for n in range(10):
        _turn(agent, "save", n)
    assert agent.exists(unknown.conversation_id)
    (entry,) = agent.writes(conversation_id=unknown.conversation_id)
    assert entry.state == "unknown"
    kept = agent.conversations()
    assert len(kept) == 3
    assert kept[-1] == unknown.conversation_id  # the least recent, kept all the same


def test_a_held_conversation_is_never_forgotten() -> None:
    agent = _agent(limit=2)
    with agent.hold("held") as lease:
        agent.journal.append("held", UserMessage("typing..."), lease=lease)
        for n in range(6):
            _turn(agent, "save", n)
        assert agent.exists("held")


def test_the_memory_ledger_forgets_only_settled_writes() -> None:
    ledger = MemoryLedger()
    for key, state in (("a", "committed"), ("b", "failed"), ("c", None)):
        ledger.claim(
            key=key, conversation_id="c1", tool="t", fingerprint=key, arguments={}, lease_seconds=60
        )
        if state is not None:
            ledger.finalize(key, 1, state)  # type: ignore[arg-type]
    assert ledger.unsettled("c1")
    ledger.forget("c1")
    assert [e.key for e in ledger.entries()] == ["c"]
    ledger.finalize("c", 1, "committed")
    assert not ledger.unsettled("c1")
    ledger.forget("c1")
    assert ledger.entries() == []


def test_memory_diagnostics_keep_the_newest() -> None:
    diagnostics = MemoryDiagnostics(limit=3)
    agent = Agent(model=ScriptedModel([]), tools=_tools(), lang="en", diagnostics=diagnostics)
    ids = [_turn(agent, "fail", n).conversation_id for n in range(5)]
    kept = agent.diagnostics()
    assert [d.conversation_id for d in kept] == ids[-3:]
    assert all("LookupError" in d.traceback for d in kept)
