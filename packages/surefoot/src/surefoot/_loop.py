"""The turn loop ``Agent``: a model, its tools and the rules that bind them.

``run_turn`` holds the conversation (one writer at a time, across processes), appends the user
message and hands the turn to ``TurnRunner`` (``_runner.py``), which reads as its steps:
request → execute → decide, until the turn ends.

``resume`` finishes a turn from the journal: calls without results (a killed process, or a
confirmation now decided) run again with the turn's state rebuilt from the journal, so every
write gets the key the live run gave it and nothing committed is done twice; results that end
with a stop_turn end the turn without asking the model.
"""

from __future__ import annotations

import datetime as dt
import math
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

from ._diagnostics import Diagnostic, DiagnosticsSink, Redactor
from ._exceptions import (
    ConfigurationError,
    ConversationBusyError,
    StoreError,
    SurefootError,
    TurnPendingError,
)
from ._executor import Executor
from ._heartbeat import HEARTBEAT
from ._ids import random_hex
from ._journal import Approval, Journal, Lease, MemoryJournal, ModelRef
from ._ledger import Ledger, LedgerEntry, LedgerState, MemoryLedger
from ._messages import (
    Message,
    ToolCall,
    ToolResult,
    ToolSpec,
    UserMessage,
)
from ._model import Model
from ._output import OutputSpec
from ._replies import CallWords, Replies, WhereToCheck
from ._result import PendingConfirmation, StopReason, TurnResult
from ._runner import (
    EventHandler,
    OfferTools,
    Turn,
    TurnEvent,
    TurnRunner,
    finished,
    rebuild,
    turn_history,
    unanswered,
    user_turns,
    waiting_call,
)
from ._sql import SqlJournal, SqlLedger, deferred_flush
from ._state import TurnState
from ._sync import run_sync
from ._texts import Lang, coerce_lang
from ._tools import ToolSet
from ._tracing import NO_TRACING, Tracer

__all__ = [
    "Agent",
    "EventHandler",
    "OfferTools",
    "PendingConfirmation",
    "StopReason",
    "TurnEvent",
    "TurnResult",
    "WhereToCheck",
    "new_conversation_id",
]


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
        where_to_check: ``where_to_check(call, lang)``: where a person sees whether a write
            whose outcome is unknown was done (a command, a page); None or an empty answer
            says "your data".
        call_words: ``call_words(call, lang)``: a write's call in a person's words, for the
            lines of a reply the harness writes about a write that saved nothing or may not
            have ("not saved: note 'knee'"); None or an empty answer: the tool's name and
            its arguments.
        offer: ``offer(messages)``: the names of the tools to declare in the next request
            (None: all). A small model reads every declaration before its first word, so an
            application may offer only what the conversation needs; a call to a declared
            tool that was not offered still runs.
        max_tokens_per_turn: A budget of tokens (input and output, as the provider reports
            them) per user turn: once a turn has used it, the model is not asked again and
            the turn ends with ``token_budget``. None: no budget.
        history_turns: Whole earlier user turns a request carries besides the current one:
            N to 2N - 1, the first sent moving N at a time so a provider's prompt cache keeps
            the prefix (``_runner.window``). None: all (the journal keeps all either way).
        output_type: The type the final answer must be (a pydantic model, a dataclass or a
            TypedDict): asked for natively where the API can, validated always, on
            ``TurnResult.output``.
        output_retries: How often a final answer that does not validate is sent back for
            correction before the turn ends with ``invalid_output``.
        today: The clock grounded dates count from ("hoy", "ayer"): called when a turn is
            built or resumed (the local date if not given). Each user message is journaled
            with the day it was said (``UserMessage.said_on``), and its relative dates count
            from that day in every later turn.
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
        call_words: CallWords | None = None,
        offer: OfferTools | None = None,
        max_tokens_per_turn: int | None = None,
        history_turns: int | None = None,
        output_type: Any = None,
        output_retries: int = 2,
        today: Callable[[], dt.date] | None = None,
    ) -> None:
        lang = _checked(lang, max_rounds, guard_limit, lease_seconds, output_retries)
        self.output = OutputSpec(output_type) if output_type is not None else None
        self.output_retries = output_retries
        _at_least_one(max_tokens_per_turn=max_tokens_per_turn, history_turns=history_turns)
        self.history_turns = history_turns
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
        self.specs = tools.specs()
        self.offer = offer
        self.max_tokens_per_turn = max_tokens_per_turn
        self.today: Callable[[], dt.date] = today if today is not None else local_today
        self.replies = Replies(
            tools,
            lang=lang,
            app_name=app_name,
            where_to_check=where_to_check,
            call_words=call_words,
        )
        self._runner = TurnRunner(self)
        self._model_ref: ModelRef | None = None

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
        with _holding(self.journal, conversation_id, lease, self.lease_seconds) as held:
            if held.orphaned:  # its last writer died: settle what it left unsettled
                self.executor.reconcile(
                    conversation_id=conversation_id, lang=self.lang, orphaned=True
                )
            messages = self.journal.load(conversation_id)
            if messages and unanswered(messages):
                raise TurnPendingError(conversation_id)
            user_turn = user_turns(messages) if messages else 0
            turn = self._turn(conversation_id, held, messages, on_event, user_turn, said=user_text)
            said = UserMessage(user_text, said_on=turn.state.today)
            runner, tracer = self._runner, self.tracer
            if tracer is NO_TRACING:  # nobody listens: no scope
                runner.append(turn, said, model=self.model_ref)
                return await runner.rounds(turn)
            with tracer.turn(
                app=self.app_name, conversation_id=conversation_id, user_turn=user_turn
            ) as trace:
                runner.append(turn, said, model=self.model_ref)
                result = await runner.rounds(turn)
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
        with _holding(self.journal, conversation_id, lease, self.lease_seconds) as held:
            messages = self.journal.load(conversation_id)
            if not messages:
                msg = f"there is no conversation {conversation_id!r} to resume"
                raise SurefootError(msg)
            user_turn = max(user_turns(messages) - 1, 0)
            turn = self._turn(conversation_id, held, messages, on_event, user_turn)
            if finished(messages[-1]):
                return self._runner.finished_result(turn, messages[-1])
            _check_model(self.journal, conversation_id, self.model_ref)
            # writes it left unconfirmed: settled now if provable (all of them if its last
            # writer is known to be dead), else held back as in_progress / outcome_unknown
            self.executor.reconcile(
                conversation_id=conversation_id, lang=self.lang, orphaned=held.orphaned
            )
            history = turn_history(messages)
            self._rebuild(turn, history)
            results = [r for batch in history for _, r in batch]
            scope = self.tracer.turn(
                app=self.app_name, conversation_id=conversation_id, user_turn=user_turn
            )
            with scope as trace:
                step = await self._runner.go_on(turn, messages[-1], results)
                result = step if step is not None else await self._runner.rounds(turn)
                trace.finished(result.stop_reason, result.model_requests)
            return result

    def run_turn_sync(
        self,
        user_text: str,
        *,
        conversation_id: str | None = None,
        on_event: EventHandler | None = None,
    ) -> TurnResult:
        """``run_turn`` for synchronous callers, on one event loop per thread (reused from
        call to call). Raises ``ConfigurationError`` inside a running event loop: await
        ``run_turn`` there."""
        turn = self.run_turn(user_text, conversation_id=conversation_id, on_event=on_event)
        return run_sync(turn, what="run_turn_sync")

    def resume_sync(
        self, conversation_id: str, *, on_event: EventHandler | None = None
    ) -> TurnResult:
        """``resume`` for synchronous callers, on the same per-thread event loop as
        ``run_turn_sync`` (and refused, like it, inside a running event loop)."""
        return run_sync(self.resume(conversation_id, on_event=on_event), what="resume_sync")

    def hold(self, conversation_id: str) -> AbstractContextManager[Lease]:
        """Hold the conversation (one writer across processes), renewed while the block runs
        (a hold on a ``MemoryJournal`` lasts until the block ends: it lives in the holder's
        own process). Raises ``ConversationBusyError`` if another live writer holds it. A
        release the database cannot take when the block ends (it is down, or locked) is
        tried again in the background until it can, so the conversation is free again soon
        after the database is back, instead of when its lease runs out."""
        return _Hold(self.journal, conversation_id, self.lease_seconds)

    @property
    def model_ref(self) -> ModelRef:
        """The model this agent runs on, as the journal records it (never its key). A model
        with a ``base_url`` attribute (every provider adapter has one) records it too."""
        self._model_ref = _ref_of(self.model, self._model_ref)
        return self._model_ref

    def offered(self, messages: Sequence[Message]) -> tuple[ToolSpec, ...]:
        """The declarations the next request after ``messages`` carries: every tool, or
        those ``offer`` names (what a replay rebuilds a request with)."""
        if self.offer is None:
            return self.specs
        names = set(self.offer(messages))
        return tuple(spec for spec in self.specs if spec.name in names)

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
        lang = self.lang
        return waiting_call(
            self.journal,
            conversation_id,
            lambda call: self.executor.question_for(call, conversation_id, lang),
        )

    def approval(self, conversation_id: str, approval: str) -> Approval | None:
        """The approval ``approval`` of this conversation (decided or not), if it exists."""
        found = self.journal.approvals(conversation_id=conversation_id)
        return next((a for a in found if a.id == approval), None)

    def unfinished(self, conversation_id: str) -> bool:
        """Whether the conversation's last turn has calls without results (it waits for a
        decision, or it was interrupted): ``resume`` finishes it."""
        return unanswered(self.journal.load(conversation_id))

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

    def _rebuild(
        self, turn: Turn, history: Sequence[Sequence[tuple[ToolCall, ToolResult]]]
    ) -> None:
        """Bring a resumed turn's state to where the live run stood (``rebuild``)."""
        rebuild(turn, history, self.executor)

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
        *,
        said: str | None = None,
    ) -> Turn:
        """The turn over ``messages`` as journaled (``said``: the user message about to be
        appended, said today). Its state carries the conversation's user texts and the day
        each was said, read from the journal, so grounding reads the same words live and on
        resume."""
        today = self.today()
        # a new message (or a new conversation): nobody decided anything in its turn yet
        decisions = self._decisions(conversation_id, user_turn) if messages and not said else {}
        texts, days = _user_words(messages, said, today)
        state = TurnState(conversation_id, user_turn, self.lang)  # by position: no keywords
        state.decisions, state.user_texts, state.said_on, state.today = (
            decisions,
            texts,
            days,
            today,
        )
        return Turn(conversation_id, lease, messages, state, on_event)


def _checked(
    lang: Lang, max_rounds: int, guard_limit: int, lease_seconds: float, output_retries: int
) -> Lang:
    """``lang`` as the harness spells it, once the limits are checked (``ConfigurationError``
    for one out of range)."""
    try:
        lang = coerce_lang(lang)
    except ValueError as exc:
        raise ConfigurationError(str(exc)) from None
    if max_rounds < 1 or guard_limit < 1 or not lease_seconds > 0:
        msg = "max_rounds and guard_limit must be at least 1, and lease_seconds above 0"
        raise ConfigurationError(msg)
    if output_retries < 0:
        msg = "output_retries must be 0 or more"
        raise ConfigurationError(msg)
    return lang


def _at_least_one(**limits: int | None) -> None:
    """``ConfigurationError`` for a limit given below 1 (None: no limit)."""
    for name, value in limits.items():
        if value is not None and value < 1:
            msg = f"{name} must be at least 1 (or None: no limit)"
            raise ConfigurationError(msg)


def _user_words(
    messages: Sequence[Message], said: str | None, today: dt.date
) -> tuple[tuple[str, ...], tuple[dt.date | None, ...]]:
    """What the person wrote in ``messages`` (and ``said`` now, today), and the day each was
    said where the journal has it."""
    if not messages:  # a new conversation
        return ((said,), (today,)) if said is not None else ((), ())
    users = [m for m in messages if isinstance(m, UserMessage)]
    texts = [m.text for m in users]
    days = [m.said_on for m in users]
    if said is not None:
        texts.append(said)
        days.append(today)
    return tuple(texts), tuple(days)


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


_DAY: tuple[float, float, dt.date, object] = (0.0, 0.0, dt.date.min, None)
"""The local day last read: the span of the clock known to lie within it, the day, and the
time zone it was read in (``time.tzname``, a new tuple after every ``time.tzset()``)."""


def local_today() -> dt.date:
    """``date.today()``, converted from the clock again only when the clock leaves the span
    known to lie within the day last read (from that reading to an hour before the next local
    midnight: the hour covers a daylight saving change in between) or the time zone changes.
    A turn reads it once; the conversion to local time costs more than the rest of it."""
    global _DAY  # noqa: PLW0603 - one tuple, replaced whole: safe to read from any thread
    now = time.time()
    start, end, day, zone = _DAY
    if start <= now < end and zone is time.tzname:
        return day
    zone = time.tzname
    local = time.localtime(now)
    day = dt.date(local.tm_year, local.tm_mon, local.tm_mday)
    left = 82_800 - (local.tm_hour * 3600 + local.tm_min * 60 + local.tm_sec)  # to midnight - 1h
    _DAY = (now, now + left, day, zone)
    return day


def new_conversation_id() -> str:
    """A fresh conversation id."""
    return "c_" + random_hex(10)


def _check_model(journal: Journal, conversation_id: str, current: ModelRef) -> None:
    """A resumed turn must run on the model it started with."""
    recorded = journal.model_of(conversation_id)
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


def _ref_of(model: Model, kept: ModelRef | None) -> ModelRef:
    """``model``'s reference: ``kept`` while it names the same model (it is immutable)."""
    provider, name, url = model.provider, model.model_name, getattr(model, "base_url", None)
    if (
        kept is not None
        and kept.provider == provider
        and kept.model == name
        and kept.base_url == url
    ):
        return kept
    return ModelRef(provider, name, url)


def _holding(
    journal: Journal, conversation_id: str, lease: Lease | None, seconds: float
) -> AbstractContextManager[Lease]:
    """A new hold on the conversation, or ``lease``, a hold already taken (it stays held).
    On a ``SqlJournal`` the journal's commits under it need not wait for the disk
    (``deferred_flush``): the claim before a write, the write, and the hold given back
    wait, and so does the end of this block, so a turn has its journal on disk before its
    caller sees how it ended."""
    if lease is not None and lease.conversation_id != conversation_id:
        msg = "the lease is for another conversation"
        raise ConfigurationError(msg)
    hold = _Hold(journal, conversation_id, seconds) if lease is None else nullcontext(lease)
    return _deferring(hold) if isinstance(journal, SqlJournal) else hold


@contextmanager
def _deferring(hold: AbstractContextManager[Lease]) -> Iterator[Lease]:
    with deferred_flush(), hold as held:
        yield held


class _Hold:
    """A hold on a conversation for the length of a ``with`` block, renewed by the heartbeat
    while the block runs. A ``MemoryJournal`` lives in the memory of the process that holds
    its conversations, so a hold there cannot outlive its holder: it is taken until it is
    let go, and no renewal is registered for it."""

    __slots__ = ("_beat", "_conversation_id", "_journal", "_lease", "_seconds")

    def __init__(self, journal: Journal, conversation_id: str, seconds: float) -> None:
        self._journal = journal
        self._conversation_id = conversation_id
        self._seconds = seconds
        self._lease: Lease | None = None
        self._beat: AbstractContextManager[None] | None = None

    def __enter__(self) -> Lease:
        journal, seconds = self._journal, self._seconds
        in_memory = isinstance(journal, MemoryJournal)
        lease = journal.acquire(self._conversation_id, seconds=math.inf if in_memory else seconds)
        if lease is None:
            raise ConversationBusyError(self._conversation_id)
        self._lease = lease
        if not in_memory:
            beat = HEARTBEAT.keep(lambda: journal.renew(lease, seconds=seconds), every=seconds / 3)
            try:
                beat.__enter__()
            except BaseException:
                journal.release(lease)
                raise
            self._beat = beat
        return lease

    def __exit__(self, *exc: object) -> None:
        lease, beat = self._lease, self._beat
        assert lease is not None  # entered
        try:
            if beat is not None:
                beat.__exit__(None, None, None)
        finally:
            _release(self._journal, lease, self._seconds)


RELEASE_RETRY = 0.5
"""Seconds between tries of a release the database could not take (``_release``)."""


def _release(journal: Journal, lease: Lease, seconds: float) -> None:
    """Let go of ``lease``. A release the database cannot take now (it is down, or locked
    past its busy timeout) is tried again on the heartbeat thread every ``RELEASE_RETRY``
    seconds, for at most the lease's ``seconds`` (by then it has run out by itself): the
    conversation is free again as soon as the database answers, not a lease later. Each try
    is fenced like the first (owner and fence): a hold taken over meanwhile is not freed."""
    try:
        journal.release(lease)
    except StoreError as exc:
        if exc.kind not in ("unavailable", "locked"):
            raise
        import logging  # rare, and off the import path

        logging.getLogger("surefoot").warning(
            "could not release conversation %r now (%s); retrying", lease.conversation_id, exc
        )
        HEARTBEAT.retry(lambda: journal.release(lease), every=RELEASE_RETRY, within=seconds)
