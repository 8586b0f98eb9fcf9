"""One tool set for every account of a process (``coach_parts``, as the web app builds it): each
call reads and writes the store of the account its agent serves, never another's, also with
the turns of two accounts running at once over one database connection; a call whose agent
has no store is refused, never served from anyone's data."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest

from gymnasia import app
from gymnasia.app import Coach, coach_parts, open_db
from surefoot import Agent, ModelRequest, Ok, ToolError, TurnResult
from surefoot.messages import AssistantMessage, ToolResultsMessage, UserMessage
from surefoot.testing import FunctionModel, call, turn

TODAY = dt.date(2026, 3, 2)


def notes_answer(request: ModelRequest) -> AssistantMessage:
    """``key=value`` saves a note, ``read key`` reads one, a tool result ends the turn."""
    last = request.messages[-1]
    if isinstance(last, ToolResultsMessage):
        return turn("Hecho.")
    assert isinstance(last, UserMessage)
    if last.text.startswith("read "):
        return turn(call("read_memory", {"key": last.text.removeprefix("read ")}))
    key, _, value = last.text.partition("=")
    return turn(call("save_memory", {"key": key, "description": "nota", "value": value}))


def _outcome(result: TurnResult) -> Ok | ToolError:
    (record,) = result.calls
    assert record.executed
    return record.outcome


async def _turn(coach: Coach, message: str) -> Ok | ToolError:
    return _outcome(await coach.agent.run_turn(message))


def test_two_accounts_on_one_tool_set_see_only_their_own_notes(db_url: str) -> None:
    """Ana and bruno save a note under the same key at the same time through one shared tool
    set: each reads back their own value, the other's is nowhere in the answer, and the rows
    are each their account's."""
    parts = coach_parts(model=FunctionModel(notes_answer), today=TODAY)
    database = open_db(db_url)
    try:
        ana = parts.coach(database, user="ana")
        bruno = parts.coach(database, user="bruno")
        assert ana.agent.tools is bruno.agent.tools is parts.tools  # one tool set, shared

        async def both() -> None:
            saved = await asyncio.gather(
                _turn(ana, "plan=ana-secret"), _turn(bruno, "plan=bruno-secret")
            )
            assert all(isinstance(outcome, Ok) for outcome in saved)
            for _ in range(3):  # interleaved reads: each turn has its own account's store
                read = await asyncio.gather(_turn(ana, "read plan"), _turn(bruno, "read plan"))
                assert [r.data["value"] for r in read if isinstance(r, Ok)] == [
                    "ana-secret",
                    "bruno-secret",
                ]
            only_ana = await _turn(ana, "diary=ana-only")
            assert isinstance(only_ana, Ok)
            missing = await _turn(bruno, "read diary")
            assert isinstance(missing, ToolError)
            assert missing.code == "not_found"
            assert "ana-only" not in str(missing)

        asyncio.run(both())
        rows = database.query("SELECT user_id, key, value FROM gym_memory ORDER BY user_id, key")
    finally:
        database.close()
    assert rows == [
        ("ana", "diary", "ana-only"),
        ("ana", "plan", "ana-secret"),
        ("bruno", "plan", "bruno-secret"),
    ]


def test_a_shared_tool_without_an_account_in_its_context_reads_nothing(db_url: str) -> None:
    """An agent over the shared tools whose context names no store (no account) gets an error
    for the call, not some account's note: the tools hold no account of their own."""
    parts = coach_parts(model=FunctionModel(notes_answer), today=TODAY)
    database = open_db(db_url)
    try:
        ana = parts.coach(database, user="ana")
        assert isinstance(asyncio.run(_turn(ana, "plan=ana-secret")), Ok)
        stranger = Agent(
            model=FunctionModel(notes_answer), tools=parts.tools, app_context={"user": "ana"}
        )
        result = asyncio.run(stranger.run_turn("read plan"))
    finally:
        database.close()
    outcome = _outcome(result)
    assert isinstance(outcome, ToolError)
    assert "ana-secret" not in repr(result)


def test_a_coach_open_past_midnight_tells_the_model_the_new_day(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With no fixed day the system prompt follows the clock: a turn after midnight (a server
    or a ``chat`` left open) states the new date to the model, in every language's agent; a
    fixed day (``--today``) never moves."""
    seen: list[str] = []

    def answer(request: ModelRequest) -> AssistantMessage:
        seen.append(request.system or "")
        return turn("Hola.")

    day = [dt.date(2026, 12, 6)]
    monkeypatch.setattr(app, "clock_today", lambda: day[0])
    database = open_db("sqlite:///:memory:")
    try:
        following = coach_parts(model=FunctionModel(answer)).coach(database, lang="es")
        fixed = coach_parts(model=FunctionModel(answer), today=TODAY).coach(database, user="b")
        asyncio.run(following.agent_for("es").run_turn("hola"))
        day[0] = dt.date(2026, 12, 7)  # midnight passes
        asyncio.run(following.agent_for("es").run_turn("hola"))
        english = following.agent_for("en")
        asyncio.run(fixed.agent_for("es").run_turn("hola"))
    finally:
        database.close()
    assert "Today is 2026-12-06" in seen[0]
    assert "Today is 2026-12-07" in seen[1]
    assert "Today is 2026-12-07" in (english.system or "")
    assert f"Today is {TODAY.isoformat()}" in seen[2]
