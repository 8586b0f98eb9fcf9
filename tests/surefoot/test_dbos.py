"""Turns on DBOS: steps recorded by the engine agree with the journal and the ledger; a write
that raises after its effect is never run again by the engine; a read that fails once is
retried by it; a person's decision reaches the waiting workflow."""

from __future__ import annotations

import asyncio
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from dbos import DBOS

from surefoot import Agent, ConfigurationError, Ok, SqlJournal, ToolError, ToolSet, open_database
from surefoot.dbos import DurableAgent, Retry
from surefoot.messages import ToolResultsMessage
from surefoot.sql import Database
from surefoot.testing import ScriptedModel, call, turn

sys.path.insert(0, str(Path(__file__).parent))

from dbos_support import dbos_url  # noqa: F401 - the fixture
from notes_app import NotesApp


@pytest.fixture
def database(dbos_url: str) -> Any:  # noqa: F811 - the fixture
    """The session's database (the journal, the ledger and the app's tables live beside
    DBOS's own), closed after the test."""
    db = open_database(dbos_url)
    yield db
    db.close()


def _durable(db: Database, tools: ToolSet, script: list[Any], **options: Any) -> DurableAgent:
    user = "u_" + uuid.uuid4().hex[:8]
    agent = Agent(model=ScriptedModel(script), tools=tools, journal=SqlJournal(db, user=user))
    return DurableAgent(agent, name=user, **options)


def _effects(app: NotesApp, durable: DurableAgent) -> list[Any]:
    """The effects of this agent's writes (the session's tables are shared)."""
    keys = {entry.key for entry in durable.agent.writes()}
    return [effect for effect in app.effects() if effect[0] in keys]


def _steps(durable: DurableAgent, conversation_id: str, user_turn: int = 0) -> list[str]:
    workflow = durable.workflow_id(conversation_id, user_turn)
    return [s["function_name"] for s in DBOS.list_workflow_steps(workflow)]


def test_a_turn_is_a_workflow_of_recorded_steps(database: Database) -> None:
    """One workflow per user turn: begin, one step per model request and per batch; the
    result is the journal's, the write committed once."""
    app = NotesApp(database, user="steps")
    script = [turn(call("save_note", {"key": "a", "value": "2"})), turn("saved")]
    durable = _durable(database, app.tools(), script)
    result = asyncio.run(durable.run_turn("save a", conversation_id="c1"))
    assert result.stop_reason == "completed"
    assert result.reply == "saved"
    assert result.model_requests == 2
    assert [type(c.outcome) for c in result.calls] == [Ok]
    assert _steps(durable, "c1") == [
        "surefoot.begin",
        "surefoot.model",
        "surefoot.tools",
        "surefoot.model",
    ]
    assert len(_effects(app, durable)) == 1
    assert [e.state for e in durable.agent.writes(conversation_id="c1")] == ["committed"]


def test_a_write_that_raises_after_its_effect_is_not_run_again(database: Database) -> None:
    """A write step whose handler raises after its effect: one run, one effect, the outcome
    unknown, the turn stopped with the harness's reply, the engine retried nothing."""
    app = NotesApp(database, user="lost")
    script = [turn(call("forward", {"text": "lost"})), turn("never asked")]
    durable = _durable(database, app.tools(), script, retry=Retry(attempts=5, interval_seconds=0))
    result = asyncio.run(durable.run_turn("forward it", conversation_id="c1"))
    assert app.runs["forward"] == 1
    assert len(_effects(app, durable)) == 1
    assert result.stop_reason == "stop_turn"
    assert result.reply_author == "harness"
    outcome = result.calls[0].outcome
    assert isinstance(outcome, ToolError)
    assert outcome.code == "outcome_unknown"
    assert result.model_requests == 1
    assert [e.state for e in durable.agent.writes(conversation_id="c1")] == ["unknown"]
    steps = DBOS.list_workflow_steps(durable.workflow_id("c1", 0))
    assert [s["function_name"] for s in steps][-1] == "surefoot.tools"
    assert all(s["error"] is None for s in steps)


def _flaky_tools(failures: int) -> tuple[ToolSet, list[int]]:
    tools, runs = ToolSet(), [0]

    @tools.tool
    def weather(city: str) -> dict[str, Any]:
        """Today's weather in ``city``."""
        runs[0] += 1
        if runs[0] <= failures:
            raise ConnectionError("the weather service did not answer")
        return {"city": city, "sky": "clear"}

    return tools, runs


def test_a_read_that_fails_once_is_retried_by_the_engine(database: Database) -> None:
    """A read whose first run fails transiently: DBOS runs its step again, the read succeeds,
    the model sees only the success."""
    tools, runs = _flaky_tools(failures=1)
    script = [turn(call("weather", {"city": "Lima"})), turn("clear in Lima")]
    durable = _durable(database, tools, script, retry=Retry(attempts=3, interval_seconds=0))
    result = asyncio.run(durable.run_turn("weather?", conversation_id="c1"))
    assert runs[0] == 2
    assert result.reply == "clear in Lima"
    assert result.calls[0].outcome == Ok({"city": "Lima", "sky": "clear"})
    results = [m for m in durable.agent.transcript("c1") if isinstance(m, ToolResultsMessage)]
    assert len(results) == 1


def test_a_read_that_keeps_failing_is_unavailable_within_the_attempts(
    database: Database,
) -> None:
    """Retries are bounded: past the engine's attempts the read is ``unavailable``, as
    without an engine, and the turn goes on."""
    tools, runs = _flaky_tools(failures=10)
    script = [turn(call("weather", {"city": "Lima"})), turn("the service is down")]
    durable = _durable(database, tools, script, retry=Retry(attempts=3, interval_seconds=0))
    result = asyncio.run(durable.run_turn("weather?", conversation_id="c1"))
    assert runs[0] == 3
    outcome = result.calls[0].outcome
    assert isinstance(outcome, ToolError)
    assert outcome.code == "unavailable"
    assert result.reply == "the service is down"


def test_an_approval_waits_in_the_workflow_and_binds_the_call(database: Database) -> None:
    """A confirmation pauses the workflow (no hold meanwhile); a decision on another call is
    refused; the decision on this one reaches the workflow, from another worker's object."""
    app = NotesApp(database, user="approve")
    script = [turn(call("delete_note", {"key": "a"})), turn("deleted")]
    durable = _durable(database, app.tools(), script)
    other = DurableAgent(durable.agent, name=durable.name)  # another worker's object

    async def scenario() -> tuple[Any, Any]:
        paused = await durable.run_turn("delete a", conversation_id="c1")
        assert app.runs["delete_note"] == 0
        with durable.agent.hold("c1"):  # nobody holds the conversation while it waits
            pass
        with pytest.raises(ConfigurationError, match="is not the call waiting"):
            await durable.decide("c1", "ap_other", approved=True)
        assert paused.pending_confirmation is not None
        done = await other.decide("c1", paused.pending_confirmation.id, approved=True)
        return paused, done

    paused, done = asyncio.run(scenario())
    assert paused.stop_reason == "awaiting_confirmation"
    assert done.reply == "deleted"
    assert app.runs["delete_note"] == 1
    names = _steps(durable, "c1")
    assert names.count("DBOS.recv") == 1
    assert names[-2:] == ["surefoot.tools", "surefoot.model"]


def test_a_workflow_whose_turn_was_finished_elsewhere_touches_no_later_turn(
    database: Database,
) -> None:
    """A turn that waited in its workflow, then was decided and finished on the journal
    (``Agent.resume``), and followed by another turn: a late message to the old workflow
    ends it, and the new turn's waiting call does not run."""
    app = NotesApp(database, user="moved")
    script = [
        turn(call("delete_note", {"key": "a"})),
        turn("deleted a"),
        turn(call("delete_note", {"key": "b"})),
    ]
    durable = _durable(database, app.tools(), script)
    agent = durable.agent

    async def scenario() -> Any:
        first = await durable.run_turn("delete a", conversation_id="c1")
        assert first.pending_confirmation is not None
        agent.decide("c1", first.pending_confirmation.id, approved=True)
        await agent.resume("c1")
        second = await agent.run_turn("delete b", conversation_id="c1")
        assert second.pending_confirmation is not None
        workflow = durable.workflow_id("c1", 0)
        await DBOS.send_async(workflow, True, topic=first.pending_confirmation.id)
        return await durable.outcome(workflow, after=first.pending_confirmation.id)

    late = asyncio.run(scenario())
    assert late.reply == "deleted a"
    assert app.runs["delete_note"] == 1
    assert agent.pending_confirmation("c1") is not None


def test_a_step_waits_for_the_disk_inside_a_deferred_scope(database: Database) -> None:
    """A durable turn run inside a ``deferred_flush`` scope (as the web app runs its turns):
    each step's journal commits still wait for the disk, since DBOS records the step's end
    in a transaction of its own that need not cover them."""
    from surefoot.sql import deferred_flush

    app = NotesApp(database, user="deferred")
    script = [turn(call("save_note", {"key": "a", "value": "2"})), turn("saved")]
    durable = _durable(database, app.tools(), script)

    async def in_scope() -> None:
        with deferred_flush():
            result = await durable.run_turn("save a", conversation_id="c_deferred")
        assert result.stop_reason == "completed"

    counts = database.counts
    commits, deferred = counts.commits, counts.deferred
    asyncio.run(in_scope())
    assert counts.commits - commits >= 5
    assert counts.deferred == deferred
