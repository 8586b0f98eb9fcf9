"""The seam for durable execution engines: a turn as a workflow of steps.

An engine (DBOS today; ``surefoot.dbos``) runs a user turn as a workflow and each unit of work
as a step it records. It gives the turn two things: a step it runs at most until it records
its result (and runs again, from its start, when a process died before that), and a durable
wait for a message (a person's decision). Everything else stays surefoot's::

    workflow(conversation, text, user turn):
        begin                          the user message journaled (once)
        loop:
            model                      one model request, its response journaled
            tools                      one response's calls, through the executor and the ledger
            a call needs a person  →   wait for a message on its approval (no hold meanwhile)
        → the TurnResult

Each step reads where the turn stands from the journal before doing anything, so a step the
engine runs again after a crash goes on from there, never from its own start: a response
already journaled is not asked for again, and calls without results go the way ``resume``
takes them (pending writes reconciled, every write under the key the live run minted,
nothing settled run again). A write is never retried by an engine: a handler that raises is
settled by the ledger (``outcome_unknown`` stops the turn). A read whose handler raises one of
``Retry.on`` asks the engine to run its step again (``Engine.may_retry``), within the engine's
attempts; past them it is ``unavailable``, as without an engine.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ._exceptions import ConversationBusyError
from ._journal import Lease
from ._messages import Message, ToolResult, UserMessage
from ._records import Usage
from ._result import TurnResult
from ._runner import Turn, finished, turn_history, unanswered, user_turns
from ._sql import every_commit_waits

if TYPE_CHECKING:
    from ._loop import Agent
    from ._runner import EventHandler
    from ._tools import Tool

StepKind = Literal["begin", "model", "tools"]
Next = Literal["model", "tools", "wait", "done"]


@dataclass(frozen=True, slots=True)
class Retry:
    """Which read failures an engine may retry, and how often (the engine's attempts)."""

    attempts: int = 3
    interval_seconds: float = 0.5
    backoff: float = 2.0
    on: tuple[type[BaseException], ...] = (ConnectionError, TimeoutError)


@dataclass(frozen=True, slots=True)
class Progress:
    """What a step did: where the turn goes next, and what it cost."""

    next: Next
    result: TurnResult | None = None
    approval: str | None = None
    requests: int = 0
    usage: Usage = dataclasses.field(default_factory=Usage)


class Engine(Protocol):
    """What a durable execution engine gives a turn."""

    async def step(
        self, kind: StepKind, work: Callable[[], Coroutine[Any, Any, Progress]]
    ) -> Progress:
        """Run ``work`` as a recorded step (its recorded result, if it has one)."""
        ...

    async def pause(self, key: str, paused: TurnResult) -> None:
        """Tell whoever waits on the turn that it paused, under ``key``, with its result."""
        ...

    async def wait(self, topic: str) -> object | None:
        """A message sent to this workflow on ``topic`` (None: none came in time)."""
        ...

    def may_retry(self) -> bool:
        """Whether the step running now has attempts left."""
        ...


class ReadRetry(BaseException):
    """A read failed with a failure its engine may retry: the step is run again. A
    ``BaseException``, so the executor's error boundary lets it through to the step."""


class RetryableStepError(Exception):
    """What a step raises to its engine when a read asked to be retried."""


def retrying_reads(agent: Agent, engine: Engine, retry: Retry) -> None:
    """Let ``engine`` retry the agent's reads that fail with ``retry.on`` (writes never)."""
    tools = agent.tools
    for tool in list(tools):
        if tool.effect == "read" and not getattr(tool.handler, "_surefoot_retrying", False):
            tools._tools[tool.name] = dataclasses.replace(
                tool, handler=_retrying(tool, engine, retry)
            )


def _retrying(tool: Tool, engine: Engine, retry: Retry) -> Callable[..., Any]:
    handler = tool.handler

    def failed(exc: Exception) -> None:
        if isinstance(exc, retry.on) and engine.may_retry():
            raise ReadRetry from exc

    if tool.is_async:

        async def run_async(*args: Any, **kwargs: Any) -> Any:
            try:
                return await handler(*args, **kwargs)
            except Exception as exc:
                failed(exc)
                raise

        wrapped: Callable[..., Any] = run_async
    else:

        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return handler(*args, **kwargs)
            except Exception as exc:
                failed(exc)
                raise

        wrapped = run
    functools.update_wrapper(wrapped, handler)
    wrapped._surefoot_retrying = True  # type: ignore[attr-defined]
    return wrapped


class DurableTurn:
    """One user turn of ``agent`` as an engine's workflow (the module docstring)."""

    def __init__(
        self,
        agent: Agent,
        engine: Engine,
        *,
        hold_wait: float = 0.5,
        listener: Callable[[], EventHandler | None] = lambda: None,
    ) -> None:
        self.agent = agent
        self.engine = engine
        self.hold_wait = hold_wait
        self.listener = listener  # who hears a step's events as it runs (a recorded one: none)
        self.requests = 0
        self.usage = Usage()
        self._held: tuple[ExitStack, Lease] | None = None

    async def run(self, conversation_id: str, text: str, user_turn: int) -> TurnResult:
        """The workflow's body: begin, then steps until the turn ends. While a call waits for
        a person, the turn says so (``Engine.pause``, keyed by the decision before it) and
        waits for a message on its approval; the journal's decision is the one that counts."""
        try:
            return await self._run(conversation_id, text, user_turn)
        finally:
            self._release()

    async def _run(self, conversation_id: str, text: str, user_turn: int) -> TurnResult:
        begin = functools.partial(self._begin, text=text)
        progress = await self._step("begin", conversation_id, begin, user_turn)
        decided = ""
        while progress.next != "done":
            if progress.next == "wait":
                assert progress.approval is not None
                assert progress.result is not None
                self._release()  # nobody holds the conversation while it waits for a person
                if progress.approval != decided:
                    await self.engine.pause(f"after:{decided}", self._summed(progress.result))
                    decided = progress.approval
                await self.engine.wait(progress.approval)
            kind: StepKind = "model" if progress.next == "model" else "tools"
            work = self._model if kind == "model" else self._tools
            progress = await self._step(kind, conversation_id, work, user_turn)
        assert progress.result is not None
        return self._summed(progress.result)

    async def _step(
        self,
        kind: StepKind,
        conversation_id: str,
        work: Callable[[Turn], Awaitable[Progress]],
        user_turn: int,
    ) -> Progress:
        async def body() -> Progress:
            with every_commit_waits():  # the engine's record of the step covers none of them
                lease = await self._lease(conversation_id)
                turn = self._load(conversation_id, lease, user_turn)
                if kind != "begin" and user_turns(turn.messages) > user_turn + 1:
                    return self._moved_on(turn, user_turn)
                try:
                    return await work(turn)
                except ReadRetry as exc:
                    raise RetryableStepError(kind) from exc.__cause__

        progress = await self.engine.step(kind, body)
        self.requests += progress.requests
        for counts in progress.usage.requests:
            self.usage = self.usage.add(counts)
        return progress

    async def _lease(self, conversation_id: str) -> Lease:
        """The hold this run of the workflow has on the conversation: taken at its first
        step (waited for while another writer has it: a dead worker's hold until it is
        provably dead or its lease runs out), kept, renewed, until the run ends or waits."""
        if self._held is None:
            stack = ExitStack()
            self._held = (stack, await _holding(stack, self.agent, conversation_id, self.hold_wait))
        return self._held[1]

    def _release(self) -> None:
        if self._held is not None:
            stack, self._held = self._held[0], None
            stack.close()

    def _load(self, conversation_id: str, lease: Lease, user_turn: int) -> Turn:
        """The turn as the journal has it, its state rebuilt as ``resume`` rebuilds it (a
        turn the conversation went past is only read: ``_moved_on``)."""
        agent = self.agent
        messages = agent.journal.load(conversation_id)
        turn = agent._turn(conversation_id, lease, messages, self.listener(), user_turn)
        if messages and not isinstance(messages[-1], UserMessage):
            agent._rebuild(turn, turn_history(messages))
        turn.usage = self.usage
        return turn

    async def _begin(self, turn: Turn, *, text: str) -> Progress:
        """Journal the user message, unless an earlier run of this step did."""
        agent, messages = self.agent, turn.messages
        if user_turns(messages) > turn.state.user_turn:
            said = [m for m in messages if isinstance(m, UserMessage)][turn.state.user_turn]
            if said.text != text:  # another turn took this place in the conversation
                raise ConversationBusyError(turn.conversation_id)
            return Progress("model")
        if turn.lease.orphaned:
            agent.executor.reconcile(
                conversation_id=turn.conversation_id, lang=agent.lang, orphaned=True
            )
        if unanswered(messages) or user_turns(messages) < turn.state.user_turn:
            raise ConversationBusyError(turn.conversation_id)
        message = UserMessage(text, said_on=turn.state.today)
        agent._runner.append(turn, message, model=agent.model_ref)
        return Progress("model")

    async def _model(self, turn: Turn) -> Progress:
        """Ask the model once (unless the journal has its response already)."""
        runner, messages = self.agent._runner, turn.messages
        last = messages[-1]
        if finished(last):
            return self._progress(turn, runner.finished_result(turn, last))
        if unanswered(messages):
            return Progress("tools")
        ended = await runner.go_on(turn, last, _results(messages))  # a pause, an older stop
        if ended is None:
            ended = await self._ask(turn)
        return self._progress(turn, ended)

    async def _ask(self, turn: Turn) -> TurnResult | None:
        runner = self.agent._runner
        if runner._over_budget(turn):
            reply = runner.replies.plain("token_budget", budget=self.agent.max_tokens_per_turn)
            return await runner.stop_with(turn, (), "token_budget", reply)
        response = await runner._request(turn)
        if isinstance(response, TurnResult):
            return response
        message = response.message
        if message.tool_calls:  # the calls are the next step's
            runner.append(turn, message)
            return None
        return await runner._answered(turn, message)

    async def _tools(self, turn: Turn) -> Progress:
        """Run the calls of the journaled response that have no results yet."""
        agent, messages = self.agent, turn.messages
        last = messages[-1]
        if finished(last):
            return self._progress(turn, agent._runner.finished_result(turn, last))
        if not unanswered(messages):
            return Progress("model")
        agent.executor.reconcile(
            conversation_id=turn.conversation_id, lang=agent.lang, orphaned=turn.lease.orphaned
        )
        ended = await agent._runner.go_on(turn, last, _results(messages))
        agent._runner.flush(turn)  # the round's results: the next step reads them from the journal
        return self._progress(turn, ended)

    def _moved_on(self, turn: Turn, user_turn: int) -> Progress:
        """The conversation went on past this turn (it was finished outside the engine, and
        another began): the turn ended as its last journaled message says; nothing runs."""
        said = [i for i, m in enumerate(turn.messages) if isinstance(m, UserMessage)]
        ended = turn.messages[: said[user_turn + 1]]
        return Progress("done", self.agent._runner.finished_result(turn, ended[-1]))

    def _progress(self, turn: Turn, ended: TurnResult | None) -> Progress:
        usage = Usage(requests=turn.usage.requests[len(self.usage.requests) :])
        if ended is None:
            return Progress(_next_of(turn.messages), requests=turn.requests, usage=usage)
        ended = dataclasses.replace(ended, calls=(*turn.earlier, *turn.calls))
        pending = ended.pending_confirmation
        next_: Next = "done" if pending is None else "wait"
        approval = None if pending is None else pending.id
        return Progress(next_, ended, approval, requests=turn.requests, usage=usage)

    def _summed(self, result: TurnResult) -> TurnResult:
        """The turn's result with what every step of it did (requests, tokens)."""
        return dataclasses.replace(result, model_requests=self.requests, usage=self.usage)


async def _holding(stack: ExitStack, agent: Agent, conversation_id: str, wait: float) -> Lease:
    """A hold on the conversation, entered on ``stack``; waited for while another writer has it."""
    while True:
        try:
            return stack.enter_context(agent.hold(conversation_id))
        except ConversationBusyError:
            await asyncio.sleep(wait)


def _next_of(messages: list[Message]) -> Next:
    return "tools" if unanswered(messages) else "model"


def _results(messages: list[Message]) -> list[ToolResult]:
    return [r for batch in turn_history(messages) for _, r in batch]
