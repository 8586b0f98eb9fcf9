"""Turns on DBOS (the ``dbos`` extra): each user turn a DBOS workflow, each model request and
each batch of tool calls a step, a person's approval a DBOS message the workflow waits for.

DBOS records every step's result in its system database; when a worker dies, another process
(``DBOS.recover_pending_workflows``) runs the workflow again, and each recorded step returns
its recorded result. What runs again is the step that was cut short, and it goes on from the
journal (``surefoot._engine``): a write whose effect happened before the worker died is
settled by the ledger under the key the live run minted, never run again. DBOS is asked to
retry a tools step only when a read failed with one of ``Retry.on``; a write step is never
retried by DBOS.

    from dbos import DBOS
    from surefoot.dbos import DurableAgent

    durable = DurableAgent(agent, name="coach")      # before DBOS.launch(), in every worker
    DBOS(config={"name": "coach", "system_database_url": url}); DBOS.launch()
    result = await durable.run_turn("hola", conversation_id=cid)
    if result.pending_confirmation:                  # hours later, on any worker:
        result = await durable.decide(cid, result.pending_confirmation.id, approved=True)

Without this module nothing imports DBOS.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, Final

try:
    from dbos import DBOS, SetWorkflowID, StepOptions, WorkflowHandleAsync
except ImportError as _missing:  # pragma: no cover - depends on the environment
    _msg = "surefoot.dbos needs the dbos extra: pip install 'surefoot[dbos]'"
    raise ImportError(_msg) from _missing

from ._engine import DurableTurn, Progress, Retry, RetryableStepError, StepKind, retrying_reads
from ._exceptions import ConfigurationError
from ._loop import Agent, new_conversation_id
from ._result import TurnResult
from ._runner import EventHandler, user_turns

__all__ = ["DbosEngine", "DurableAgent", "Retry"]

WORKFLOW: Final = "surefoot.turn"
"""The name every worker registers the turn workflow under."""
POLL_SECONDS: Final = 0.1
"""How often a turn running in another worker is looked at for its end."""
_AGENTS: dict[str, DurableAgent] = {}
_LISTENERS: dict[str, EventHandler] = {}
"""Who hears the events of a workflow's steps while they run in this process, by its id."""


class DbosEngine:
    """The engine seam on DBOS: steps, the wait for a decision, the read retry policy."""

    def __init__(self, *, retry: Retry, approval_wait_seconds: float) -> None:
        self.retry = retry
        self.approval_wait_seconds = approval_wait_seconds

    async def step(
        self, kind: StepKind, work: Callable[[], Coroutine[Any, Any, Progress]]
    ) -> Progress:
        """``work`` as a DBOS step named ``surefoot.{kind}``; a tools step is retried only when
        a read asked for it (``RetryableStepError``), within ``retry.attempts``."""
        options: StepOptions = {"name": f"surefoot.{kind}"}
        if kind == "tools" and self.retry.attempts > 1:
            options |= {
                "retries_allowed": True,
                "max_attempts": self.retry.attempts,
                "interval_seconds": self.retry.interval_seconds,
                "backoff_rate": self.retry.backoff,
                "should_retry": _asked_for_retry,
            }
        result: Progress = await DBOS.run_step_async(options, work)
        return result

    async def pause(self, key: str, paused: TurnResult) -> None:
        """A workflow event under ``key``: what ``DurableAgent`` hands back while it waits."""
        await DBOS.set_event_async(key, paused)

    async def wait(self, topic: str) -> object | None:
        """The next DBOS message on ``topic`` (None: none in ``approval_wait_seconds``)."""
        message: object | None = await DBOS.recv_async(
            topic, timeout_seconds=self.approval_wait_seconds
        )
        return message

    def may_retry(self) -> bool:
        """Whether the DBOS step running now has attempts left."""
        status = DBOS.step_status
        if status is None or status.current_attempt is None or status.max_attempts is None:
            return False
        return status.current_attempt + 1 < status.max_attempts


def _asked_for_retry(exc: BaseException) -> bool:
    return isinstance(exc, RetryableStepError)


@DBOS.workflow(name=WORKFLOW)
async def _turn_workflow(name: str, conversation_id: str, text: str, user_turn: int) -> TurnResult:
    durable = _AGENTS.get(name)
    if durable is None:
        msg = f"no DurableAgent named {name!r} in this worker: create it before DBOS.launch()"
        raise ConfigurationError(msg)
    workflow_id = DBOS.workflow_id
    turn = DurableTurn(
        durable.agent, durable.engine, listener=lambda: _LISTENERS.get(workflow_id or "")
    )
    return await turn.run(conversation_id, text, user_turn)


class DurableAgent:
    """``agent``'s turns as DBOS workflows, registered under ``name`` in this worker (every
    worker that may run or recover them creates one, before ``DBOS.launch()``).

    The agent's read tools are wrapped so that, inside a DBOS step, a failure in ``retry.on``
    asks DBOS to run the step again; outside a step they behave exactly as before.

    Args:
        agent: The agent whose turns run (its journal and ledger stay where they are).
        name: Which agent a recovered workflow runs on.
        retry: The read failures DBOS may retry, and how often.
        approval_wait_seconds: How long one wait for a decision lasts before the workflow
            checks the journal and waits again.
    """

    def __init__(
        self,
        agent: Agent,
        *,
        name: str = "surefoot",
        retry: Retry | None = None,
        approval_wait_seconds: float = 24 * 3600.0,
    ) -> None:
        self.agent = agent
        self.name = name
        self.engine = DbosEngine(
            retry=retry or Retry(), approval_wait_seconds=approval_wait_seconds
        )
        retrying_reads(agent, self.engine, self.engine.retry)
        _AGENTS[name] = self

    def workflow_id(self, conversation_id: str, user_turn: int) -> str:
        """The id of the workflow of user turn ``user_turn`` (0-based) of a conversation."""
        return f"surefoot:{self.name}:{self.agent.journal.user}:{conversation_id}:{user_turn}"

    async def run_turn(
        self,
        user_text: str,
        *,
        conversation_id: str | None = None,
        on_event: EventHandler | None = None,
    ) -> TurnResult:
        """Run one user turn as a workflow; returns when it ends or waits for a person.
        ``on_event`` hears the events of the steps that run in this process (text deltas as
        they arrive, each call as it completes); a step's recorded result is what counts."""
        conversation_id = conversation_id or new_conversation_id()
        user_turn = user_turns(self.agent.journal.load(conversation_id))
        workflow_id = self.workflow_id(conversation_id, user_turn)
        with _listening(workflow_id, on_event), SetWorkflowID(workflow_id):
            handle = await DBOS.start_workflow_async(
                _turn_workflow, self.name, conversation_id, user_text, user_turn
            )
            return await self.outcome(workflow_id, after="", handle=handle)

    async def pending(self, conversation_id: str) -> bool:
        """Whether the conversation's last user turn is a workflow that has not ended (one
        that waits for a decision, runs, or was queued to run again at a worker's launch)."""
        user_turn = user_turns(self.agent.journal.load(conversation_id)) - 1
        if user_turn < 0:
            return False
        status = await DBOS.get_workflow_status_async(self.workflow_id(conversation_id, user_turn))
        return status is not None and status.status in {"PENDING", "ENQUEUED"}

    async def decide(self, conversation_id: str, approval: str, *, approved: bool) -> TurnResult:
        """Record a person's decision on the call waiting for it (as ``Agent.decide``: a
        decision never applies to another call) and send it to the turn's workflow; returns
        when the turn ends or waits again. ``ConfigurationError`` if ``approval`` is not the
        call waiting."""
        if not self.agent.decide(conversation_id, approval, approved=approved):
            msg = f"{approval!r} is not the call waiting in {conversation_id!r}"
            raise ConfigurationError(msg)
        return await self.deliver(conversation_id, approval, approved=approved)

    async def deliver(
        self,
        conversation_id: str,
        approval: str,
        *,
        approved: bool,
        on_event: EventHandler | None = None,
    ) -> TurnResult:
        """Send a decision already recorded in the journal to the turn's workflow; returns
        when the turn ends or waits again (``on_event`` as in ``run_turn``)."""
        user_turn = user_turns(self.agent.journal.load(conversation_id)) - 1
        workflow_id = self.workflow_id(conversation_id, user_turn)
        with _listening(workflow_id, on_event):
            await DBOS.send_async(workflow_id, approved, topic=approval)
            return await self.outcome(workflow_id, after=approval)

    async def outcome(
        self,
        workflow_id: str,
        *,
        after: str,
        handle: WorkflowHandleAsync[TurnResult] | None = None,
    ) -> TurnResult:
        """The turn's result once its workflow ends, or pauses again after ``after`` (the
        approval decided last; "" for none). ``handle``: the workflow's, if it runs here."""
        if handle is None:
            handle = await DBOS.retrieve_workflow_async(workflow_id)
        ended = asyncio.ensure_future(handle.get_result(polling_interval_sec=POLL_SECONDS))
        paused = asyncio.ensure_future(_paused(workflow_id, f"after:{after}"))
        done, _ = await asyncio.wait({ended, paused}, return_when=asyncio.FIRST_COMPLETED)
        for task in (ended, paused):
            if task not in done:
                task.cancel()
        result: TurnResult = (ended if ended in done else paused).result()
        return result

    @staticmethod
    def recover(executor_ids: list[str]) -> list[str]:
        """Run again, in this worker, the unfinished turns of workers that died (DBOS runs a
        worker's own again when it launches): the ids of their workflows."""
        found = DBOS.list_workflows(
            status="PENDING", name=WORKFLOW, executor_id=executor_ids, load_input=False
        )
        for status in found:
            DBOS.resume_workflow(status.workflow_id)
        return [status.workflow_id for status in found]


@contextmanager
def _listening(workflow_id: str, on_event: EventHandler | None) -> Iterator[None]:
    if on_event is not None:
        _LISTENERS[workflow_id] = on_event
    try:
        yield
    finally:
        if _LISTENERS.get(workflow_id) is on_event:
            _LISTENERS.pop(workflow_id, None)


async def _paused(workflow_id: str, key: str) -> TurnResult:
    while True:
        found = await DBOS.get_event_async(workflow_id, key, timeout_seconds=3600)
        if found is not None:
            result: TurnResult = found
            return result
