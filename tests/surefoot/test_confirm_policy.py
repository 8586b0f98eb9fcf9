"""A per-call confirmation policy: ``Tool(confirm=policy)`` asks a person only about the
calls the policy has a question for, with that question; the approval stays bound to the
exact call, and the write runs once after approval (also from a new agent after a restart)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from surefoot import (
    Agent,
    ConfigurationError,
    Ok,
    SqlJournal,
    SqlLedger,
    ToolContext,
    ToolSet,
    TurnResult,
    open_database,
)
from surefoot.testing import ScriptedModel, call, turn


@dataclass
class Scale:
    """A tiny app: weights whose jump over 10 kg from the last one needs a person."""

    weights: list[float] = field(default_factory=lambda: [76.0])
    seen: list[tuple[dict[str, Any], str, str]] = field(default_factory=list)
    raises: bool = False

    def unlikely(self, arguments: dict[str, Any], ctx: ToolContext) -> str | None:
        self.seen.append((dict(arguments), ctx.tool, ctx.lang))
        if self.raises:
            raise RuntimeError("policy bug")
        last = self.weights[-1]
        if abs(arguments["kg"] - last) <= 10:
            return None
        return f"Save {arguments['kg']:g} kg? Your last weight was {last:g} kg."

    def tools(self) -> ToolSet:
        tools = ToolSet()

        @tools.tool(effect="write", confirm=self.unlikely)
        def save_weight(kg: float) -> dict[str, Any]:
            """Save a weight."""
            self.weights.append(kg)
            return {"kg": kg}

        return tools


def run(coroutine: Any) -> TurnResult:
    result: TurnResult = asyncio.run(coroutine)
    return result


def agent_on(tmp_path: Path, app: Scale, *steps: Any) -> Agent:
    database = open_database(str(tmp_path / "policy.db"))
    return Agent(
        model=ScriptedModel(list(steps)),
        tools=app.tools(),
        journal=SqlJournal(database),
        ledger=SqlLedger(database),
    )


def test_a_likely_call_runs_without_asking(tmp_path: Path) -> None:
    """The policy answers None: the write runs at once, nothing waits for a person."""
    app = Scale()
    agent = agent_on(tmp_path, app, turn(call("save_weight", {"kg": 77.0})), turn("Saved."))
    done = run(agent.run_turn("77 kg", conversation_id="c1"))
    assert (done.stop_reason, done.pending_confirmation) == ("completed", None)
    assert app.weights == [76.0, 77.0]
    assert app.seen == [({"kg": 77.0}, "save_weight", "en")]


def test_an_unlikely_call_waits_with_the_policys_question(tmp_path: Path) -> None:
    """The policy asks: the turn pauses before the write, the reply and the pending call
    carry the question, and nothing is written or even claimed."""
    app = Scale()
    agent = agent_on(tmp_path, app, turn(call("save_weight", {"kg": 220.0})))
    paused = run(agent.run_turn("220 kg", conversation_id="c1"))
    question = "Save 220 kg? Your last weight was 76 kg."
    assert (paused.stop_reason, paused.reply) == ("awaiting_confirmation", question)
    assert paused.pending_confirmation is not None
    assert paused.pending_confirmation.question == question
    assert agent.pending_confirmation("c1") == paused.pending_confirmation
    assert app.weights == [76.0]
    assert agent.writes() == []


def test_the_write_runs_once_after_approval_from_a_restarted_agent(tmp_path: Path) -> None:
    """Approved and resumed by a new agent on the same database (a restart): the write runs
    once; resuming again runs nothing more."""
    app = Scale()
    first = agent_on(tmp_path, app, turn(call("save_weight", {"kg": 220.0})))
    paused = run(first.run_turn("220 kg", conversation_id="c1"))
    assert paused.pending_confirmation is not None
    restarted = agent_on(tmp_path, app, turn("Saved 220 kg."))
    pending = restarted.pending_confirmation("c1")
    assert pending is not None
    assert pending.id == paused.pending_confirmation.id
    assert pending.question == "Save 220 kg? Your last weight was 76 kg."
    assert app.weights == [76.0]
    assert restarted.decide("c1", pending.id, approved=True)
    done = run(restarted.resume("c1"))
    assert done.reply == "Saved 220 kg."
    (record,) = done.calls
    assert (record.outcome, record.executed) == (Ok({"kg": 220.0}), True)
    run(restarted.resume("c1"))
    assert app.weights == [76.0, 220.0]
    assert [e.state for e in restarted.writes(conversation_id="c1")] == ["committed"]


def test_a_denied_unlikely_call_never_runs(tmp_path: Path) -> None:
    """Denied: the model is told ``denied`` and the value is never written."""
    app = Scale()
    agent = agent_on(tmp_path, app, turn(call("save_weight", {"kg": 220.0})), turn("Not saved."))
    paused = run(agent.run_turn("220 kg", conversation_id="c1"))
    assert paused.pending_confirmation is not None
    assert agent.decide("c1", paused.pending_confirmation.id, approved=False)
    done = run(agent.resume("c1"))
    (record,) = done.calls
    assert not record.executed
    assert getattr(record.outcome, "code", None) == "denied"
    assert app.weights == [76.0]


def test_the_approval_is_bound_to_the_exact_call(tmp_path: Path) -> None:
    """An approval of 220 kg is not one of 240 kg: a model that sends another value after the
    person approved is asked again, and it is not written unasked."""
    app = Scale()
    agent = agent_on(
        tmp_path,
        app,
        turn(call("save_weight", {"kg": 220.0})),
        turn(call("save_weight", {"kg": 240.0})),
    )
    paused = run(agent.run_turn("220 kg", conversation_id="c1"))
    assert paused.pending_confirmation is not None
    first = paused.pending_confirmation.id
    assert agent.decide("c1", first, approved=True)
    again = run(agent.resume("c1"))
    assert app.weights == [76.0, 220.0]
    assert again.pending_confirmation is not None
    assert again.pending_confirmation.id != first
    assert again.pending_confirmation.arguments == {"kg": 240.0}
    assert app.weights == [76.0, 220.0]


def test_a_policy_that_raises_asks_the_person(tmp_path: Path) -> None:
    """A policy bug is diagnosed and the call waits with the harness's own words: it is
    never written unasked."""
    app = Scale(raises=True)
    agent = agent_on(tmp_path, app, turn(call("save_weight", {"kg": 77.0})))
    paused = run(agent.run_turn("77 kg", conversation_id="c1"))
    assert paused.stop_reason == "awaiting_confirmation"
    assert paused.pending_confirmation is not None
    assert paused.pending_confirmation.question is None
    assert paused.reply == "This action needs your confirmation before it runs: save_weight."
    assert app.weights == [76.0]
    assert [d.tool for d in agent.diagnostics(conversation_id="c1")] == ["save_weight"]


def test_a_read_cannot_have_a_policy() -> None:
    """A confirmation policy only applies to writes, like ``confirm=True``."""
    tools = ToolSet()
    with pytest.raises(ConfigurationError):

        @tools.tool(effect="read", confirm=lambda arguments, ctx: None)
        def look(kg: float) -> dict[str, Any]:
            """Look."""
            return {"kg": kg}
