"""One user turn, step by step: request → execute → decide, until the turn ends::

    loop:
        over the token budget  → TokenBudget  (the model is not asked again)
        step = request the model        (response journaled before any tool runs, in
                                         one commit with the last round's results)
        empty answer           → asked once more (a note to the model), then EmptyAnswer
        no tool calls          → Completed (or max_tokens / refusal)
        pause, no calls        → another round (counted against the limit)
        too many rounds        → RoundLimit  (calls filled with not_executed)
        run the batch
        a call needs a person  → AwaitingConfirmation (the approval is recorded)
        a stop_turn outcome    → Stopped: results and the harness's message in ONE commit;
                                 the model is not asked again
        otherwise              → results kept for the next commit; next round

Whenever the harness writes the reply, it lists what the turn's writes did (``_replies``).
A turn that loses its hold on the conversation mid-way raises ``ConversationBusyError``
carrying the calls it had already made, so nobody is told "nothing was done" after a write.

One commit per round: a round's results are journaled in the same commit as whatever comes
next (the model's next response, the final answer, the harness's message), not in one of
their own. A crash in between leaves the response's calls unanswered in the journal, and
resuming runs the round again: its reads run again, and its writes are answered from the
ledger, whose ``committed`` record was durable before the handler's outcome was returned
(``_settle.py``), so no write runs twice. A turn that fails in between for any other reason
journals the results on its way out (``_interrupted``), as before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ._exceptions import ConversationBusyError, ProviderError
from ._executor import PendingCall
from ._journal import Approval, Lease, ModelRef, approval_id
from ._messages import (
    AssistantMessage,
    HarnessMessage,
    HarnessNote,
    HarnessReason,
    Message,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)
from ._model import ResponseDone, TextDelta
from ._outcome import ErrorCode, Recovery, ToolError
from ._records import NO_USAGE, CallRecord, Usage
from ._result import PendingConfirmation, StopReason, TurnResult
from ._state import TurnState
from ._texts import text
from ._tracing import NO_TRACING

if TYPE_CHECKING:
    from ._executor import Executor
    from ._journal import Journal
    from ._model import Model
    from ._output import OutputSpec
    from ._replies import Replies
    from ._texts import Lang
    from ._tracing import Tracer

TurnEvent = TextDelta | CallRecord | HarnessMessage
"""What ``on_event`` receives: text as it streams, each call's outcome, the harness's text."""

EventHandler = Callable[[TurnEvent], Awaitable[None] | None]

OfferTools = Callable[[Sequence[Message]], Iterable[str]]
"""Which tools the next request declares, by name, given the messages it carries (the whole
conversation so far, or its window: ``Agent(history_turns=...)``)."""

_REASON_BY_FINISH: dict[str, StopReason] = {"max_tokens": "max_tokens", "refusal": "refusal"}


@dataclass(slots=True)
class Turn:
    """One user turn as it runs: its transcript, the executor's state, what it did so far."""

    conversation_id: str
    lease: Lease
    messages: list[Message]
    state: TurnState
    on_event: EventHandler | None
    requests: int = 0
    rounds: int = 0
    calls: list[CallRecord] = field(default_factory=list)
    earlier: list[CallRecord] = field(default_factory=list)
    """Calls of this turn journaled before a resume (they count in what the turn did)."""
    before: Usage = NO_USAGE
    """The tokens used before this run of the turn (a durable workflow's earlier steps)."""
    reported: list[Mapping[str, int]] = field(default_factory=list)
    """Each request's counts in this run, in order: summed into ``usage`` when it is read."""
    reasked: bool = False
    corrections: int = 0
    """Final answers sent back for not matching the output type."""
    unsaved: list[Message] = field(default_factory=list)
    """In ``messages`` but not yet journaled: the last round's results, which go into the
    journal with the next append (one commit per round)."""

    @property
    def usage(self) -> Usage:
        """The tokens the turn's requests used so far."""
        reported = self.reported
        return self.before.extended(reported) if reported else self.before

    @usage.setter
    def usage(self, usage: Usage) -> None:
        self.before, self.reported = usage, []


class AgentParts(Protocol):
    """What a runner reads of its ``Agent``, at each use (an agent's model may be swapped
    between turns)."""

    model: Model
    executor: Executor
    journal: Journal
    replies: Replies
    tracer: Tracer
    system: str | None
    lang: Lang
    max_rounds: int
    stream: bool
    max_tokens_per_turn: int | None
    history_turns: int | None
    output: OutputSpec | None
    output_retries: int

    def offered(self, messages: Sequence[Message]) -> tuple[ToolSpec, ...]:
        """The declarations of the next request."""
        ...


class TurnRunner:
    """Runs turns for ``agent``: its model, tools, journal and limits."""

    def __init__(self, agent: AgentParts) -> None:
        self.agent = agent
        self.replies = agent.replies

    async def rounds(self, turn: Turn) -> TurnResult:
        """Ask the model and run its calls until the turn ends."""
        agent = self.agent
        try:
            while True:
                if agent.max_tokens_per_turn is not None and self._over_budget(turn):
                    reply = self.replies.plain(
                        "token_budget", budget=self.agent.max_tokens_per_turn
                    )
                    return await self.stop_with(turn, (), "token_budget", reply)
                response = await self._request(turn)
                if isinstance(response, TurnResult):
                    return response
                step = await self._answered(turn, response.message)
                if step is not None:
                    return step
        except BaseException as exc:
            self._interrupted(turn, exc)
            raise

    async def go_on(
        self, turn: Turn, last: Message, results: Sequence[ToolResult]
    ) -> TurnResult | None:
        """Where a resumed turn goes on from its last journaled message (None: ask the model)."""
        try:
            if isinstance(last, AssistantMessage) and last.tool_calls:
                return await self.execute(turn, last)
            if isinstance(last, AssistantMessage) and last.finish == "pause":
                return await self._paused(turn)
            if isinstance(last, ToolResultsMessage) and turn.state.stopped:
                # a stop journaled before its message existed (older journals): end it now
                records = [CallRecord(_call_of(r), r.outcome, r.executed, r.key) for r in results]
                reply = self.replies.stopped(records[-len(last.results) :])
                return await self.stop_with(turn, (), "stop_turn", reply)
        except BaseException as exc:
            self._interrupted(turn, exc)
            raise
        return None

    def _interrupted(self, turn: Turn, exc: BaseException) -> None:
        """A turn that fails on its way: a lost hold on the conversation is raised again with
        what the turn had already done; any other failure journals the results not yet
        journaled (if the journal takes them: the failure is what the caller sees) and goes
        on up as it is."""
        if isinstance(exc, ConversationBusyError):
            done = (*turn.earlier, *turn.calls)
            if exc.calls or not done:
                return
            raise ConversationBusyError(turn.conversation_id, calls=done) from exc
        with suppress(Exception):
            self.flush(turn)

    def finished_result(self, turn: Turn, last: Message) -> TurnResult:
        """How a turn that already ended ended."""
        if isinstance(last, HarnessMessage):
            return self._result(turn, last.text, "harness", last.reason)
        assert isinstance(last, AssistantMessage)
        return self._completed(turn, last, last.text)

    # -- steps -------------------------------------------------------------------------------

    async def _answered(self, turn: Turn, message: AssistantMessage) -> TurnResult | None:
        """What the model's response leads to (None: another request)."""
        if message.tool_calls:
            self.append(turn, message)
            return await self.execute(turn, message)
        said = message.text  # joined once: read below and in the result
        if message.finish == "end_turn" and not said.strip():  # no text, or only blanks
            return await self._empty(turn)
        self.append(turn, message)
        if message.finish == "pause":
            return await self._paused(turn)
        return await self._final(turn, message, said)

    async def _final(self, turn: Turn, message: AssistantMessage, said: str) -> TurnResult | None:
        """A final answer (``said``: its text): checked against the output type, if there is
        one (a bad one is sent back with what is wrong, within ``output_retries``)."""
        spec = self.agent.output
        if spec is None or _REASON_BY_FINISH.get(message.finish, "completed") != "completed":
            return self._completed(turn, message, said)
        valid, _, problems = spec.parse(said, self.agent.lang)
        if valid:
            return self._completed(turn, message, said)
        retries = self.agent.output_retries
        if turn.corrections >= retries:
            reply = self.replies.plain("invalid_output", retries=retries)
            return await self.stop_with(turn, (), "invalid_output", reply)
        turn.corrections += 1
        note = text(self.agent.lang, "invalid_output_note", problems=problems)
        self.append(turn, HarnessNote(note, "invalid_output"))
        return None

    async def _empty(self, turn: Turn) -> TurnResult | None:
        """No text and no call: asked once more with a note (which lists what the turn's
        writes did, when there were any), then the harness answers."""
        if turn.reasked:
            reply = self.replies.plain("empty_answer")
            return await self.stop_with(turn, (), "empty_answer", reply)
        turn.reasked = True
        done = self.replies.what_was_done([*turn.earlier, *turn.calls])
        if done:  # what the program did is said, so the answer need not guess it
            note = text(self.agent.lang, "empty_answer_note_done", done="\n".join(done))
        else:
            note = text(self.agent.lang, "empty_answer_note")
        self.append(turn, HarnessNote(note))
        return None

    async def _request(self, turn: Turn) -> ModelResponse | TurnResult:
        agent, messages = self.agent, turn.messages
        system, schema, output = agent.system, None, agent.output
        if output is not None:
            instruction = output.instruction(agent.lang)
            system = f"{system}\n\n{instruction}" if system else instruction
            schema = output.schema
        sent = window(messages, agent.history_turns)
        request = ModelRequest(tuple(sent), agent.offered(sent), system, schema)
        turn.requests += 1
        model, tracer = agent.model, agent.tracer
        if tracer is NO_TRACING:  # nobody listens: no scope
            try:
                response = await (
                    self._streamed(turn, request) if agent.stream else model.request(request)
                )
            except ProviderError as exc:
                return await self._provider_failed(turn, exc)
        else:
            with tracer.model_request(provider=model.provider, model=model.model_name) as trace:
                try:
                    response = await (
                        self._streamed(turn, request) if agent.stream else model.request(request)
                    )
                except ProviderError as exc:
                    trace.finished(None, exc)
                    return await self._provider_failed(turn, exc)
                trace.finished(response, None)
        turn.reported.append(response.usage)
        return response

    async def _streamed(self, turn: Turn, request: ModelRequest) -> ModelResponse:
        """The model's response to ``request``, streamed to ``on_event``."""
        model = self.agent.model
        async for event in model.stream(request):
            if isinstance(event, ResponseDone):
                return event.response
            await self._emit(turn, event)
        msg = "the model's stream ended without a final response"
        raise ProviderError(
            provider=model.provider, status=None, kind="bad_response", safe_message=msg
        )

    async def _paused(self, turn: Turn) -> TurnResult | None:
        """The provider paused its own turn: going on is another round, like a tool round."""
        if turn.rounds >= self.agent.max_rounds:
            reply = self.replies.round_limit(self.agent.max_rounds)
            return await self.stop_with(turn, (), "round_limit", reply)
        turn.rounds += 1
        return None

    async def execute(self, turn: Turn, message: AssistantMessage) -> TurnResult | None:
        """Run the response's calls (or fill them, past a limit); None: ask the model again."""
        calls, lang = message.tool_calls, self.agent.lang
        if message.finish == "max_tokens":
            records = self._filled(calls, "truncated")
            return await self.stop_with(turn, records, "max_tokens", text(lang, "max_tokens"))
        if turn.rounds >= self.agent.max_rounds:
            records = self._filled(calls, "not_executed")
            reply = self.replies.round_limit(self.agent.max_rounds)
            return await self.stop_with(turn, records, "round_limit", reply)
        turn.rounds += 1
        batch = await self.agent.executor.run_batch(calls, turn.state)
        turn.calls.extend(batch.records)  # done, whatever happens to the journal next
        if batch.pending is not None:
            return await self._await_confirmation(turn, batch.pending)
        if turn.state.stopped:
            reply = self.replies.stopped(batch.records)
            return await self.stop_with(turn, batch.records, "stop_turn", reply, recorded=True)
        results = _results_message(batch.records)  # journaled with the next append
        turn.messages.append(results)
        turn.unsaved.append(results)
        if turn.on_event is not None:
            await self._emit_all(turn, batch.records)
        return None

    def _filled(self, calls: Sequence[ToolCall], key: str) -> list[CallRecord]:
        error = ToolError(ErrorCode.NOT_EXECUTED, text(self.agent.lang, key), Recovery.STOP_TURN)
        return [CallRecord(c, error, executed=False) for c in calls]

    async def _await_confirmation(self, turn: Turn, call: PendingCall) -> TurnResult:
        approval = self.agent.journal.request_approval(
            Approval(
                id=approval_id(call.key),
                conversation_id=turn.conversation_id,
                user_turn=turn.state.user_turn,
                key=call.key,
                call_id=call.call.call_id,
                tool=call.call.name,
                fingerprint=call.fingerprint,
                arguments=call.arguments,
            )
        )
        lang = self.agent.lang
        reply = call.question or text(lang, "awaiting_confirmation", tool=call.call.name)
        for derived in call.derived:  # why a write waits: values derived from the person's words
            said, field, value = derived.said, derived.field, derived.value
            reply += text(lang, "awaiting_derived", said=said, field=field, value=value)
        reply = self.replies.with_what_was_done(reply, [*turn.earlier, *turn.calls])
        await self._emit(turn, HarnessMessage(reply, "awaiting_confirmation"))
        pending = pending_of(approval, call.question)
        return self._result(turn, reply, "harness", "awaiting_confirmation", pending=pending)

    async def stop_with(
        self,
        turn: Turn,
        records: Sequence[CallRecord],
        reason: HarnessReason,
        reply: str,
        *,
        recorded: bool = False,
    ) -> TurnResult:
        """End the turn: the batch's results (if any) and the harness's message land in one
        commit, so no crash can leave a stop that the next run does not see. The reply
        says what the turn's writes did. ``recorded``: ``records`` are in ``turn.calls``."""
        if not recorded:
            turn.calls.extend(records)
        reply = self.replies.with_what_was_done(reply, [*turn.earlier, *turn.calls])
        harness = HarnessMessage(reply, reason)
        if records:
            self.append(turn, _results_message(records), harness)
        else:
            self.append(turn, harness)
        await self._emit_all(turn, records)
        await self._emit(turn, harness)
        return self._result(turn, reply, "harness", reason)

    async def _provider_failed(self, turn: Turn, exc: ProviderError) -> TurnResult:
        result = await self.stop_with(turn, (), "provider_error", self.replies.provider_failed(exc))
        return _with_error(result, exc)

    def _completed(self, turn: Turn, message: AssistantMessage, reply: str) -> TurnResult:
        """The turn ends with the model's answer (``reply``: its text)."""
        reason = _REASON_BY_FINISH.get(message.finish, "completed")
        if not reply and reason != "completed":
            reply = text(self.agent.lang, reason)
        output = None
        if self.agent.output is not None and reason == "completed":
            _, output, _ = self.agent.output.parse(reply, self.agent.lang)
        return self._result(turn, reply, "model", reason, output=output)

    def _over_budget(self, turn: Turn) -> bool:
        budget = self.agent.max_tokens_per_turn
        return budget is not None and turn.usage.total_tokens >= budget

    def _result(
        self,
        turn: Turn,
        reply: str,
        author: Literal["model", "harness"],
        reason: StopReason,
        *,
        pending: PendingConfirmation | None = None,
        output: Any = None,
    ) -> TurnResult:
        return TurnResult(  # by position: a class called with keywords builds a dict first
            turn.conversation_id,
            reply,
            author,
            reason,
            turn.requests,
            tuple(turn.calls),
            pending,
            None,  # provider_error
            turn.usage,
            output,
        )

    def append(self, turn: Turn, *messages: Message, model: ModelRef | None = None) -> None:
        """Journal ``messages`` under the turn's hold, after the results not yet journaled
        (in one commit), and keep them in its transcript."""
        unsaved = turn.unsaved
        if unsaved:  # never offered twice: an append that fails may still have committed
            turn.unsaved = []
        journal = self.agent.journal
        journal.append(turn.conversation_id, *unsaved, *messages, lease=turn.lease, model=model)
        turn.messages.extend(messages)

    def flush(self, turn: Turn) -> None:
        """Journal the results not yet journaled, if any."""
        if turn.unsaved:
            self.append(turn)

    async def _emit_all(self, turn: Turn, records: Sequence[CallRecord]) -> None:
        if turn.on_event is None:
            return
        for record in records:
            await self._emit(turn, record)

    async def _emit(self, turn: Turn, event: TurnEvent) -> None:
        if turn.on_event is None:
            return
        maybe = turn.on_event(event)
        if maybe is not None:
            await maybe


def _results_message(records: Sequence[CallRecord]) -> ToolResultsMessage:
    return ToolResultsMessage(
        tuple(
            [ToolResult(r.call.call_id, r.call.name, r.outcome, r.executed, r.key) for r in records]
        )
    )


def pending_of(approval: Approval, question: str | None = None) -> PendingConfirmation:
    """The ``PendingConfirmation`` an approval stands for, with the question its tool's
    policy asks (if any)."""
    return PendingConfirmation(
        approval.conversation_id,
        approval.id,
        approval.call_id,
        approval.tool,
        approval.arguments,
        question,
    )


def _call_of(result: ToolResult) -> ToolCall:
    return ToolCall(result.call_id, result.name, None)


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
        usage=result.usage,
    )


# -- the current turn in a journal ------------------------------------------------------------


def current_turn(messages: Sequence[Message]) -> Sequence[Message]:
    """The messages after the last user message."""
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], UserMessage):
            return messages[index + 1 :]
    return messages


def window(messages: Sequence[Message], turns: int | None) -> Sequence[Message]:
    """What a request carries of ``messages``: the current turn and, before it, whole earlier
    user turns, all of them while there are fewer than ``2 * turns``, else the last ``turns``
    to ``2 * turns - 1``. The first message sent moves ``turns`` user turns at a time, not at
    every turn, so a provider's prompt cache keeps the prefix between two moves; a window
    starts at a user message, so every call it carries has its results. None: everything.
    Only the request is cut: grounding still reads every user message of the journal (what
    a person said is theirs however long ago), and a resume rebuilds from the whole turn."""
    if turns is None:
        return messages
    starts = [i for i, m in enumerate(messages) if isinstance(m, UserMessage)]
    earlier = len(starts) - 1  # the last user message opens the current turn
    first = (earlier - turns) // turns * turns
    return messages[starts[first] :] if first > 0 else messages


def turn_history(messages: Sequence[Message]) -> list[list[tuple[ToolCall, ToolResult]]]:
    """Each round of the current turn that has results: its calls with their results, in
    order (results answer the preceding response's calls by position; ids may repeat)."""
    rounds: list[list[tuple[ToolCall, ToolResult]]] = []
    calls: tuple[ToolCall, ...] = ()
    for message in current_turn(messages):
        if isinstance(message, AssistantMessage):
            calls = message.tool_calls
        elif isinstance(message, ToolResultsMessage):
            rounds.append(list(zip(calls, message.results, strict=False)))
            calls = ()
    return rounds


def finished(last: Message) -> bool:
    """Whether a turn whose last message is ``last`` has ended."""
    if isinstance(last, HarnessMessage):
        return True
    return isinstance(last, AssistantMessage) and not last.tool_calls and last.finish != "pause"


def unanswered(messages: Sequence[Message]) -> bool:
    """Whether the last message is a response whose calls have no results yet."""
    return (
        bool(messages)
        and isinstance(messages[-1], AssistantMessage)
        and bool(messages[-1].tool_calls)
    )


def rounds_before_last(messages: Sequence[Message]) -> int:
    """Rounds the current turn already ran: responses before the last message that were
    continued from (their calls ran, or the provider paused)."""
    current = current_turn(messages)
    earlier = current[:-1] if current and isinstance(current[-1], AssistantMessage) else current
    return sum(
        1
        for m in earlier
        if isinstance(m, AssistantMessage) and (m.tool_calls or m.finish == "pause")
    )


def user_turns(messages: Sequence[Message]) -> int:
    """How many user messages the conversation has."""
    return sum(1 for m in messages if isinstance(m, UserMessage))


def rebuild(
    turn: Turn, history: Sequence[Sequence[tuple[ToolCall, ToolResult]]], executor: Executor
) -> None:
    """Bring a resumed turn's state to where the live run stood: the executor's keys, guard
    and repeat rule from the journaled rounds, the rounds already used, the calls already
    made, whether the model was already asked again (an empty answer, a bad output)."""
    batches = [[(call, result.outcome) for call, result in batch] for batch in history]
    executor.replay(turn.state, batches)
    turn.rounds = rounds_before_last(turn.messages)
    turn.earlier = [
        CallRecord(call, result.outcome, result.executed, result.key)
        for batch in history
        for call, result in batch
    ]
    notes = [m for m in current_turn(turn.messages) if isinstance(m, HarnessNote)]
    turn.reasked = any(n.reason == "empty_answer" for n in notes)
    turn.corrections = sum(n.reason == "invalid_output" for n in notes)


def waiting_call(
    journal: Journal, conversation_id: str, question: Callable[[ToolCall], str | None]
) -> PendingConfirmation | None:
    """The call of ``conversation_id`` waiting for a person's decision, if any, with what
    ``question`` says its tool's policy asks of it now."""
    messages = journal.load(conversation_id)
    if not unanswered(messages):
        return None
    last = messages[-1]
    assert isinstance(last, AssistantMessage)
    waiting = {(c.call_id, c.name) for c in last.tool_calls}
    user_turn = user_turns(messages) - 1
    for approval in journal.approvals(
        conversation_id=conversation_id, user_turn=user_turn, decided=False
    ):
        if (approval.call_id, approval.tool) in waiting:
            call = ToolCall(approval.call_id, approval.tool, approval.arguments)
            return pending_of(approval, question(call))
    return None
