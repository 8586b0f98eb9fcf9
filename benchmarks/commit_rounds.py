"""Turns of ``R`` tool rounds and the commits they make: the tools, the scripted model and the
counting that ``bench_durable.py``, ``bench_dbos.py`` and ``tests/surefoot/test_commit_count.py``
share (the test asserts the budget the benchmarks report).

* ``round_tools(db)``: a sync read, a write settled by the executor and, given a database, an
  atomic write (the write and its ledger record in one transaction, in ``round_items``).
* ``rounds_model(tool, rounds, calls=k)``: asks for ``rounds`` rounds of ``k`` calls of
  ``tool``, each with arguments of its own, then answers ``done``.
* ``rounds_agent(db, tool, rounds)``: an agent on ``db``'s journal and ledger with that model.
* ``counting(counts)``: what a ``Database.counts`` (or any ``TransactionCounts``) grew by
  while a block ran.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from surefoot import Agent, ModelRequest, ToolContext, ToolSet
from surefoot.messages import ToolResultsMessage, UserMessage
from surefoot.sql import Database, SqlJournal, SqlLedger, TransactionCounts
from surefoot.testing import FunctionModel, call, turn

TABLE = "round_items"
"""The atomic write's own table (made by ``round_tools`` in the database it is given)."""


def round_tools(db: Database | None) -> ToolSet:
    """``read_item``, ``write_item`` (idempotent, no effect of its own: the ledger's cost
    alone) and, with a database, ``write_atomic``."""
    tools = ToolSet()

    @tools.tool
    def read_item(n: int) -> dict[str, Any]:
        """Read one item."""
        return {"n": n, "name": "item"}

    @tools.tool(effect="write", idempotent=True)
    def write_item(n: int) -> dict[str, Any]:
        """Write one item (settled by the executor)."""
        return {"n": n, "saved": True}

    if db is not None:
        db.migrate(TABLE, [f"CREATE TABLE {TABLE} (key TEXT NOT NULL, n INTEGER NOT NULL)"])

        @tools.tool(effect="write", atomic=True)
        def write_atomic(ctx: ToolContext, n: int) -> dict[str, Any]:
            """Write one item and its ledger record in one transaction."""
            result = {"n": n, "saved": True}
            with db.transaction() as tx:
                tx.execute(f"INSERT INTO {TABLE} (key, n) VALUES (?, ?)", (ctx.key, n))
                ctx.commit_in(tx, result)
            return result

    return tools


def rounds_model(tool: str, rounds: int, *, calls: int = 1) -> FunctionModel:
    """Asks for ``rounds`` rounds of ``calls`` calls of ``tool`` (no two with the same
    arguments), then answers ``done``. The rounds done are read from the request (the results
    since the person's message), so a resumed turn goes on where its journal stands."""

    def plan(request: ModelRequest) -> Any:
        done = 0
        for message in reversed(request.messages):
            if isinstance(message, UserMessage):
                break
            done += isinstance(message, ToolResultsMessage)
        if done < rounds:
            return turn(*(call(tool, {"n": done * calls + i}) for i in range(calls)))
        return turn("done")

    return FunctionModel(plan)


def rounds_agent(db: Database, tool: str, rounds: int, *, tools: ToolSet | None = None) -> Agent:
    """An agent on ``db``'s journal and ledger whose turns run ``rounds`` rounds of ``tool``
    (one of ``round_tools(db)``, unless ``tools`` are given)."""
    return Agent(
        model=rounds_model(tool, rounds),
        tools=round_tools(db) if tools is None else tools,
        ledger=SqlLedger(db),
        journal=SqlJournal(db),
        lang="en",
    )


@contextmanager
def counting(counts: TransactionCounts) -> Iterator[TransactionCounts]:
    """What was added to ``counts`` while the block runs (filled in as the block ends, also
    when it raises)."""
    made = TransactionCounts()
    before = dataclasses.astuple(counts)
    try:
        yield made
    finally:
        for field, was in zip(dataclasses.fields(counts), before, strict=True):
            setattr(made, field.name, getattr(counts, field.name) - was)
