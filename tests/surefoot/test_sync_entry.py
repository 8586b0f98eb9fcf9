"""``Agent.run_turn_sync``, ``Agent.resume_sync`` and ``run_sync``: one event loop per thread,
reused from call to call; a thread that never had a loop gets its own; inside a running loop
they refuse."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from surefoot import Agent, ConfigurationError, ToolSet
from surefoot._sync import run_sync, thread_loop
from surefoot.executor import CallRecord
from surefoot.testing import ScriptedModel, call, turn


def _agent() -> Agent:
    tools = ToolSet()

    @tools.tool
    async def loop_of() -> dict[str, Any]:
        """Which loop the handler runs on."""
        return {"loop": id(asyncio.get_running_loop())}

    return Agent(model=ScriptedModel([]), tools=tools, lang="en")


def _turn_loop(agent: Agent) -> int:
    """Run a one-call turn; the id of the loop its handler ran on."""
    agent.model = ScriptedModel([turn(call("loop_of", {})), turn("done")])
    result = agent.run_turn_sync("which loop?")
    assert result.stop_reason == "completed"
    data = result.calls[0].outcome.data  # type: ignore[union-attr]
    return int(data["loop"])


def test_run_turn_sync_reuses_one_loop_on_a_thread() -> None:
    agent = _agent()
    first = _turn_loop(agent)
    assert _turn_loop(agent) == first
    assert _turn_loop(_agent()) == first  # per thread, not per agent
    assert first == id(thread_loop())
    assert not thread_loop().is_closed()


def test_each_thread_gets_its_own_loop_and_a_thread_with_none_works() -> None:
    agent = _agent()
    here = _turn_loop(agent)
    seen: dict[str, list[int]] = {"a": [], "b": []}
    errors: list[BaseException] = []

    def work(name: str) -> None:
        try:
            mine = _agent()
            seen[name] += [_turn_loop(mine), _turn_loop(mine)]
        except BaseException as exc:  # noqa: BLE001 - reported to the test below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in seen]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors
    assert seen["a"][0] == seen["a"][1]
    assert seen["b"][0] == seen["b"][1]
    assert here not in (seen["a"][0], seen["b"][0])


def test_a_thread_loop_is_not_made_the_current_event_loop() -> None:
    run_sync(asyncio.sleep(0))
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()
    policy_loop = asyncio.get_event_loop_policy()._local._loop  # type: ignore[attr-defined]
    assert policy_loop is not thread_loop()


def test_inside_a_running_loop_it_refuses_clearly() -> None:
    agent = _agent()
    agent.model = ScriptedModel([turn("never asked")])

    async def inside() -> None:
        agent.run_turn_sync("hello")

    with pytest.raises(ConfigurationError, match="run_turn_sync cannot be called from inside"):
        asyncio.run(inside())
    assert agent.conversations() == []  # refused before anything was written

    async def helper() -> None:
        run_sync(asyncio.sleep(0))

    with pytest.raises(ConfigurationError, match="await the coroutine instead"):
        asyncio.run(helper())


def test_an_exception_in_the_coroutine_leaves_the_loop_usable() -> None:
    async def boom() -> None:
        msg = "boom"
        raise ValueError(msg)

    with pytest.raises(ValueError, match="boom"):
        run_sync(boom())
    assert run_sync(asyncio.sleep(0, result=7)) == 7


def test_ctrl_c_in_the_coroutine_runs_its_cleanup_and_leaves_the_loop_usable() -> None:
    cleaned: list[str] = []

    async def interrupted() -> None:
        try:
            await asyncio.sleep(0)
            raise KeyboardInterrupt
        finally:
            cleaned.append("finally")

    with pytest.raises(KeyboardInterrupt):
        run_sync(interrupted())
    assert cleaned == ["finally"]
    assert run_sync(asyncio.sleep(0, result="again")) == "again"


def test_a_task_interrupted_between_its_steps_is_cancelled_and_unwinds() -> None:
    cleaned: list[str] = []

    async def waits() -> None:
        try:
            await asyncio.sleep(10)
        finally:
            cleaned.append("finally")

    loop = thread_loop()
    loop.call_later(0.01, _raise_interrupt)  # lands in the loop, between the task's steps
    with pytest.raises(KeyboardInterrupt):
        run_sync(waits())
    assert cleaned == ["finally"]
    assert not asyncio.all_tasks(loop)
    assert run_sync(asyncio.sleep(0, result=1)) == 1


def _raise_interrupt() -> None:
    raise KeyboardInterrupt


def _confirming_agent(effects: list[str]) -> Agent:
    """An agent whose one tool is a write a person must confirm (it logs to ``effects``)."""
    tools = ToolSet()

    @tools.tool(effect="write", confirm=True)
    def cancel(day: str) -> dict[str, Any]:
        """Cancel the booking of one day."""
        effects.append(day)
        return {"cancelled": day}

    model = ScriptedModel([turn(call("cancel", {"day": "monday"})), turn("Cancelled monday.")])
    return Agent(model=model, tools=tools, lang="en")


def test_resume_sync_finishes_a_turn_paused_for_a_person() -> None:
    """A script decides and resumes without asyncio: the write runs once, on the thread's loop."""
    effects: list[str] = []
    agent = _confirming_agent(effects)
    paused = agent.run_turn_sync("cancel monday")
    assert paused.stop_reason == "awaiting_confirmation"
    assert paused.pending_confirmation is not None
    assert effects == []
    assert agent.decide(paused.conversation_id, paused.pending_confirmation.id, approved=True)
    events: list[object] = []
    done = agent.resume_sync(paused.conversation_id, on_event=events.append)
    assert (done.stop_reason, done.reply) == ("completed", "Cancelled monday.")
    assert effects == ["monday"]
    [record] = [e for e in events if isinstance(e, CallRecord)]
    assert (record.call.name, record.executed) == ("cancel", True)
    again = agent.resume_sync(paused.conversation_id)  # a finished turn only reports
    assert (again.reply, effects) == ("Cancelled monday.", ["monday"])


def test_resume_sync_refuses_inside_a_running_loop() -> None:
    """Inside a running loop ``resume_sync`` says to await ``resume``, and runs nothing."""
    effects: list[str] = []
    agent = _confirming_agent(effects)
    paused = agent.run_turn_sync("cancel monday")
    assert paused.pending_confirmation is not None
    agent.decide(paused.conversation_id, paused.pending_confirmation.id, approved=True)

    async def inside() -> None:
        agent.resume_sync(paused.conversation_id)

    with pytest.raises(ConfigurationError, match="resume_sync cannot be called from inside"):
        asyncio.run(inside())
    assert effects == []
    assert agent.unfinished(paused.conversation_id)


def test_run_turn_sync_passes_events_on() -> None:
    """``run_turn_sync(on_event=...)`` gets the streamed text as it arrives."""
    from surefoot.messages import TextDelta

    agent = Agent(model=ScriptedModel([turn("one two three")]), tools=ToolSet(), stream=True)
    pieces: list[str] = []
    result = agent.run_turn_sync(
        "count", on_event=lambda e: pieces.append(e.text) if isinstance(e, TextDelta) else None
    )
    assert pieces == ["one ", "two ", "three"]
    assert "".join(pieces) == result.reply
