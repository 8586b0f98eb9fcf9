"""The turn loop: request → execute → decide, until the turn ends.

One user turn::

    append user message
    loop:
        step = request the model            (response journaled before any tool runs)
        no tool calls        → Completed (or max_tokens / refusal)
        too many rounds      → RoundLimit  (calls filled with not_executed)
        run the batch        (results journaled)
        a stop_turn outcome  → Stopped     (harness's own message; no further request)
        a call needs a person→ AwaitingConfirmation
        otherwise            → next round

``resume`` finishes a turn whose last journaled message is a model response with unanswered
calls (a killed process, or a confirmation that has now been decided): the same batch runs
again, writes replay from the ledger by their idempotency keys, so nothing is done twice.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ._diagnostics import DiagnosticsSink, Redactor
from ._exceptions import ProviderConnectionError, ProviderError, SurefootError
from ._executor import BatchResult, CallRecord, Executor, TurnState
from ._journal import Journal, MemoryJournal
from ._ledger import Ledger
from ._messages import (
    AssistantMessage,
    HarnessMessage,
    HarnessReason,
    Message,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    UserMessage,
)
from ._model import Model, ResponseDone, TextDelta
from ._outcome import ErrorCode, Outcome, Recovery, ToolError
from ._texts import Lang, text
from ._tools import ToolSet

StopReason = Literal[
    "completed",
    "stop_turn",
    "round_limit",
    "awaiting_confirmation",
    "provider_error",
    "max_tokens",
    "refusal",
]

TurnEvent = TextDelta | CallRecord | HarnessMessage
"""What ``on_event`` receives: text as it streams, each call's outcome, the harness's text."""

EventHandler = Callable[[TurnEvent], Awaitable[None] | None]


@dataclass(frozen=True, slots=True)
class PendingConfirmation:
    """A call waiting for a person's decision."""

    conversation_id: str
    call_id: str
    tool: str
    arguments: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class TurnResult:
    """How one user turn ended."""

    conversation_id: str
    reply: str
    reply_author: Literal["model", "harness"]
    stop_reason: StopReason
    model_requests: int
    calls: tuple[CallRecord, ...]
    pending_confirmation: PendingConfirmation | None = None
    provider_error: ProviderError | None = None


@dataclass(slots=True)
class _Turn:
    conversation_id: str
    messages: list[Message]
    state: TurnState
    on_event: EventHandler | None
    requests: int = 0
    rounds: int = 0
    calls: list[CallRecord] = field(default_factory=list)


_REASON_BY_FINISH: dict[str, StopReason] = {"max_tokens": "max_tokens", "refusal": "refusal"}


class Agent:
    """A model, its tools and the rules that bind them."""

    def __init__(
        self,
        *,
        model: Model,
        tools: ToolSet,
        system: str | None = None,
        lang: Lang = "es",
        app_name: str = "surefoot",
        max_rounds: int = 10,
        guard_limit: int = 2,
        lease_seconds: float = 60.0,
        stream: bool = False,
        ledger: Ledger | None = None,
        journal: Journal | None = None,
        diagnostics: DiagnosticsSink | None = None,
        redactor: Redactor | None = None,
        app_context: dict[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.tools = tools
        self.system = system
        self.lang: Lang = lang
        self.app_name = app_name
        self.max_rounds = max_rounds
        self.stream = stream
        self.journal: Journal = journal if journal is not None else MemoryJournal()
        self.executor = Executor(
            tools,
            ledger=ledger,
            diagnostics=diagnostics,
            redactor=redactor,
            guard_limit=guard_limit,
            lease_seconds=lease_seconds,
            app_context=app_context,
        )
        self._specs = tools.specs()

    # -- public entry points -----------------------------------------------------------------

    async def run_turn(
        self,
        user_text: str,
        *,
        conversation_id: str | None = None,
        on_event: EventHandler | None = None,
    ) -> TurnResult:
        """Run one user turn to its end."""
        conversation_id = conversation_id or new_conversation_id()
        messages = self.journal.load(conversation_id)
        turn = self._turn(conversation_id, messages, on_event)
        self._append(turn, UserMessage(user_text))
        turn.state.user_turn = _user_turns(turn.messages) - 1
        return await self._rounds(turn)

    async def resume(
        self, conversation_id: str, *, on_event: EventHandler | None = None
    ) -> TurnResult:
        """Finish an interrupted or paused turn from the journal."""
        messages = self.journal.load(conversation_id)
        if not messages:
            msg = f"there is no conversation {conversation_id!r} to resume"
            raise SurefootError(msg)
        turn = self._turn(conversation_id, messages, on_event)
        last = messages[-1]
        if isinstance(last, AssistantMessage) and last.tool_calls:
            turn.rounds = _rounds_since_user(messages)
            step = await self._execute(turn, last)
            if step is not None:
                return step
        elif not isinstance(last, UserMessage | ToolResultsMessage):
            return self._finished_result(turn, last)
        return await self._rounds(turn)

    def run_turn_sync(self, user_text: str, *, conversation_id: str | None = None) -> TurnResult:
        """``run_turn`` for synchronous callers."""
        return asyncio.run(self.run_turn(user_text, conversation_id=conversation_id))

    def decide(self, conversation_id: str, call_id: str, *, approved: bool) -> bool:
        """Record a person's decision on a pending call (once; later ones are ignored)."""
        return self.journal.decide(conversation_id, call_id, approved=approved)

    def pending_confirmation(self, conversation_id: str) -> PendingConfirmation | None:
        """The call of this conversation waiting for a decision, if any."""
        messages = self.journal.load(conversation_id)
        if not messages or not isinstance(messages[-1], AssistantMessage):
            return None
        decided = self.journal.decisions(conversation_id)
        for call in messages[-1].tool_calls:
            tool = self.tools.get(call.name)
            if tool is not None and tool.confirm and call.call_id not in decided:
                return PendingConfirmation(conversation_id, call.call_id, call.name, call.arguments)
        return None

    # -- steps -----------------------------------------------------------------------------

    def _turn(
        self, conversation_id: str, messages: list[Message], on_event: EventHandler | None
    ) -> _Turn:
        state = TurnState(
            conversation_id,
            user_turn=max(_user_turns(messages) - 1, 0),
            lang=self.lang,
            decisions=self.journal.decisions(conversation_id),
        )
        return _Turn(conversation_id, messages, state, on_event)

    async def _rounds(self, turn: _Turn) -> TurnResult:
        while True:
            response = await self._request(turn)
            if isinstance(response, TurnResult):
                return response
            message = response.message
            self._append(turn, message)
            if message.finish == "pause" and not message.tool_calls:
                continue
            if not message.tool_calls:
                return self._completed(turn, message)
            step = await self._execute(turn, message)
            if step is not None:
                return step

    async def _request(self, turn: _Turn) -> ModelResponse | TurnResult:
        request = ModelRequest(messages=tuple(turn.messages), tools=self._specs, system=self.system)
        turn.requests += 1
        try:
            if not self.stream:
                return await self.model.request(request)
            async for event in self.model.stream(request):
                if isinstance(event, ResponseDone):
                    return event.response
                await self._emit(turn, event)
        except ProviderError as exc:
            return await self._provider_failed(turn, exc)
        msg = "the model's stream ended without a final response"
        return await self._provider_failed(
            turn,
            ProviderError(
                provider=self.model.provider, status=None, kind="bad_response", safe_message=msg
            ),
        )

    async def _execute(self, turn: _Turn, message: AssistantMessage) -> TurnResult | None:
        calls = message.tool_calls
        if message.finish == "max_tokens":
            await self._fill(turn, calls, "truncated")
            return await self._harness_stop(turn, "max_tokens", text(self.lang, "max_tokens"))
        if turn.rounds >= self.max_rounds:
            await self._fill(turn, calls, "not_executed")
            limit = text(self.lang, "round_limit", app=self.app_name, rounds=self.max_rounds)
            return await self._harness_stop(turn, "round_limit", limit)
        turn.rounds += 1
        batch = await self.executor.run_batch(calls, turn.state)
        if batch.pending is not None:
            return await self._await_confirmation(turn, batch)
        await self._record(turn, batch.records)
        if turn.state.stopped:
            return await self._harness_stop(turn, "stop_turn", self._stop_text(batch.records))
        return None

    async def _fill(self, turn: _Turn, calls: Sequence[ToolCall], key: str) -> None:
        error = ToolError(ErrorCode.NOT_EXECUTED, text(self.lang, key), Recovery.STOP_TURN)
        await self._record(turn, [CallRecord(c, error, executed=False) for c in calls])

    async def _record(self, turn: _Turn, records: Sequence[CallRecord]) -> None:
        results = tuple(
            ToolResult(r.call.call_id, r.call.name, r.outcome, executed=r.executed) for r in records
        )
        self._append(turn, ToolResultsMessage(results))
        turn.calls.extend(records)
        for record in records:
            await self._emit(turn, record)

    async def _await_confirmation(self, turn: _Turn, batch: BatchResult) -> TurnResult:
        assert batch.pending is not None
        turn.calls.extend(batch.records)
        call = batch.pending
        pending = PendingConfirmation(turn.conversation_id, call.call_id, call.name, call.arguments)
        reply = text(self.lang, "awaiting_confirmation", tool=call.name)
        await self._emit(turn, HarnessMessage(reply, "awaiting_confirmation"))
        return self._result(turn, reply, "harness", "awaiting_confirmation", pending=pending)

    def _stop_text(self, records: Sequence[CallRecord]) -> str:
        errors = [r for r in records if isinstance(r.outcome, ToolError)]
        stopping = [r for r in errors if r.outcome.recovery is Recovery.STOP_TURN]  # type: ignore[union-attr]
        codes = {r.outcome.code for r in stopping}  # type: ignore[union-attr]
        if ErrorCode.OUTCOME_UNKNOWN in codes:
            record = next(r for r in stopping if r.outcome.code == ErrorCode.OUTCOME_UNKNOWN)  # type: ignore[union-attr]
            tool = self.tools.get(record.call.name)
            message = text(self.lang, "stop_outcome_unknown", app=self.app_name)
            if tool is not None and tool.idempotent:
                message += text(self.lang, "stop_idempotent_hint")
            return message
        if ErrorCode.NOT_APPLIED in codes:
            return text(self.lang, "stop_not_applied", app=self.app_name)
        first = next(r.outcome for r in stopping if r.outcome.code != ErrorCode.NOT_EXECUTED)  # type: ignore[union-attr]
        return text(self.lang, "stop_generic", app=self.app_name, reason=_message(first))

    async def _harness_stop(self, turn: _Turn, reason: HarnessReason, reply: str) -> TurnResult:
        harness = HarnessMessage(reply, reason)
        self._append(turn, harness)
        await self._emit(turn, harness)
        return self._result(turn, reply, "harness", reason)

    async def _provider_failed(self, turn: _Turn, exc: ProviderError) -> TurnResult:
        problem = text(self.lang, _provider_problem_key(exc))
        reply = text(self.lang, "provider_error", provider=exc.provider, problem=problem)
        result = await self._harness_stop(turn, "provider_error", reply)
        return _with_error(result, exc)

    def _completed(self, turn: _Turn, message: AssistantMessage) -> TurnResult:
        reason = _REASON_BY_FINISH.get(message.finish, "completed")
        reply = message.text
        if not reply and reason != "completed":
            reply = text(self.lang, reason)
        return self._result(turn, reply, "model", reason)

    def _finished_result(self, turn: _Turn, last: Message) -> TurnResult:
        if isinstance(last, HarnessMessage):
            return self._result(turn, last.text, "harness", last.reason)
        assert isinstance(last, AssistantMessage)
        return self._completed(turn, last)

    def _result(
        self,
        turn: _Turn,
        reply: str,
        author: Literal["model", "harness"],
        reason: StopReason,
        *,
        pending: PendingConfirmation | None = None,
    ) -> TurnResult:
        return TurnResult(
            conversation_id=turn.conversation_id,
            reply=reply,
            reply_author=author,
            stop_reason=reason,
            model_requests=turn.requests,
            calls=tuple(turn.calls),
            pending_confirmation=pending,
        )

    def _append(self, turn: _Turn, message: Message) -> None:
        self.journal.append(turn.conversation_id, message)
        turn.messages.append(message)

    async def _emit(self, turn: _Turn, event: TurnEvent) -> None:
        if turn.on_event is None:
            return
        maybe = turn.on_event(event)
        if maybe is not None:
            await maybe


def new_conversation_id() -> str:
    """A fresh conversation id."""
    return "c_" + uuid.uuid4().hex[:20]


def _rounds_since_user(messages: Sequence[Message]) -> int:
    """Tool rounds already run in the current user turn."""
    rounds = 0
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            break
        rounds += isinstance(message, ToolResultsMessage)
    return rounds


def _user_turns(messages: Sequence[Message]) -> int:
    return sum(1 for m in messages if isinstance(m, UserMessage))


def _message(outcome: Outcome) -> str:
    return outcome.message if isinstance(outcome, ToolError) else ""


_PROVIDER_PROBLEMS = {
    "auth": "provider_auth",
    "rate_limit": "provider_rate_limit",
    "overloaded": "provider_overloaded",
    "bad_request": "provider_bad_request",
}


def _provider_problem_key(exc: ProviderError) -> str:
    if isinstance(exc, ProviderConnectionError):
        return "provider_connection"
    return _PROVIDER_PROBLEMS.get(exc.kind, "provider_other")


def _with_error(result: TurnResult, exc: ProviderError) -> TurnResult:
    return TurnResult(
        conversation_id=result.conversation_id,
        reply=result.reply,
        reply_author=result.reply_author,
        stop_reason=result.stop_reason,
        model_requests=result.model_requests,
        calls=result.calls,
        pending_confirmation=None,
        provider_error=exc,
    )
