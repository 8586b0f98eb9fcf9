"""The Coach's requests carry a window of earlier turns (``app.HISTORY_TURNS``), so a long
conversation's requests stop growing, and what was said before the window is still there for
the Coach in its store."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

from test_shared_tools import notes_answer

from gymnasia.app import HISTORY_TURNS, coach_parts, open_db
from surefoot import Ok
from surefoot.messages import AssistantMessage, UserMessage
from surefoot.testing import FunctionModel

TODAY = dt.date(2026, 3, 2)


def test_a_long_conversation_sends_a_window_and_the_store_remembers(tmp_path: Path) -> None:
    model = FunctionModel(notes_answer)
    database = open_db(str(tmp_path / "gym.db"))
    try:
        agent = coach_parts(model=model, today=TODAY).coach(database, lang="es").agent
        turns = 4 * HISTORY_TURNS

        async def talk() -> Ok:
            for number in range(turns):
                await agent.run_turn(f"nota{number}=valor{number}", conversation_id="c")
            result = await agent.run_turn("read nota0", conversation_id="c")
            (record,) = result.calls
            assert isinstance(record.outcome, Ok)
            return record.outcome

        first = asyncio.run(talk())
        journaled = agent.journal.load("c")
    finally:
        database.close()
    assert first.data["value"] == "valor0"  # said long before the window, read from the store
    said = [[m.text for m in r.messages if isinstance(m, UserMessage)] for r in model.requests]
    assert max(len(s) for s in said) == 2 * HISTORY_TURNS  # eleven earlier, and the current
    assert "nota0=valor0" not in said[-1]
    assert said[-1][-1] == "read nota0"
    assert sum(isinstance(m, UserMessage) for m in journaled) == turns + 1  # all kept


def test_the_offline_model_reads_the_whole_conversation(tmp_path: Path) -> None:
    """It has no context to fill, and its call ids count the messages it reads: every turn
    of a long conversation keeps ids of its own."""
    database = open_db(str(tmp_path / "gym.db"))
    try:
        agent = coach_parts(today=TODAY).coach(database, lang="es").agent
        for number in range(2 * HISTORY_TURNS + 2):
            agent.run_turn_sync(f"recuerda que nota{number} es valor {number}", conversation_id="c")
        journaled = agent.journal.load("c")
    finally:
        database.close()
    assert agent.history_turns is None
    ids = [c.call_id for m in journaled if isinstance(m, AssistantMessage) for c in m.tool_calls]
    assert len(ids) >= 2 * HISTORY_TURNS + 2
    assert len(set(ids)) == len(ids)
