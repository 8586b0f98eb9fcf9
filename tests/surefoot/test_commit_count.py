"""What a durable turn commits, counted through the ``Database`` layer on SQLite and
PostgreSQL: one commit per tool round (the round's results go in with the next response), and
a write adds its claim and its settlement. Counts, not timings: a regression fails here. The
tools, the scripted rounds and the counting are the benchmarks' own
(``benchmarks/commit_rounds.py``), so the budget asserted here is the one they report."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from surefoot import Agent, ModelRequest, SqlJournal, SqlLedger
from surefoot import open_database as open_db
from surefoot.messages import ToolResultsMessage
from surefoot.sql import Database
from surefoot.testing import FunctionModel, call, turn

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))

from commit_rounds import TABLE, counting, round_tools, rounds_agent

TURN_OVERHEAD = 4
"""Commits of a turn besides its rounds: the hold taken, the person's message, the final
answer, the hold given back."""


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    """A database on SQLite or PostgreSQL with the tools' own table."""
    database = open_db(db_url)
    round_tools(database)  # makes the atomic write's table
    yield database
    database.close()


def _commits(db: Database, tool: str, rounds: int, conversation: str) -> int:
    """The commits of one turn of ``rounds`` rounds of ``tool``."""
    agent = rounds_agent(db, tool, rounds)
    with counting(db.counts) as made:
        result = asyncio.run(agent.run_turn("go", conversation_id=conversation))
    assert result.stop_reason == "completed"
    assert len(result.calls) == rounds
    return made.commits


def test_a_tool_round_is_one_commit(db: Database) -> None:
    """A 1-tool read turn commits the turn's four and one for its round; each further
    round adds exactly one (its response, with the round before's results)."""
    assert _commits(db, "read_item", 1, "c_one") == TURN_OVERHEAD + 1
    assert _commits(db, "read_item", 4, "c_four") == TURN_OVERHEAD + 4


@pytest.mark.parametrize("tool", ["write_item", "write_atomic"])
def test_a_write_adds_its_claim_and_its_settlement(db: Database, tool: str) -> None:
    """A write round adds two commits to a read round: the claim, durable before the
    handler runs, and the settlement (the ledger's or the tool's own transaction)."""
    assert _commits(db, tool, 1, "c_w1") == TURN_OVERHEAD + 1 + 2
    assert _commits(db, tool, 3, "c_w3") == TURN_OVERHEAD + 3 * (1 + 2)


def test_reads_are_not_counted_as_commits(db: Database) -> None:
    """A transaction that only reads counts as a transaction, not as a commit; a query that
    only reads runs outside any transaction, and counts as a read."""
    with counting(db.counts) as made:
        db.query("SELECT 1")
        with db.transaction() as tx:
            tx.execute(f"SELECT n FROM {TABLE}")
        with db.transaction() as tx:
            tx.execute(f"INSERT INTO {TABLE} (key, n) VALUES (?, ?)", ("k", 1))
    assert (made.transactions, made.commits, made.reads) == (2, 1, 1)


def test_a_query_that_writes_is_a_transaction(db: Database) -> None:
    """``query`` of an ``UPDATE`` commits like any write; a ``SELECT`` inside an open
    transaction sees that transaction's own writes."""
    with counting(db.counts) as made:
        db.query(f"INSERT INTO {TABLE} (key, n) VALUES (?, ?)", ("q", 1))
        with db.transaction() as tx:
            tx.execute(f"UPDATE {TABLE} SET n = 2 WHERE key = ?", ("q",))
            assert db.query(f"SELECT n FROM {TABLE} WHERE key = ?", ("q",)) == [(2,)]
    # the insert on its own (1 round trip); BEGIN, the update, the select, COMMIT (4)
    assert (made.transactions, made.commits, made.reads, made.round_trips) == (2, 2, 0, 5)
    assert db.query(f"SELECT n FROM {TABLE} WHERE key = ?", ("q",)) == [(2,)]


def test_a_data_modifying_with_is_a_commit(db: Database) -> None:
    """A statement that begins with ``WITH`` and writes in it (on PostgreSQL, an append is
    one) counts as a commit; one that only reads counts as a read."""
    with counting(db.counts) as made:
        db.query(f"WITH n (v) AS (SELECT 1) INSERT INTO {TABLE} (key, n) SELECT 'w', v FROM n")
        db.query("WITH n (v) AS (SELECT 1) SELECT v FROM n")
    assert (made.transactions, made.commits, made.reads, made.round_trips) == (1, 1, 1, 2)


def test_a_warm_turn_reads_nothing_back(db: Database) -> None:
    """A turn on a conversation whose last turn this journal wrote, held again with nobody's
    hold in between, reads nothing of the journal back: what its own appends left is all
    there can be. Every transaction of the turn is a commit that writes."""
    agent = rounds_agent(db, "read_item", 1)
    asyncio.run(agent.run_turn("warm up", conversation_id="c_warm"))
    with counting(db.counts) as made:
        asyncio.run(agent.run_turn("again", conversation_id="c_warm"))
    assert made.transactions == made.commits == TURN_OVERHEAD + 1
    assert made.reads == 0


def test_a_rolled_back_transaction_is_not_counted(db: Database) -> None:
    """A transaction whose body raises is rolled back: neither a transaction nor a commit."""

    def insert_then_fail() -> None:
        with db.transaction() as tx:
            tx.execute(f"INSERT INTO {TABLE} (key, n) VALUES (?, ?)", ("k", 1))
            raise RuntimeError

    with counting(db.counts) as made, pytest.raises(RuntimeError):
        insert_then_fail()
    assert (made.transactions, made.commits) == (0, 0)


class _Died(BaseException):
    """The process died: nothing after this point reaches the database."""


def test_a_crash_before_the_merged_commit_never_runs_the_write_again(db: Database) -> None:
    """The process dies while the model is asked after a write round (the round's results
    not yet journaled): resuming runs the round again from the journal, and the write is
    answered from the ledger, its effect made once."""
    journal = SqlJournal(db)
    dying = Agent(
        model=FunctionModel(lambda request: _die_on_second_request(request, journal)),
        tools=round_tools(db),
        ledger=SqlLedger(db),
        journal=journal,
        lang="en",
    )
    with pytest.raises(_Died):
        asyncio.run(dying.run_turn("go", conversation_id="c_crash"))
    transcript = SqlJournal(db).load("c_crash")
    assert [type(m).__name__ for m in transcript] == ["UserMessage", "AssistantMessage"]
    db.query("UPDATE sf_conversations SET lease_until = 0")  # the dead process's hold lapsed
    resumed = rounds_agent(db, "write_atomic", 1)
    result = asyncio.run(resumed.resume("c_crash"))
    assert result.stop_reason == "completed"
    (record,) = result.calls
    assert not record.executed  # answered from the ledger
    assert db.query(f"SELECT COUNT(*) FROM {TABLE}")[0][0] == 1


def _die_on_second_request(request: ModelRequest, journal: SqlJournal) -> Any:
    if not any(isinstance(m, ToolResultsMessage) for m in request.messages):
        return turn(call("write_atomic", {"n": 0}))

    def dead(*_: object, **__: object) -> None:
        raise _Died

    journal.append = dead  # type: ignore[method-assign]
    raise _Died


@pytest.mark.parametrize("tool", ["write_item", "write_atomic"])
def test_the_round_trips_of_a_warm_write_turn(db: Database, tool: str) -> None:
    """A write turn on a conversation this journal has cached and nobody holds: the hold is
    one statement on PostgreSQL (a transaction of three on SQLite), the cached copy (its
    last turn's, written by this journal, nobody's hold in between) is loaded without a
    check, appends number their messages from it and are one
    statement each, the claim returns its row, and a write that committed with
    ``commit_in`` is not read back. The budget counts every statement and each
    transaction's ``BEGIN`` and ``COMMIT``: a change that adds a round trip to PostgreSQL
    fails here."""
    agent = rounds_agent(db, tool, 1)
    asyncio.run(agent.run_turn("warm up", conversation_id="c_trips"))
    with counting(db.counts) as made:
        asyncio.run(agent.run_turn("again", conversation_id="c_trips"))
    trips = made.round_trips
    budget = {
        # the hold 1; the person's message 1 (the fence check, with the
        # model, and the message in one statement); the response 1; the claim 1; the
        # settlement 1; the outcomes with the final answer 1; the release 1. An atomic
        # write settles in its own transaction (BEGIN, the effect, commit_in, COMMIT: 4).
        # A new message has no decisions to read: nothing in its turn was asked yet
        ("postgresql", "write_item"): 7,
        ("postgresql", "write_atomic"): 10,
        # SQLite runs in the process, where a statement costs no wait: the hold takes its
        # transaction (5), each append is one (4 or 5), and the claim reads its row back (4)
        ("sqlite", "write_item"): 24,
        ("sqlite", "write_atomic"): 27,
    }[db.dialect, tool]
    assert trips == budget, made


@pytest.mark.parametrize(("tool", "waits"), [("read_item", 1), ("write_item", 3)])
def test_a_turn_waits_for_the_disk_only_where_something_depends_on_it(
    db: Database, tool: str, waits: int
) -> None:
    """On PostgreSQL a turn's journal commits do not each wait for the disk
    (``deferred_flush``): the hold taken, the person's message, the model's answers go
    without waiting; the claim before a write runs, the write's settlement and the hold
    given back wait, and the last of them covers everything before it. A read turn waits
    once, a write turn three times, where each of its commits used to wait. On SQLite
    every commit waits, as before."""
    agent = rounds_agent(db, tool, 1)
    asyncio.run(agent.run_turn("warm up", conversation_id="c_waits"))
    with counting(db.counts) as made:
        asyncio.run(agent.run_turn("again", conversation_id="c_waits"))
    waited = made.commits - made.deferred
    if db.dialect == "sqlite":
        assert made.deferred == 0
        return
    assert (made.deferred, waited) == (4, waits), made
