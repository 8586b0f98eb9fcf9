"""Which of a turn's commits wait for the disk, proven by crashing PostgreSQL.

A turn on PostgreSQL lets the journal's commits go without waiting for the server to flush its
log (``deferred_flush``), and waits where something depends on them: the claim before a write
runs, the write's settlement, the hold given back, the end of the turn. The server's log is
written in order, so a commit that waits makes the ones before it durable too. Each test
crashes a cluster of its own with its log writers frozen (``Cluster.crash``): what no commit
waited for is then lost, as at a power cut, and what the guarantees need must still be there.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from surefoot import Agent, SqlJournal, SqlLedger, ToolContext, ToolSet
from surefoot.exceptions import StoreError
from surefoot.messages import AssistantMessage, ToolResultsMessage, UserMessage
from surefoot.sql import Database, deferred_flush, open_database

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))

from commit_rounds import counting, rounds_agent

_OPENED: list[Database] = []


@pytest.fixture
def crashed(pg_cluster: Any) -> Iterator[Any]:
    """The module's cluster; started again after the test if it crashed it."""
    yield pg_cluster
    while _OPENED:
        _OPENED.pop().close()
    if not pg_cluster.processes():
        pg_cluster.start()


def _open(cluster: Any) -> Database:
    db = open_database(cluster.url, answer_timeout=5.0)
    _OPENED.append(db)
    return db


def _said(db: Database, conversation_id: str) -> list[str]:
    """The texts of the person's messages the journal has."""
    return [m.text for m in SqlJournal(db).load(conversation_id) if isinstance(m, UserMessage)]


def _again(cluster: Any) -> Database:
    """The cluster started again after its crash, and a new connection to it."""
    cluster.start()
    return _open(cluster)


def test_a_journal_commit_does_not_wait_until_a_commit_that_waits_covers_it(
    crashed: Any,
) -> None:
    """In the scope, an append commits without waiting: a crash then loses it, though it was
    visible to everyone. A commit that waits afterwards (here the hold given back) makes it
    durable with itself. Outside the scope, an append waits."""
    db = _open(crashed)
    journal = SqlJournal(db)
    lease = journal.acquire("c_flush", seconds=60)
    assert lease is not None
    journal.load("c_flush")  # as a turn does: the journal numbers its appends from its copy
    journal.append("c_flush", UserMessage("waited"), lease=lease)  # outside: it waits

    def append_then_crash() -> None:
        with deferred_flush():
            with counting(db.counts) as made:
                journal.append("c_flush", UserMessage("lost"), lease=lease)
            assert made.deferred == 1
            assert _said(_open(crashed), "c_flush") == ["waited", "lost"]  # visible at once
            crashed.crash()

    with pytest.raises(StoreError):  # the scope's own flush fails: the server is gone
        append_then_crash()
    db = _again(crashed)
    assert _said(db, "c_flush") == ["waited"]

    journal = SqlJournal(db)
    lease = journal.acquire("c_covered", seconds=60)
    assert lease is not None
    journal.load("c_covered")
    journal.append("c_covered", UserMessage("waited"), lease=lease)
    with deferred_flush():
        journal.append("c_covered", UserMessage("covered"), lease=lease)
        journal.release(lease)  # waits, and with it everything before it
        crashed.crash()
    assert _said(_again(crashed), "c_covered") == ["waited", "covered"]


def test_a_transaction_that_changed_no_row_does_not_count_as_a_wait(crashed: Any) -> None:
    """A transaction that ran an ``UPDATE`` matching no row has nothing to flush, and its
    commit does not wait: the scope still owes its deferred append a flush at its end."""
    db = _open(crashed)
    journal = SqlJournal(db)
    lease = journal.acquire("c_nothing", seconds=60)
    assert lease is not None
    journal.load("c_nothing")
    journal.append("c_nothing", UserMessage("waited"), lease=lease)
    with deferred_flush(), counting(db.counts) as made:
        journal.append("c_nothing", UserMessage("kept"), lease=lease)
        with db.transaction() as tx:
            tx.execute("UPDATE sf_conversations SET updated_at = 0 WHERE id = 'nobody'")
    assert made.deferred == 1
    crashed.crash()
    assert _said(_again(crashed), "c_nothing") == ["waited", "kept"]


@pytest.mark.parametrize("held_by_caller", [False, True])
def test_a_turn_is_on_disk_when_its_caller_sees_how_it_ended(
    crashed: Any, held_by_caller: bool
) -> None:
    """A read turn's journal commits go without waiting; the turn still has every message on
    disk when ``run_turn`` returns: its hold given back waits, and a turn on a hold its
    caller keeps waits at its end instead."""
    db = _open(crashed)
    agent = rounds_agent(db, "read_item", 1)
    cid = f"c_turn_{held_by_caller}"
    asyncio.run(agent.run_turn("first", conversation_id=cid))
    with counting(db.counts) as made:
        if held_by_caller:
            with agent.hold(cid) as lease:  # given back later, on the heartbeat's retries
                asyncio.run(agent.run_turn("second", conversation_id=cid, lease=lease))
                crashed.crash()  # before the caller gives the hold back
        else:
            asyncio.run(agent.run_turn("second", conversation_id=cid))
            crashed.crash()
    assert made.deferred >= 3  # the person's message and the model's two answers at least
    kinds = [type(m) for m in SqlJournal(_again(crashed)).load(cid)]
    turn = [UserMessage, AssistantMessage, ToolResultsMessage, AssistantMessage]
    assert kinds == turn + turn


def test_a_write_is_claimed_on_disk_before_it_runs(crashed: Any) -> None:
    """The server crashes while a write's handler runs: the claim, which waited, is on disk,
    and so is the model's call before it, which had not. Resumed, the write is not run a
    second time: its fate is unknown, and the turn says so."""
    db = _open(crashed)
    effects: list[int] = []
    tools = ToolSet()

    @tools.tool(effect="write")
    def write_item(ctx: ToolContext, n: int) -> dict[str, Any]:
        """Write one item (and the server crashes meanwhile)."""
        effects.append(n)
        if len(effects) == 2:
            crashed.crash()
        return {"n": n}

    def agent(on: Database) -> Agent:
        return rounds_agent(on, "write_item", 1, tools=tools)

    asyncio.run(agent(db).run_turn("first", conversation_id="c_write"))
    with pytest.raises(StoreError):
        asyncio.run(agent(db).run_turn("second", conversation_id="c_write"))
    db = _again(crashed)
    messages = SqlJournal(db).load("c_write")
    assert isinstance(messages[-2], UserMessage)
    assert isinstance(messages[-1], AssistantMessage)
    assert messages[-1].tool_calls  # the call, durable with the claim after it
    pending = SqlLedger(db).entries(conversation_id="c_write", state="pending")
    assert len(pending) == 1
    db.query("UPDATE sf_conversations SET lease_until = 0")  # the dead turn's hold lapsed
    result = asyncio.run(agent(db).resume("c_write"))
    (record,) = result.calls
    assert not record.executed
    assert effects == [0, 0]  # the first turn's write, and the one the crash interrupted
