"""The turn loop: request → execute → decide, until the turn ends.

One user turn, holding the conversation (one writer at a time, across processes)::

    append user message                 (with the model the turn runs on)
    loop:
        step = request the model        (response journaled before any tool runs)
        no tool calls        → Completed (or max_tokens / refusal)
        pause, no calls      → another round (counted against the limit)
        too many rounds      → RoundLimit  (calls filled with not_executed)
        run the batch
        a call needs a person→ AwaitingConfirmation (the approval is recorded)
        a stop_turn outcome  → Stopped: results and the harness's message in ONE commit;
                               the model is not asked again
        otherwise            → results journaled; next round

``resume`` finishes a turn from the journal: calls without results (a killed process, or a
confirmation now decided) run again with the turn's state rebuilt from the journal, so every
write gets the key the live run gave it and nothing committed is done twice; results that end
with a stop_turn end the turn without asking the model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from ._diagnostics import Diagnostic, DiagnosticsSink, Redactor
from ._exceptions import (
    ConfigurationError,
    ConversationBusyError,
    ProviderConnectionError,
    ProviderError,
    SurefootError,
    TurnPendingError,
)
from ._executor import CallRecord, Executor, PendingCall, TurnState
from ._heartbeat import HEARTBEAT
from ._ids import random_hex
from ._journal import Approval, Journal, Lease, MemoryJournal, ModelRef, approval_id
from ._ledger import Ledger, LedgerEntry, LedgerState, MemoryLedger
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
    ToolSpec,
    UserMessage,
)
from ._model import Model, ResponseDone, TextDelta
from ._outcome import ErrorCode, Outcome, Recovery, ToolError
from ._sql import SqlJournal, SqlLedger
from ._sync import run_sync
from ._texts import Lang, coerce_lang, text
from ._tools import ToolSet
from ._tracing import Tracer, TurnTrace

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

OfferTools = Callable[[Sequence[Message]], Iterable[str]]
"""Which tools the next request declares, by name, given the conversation so far."""


@dataclass(frozen=True, slots=True)
class PendingConfirmation:
    """A call waiting for a person's decision. ``id`` names exactly this call (its tool,
    arguments, turn and position among identical calls); pass it to ``Agent.decide``."""

    conversation_id: str
    id: str
    call_id: str
    tool: str
    arguments: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class TurnResult:
    """How one user turn ended.

    Attributes:
        conversation_id: The conversation (a new one unless ``run_turn`` was given one).
        reply: The text for the person: the model's, or the harness's own when it ended
            the turn.
        reply_author: Who wrote ``reply``: ``"model"`` or ``"harness"``.
        stop_reason: Why the turn ended.
        model_requests: Requests made to the model in this turn.
        calls: Every call of the turn with its one outcome, in order.
        pending_confirmation: The call waiting for a person, when ``stop_reason`` is
            ``awaiting_confirmation``.
        provider_error: The provider's failure, when ``stop_reason`` is ``provider_error``.
    """

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
    lease: Lease
    messages: list[Message]
    state: TurnState
    on_event: EventHandler | None
    requests: int = 0
    rounds: int = 0
    calls: list[CallRecord] = field(default_factory=list)


WhereToCheck = Callable[[ToolCall, Lang], str | None]
"""Where a person checks a write whose outcome is unknown: a call and a language to a
phrase (a command, a page), or None."""

_REASON_BY_FINISH: dict[str, StopReason] = {"max_tokens": "max_tokens", "refusal": "refusal"}


class Agent:
    """A model, its tools and the rules that bind them.

    Args:
        model: What answers the requests: a provider adapter (``surefoot.providers``), or a
            test double (``surefoot.testing``).
        tools: The tools the model may call.
        system: The system prompt.
        lang: The language of the harness's own messages (to the model and in its replies).
        app_name: How the harness's replies name the application ("{app} stopped...").
        max_rounds: Tool rounds per user turn; past them the turn ends with ``round_limit``.
        guard_limit: How often one exact call may fail in a turn before the turn stops.
        lease_seconds: How long a hold on a conversation, or a claim on a write, lasts
            without renewal (both are renewed while work runs).
        stream: Ask the model for streamed responses (text reaches ``on_event`` as it
            arrives).
        ledger: Where writes are claimed and settled. If not given: an ``SqlLedger`` in the
            database of an ``SqlJournal`` (a durable journal is refused an in-memory ledger),
            else a ``MemoryLedger``.
        journal: Where transcripts, leases and approvals live (a ``MemoryJournal`` if not
            given). It must belong to the same user as the ledger.
        diagnostics: Where the exceptions of failed calls are kept (in memory if not given).
        redactor: Removes secrets from diagnostics.
        app_context: Passed to handlers as ``ctx.app`` (a database handle, settings).
    """

    def __init__(
        self,
        *,
        model: Model,
        tools: ToolSet,
        system: str | None = None,
        lang: Lang = "en",
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
        tracer: Tracer | None = None,
        where_to_check: WhereToCheck | None = None,
        offer: OfferTools | None = None,
    ) -> None:
        """``where_to_check(call, lang)``: where a person sees whether a write whose outcome
        is unknown was done (a command, a page), in ``lang``; None or an empty answer says
        "your data".

        ``offer(messages)``: the names of the tools to declare in the next request, given the
        conversation so far (None: all of them). A small model reads every declaration before
        its first word, so an application may offer only the tools the conversation needs; a
        call to a declared tool that was not offered still runs (the executor knows them all)."""
        try:
            lang = coerce_lang(lang)
        except ValueError as exc:
            raise ConfigurationError(str(exc)) from None
        if max_rounds < 1 or guard_limit < 1 or not lease_seconds > 0:
            msg = "max_rounds and guard_limit must be at least 1, and lease_seconds above 0"
            raise ConfigurationError(msg)
        self.model = model
        self.where_to_check = where_to_check
        self.tools = tools
        self.system = system
        self.lang: Lang = lang
        self.app_name = app_name
        self.max_rounds = max_rounds
        self.stream = stream
        self.lease_seconds = lease_seconds
        self.journal: Journal = journal if journal is not None else MemoryJournal()
        ledger = _ledger_beside(self.journal, ledger)
        self.executor = Executor(
            tools,
            ledger=ledger,
            diagnostics=diagnostics,
            redactor=redactor,
            guard_limit=guard_limit,
            lease_seconds=lease_seconds,
            app_context=app_context,
            tracer=tracer,
        )
        self.tracer = self.executor.tracer
        if self.executor.ledger.user != self.journal.user:
            msg = "the journal and the ledger must belong to the same user"
            raise ConfigurationError(msg)
        _bound_together(self.journal, self.executor.ledger)
        self._specs = tools.specs()
        self._offer = offer

    # -- public entry points -----------------------------------------------------------------

    async def run_turn(
        self,
        user_text: str,
        *,
        conversation_id: str | None = None,
        on_event: EventHandler | None = None,
        lease: Lease | None = None,
    ) -> TurnResult:
        """Run one user turn to its end. Raises ``ConversationBusyError`` if another writer holds
        the conversation and ``TurnPendingError`` if its last turn is unfinished. ``lease``: a
        hold already taken with ``hold`` (it stays held)."""
        conversation_id = conversation_id or new_conversation_id()
        with self._holding(conversation_id, lease) as held:
            if held.orphaned:  # its last writer died: settle what it left unsettled
                self.executor.reconcile(
                    conversation_id=conversation_id, lang=self.lang, orphaned=True
                )
            messages = self.journal.load(conversation_id)
            if _unanswered(messages):
                raise TurnPendingError(conversation_id)
            turn = self._turn(conversation_id, held, messages, on_event, _user_turns(messages))
            with self._traced_turn(turn) as trace:
                self._append(turn, UserMessage(user_text), model=self.model_ref)
                result = await self._rounds(turn)
                trace.finished(result.stop_reason, result.model_requests)
            return result

    async def resume(
        self,
        conversation_id: str,
        *,
        on_event: EventHandler | None = None,
        lease: Lease | None = None,
    ) -> TurnResult:
        """Finish an interrupted or paused turn from the journal (a finished turn just
        reports how it ended). It must run on the model the turn started with."""
        with self._holding(conversation_id, lease) as held:
            messages = self.journal.load(conversation_id)
            if not messages:
                msg = f"there is no conversation {conversation_id!r} to resume"
                raise SurefootError(msg)
            user_turn = max(_user_turns(messages) - 1, 0)
            turn = self._turn(conversation_id, held, messages, on_event, user_turn)
            if _finished(messages[-1]):
                return self._finished_result(turn, messages[-1])
            self._check_model(conversation_id)
            # writes it left unconfirmed: settled now if provable (all of them if its last
            # writer is known to be dead), else held back as in_progress / outcome_unknown
            self.executor.reconcile(
                conversation_id=conversation_id, lang=self.lang, orphaned=held.orphaned
            )
            history = _turn_history(messages)
            self._rebuild(turn, history)
            with self._traced_turn(turn) as trace:
                step = await self._continue(turn, messages[-1], [r for _, r in history])
                result = step if step is not None else await self._rounds(turn)
                trace.finished(result.stop_reason, result.model_requests)
            return result

    def run_turn_sync(self, user_text: str, *, conversation_id: str | None = None) -> TurnResult:
        """``run_turn`` for synchronous callers, on one event loop per thread (reused from
        call to call). Raises ``ConfigurationError`` inside a running event loop: await
        ``run_turn`` there."""
        turn = self.run_turn(user_text, conversation_id=conversation_id)
        return run_sync(turn, what="run_turn_sync")

    @contextmanager
    def hold(self, conversation_id: str) -> Iterator[Lease]:
        """Hold the conversation (one writer across processes), renewed while the block runs.
        Raises ``ConversationBusyError`` if another live writer holds it."""
        lease = self.journal.acquire(conversation_id, seconds=self.lease_seconds)
        if lease is None:
            raise ConversationBusyError(conversation_id)
        try:
            with HEARTBEAT.keep(
                lambda: self.journal.renew(lease, seconds=self.lease_seconds),
                every=self.lease_seconds / 3,
            ):
                yield lease
        finally:
            self.journal.release(lease)

    @property
    def model_ref(self) -> ModelRef:
        """The model this agent runs on, as the journal records it (never its key). A model
        with a ``base_url`` attribute (every provider adapter has one) records it too."""
        return ModelRef(
            self.model.provider, self.model.model_name, getattr(self.model, "base_url", None)
        )

    def decide(self, conversation_id: str, approval: str, *, approved: bool) -> bool:
        """Record a person's decision on the call waiting for one (``approval`` is its
        ``PendingConfirmation.id``). False if that call is not the one waiting: a decision
        never applies to any other call. Then ``resume`` runs the turn on."""
        pending = self.pending_confirmation(conversation_id)
        if pending is None or pending.id != approval:
            return False
        return self.journal.decide(conversation_id, approval, approved=approved)

    def pending_confirmation(self, conversation_id: str) -> PendingConfirmation | None:
        """The call of this conversation waiting for a decision, if any."""
        messages = self.journal.load(conversation_id)
        if not _unanswered(messages):
            return None
        last = messages[-1]
        assert isinstance(last, AssistantMessage)
        waiting = {(c.call_id, c.name) for c in last.tool_calls}
        user_turn = _user_turns(messages) - 1
        for approval in self.journal.approvals(
            conversation_id=conversation_id, user_turn=user_turn, decided=False
        ):
            if (approval.call_id, approval.tool) in waiting:
                return _pending_of(approval)
        return None

    def approval(self, conversation_id: str, approval: str) -> Approval | None:
        """The approval ``approval`` of this conversation (decided or not), if it exists."""
        found = self.journal.approvals(conversation_id=conversation_id)
        return next((a for a in found if a.id == approval), None)

    def unfinished(self, conversation_id: str) -> bool:
        """Whether the conversation's last turn has calls without results (it waits for a
        decision, or it was interrupted): ``resume`` finishes it."""
        return _unanswered(self.journal.load(conversation_id))

    def pending_confirmations(self) -> list[PendingConfirmation]:
        """Every call of this user's conversations that waits for a decision."""
        waiting = {a.conversation_id for a in self.journal.approvals(decided=False)}
        found = (self.pending_confirmation(cid) for cid in sorted(waiting))
        return [p for p in found if p is not None]

    def conversations(self) -> list[str]:
        """This user's conversation ids, most recent first."""
        return self.journal.conversations()

    def exists(self, conversation_id: str) -> bool:
        """Whether this user has a conversation ``conversation_id``."""
        return self.journal.exists(conversation_id)

    def transcript(self, conversation_id: str) -> list[Message]:
        """The conversation's messages as the journal keeps them (empty if there is none)."""
        return list(self.journal.load(conversation_id))

    def turn_model(self, conversation_id: str) -> ModelRef | None:
        """The model the conversation's last turn runs on (a resume must use it)."""
        return self.journal.model_of(conversation_id)

    def writes(
        self, *, conversation_id: str | None = None, state: LedgerState | None = None
    ) -> list[LedgerEntry]:
        """Every write this user's turns attempted, with its ledger state, oldest first."""
        return self.executor.ledger.entries(conversation_id=conversation_id, state=state)

    def reconcile(self, *, conversation_id: str | None = None) -> list[LedgerEntry]:
        """Settle unconfirmed writes now (expired claims, then the ledger or each tool's own
        check); returns the entries as they now are. Nothing is ever re-run."""
        return self.executor.reconcile(conversation_id=conversation_id, lang=self.lang)

    def diagnostics(self, *, conversation_id: str | None = None) -> list[Diagnostic]:
        """The local diagnostics of this user's failed calls, oldest first."""
        return self.executor.diagnostics.list(conversation_id=conversation_id)

    # -- steps -----------------------------------------------------------------------------

    @contextmanager
    def _holding(self, conversation_id: str, lease: Lease | None) -> Iterator[Lease]:
        if lease is not None:
            if lease.conversation_id != conversation_id:
                msg = "the lease is for another conversation"
                raise ConfigurationError(msg)
            yield lease
            return
        with self.hold(conversation_id) as held:
            yield held

    def _traced_turn(self, turn: _Turn) -> AbstractContextManager[TurnTrace]:
        return self.tracer.turn(
            app=self.app_name,
            conversation_id=turn.conversation_id,
            user_turn=turn.state.user_turn,
        )

    def _check_model(self, conversation_id: str) -> None:
        recorded = self.journal.model_of(conversation_id)
        current = self.model_ref
        if recorded is not None and (recorded.provider, recorded.model) != (
            current.provider,
            current.model,
        ):
            msg = (
                f"conversation {conversation_id!r} runs on {recorded.provider} "
                f"({recorded.model}); resume it with that model, not {current.provider} "
                f"({current.model})"
            )
            raise ConfigurationError(msg)

    def _rebuild(self, turn: _Turn, history: Sequence[tuple[ToolCall, ToolResult]]) -> None:
        """Bring a resumed turn's state to where the live run stood: the executor's keys and
        guard from the journaled calls and outcomes, the rounds already used."""
        self.executor.replay(turn.state, ((call, result.outcome) for call, result in history))
        turn.rounds = _rounds_before_last(turn.messages)

    def _decisions(self, conversation_id: str, user_turn: int) -> dict[str, bool]:
        """The decisions people made in this user turn, by the key of the call decided."""
        return {
            a.key: a.approved
            for a in self.journal.approvals(
                conversation_id=conversation_id, user_turn=user_turn, decided=True
            )
            if a.approved is not None
        }

    def _turn(
        self,
        conversation_id: str,
        lease: Lease,
        messages: list[Message],
        on_event: EventHandler | None,
        user_turn: int,
    ) -> _Turn:
        decisions = self._decisions(conversation_id, user_turn)
        state = TurnState(conversation_id, user_turn, lang=self.lang, decisions=decisions)
        return _Turn(conversation_id, lease, messages, state, on_event)

    async def _continue(
        self, turn: _Turn, last: Message, results: Sequence[ToolResult]
    ) -> TurnResult | None:
        """Where a resumed turn goes on from its last journaled message (None: ask the model)."""
        if isinstance(last, AssistantMessage) and last.tool_calls:
            return await self._execute(turn, last)
        if isinstance(last, AssistantMessage) and last.finish == "pause":
            return await self._paused(turn)
        if isinstance(last, ToolResultsMessage) and turn.state.stopped:
            # a stop journaled before its message existed (older journals): end it now
            records = [CallRecord(_call_of(r), r.outcome, r.executed, r.key) for r in results]
            reply = self._stop_text(records[-len(last.results) :])
            return await self._stop_with(turn, (), "stop_turn", reply)
        return None

    async def _rounds(self, turn: _Turn) -> TurnResult:
        while True:
            response = await self._request(turn)
            if isinstance(response, TurnResult):
                return response
            message = response.message
            self._append(turn, message)
            if message.tool_calls:
                step = await self._execute(turn, message)
            elif message.finish == "pause":
                step = await self._paused(turn)
            else:
                return self._completed(turn, message)
            if step is not None:
                return step

    async def _request(self, turn: _Turn) -> ModelResponse | TurnResult:
        request = ModelRequest(
            messages=tuple(turn.messages), tools=self.offered(turn.messages), system=self.system
        )
        turn.requests += 1
        with self.tracer.model_request(
            provider=self.model.provider, model=self.model.model_name
        ) as trace:
            try:
                response = await self._response(turn, request)
            except ProviderError as exc:
                trace.finished(None, exc)
                return await self._provider_failed(turn, exc)
            trace.finished(response, None)
        return response

    def offered(self, messages: Sequence[Message]) -> tuple[ToolSpec, ...]:
        """The declarations the next request after ``messages`` carries: every tool, or
        those ``offer`` names (what a replay rebuilds a request with)."""
        if self._offer is None:
            return self._specs
        names = set(self._offer(messages))
        return tuple(spec for spec in self._specs if spec.name in names)

    async def _response(self, turn: _Turn, request: ModelRequest) -> ModelResponse:
        """The model's response to ``request`` (streamed to ``on_event`` if streaming)."""
        if not self.stream:
            return await self.model.request(request)
        async for event in self.model.stream(request):
            if isinstance(event, ResponseDone):
                return event.response
            await self._emit(turn, event)
        msg = "the model's stream ended without a final response"
        raise ProviderError(
            provider=self.model.provider, status=None, kind="bad_response", safe_message=msg
        )

    async def _paused(self, turn: _Turn) -> TurnResult | None:
        """The provider paused its own turn: going on is another round, like a tool round."""
        if turn.rounds >= self.max_rounds:
            return await self._stop_with(turn, (), "round_limit", self._limit_text())
        turn.rounds += 1
        return None

    async def _execute(self, turn: _Turn, message: AssistantMessage) -> TurnResult | None:
        calls = message.tool_calls
        if message.finish == "max_tokens":
            records = self._filled(calls, "truncated")
            return await self._stop_with(turn, records, "max_tokens", text(self.lang, "max_tokens"))
        if turn.rounds >= self.max_rounds:
            records = self._filled(calls, "not_executed")
            return await self._stop_with(turn, records, "round_limit", self._limit_text())
        turn.rounds += 1
        batch = await self.executor.run_batch(calls, turn.state)
        if batch.pending is not None:
            return await self._await_confirmation(turn, batch.records, batch.pending)
        if turn.state.stopped:
            reply = self._stop_text(batch.records)
            return await self._stop_with(turn, batch.records, "stop_turn", reply)
        self._append(turn, _results_message(batch.records))
        await self._emit_records(turn, batch.records)
        return None

    def _filled(self, calls: Sequence[ToolCall], key: str) -> list[CallRecord]:
        error = ToolError(ErrorCode.NOT_EXECUTED, text(self.lang, key), Recovery.STOP_TURN)
        return [CallRecord(c, error, executed=False) for c in calls]

    def _limit_text(self) -> str:
        return text(self.lang, "round_limit", app=self.app_name, rounds=self.max_rounds)

    async def _emit_records(self, turn: _Turn, records: Sequence[CallRecord]) -> None:
        turn.calls.extend(records)
        for record in records:
            await self._emit(turn, record)

    async def _await_confirmation(
        self, turn: _Turn, records: Sequence[CallRecord], call: PendingCall
    ) -> TurnResult:
        turn.calls.extend(records)
        approval = self.journal.request_approval(
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
        reply = text(self.lang, "awaiting_confirmation", tool=call.call.name)
        await self._emit(turn, HarnessMessage(reply, "awaiting_confirmation"))
        pending = _pending_of(approval)
        return self._result(turn, reply, "harness", "awaiting_confirmation", pending=pending)

    def _stop_text(self, records: Sequence[CallRecord]) -> str:
        stopping = [
            r.outcome
            for r in records
            if isinstance(r.outcome, ToolError) and r.outcome.recovery is Recovery.STOP_TURN
        ]
        codes = {e.code for e in stopping}
        unconfirmed = codes & {ErrorCode.OUTCOME_UNKNOWN, ErrorCode.IN_PROGRESS}
        if unconfirmed:
            record = next(r for r in records if _code(r.outcome) in unconfirmed)
            tool = self.tools.get(record.call.name)
            message = text(self.lang, "stop_outcome_unknown", app=self.app_name)
            where = self.where_to_check(record.call, self.lang) if self.where_to_check else None
            if tool is not None and tool.idempotent:
                message += text(self.lang, "stop_idempotent_hint")
                if where:
                    message += text(self.lang, "stop_idempotent_where", where=where)
            elif where:
                message += text(self.lang, "stop_check_first", where=where)
            else:
                message += text(self.lang, "stop_check_first_default")
            return message
        if ErrorCode.NOT_APPLIED in codes:
            return text(self.lang, "stop_not_applied", app=self.app_name)
        first = next((e for e in stopping if e.code != ErrorCode.NOT_EXECUTED), stopping[0])
        return text(self.lang, "stop_generic", app=self.app_name, reason=first.message)

    async def _stop_with(
        self, turn: _Turn, records: Sequence[CallRecord], reason: HarnessReason, reply: str
    ) -> TurnResult:
        """End the turn: the batch's results (if any) and the harness's message land in one
        commit, so no crash can leave a stop that the next run does not see."""
        harness = HarnessMessage(reply, reason)
        if records:
            self._append(turn, _results_message(records), harness)
        else:
            self._append(turn, harness)
        await self._emit_records(turn, records)
        await self._emit(turn, harness)
        return self._result(turn, reply, "harness", reason)

    async def _provider_failed(self, turn: _Turn, exc: ProviderError) -> TurnResult:
        problem = text(self.lang, _provider_problem_key(exc))
        reply = text(self.lang, "provider_error", provider=exc.provider, problem=problem)
        result = await self._stop_with(turn, (), "provider_error", reply)
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

    def _append(self, turn: _Turn, *messages: Message, model: ModelRef | None = None) -> None:
        self.journal.append(turn.conversation_id, *messages, lease=turn.lease, model=model)
        turn.messages.extend(messages)

    async def _emit(self, turn: _Turn, event: TurnEvent) -> None:
        if turn.on_event is None:
            return
        maybe = turn.on_event(event)
        if maybe is not None:
            await maybe


def _ledger_beside(journal: Journal, ledger: Ledger | None) -> Ledger | None:
    """The ledger to use beside ``journal``: a durable journal gets its writes claimed in its
    own database when no ledger is given, and is refused an in-memory one (after a crash, the
    journal would resume a write whose claim died with the process, and run it again)."""
    if not isinstance(journal, SqlJournal):
        return ledger
    if ledger is None:
        return SqlLedger(journal.db, user=journal.user)
    if isinstance(ledger, MemoryLedger):
        msg = (
            "a durable journal needs a durable ledger: pass SqlLedger(db) on the journal's "
            "database, or no ledger (one is then made there)"
        )
        raise ConfigurationError(msg)
    return ledger


def _bound_together(journal: Journal, ledger: Ledger) -> None:
    """An in-memory journal forgets finished conversations beyond its limit: with the
    in-memory ledger, never one with an unsettled write, and their settled writes with them."""
    if not isinstance(journal, MemoryJournal) or not isinstance(ledger, MemoryLedger):
        return
    if journal.retain is None and journal.on_evict is None:
        journal.retain, journal.on_evict = ledger.unsettled, ledger.forget


def new_conversation_id() -> str:
    """A fresh conversation id."""
    return "c_" + random_hex(10)


def _results_message(records: Sequence[CallRecord]) -> ToolResultsMessage:
    return ToolResultsMessage(
        tuple(
            ToolResult(r.call.call_id, r.call.name, r.outcome, executed=r.executed, key=r.key)
            for r in records
        )
    )


def _pending_of(approval: Approval) -> PendingConfirmation:
    return PendingConfirmation(
        approval.conversation_id, approval.id, approval.call_id, approval.tool, approval.arguments
    )


def _call_of(result: ToolResult) -> ToolCall:
    return ToolCall(result.call_id, result.name, None)


def _code(outcome: Outcome) -> str | None:
    return outcome.code if isinstance(outcome, ToolError) else None


def _current_turn(messages: Sequence[Message]) -> Sequence[Message]:
    """The messages after the last user message."""
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], UserMessage):
            return messages[index + 1 :]
    return messages


def _turn_history(messages: Sequence[Message]) -> list[tuple[ToolCall, ToolResult]]:
    """Each call of the current turn that has a result, with it, in order (results answer
    the preceding response's calls by position; ids may repeat)."""
    pairs: list[tuple[ToolCall, ToolResult]] = []
    calls: tuple[ToolCall, ...] = ()
    for message in _current_turn(messages):
        if isinstance(message, AssistantMessage):
            calls = message.tool_calls
        elif isinstance(message, ToolResultsMessage):
            pairs.extend(zip(calls, message.results, strict=False))
            calls = ()
    return pairs


def _finished(last: Message) -> bool:
    """Whether a turn whose last message is ``last`` has ended."""
    if isinstance(last, HarnessMessage):
        return True
    return isinstance(last, AssistantMessage) and not last.tool_calls and last.finish != "pause"


def _unanswered(messages: Sequence[Message]) -> bool:
    """Whether the last message is a response whose calls have no results yet."""
    return (
        bool(messages)
        and isinstance(messages[-1], AssistantMessage)
        and bool(messages[-1].tool_calls)
    )


def _rounds_before_last(messages: Sequence[Message]) -> int:
    """Rounds the current turn already ran: responses before the last message that were
    continued from (their calls ran, or the provider paused)."""
    current = _current_turn(messages)
    earlier = current[:-1] if current and isinstance(current[-1], AssistantMessage) else current
    return sum(
        1
        for m in earlier
        if isinstance(m, AssistantMessage) and (m.tool_calls or m.finish == "pause")
    )


def _user_turns(messages: Sequence[Message]) -> int:
    return sum(1 for m in messages if isinstance(m, UserMessage))


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
