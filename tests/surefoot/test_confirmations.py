"""The confirmation API of ``Agent``: a write tool declared ``confirm=True`` pauses its turn
until a person decides, and the decision applies to exactly the call it was asked for.

``Agent.pending_confirmation`` / ``pending_confirmations`` say what waits, ``Agent.decide``
records the decision, ``Agent.resume`` runs the turn on. Each case runs on the memory stores
and on SQLite.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from surefoot import (
    Agent,
    Lang,
    MemoryJournal,
    MemoryLedger,
    ModelRequest,
    Ok,
    PendingConfirmation,
    Recovery,
    SqlJournal,
    SqlLedger,
    ToolError,
    ToolSet,
    TurnResult,
    open_database,
)
from surefoot.messages import AssistantMessage, HarnessMessage, ToolResultsMessage, UserMessage
from surefoot.testing import FunctionModel, ScriptedModel, call, turn


@dataclass
class Notes:
    """A tiny app: notes a person may delete only after confirming."""

    notes: dict[str, str] = field(default_factory=lambda: {"alpha": "a", "beta": "b"})
    deleted: list[str] = field(default_factory=list)

    def tools(self) -> ToolSet:
        tools = ToolSet()

        @tools.tool(effect="read")
        def read_note(key: str) -> dict[str, Any] | ToolError:
            """Read one note."""
            if key not in self.notes:
                return ToolError("not_found", f"No note {key}.", Recovery.CHOOSE_ALTERNATIVE)
            return {"key": key, "value": self.notes[key]}

        @tools.tool(effect="write", confirm=True)
        def delete_note(key: str) -> dict[str, Any]:
            """Delete one note (a person confirms first)."""
            self.deleted.append(key)
            self.notes.pop(key, None)
            return {"deleted": key}

        return tools


@pytest.fixture(params=["memory", "sqlite"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """The journal and ledger an Agent keeps its turns and writes in."""
    if request.param == "memory":
        yield {"journal": MemoryJournal(), "ledger": MemoryLedger()}
        return
    database = open_database(str(tmp_path / "confirm.db"))
    yield {"journal": SqlJournal(database), "ledger": SqlLedger(database)}
    database.close()


def make_agent(stores: dict[str, Any], model: Any, app: Notes, *, lang: Lang = "en") -> Agent:
    return Agent(model=model, tools=app.tools(), lang=lang, **stores)


def run(coroutine: Any) -> TurnResult:
    result: TurnResult = asyncio.run(coroutine)
    return result


def paused_turn(
    stores: dict[str, Any], app: Notes, *steps: AssistantMessage, lang: Lang = "en"
) -> tuple[Agent, FunctionModel, TurnResult]:
    """An agent whose model plays ``steps``, after a first turn that asks to delete "alpha"
    and pauses for the person's decision."""
    script = [turn(call("delete_note", {"key": "alpha"}, call_id="call_del")), *steps]

    def play(request: ModelRequest) -> AssistantMessage:
        return script[len(model.requests) - 1]

    model = FunctionModel(play)
    agent = make_agent(stores, model, app, lang=lang)
    paused = run(agent.run_turn("delete alpha", conversation_id="c1"))
    return agent, model, paused


def test_a_confirm_tool_pauses_the_turn_and_says_what_waits(stores: dict[str, Any]) -> None:
    """The turn stops as ``awaiting_confirmation`` without running the tool; the pending call
    is reported with its tool and arguments, the same by every accessor."""
    app = Notes()
    agent, model, paused = paused_turn(stores, app)
    assert (paused.stop_reason, paused.reply_author) == ("awaiting_confirmation", "harness")
    assert paused.reply == "This action needs your confirmation before it runs: delete_note."
    assert paused.calls == ()
    assert app.deleted == []
    pending = paused.pending_confirmation
    assert pending is not None
    assert (pending.conversation_id, pending.call_id, pending.tool, pending.arguments) == (
        "c1",
        "call_del",
        "delete_note",
        {"key": "alpha"},
    )
    assert agent.pending_confirmation("c1") == pending
    assert agent.pending_confirmations() == [pending]
    assert agent.unfinished("c1")
    approval = agent.approval("c1", pending.id)
    assert approval is not None
    assert (approval.approved, approval.tool, approval.call_id) == (None, "delete_note", "call_del")
    assert len(model.requests) == 1
    assert agent.writes() == []  # nothing was attempted


@pytest.mark.parametrize(
    ("lang", "reply"),
    [
        ("es", "Esta acción necesita tu confirmación antes de ejecutarse: delete_note."),
        ("pt", "Esta ação precisa da sua confirmação antes de ser executada: delete_note."),
        ("en", "This action needs your confirmation before it runs: delete_note."),
    ],
)
def test_the_pause_is_told_in_the_turns_language(
    stores: dict[str, Any], lang: Lang, reply: str
) -> None:
    """The harness's text for the pause is in the agent's language, also in the journal."""
    agent, _, paused = paused_turn(stores, Notes(), lang=lang)
    assert paused.reply == reply
    harness = [m for m in agent.journal.load("c1") if isinstance(m, HarnessMessage)]
    assert harness == []  # the pause is no end of the turn: nothing is journaled for it
    assert agent.pending_confirmation("c1") is not None


def test_approved_runs_once_even_when_approved_twice(stores: dict[str, Any]) -> None:
    """Approve, approve again, resume, resume again: the tool runs once, its Ok goes to the
    model, the write is committed, and nothing waits any more."""
    app = Notes()
    agent, model, paused = paused_turn(stores, app, turn("Deleted alpha."))
    assert paused.pending_confirmation is not None
    approval = paused.pending_confirmation.id
    assert agent.decide("c1", approval, approved=True)
    assert not agent.decide("c1", approval, approved=True)  # decided: nothing waits for it
    assert not agent.decide("c1", approval, approved=False)  # and the first decision stands
    stored = agent.approval("c1", approval)
    assert stored is not None
    assert stored.approved is True
    done = run(agent.resume("c1"))
    assert (done.stop_reason, done.reply) == ("completed", "Deleted alpha.")
    assert app.deleted == ["alpha"]
    (record,) = done.calls
    assert (record.outcome, record.executed) == (Ok({"deleted": "alpha"}), True)
    results = model.requests[-1].messages[-1]
    assert isinstance(results, ToolResultsMessage)
    assert [(r.call_id, r.outcome) for r in results.results] == [
        ("call_del", Ok({"deleted": "alpha"}))
    ]
    again = run(agent.resume("c1"))  # a finished turn only reports how it ended
    assert (again.stop_reason, again.reply) == ("completed", "Deleted alpha.")
    assert app.deleted == ["alpha"]
    assert len(model.requests) == 2
    assert [e.state for e in agent.writes(conversation_id="c1")] == ["committed"]
    assert agent.pending_confirmation("c1") is None
    assert agent.pending_confirmations() == []
    assert not agent.unfinished("c1")


def test_denied_is_never_run_and_the_model_is_told(stores: dict[str, Any]) -> None:
    """A denial: the tool does not run, the model gets a ``denied`` error whose recovery is to
    choose another way, and the turn goes on to the model's answer."""
    app = Notes()
    agent, model, paused = paused_turn(stores, app, turn("I left alpha alone."))
    assert paused.pending_confirmation is not None
    assert agent.decide("c1", paused.pending_confirmation.id, approved=False)
    done = run(agent.resume("c1"))
    assert (done.stop_reason, done.reply, done.reply_author) == (
        "completed",
        "I left alpha alone.",
        "model",
    )
    assert app.deleted == []
    assert app.notes["alpha"] == "a"
    (record,) = done.calls
    assert record.executed is False
    assert isinstance(record.outcome, ToolError)
    assert (record.outcome.code, record.outcome.recovery) == ("denied", Recovery.CHOOSE_ALTERNATIVE)
    assert record.outcome.message.startswith("The person declined this action")
    sent = model.requests[-1].messages[-1]
    assert isinstance(sent, ToolResultsMessage)
    assert [(r.call_id, r.outcome, r.executed) for r in sent.results] == [
        ("call_del", record.outcome, False)
    ]
    assert agent.writes() == []
    stored = agent.approval("c1", paused.pending_confirmation.id)
    assert stored is not None
    assert stored.approved is False


def test_a_decision_applies_only_to_the_call_that_waits(stores: dict[str, Any]) -> None:
    """An unknown id, the id in another conversation, or a conversation that waits for
    nothing: ``decide`` says False and records nothing."""
    agent, _, paused = paused_turn(stores, Notes())
    assert paused.pending_confirmation is not None
    approval = paused.pending_confirmation.id
    assert not agent.decide("c1", "apr_" + "0" * 40, approved=True)
    assert not agent.decide("other", approval, approved=True)
    assert not agent.decide("never-started", approval, approved=True)
    assert agent.pending_confirmation("never-started") is None
    assert agent.approval("other", approval) is None
    stored = agent.approval("c1", approval)
    assert stored is not None
    assert stored.approved is None
    assert agent.pending_confirmation("c1") == paused.pending_confirmation


def test_the_same_call_in_a_later_turn_does_not_inherit_the_decision(
    stores: dict[str, Any],
) -> None:
    """Turn 1 approves ``delete_note(alpha)`` as ``call_del``; turn 2's model sends the very
    same call (same id, same arguments): it is asked again under a new id, not run on turn
    1's decision, and turn 1's id cannot decide it."""
    app = Notes()
    same = turn(call("delete_note", {"key": "alpha"}, call_id="call_del"))
    agent, _, paused = paused_turn(stores, app, turn("Deleted."), same, turn("Gone already."))
    first = paused.pending_confirmation
    assert first is not None
    assert agent.decide("c1", first.id, approved=True)
    assert run(agent.resume("c1")).stop_reason == "completed"
    second = run(agent.run_turn("delete alpha again", conversation_id="c1"))
    assert second.stop_reason == "awaiting_confirmation"
    assert second.calls == ()
    assert second.pending_confirmation is not None
    assert second.pending_confirmation.id != first.id
    assert (second.pending_confirmation.call_id, second.pending_confirmation.arguments) == (
        "call_del",
        {"key": "alpha"},
    )
    assert app.deleted == ["alpha"]
    assert not agent.decide("c1", first.id, approved=True)
    assert agent.decide("c1", second.pending_confirmation.id, approved=False)
    done = run(agent.resume("c1"))
    assert done.stop_reason == "completed"
    assert app.deleted == ["alpha"]
    assert [r.outcome.code for r in done.calls if isinstance(r.outcome, ToolError)] == ["denied"]


def test_reads_before_the_pause_are_answered_once(stores: dict[str, Any]) -> None:
    """A read, then the confirm call, in one response: after the approval the model gets both
    results in call order, each call answered once."""
    app = Notes()
    both = turn(
        call("read_note", {"key": "alpha"}, call_id="call_r"),
        call("delete_note", {"key": "alpha"}, call_id="call_d"),
    )
    model = ScriptedModel([both, turn("Read, then deleted.")])
    agent = make_agent(stores, model, app)
    paused = run(agent.run_turn("read and delete alpha", conversation_id="c1"))
    assert paused.pending_confirmation is not None
    assert paused.pending_confirmation.call_id == "call_d"
    assert agent.decide("c1", paused.pending_confirmation.id, approved=True)
    done = run(agent.resume("c1"))
    assert done.stop_reason == "completed"
    model.assert_consumed()
    sent = model.requests[-1].messages[-1]
    assert isinstance(sent, ToolResultsMessage)
    assert [(r.call_id, r.outcome) for r in sent.results] == [
        ("call_r", Ok({"key": "alpha", "value": "a"})),
        ("call_d", Ok({"deleted": "alpha"})),
    ]
    history = agent.journal.load("c1")
    assert sum(isinstance(m, ToolResultsMessage) for m in history) == 1
    assert isinstance(history[0], UserMessage)


def test_pending_confirmations_lists_every_waiting_conversation(stores: dict[str, Any]) -> None:
    """Two conversations waiting: both are listed (by conversation id); once one is decided
    and resumed only the other remains."""
    app = Notes()

    def play(request: ModelRequest) -> AssistantMessage:
        if isinstance(request.messages[-1], ToolResultsMessage):
            return turn("Done.")
        key = "alpha" if "alpha" in request.messages[-1].text else "beta"  # type: ignore[union-attr]
        return turn(call("delete_note", {"key": key}, call_id="call_0"))

    agent = make_agent(stores, FunctionModel(play), app)
    run(agent.run_turn("delete beta", conversation_id="c2"))
    run(agent.run_turn("delete alpha", conversation_id="c1"))
    waiting = agent.pending_confirmations()
    assert [(p.conversation_id, p.arguments) for p in waiting] == [
        ("c1", {"key": "alpha"}),
        ("c2", {"key": "beta"}),
    ]
    assert all(isinstance(p, PendingConfirmation) for p in waiting)
    assert agent.decide("c1", waiting[0].id, approved=True)
    assert run(agent.resume("c1")).stop_reason == "completed"
    assert [p.conversation_id for p in agent.pending_confirmations()] == ["c2"]
    assert app.deleted == ["alpha"]
