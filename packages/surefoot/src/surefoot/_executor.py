"""The executor: the one place where tool calls become outcomes.

For each call, in order::

    lookup ─► parse ─► validate ─► (write: mint its key) ─► convergence guard ─► confirmed?
        ─► (write: claim the key) ─► run the handler inside the boundary ─► check what it
        returned ─► outcome ─► (write: settle the ledger)

Nothing a handler raises — or returns that is not an outcome of plain JSON data — crosses this
module: it is kept in the diagnostics and the caller gets a safe ``ToolError``. Calls after a
``stop_turn`` outcome get ``not_executed``. A maximal run of consecutive *async* read calls
runs concurrently; sync handlers run inline (no thread hop); a write is a barrier.

A write's idempotency key is derived from the user, the conversation, the user turn, the tool,
the validated arguments and the ordinal of that identical call within the turn. Everything in
``TurnState`` that decides a key (the ordinals) or an outcome (the convergence guard's
failures) is a function of the turn's calls and their recorded outcomes: ``replay`` rebuilds
it from the journal, so a resumed turn mints exactly the keys the live run minted, and a
genuinely new call never collides with an old one.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from inspect import isawaitable
from typing import TYPE_CHECKING, Any

from ._context import ToolContext
from ._diagnostics import DiagnosticsSink, MemoryDiagnostics, Redactor, diagnostic_from
from ._heartbeat import HEARTBEAT
from ._ledger import (
    Ledger,
    LedgerEntry,
    MemoryLedger,
    canonical_json,
    fingerprint,
    supplied_key,
)
from ._ledger import idempotency_key as make_key
from ._messages import ToolCall
from ._outcome import (
    Detail,
    ErrorCode,
    Ok,
    Outcome,
    Recovery,
    ToolError,
    from_record,
    to_record,
)
from ._returns import outcome_of
from ._texts import Lang, text
from ._tools import ReconcileResult, Tool, ToolSet
from ._tracing import NO_TRACING, Tracer

if TYPE_CHECKING:
    from pydantic import BaseModel

Decision = Callable[[ToolCall, Tool], bool | None]
"""A confirmation policy: True approve, False deny, None ask (the turn pauses)."""


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One call and its one outcome.

    Attributes:
        call: The call as the model made it.
        outcome: Its one outcome, ``Ok`` or ``ToolError``.
        executed: Whether its handler ran in this attempt (False for a refused call, and
            for a write answered from the ledger).
        key: A write's idempotency key (None for reads and for calls refused before one
            was minted).
    """

    call: ToolCall
    outcome: Outcome
    executed: bool
    key: str | None = None


@dataclass(slots=True)
class TurnState:
    """What the executor remembers within one user turn."""

    conversation_id: str
    user_turn: int
    lang: Lang = "en"
    stopped: bool = False
    failures: dict[str, tuple[str, int, ToolError]] = field(default_factory=dict)
    ordinals: dict[str, int] = field(default_factory=dict)
    decisions: dict[str, bool] = field(default_factory=dict)
    """A person's decisions in this turn, by the idempotency key of the exact call decided
    (True approved, False denied). A decision for any other call is never applied."""
    given_keys: dict[str, str] = field(default_factory=dict)
    """Idempotency keys the caller supplied, by call id (an MCP client's retry key): such a
    write is keyed by it alone, so the same key with the same arguments is answered from the
    ledger and with other arguments is refused."""


class _Prepared:
    """A validated call; its canonical form is computed only when something needs it."""

    __slots__ = ("_canonical", "_fingerprint", "args", "key", "tool")

    def __init__(self, tool: Tool, args: BaseModel) -> None:
        self.tool = tool
        self.args = args
        self.key: str | None = None
        self._canonical: str | None = None
        self._fingerprint: str | None = None

    @property
    def canonical(self) -> str:
        """Canonical JSON of the validated arguments."""
        if self._canonical is None:
            self._canonical = canonical_json(self.args.model_dump(mode="json"))
        return self._canonical

    @property
    def fingerprint(self) -> str:
        """Tool + canonical arguments, hashed: the identity of "the same call"."""
        if self._fingerprint is None:
            self._fingerprint = fingerprint(self.tool.name, self.canonical)
        return self._fingerprint


@dataclass(frozen=True, slots=True)
class _Refused:
    """A call that cannot run: its identity for the guard, and the problems with its
    arguments (None: the tool does not exist)."""

    identity: str
    details: tuple[Detail, ...] | None


@dataclass(frozen=True, slots=True)
class PendingCall:
    """A call that waits for a person's decision, bound to its exact identity."""

    call: ToolCall
    key: str
    fingerprint: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class BatchResult:
    """The records of a batch; ``pending`` is the call waiting for a person, if any."""

    records: tuple[CallRecord, ...]
    pending: PendingCall | None = None


class Executor:
    """Runs batches of tool calls against a ``ToolSet``, obeying the decision table."""

    def __init__(
        self,
        tools: ToolSet,
        *,
        ledger: Ledger | None = None,
        diagnostics: DiagnosticsSink | None = None,
        redactor: Redactor | None = None,
        guard_limit: int = 2,
        lease_seconds: float = 60.0,
        app_context: dict[str, Any] | None = None,
        tracer: Tracer | None = None,
    ) -> None:
        self.tools = tools
        self.tracer: Tracer = tracer if tracer is not None else NO_TRACING
        self.ledger: Ledger = ledger if ledger is not None else MemoryLedger()
        self.diagnostics: DiagnosticsSink = (
            diagnostics if diagnostics is not None else MemoryDiagnostics()
        )
        self._redact = redactor or Redactor()
        self._guard_limit = guard_limit
        self._lease = lease_seconds
        self._app = app_context or {}

    # -- batches ---------------------------------------------------------------------------

    async def run_batch(self, calls: Sequence[ToolCall], state: TurnState) -> BatchResult:
        """Run ``calls`` in order; stop early (``pending``) at a call that needs a person."""
        records: list[CallRecord] = []
        group: list[tuple[ToolCall, _Prepared]] = []
        for call in calls:
            tool = self.tools.get(call.name)
            concurrent = tool is not None and tool.effect == "read" and tool.is_async
            if not concurrent:
                records.extend(await self._flush(group, state))
            if _stopped(state):  # checked before preparing: a skipped call takes no ordinal
                records.extend(await self._flush(group, state))
                records.append(self._traced(self._not_executed(call, state)))
                continue
            prepared = self._prepare(call, state)
            if isinstance(prepared, ToolError):
                records.extend(await self._flush(group, state))
                refused = CallRecord(call, self._stop_if(prepared, state), executed=False)
                records.append(self._traced(refused))
            elif concurrent:
                group.append((call, prepared))
            elif prepared.tool.confirm and self._decision(call, prepared, state) is None:
                return BatchResult(tuple(records), pending=self._pending(call, prepared))
            else:
                records.append(await self._run_one(call, prepared, state))
        records.extend(await self._flush(group, state))
        return BatchResult(tuple(records))

    def replay(self, state: TurnState, history: Iterable[tuple[ToolCall, Outcome]]) -> None:
        """Bring ``state`` to where the live run stood after ``history``: the turn's earlier
        calls with their recorded outcomes, in order. Nothing runs; ordinals and the
        convergence guard continue exactly as they would have."""
        for call, outcome in history:
            if isinstance(outcome, ToolError) and outcome.code == ErrorCode.NOT_EXECUTED:
                continue  # never prepared: the turn had stopped, or the response was cut off
            identity = self._identify(call, state)
            if isinstance(outcome, ToolError):
                self._note_failure(identity, outcome, state)
                self._stop_if(outcome, state)

    async def _flush(
        self, group: list[tuple[ToolCall, _Prepared]], state: TurnState
    ) -> list[CallRecord]:
        if not group:
            return []
        items = list(group)
        group.clear()
        if len(items) == 1:
            return [await self._run_one(*items[0], state)]
        import asyncio  # only concurrent reads need it: `import surefoot` stays light

        results = await asyncio.gather(*(self._run_one(c, p, state) for c, p in items))
        return list(results)

    def _traced(self, record: CallRecord) -> CallRecord:
        """``record`` (of a call that did not run), told to the tracer."""
        tool = self.tools.get(record.call.name)
        with self.tracer.tool_call(
            record.call, effect=None if tool is None else tool.effect
        ) as trace:
            trace.finished(record, self.ledger)
        return record

    def _not_executed(self, call: ToolCall, state: TurnState) -> CallRecord:
        error = ToolError(
            ErrorCode.NOT_EXECUTED, text(state.lang, "not_executed"), Recovery.STOP_TURN
        )
        return CallRecord(call, error, executed=False)

    def _decision(self, call: ToolCall, prepared: _Prepared, state: TurnState) -> bool | None:
        """A person's decision on exactly this call (by its key, never by its call id, which
        some servers reuse for every call): True, False, or None (nobody decided yet)."""
        del call
        return state.decisions.get(prepared.key or "")

    def _pending(self, call: ToolCall, prepared: _Prepared) -> PendingCall:
        assert prepared.key is not None  # confirm only applies to writes, which have keys
        arguments = json.loads(prepared.canonical)
        return PendingCall(call, prepared.key, prepared.fingerprint, arguments)

    def _finish(
        self,
        call: ToolCall,
        outcome: Outcome,
        state: TurnState,
        prep: _Prepared,
        *,
        executed: bool,
    ) -> CallRecord:
        if isinstance(outcome, ToolError):
            self._note_failure(prep.fingerprint, outcome, state)
            self._stop_if(outcome, state)
        return CallRecord(call, outcome, executed=executed, key=prep.key)

    @staticmethod
    def _stop_if(error: ToolError, state: TurnState) -> ToolError:
        if error.recovery is Recovery.STOP_TURN:
            state.stopped = True
        return error

    @staticmethod
    def _note_failure(identity: str, error: ToolError, state: TurnState) -> None:
        """Count a failure of the call ``identity``; the first error is kept for the guard."""
        seen = state.failures.get(identity)
        if seen is None:
            state.failures[identity] = (error.code, 1, error)
        else:
            state.failures[identity] = (seen[0], seen[1] + 1, seen[2])

    # -- before the handler ------------------------------------------------------------------

    def _identify(self, call: ToolCall, state: TurnState) -> str:
        """The identity of ``call`` for the guard; a valid write also takes its ordinal."""
        prepared = self._validated(call, state.lang)
        if isinstance(prepared, _Refused):
            return prepared.identity
        self._mint(prepared, state, call.call_id)
        return prepared.fingerprint

    def _validated(self, call: ToolCall, lang: Lang) -> _Prepared | _Refused:
        """The validated call, or why it cannot run (with its identity as it was sent)."""
        tool = self.tools.get(call.name)
        if tool is None:
            return _Refused(f"?{call.name}", None)
        if call.arguments is None:
            raw_fp = fingerprint(tool.name, "raw:" + (call.raw_arguments or ""))
            not_an_object = Detail(
                "$", text(lang, "arg_not_object"), text(lang, "arg_not_object_expected")
            )
            return _Refused(raw_fp, (not_an_object,))
        validated = tool.validate(call.arguments, lang)
        if isinstance(validated, tuple):
            try:
                raw = canonical_json(call.arguments)
            except (ValueError, TypeError, RecursionError):  # not JSON data: one identity for all
                raw = "unencodable"
            return _Refused(fingerprint(tool.name, "raw:" + raw), validated)
        return _Prepared(tool, validated)

    def _mint(self, prepared: _Prepared, state: TurnState, call_id: str) -> None:
        """Give a write its key: the one its caller supplied, or its ordinal among identical
        calls of the turn so far."""
        if prepared.tool.effect != "write":
            return
        given = state.given_keys.get(call_id)
        if given is not None:
            prepared.key = supplied_key(
                user=self.ledger.user, conversation_id=state.conversation_id, supplied=given
            )
            return
        fp = prepared.fingerprint
        ordinal = state.ordinals.get(fp, 0)
        state.ordinals[fp] = ordinal + 1
        prepared.key = make_key(
            user=self.ledger.user,
            conversation_id=state.conversation_id,
            user_turn=state.user_turn,
            tool=prepared.tool.name,
            call_fingerprint=fp,
            ordinal=ordinal,
        )

    def _prepare(self, call: ToolCall, state: TurnState) -> _Prepared | ToolError:
        prepared = self._validated(call, state.lang)
        if isinstance(prepared, _Refused):
            return self._guarded(
                prepared.identity, self._refusal(call, prepared, state.lang), state
            )
        self._mint(prepared, state, call.call_id)
        if state.failures:  # only a turn with a failure on record can repeat one
            guard = self._guard(prepared.fingerprint, state)
            if guard is not None:
                return guard
        return prepared

    def _refusal(self, call: ToolCall, refused: _Refused, lang: Lang) -> ToolError:
        if refused.details is None:
            names = ", ".join(self.tools.names) or "-"
            return ToolError(
                ErrorCode.UNKNOWN_TOOL,
                text(lang, "unknown_tool", name=_safe_name(call.name), names=names),
                Recovery.CORRECT_ARGUMENTS,
            )
        return ToolError(
            ErrorCode.INVALID_ARGUMENTS,
            text(lang, "invalid_arguments", name=call.name),
            Recovery.CORRECT_ARGUMENTS,
            details=refused.details,
        )

    def _guarded(self, identity: str, error: ToolError, state: TurnState) -> ToolError:
        """Return ``error``, escalated if this exact call already failed in the turn."""
        escalated = self._guard(identity, state)
        if escalated is not None:
            return escalated
        self._note_failure(identity, error, state)
        return error

    def _guard(self, identity: str, state: TurnState) -> ToolError | None:
        seen = state.failures.get(identity)
        if seen is None:
            return None
        code, count, first = seen
        state.failures[identity] = (code, count + 1, first)
        if count + 1 > self._guard_limit:
            return first.with_recovery(
                Recovery.STOP_TURN, text(state.lang, "guard_stop", code=code)
            )
        return first.with_recovery(
            Recovery.CHOOSE_ALTERNATIVE, text(state.lang, "guard_repeat", code=code)
        )

    # -- running ---------------------------------------------------------------------------

    async def _run_one(self, call: ToolCall, prep: _Prepared, state: TurnState) -> CallRecord:
        with self.tracer.tool_call(call, effect=prep.tool.effect) as trace:
            record = await self._run_traced(call, prep, state)
            trace.finished(record, self.ledger)
        return record

    async def _run_traced(self, call: ToolCall, prep: _Prepared, state: TurnState) -> CallRecord:
        tool = prep.tool
        if tool.confirm and self._decision(call, prep, state) is False:
            denied = ToolError(
                ErrorCode.DENIED, text(state.lang, "denied"), Recovery.CHOOSE_ALTERNATIVE
            )
            return self._finish(call, denied, state, prep, executed=False)
        ctx = ToolContext(call.call_id, tool.name, state.conversation_id, state.lang, app=self._app)
        if tool.effect == "read":
            outcome = await self._invoke(tool, prep, ctx)
            if isinstance(outcome, BaseException):
                self._diagnose(outcome, ctx)
                outcome = ToolError(
                    ErrorCode.UNAVAILABLE,
                    text(state.lang, "unavailable", name=tool.name),
                    Recovery.CHOOSE_ALTERNATIVE,
                )
            return self._finish(call, outcome, state, prep, executed=True)
        return await self._run_write(call, prep, state, ctx)

    async def _run_write(
        self, call: ToolCall, prep: _Prepared, state: TurnState, ctx: ToolContext
    ) -> CallRecord:
        tool, key = prep.tool, prep.key
        assert key is not None  # every write is minted a key when it is prepared
        arguments = json.loads(prep.canonical)
        claim = self.ledger.claim(
            key=key,
            conversation_id=state.conversation_id,
            tool=tool.name,
            fingerprint=prep.fingerprint,
            arguments=arguments,
            lease_seconds=self._lease,
        )
        if not claim.owned:
            outcome = self._settled(tool, claim.entry, prep, state.lang)
            return self._finish(call, outcome, state, prep, executed=False)
        ctx.key, ctx.attempt, ctx._ledger = key, claim.entry.attempt, self.ledger
        attempt = claim.entry.attempt
        try:
            with HEARTBEAT.keep(
                lambda: self.ledger.renew(key, attempt, self._lease), every=self._lease / 3
            ):
                result = await self._invoke(tool, prep, ctx)
        except BaseException:  # interrupted (Ctrl-C, cancelled): its fate is now unknown
            self._abandon(tool, key, attempt, state.lang)
            raise
        if isinstance(result, BaseException):
            self._diagnose(result, ctx)
            outcome = self._after_failure(tool, key, arguments, ctx, state.lang)
        else:
            outcome = self._settle(tool, key, arguments, ctx, result)
        return self._finish(call, outcome, state, prep, executed=True)

    def _abandon(self, tool: Tool, key: str, attempt: int, lang: Lang) -> None:
        """Best effort, on the way out of an interrupted write: mark it ``unknown`` so that
        the next resume or reconcile settles it at once instead of waiting out its lease."""
        unknown = ToolError(
            ErrorCode.OUTCOME_UNKNOWN,
            text(lang, "outcome_unknown", name=tool.name),
            Recovery.STOP_TURN,
        )
        # the interruption wins over a failure here; the claim's lease expires anyway
        with contextlib.suppress(Exception):
            self.ledger.finalize(key, attempt, "unknown", error=to_record(unknown))

    async def _invoke(
        self, tool: Tool, prep: _Prepared, ctx: ToolContext
    ) -> Outcome | BaseException:
        """Run the handler; what it raises, or returns that is not an outcome of plain JSON
        data, comes back as the exception to diagnose (the error boundary)."""
        kwargs = prep.args.__dict__  # the validated field values, by name
        try:
            if tool.is_async:
                value = await (
                    tool.handler(ctx, **kwargs) if tool.wants_context else tool.handler(**kwargs)
                )
            else:
                value = (
                    tool.handler(ctx, **kwargs) if tool.wants_context else tool.handler(**kwargs)
                )
                if type(value) is not dict and isawaitable(value):
                    value = await value  # an async function behind a plain decorator
            return _to_outcome(value)
        except Exception as exc:  # noqa: BLE001 - the error boundary: every failure becomes data
            return exc
        except BaseException as exc:
            if _stray_cancellation(exc):
                return exc
            raise

    def _diagnose(self, exc: BaseException, ctx: ToolContext) -> None:
        self.diagnostics.record(
            diagnostic_from(
                exc,
                conversation_id=ctx.conversation_id,
                call_id=ctx.call_id,
                tool=ctx.tool,
                key=ctx.key,
                redact=self._redact,
            )
        )

    # -- the ledger's side of a write --------------------------------------------------------

    def _settle(
        self, tool: Tool, key: str, arguments: dict[str, Any], ctx: ToolContext, outcome: Outcome
    ) -> Outcome:
        """Record the handler's outcome; report success only if the ledger agrees."""
        if isinstance(outcome, Ok):
            if ctx._committed_in_tx:
                # commit_in wrote the record inside the handler's transaction; whether that
                # transaction committed only the ledger can tell (a handler may catch the
                # failure of its own commit and still return its data)
                entry = self.ledger.get(key)
                if entry is not None and entry.state == "committed" and entry.result is not None:
                    return Ok(entry.result)
                self._diagnose(_RolledBackError(tool.name), ctx)
                return self._after_failure(tool, key, arguments, ctx, ctx.lang)
            if self.ledger.finalize(key, ctx.attempt, "committed", result=outcome.data):
                return outcome
        elif self.ledger.finalize(key, ctx.attempt, "failed", error=to_record(outcome)):
            return outcome
        return self._fenced(tool, key, ctx.lang)

    def _fenced(self, tool: Tool, key: str, lang: Lang) -> Outcome:
        """The claim was taken over while the handler ran: the ledger decides, not us."""
        entry = self.ledger.get(key)
        if entry is not None and entry.state == "committed" and entry.result is not None:
            return Ok(entry.result)
        unknown = ToolError(
            ErrorCode.OUTCOME_UNKNOWN,
            text(lang, "outcome_unknown", name=tool.name),
            Recovery.STOP_TURN,
        )
        if entry is not None and entry.state == "unknown":
            return self._reconcile_or_unknown(
                tool, key, entry.attempt, entry.arguments, unknown, lang
            )
        if entry is not None and entry.state == "failed" and entry.error is not None:
            return from_record(entry.error)
        return unknown

    def _after_failure(
        self, tool: Tool, key: str, arguments: dict[str, Any], ctx: ToolContext, lang: Lang
    ) -> Outcome:
        unknown = ToolError(
            ErrorCode.OUTCOME_UNKNOWN,
            text(lang, "outcome_unknown", name=tool.name),
            Recovery.STOP_TURN,
        )
        if ctx._unverifiable:
            self.ledger.finalize(key, ctx.attempt, "unknown", error=to_record(unknown))
            return unknown
        entry = self.ledger.get(key)
        if entry is not None and entry.state == "committed" and entry.result is not None:
            return Ok(entry.result)
        if tool.atomic and entry is not None and entry.state == "pending":
            failed = self._not_applied(tool, lang)
            self.ledger.finalize(key, ctx.attempt, "failed", error=to_record(failed))
            return failed
        return self._reconcile_or_unknown(tool, key, ctx.attempt, arguments, unknown, lang)

    def _reconcile_or_unknown(
        self,
        tool: Tool,
        key: str,
        attempt: int,
        arguments: dict[str, Any],
        unknown: ToolError,
        lang: Lang,
    ) -> Outcome:
        verdict = self._verdict(tool, key, arguments)
        if isinstance(verdict, Ok):
            self.ledger.finalize(key, attempt, "committed", result=verdict.data)
            return verdict
        if verdict == "absent":
            failed = self._not_applied(tool, lang)
            self.ledger.finalize(key, attempt, "failed", error=to_record(failed))
            return failed
        self.ledger.finalize(key, attempt, "unknown", error=to_record(unknown))
        return unknown

    def _verdict(self, tool: Tool, key: str, arguments: dict[str, Any]) -> ReconcileResult:
        """Did the write with ``key`` take effect? The ledger first, then the tool's hook."""
        entry = self.ledger.get(key)
        if entry is not None and entry.state == "committed" and entry.result is not None:
            return Ok(entry.result)
        if tool.atomic and entry is not None and entry.state == "unknown":
            return "absent"  # its effect commits only together with the ledger's record
        if tool.reconcile is None:
            return None
        try:
            return tool.reconcile(key, arguments)
        except Exception:  # noqa: BLE001 - a failing check decides nothing
            return None

    def reconcile(
        self, *, conversation_id: str | None = None, lang: Lang = "en", orphaned: bool = False
    ) -> list[LedgerEntry]:
        """Settle unconfirmed writes: expired ``pending`` become ``unknown`` (all ``pending``
        ones when ``orphaned``: the conversation's last writer is known to be dead), then each
        ``unknown`` is decided by the ledger (atomic writes) or the tool's ``reconcile`` hook.
        Writes nobody can decide stay ``unknown``. Returns the entries as they now are."""
        if orphaned and conversation_id is None:
            msg = "only one conversation's writes can be orphaned"
            raise ValueError(msg)
        settled: list[LedgerEntry] = []
        open_entries = [
            *self.ledger.entries(conversation_id=conversation_id, state="pending"),
            *self.ledger.entries(conversation_id=conversation_id, state="unknown"),
        ]
        for entry in open_entries:
            current: LedgerEntry | None = entry
            if entry.state == "pending" and (entry.lease_expired or orphaned):
                current = self.ledger.expire(entry.key, orphaned=orphaned)
            if current is None or current.state != "unknown":
                continue
            tool = self.tools.get(current.tool)
            if tool is not None:
                unknown = ToolError(
                    ErrorCode.OUTCOME_UNKNOWN,
                    text(lang, "outcome_unknown", name=tool.name),
                    Recovery.STOP_TURN,
                )
                self._reconcile_or_unknown(
                    tool, current.key, current.attempt, current.arguments, unknown, lang
                )
            refreshed = self.ledger.get(current.key)
            if refreshed is not None:
                settled.append(refreshed)
        return settled

    def _not_applied(self, tool: Tool, lang: Lang) -> ToolError:
        return ToolError(
            ErrorCode.NOT_APPLIED, text(lang, "not_applied", name=tool.name), Recovery.STOP_TURN
        )

    def _settled(self, tool: Tool, entry: LedgerEntry, prep: _Prepared, lang: Lang) -> Outcome:
        """The outcome of a key that was already claimed (replay, resume, another worker)."""
        if entry.fingerprint != prep.fingerprint:
            return ToolError(
                ErrorCode.INVALID_ARGUMENTS, text(lang, "key_mismatch"), Recovery.CORRECT_ARGUMENTS
            )
        if entry.state == "committed" and entry.result is not None:
            return Ok(entry.result)
        if entry.state == "failed" and entry.error is not None:
            return from_record(entry.error)
        if entry.state == "pending" and entry.lease_expired:
            expired = self.ledger.expire(entry.key)
            entry = expired if expired is not None else entry
        if entry.state == "unknown":
            unknown = ToolError(
                ErrorCode.OUTCOME_UNKNOWN,
                text(lang, "held_back", name=tool.name),
                Recovery.STOP_TURN,
            )
            return self._reconcile_or_unknown(
                tool, entry.key, entry.attempt, entry.arguments, unknown, lang
            )
        # its attempt is in flight (or its worker died moments ago): never Ok, never re-run
        return ToolError(
            ErrorCode.IN_PROGRESS, text(lang, "in_progress", name=tool.name), Recovery.STOP_TURN
        )


def _stopped(state: TurnState) -> bool:
    """Whether the turn stopped (read again after awaits that may have stopped it)."""
    return state.stopped


def _to_outcome(value: object) -> Outcome:
    """What a handler returned, as an outcome; raises if it is not one of plain JSON data."""
    return outcome_of(value)


class _RolledBackError(RuntimeError):
    """What the diagnostics show when a handler reported success after ``commit_in`` but the
    transaction holding the record did not commit."""

    def __init__(self, tool: str) -> None:
        super().__init__(
            f"{tool} returned success, but the transaction in which it called ctx.commit_in "
            "did not commit: the write is settled by the ledger instead"
        )


def _stray_cancellation(exc: BaseException) -> bool:
    """``exc`` is a ``CancelledError`` the handler raised (or let out of something it awaited)
    while nobody cancelled this task: a failure of the handler, not a cancellation of the
    turn, which must go up."""
    import asyncio  # only reached on this path: `import surefoot` stays light

    if not isinstance(exc, asyncio.CancelledError):
        return False
    task = asyncio.current_task()
    return task is not None and task.cancelling() == 0


def _safe_name(name: str) -> str:
    """A model-supplied tool name, trimmed so it cannot flood the message."""
    cleaned = "".join(ch for ch in name if ch.isprintable())
    return cleaned[:64] + ("…" if len(cleaned) > 64 else "")
