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

from commit_rounds import TABLE, counting, round_tools, rounds_model

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
    agent = Agent(
        model=rounds_model(tool, rounds),
        tools=round_tools(db),
        ledger=SqlLedger(db),
        journal=SqlJournal(db),
        lang="en",
    )
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
    """A transaction that only reads counts as a transaction, not as a commit."""
    with counting(db.counts) as made:
        db.query("SELECT 1")
        with db.transaction() as tx:
            tx.execute(f"INSERT INTO {TABLE} (key, n) VALUES (?, ?)", ("k", 1))
    assert (made.transactions, made.commits) == (2, 1)


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
    resumed = Agent(
        model=rounds_model("write_atomic", 1),
        tools=round_tools(db),
        ledger=SqlLedger(db),
        journal=SqlJournal(db),
        lang="en",
    )
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
