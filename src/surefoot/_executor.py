"""The executor: the one place where tool calls become outcomes (DESIGN §3).

For each call, in order::

    lookup ─► parse ─► validate ─► convergence guard ─► (write: claim key) ─► confirm?
        ─► run handler inside the boundary ─► outcome ─► (write: settle the ledger)

Nothing raised by a handler crosses this module: it is kept in the diagnostics and the caller
gets a safe ``ToolError``. Calls after a ``stop_turn`` outcome get ``not_executed``.
A maximal run of consecutive *async* read calls runs concurrently; sync handlers run inline
(no thread hop); a write is a barrier.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from ._context import ToolContext
from ._diagnostics import DiagnosticsSink, MemoryDiagnostics, Redactor, diagnostic_from
from ._ledger import Ledger, LedgerEntry, MemoryLedger, canonical_json, fingerprint
from ._ledger import idempotency_key as make_key
from ._messages import ToolCall
from ._outcome import Detail, ErrorCode, Ok, Outcome, Recovery, ToolError, from_record, to_record
from ._texts import Lang, text
from ._tools import ReconcileResult, Tool, ToolSet

Decision = Callable[[ToolCall, Tool], bool | None]
"""A confirmation policy: True approve, False deny, None ask (the turn pauses)."""


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One call and its one outcome."""

    call: ToolCall
    outcome: Outcome
    executed: bool
    key: str | None = None


@dataclass(slots=True)
class TurnState:
    """What the executor remembers within one user turn."""

    conversation_id: str
    user_turn: int
    lang: Lang = "es"
    stopped: bool = False
    failures: dict[str, tuple[str, int, ToolError]] = field(default_factory=dict)
    ordinals: dict[str, int] = field(default_factory=dict)
    decisions: dict[str, bool] = field(default_factory=dict)
    """Confirmation decisions by call id (True approved, False denied)."""


class _Prepared:
    """A validated call; its canonical form is computed only when something needs it."""

    __slots__ = ("_canonical", "_fingerprint", "args", "tool")

    def __init__(self, tool: Tool, args: BaseModel) -> None:
        self.tool = tool
        self.args = args
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
class BatchResult:
    """The records of a batch; ``pending`` is the call waiting for a person, if any."""

    records: tuple[CallRecord, ...]
    pending: ToolCall | None = None


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
    ) -> None:
        self.tools = tools
        self.ledger: Ledger = ledger if ledger is not None else MemoryLedger()
        self.diagnostics: DiagnosticsSink = (
            diagnostics if diagnostics is not None else MemoryDiagnostics()
        )
        self._redact = redactor or Redactor()
        self._guard_limit = guard_limit
        self._lease = lease_seconds
        self._app = app_context or {}

    # -- batches ---------------------------------------------------------------------------

    async def run_batch(
        self,
        calls: Sequence[ToolCall],
        state: TurnState,
        *,
        done: Sequence[CallRecord] = (),
    ) -> BatchResult:
        """Run ``calls`` in order; ``done`` are records of a paused run of the same batch."""
        records: list[CallRecord] = list(done)
        group: list[tuple[ToolCall, _Prepared]] = []
        for call in calls[len(done) :]:
            if state.stopped:
                if group:
                    records.extend(await self._flush(group, state))
                records.append(self._not_executed(call, state))
                continue
            prepared = self._prepare(call, state)
            if isinstance(prepared, ToolError):
                if group:
                    records.extend(await self._flush(group, state))
                records.append(self._finish(call, prepared, state, executed=False))
                continue
            if prepared.tool.effect == "read" and prepared.tool.is_async:
                group.append((call, prepared))
                continue
            if group:
                records.extend(await self._flush(group, state))
            if _stopped(state):
                records.append(self._not_executed(call, state))
                continue
            if prepared.tool.confirm and call.call_id not in state.decisions:
                return BatchResult(tuple(records), pending=call)
            records.append(await self._run_one(call, prepared, state))
        if group:
            records.extend(await self._flush(group, state))
        return BatchResult(tuple(records))

    async def _flush(
        self, group: list[tuple[ToolCall, _Prepared]], state: TurnState
    ) -> list[CallRecord]:
        if not group:
            return []
        items = list(group)
        group.clear()
        if len(items) == 1:
            return [await self._run_one(*items[0], state)]
        results = await asyncio.gather(*(self._run_one(c, p, state) for c, p in items))
        return list(results)

    def _not_executed(self, call: ToolCall, state: TurnState) -> CallRecord:
        error = ToolError(
            ErrorCode.NOT_EXECUTED, text(state.lang, "not_executed"), Recovery.STOP_TURN
        )
        return CallRecord(call, error, executed=False)

    def _finish(
        self,
        call: ToolCall,
        outcome: Outcome,
        state: TurnState,
        *,
        executed: bool,
        key: str | None = None,
        prep: _Prepared | None = None,
    ) -> CallRecord:
        if isinstance(outcome, ToolError):
            if outcome.recovery is Recovery.STOP_TURN:
                state.stopped = True
            if prep is not None and outcome.code != ErrorCode.NOT_EXECUTED:
                fp = prep.fingerprint
                _, count, _ = state.failures.get(fp, ("", 0, outcome))
                state.failures[fp] = (outcome.code, count + 1, outcome)
        return CallRecord(call, outcome, executed=executed, key=key)

    # -- before the handler ------------------------------------------------------------------

    def _prepare(self, call: ToolCall, state: TurnState) -> _Prepared | ToolError:
        lang = state.lang
        tool = self.tools.get(call.name)
        if tool is None:
            names = ", ".join(self.tools.names) or "-"
            return self._guarded(
                f"?{call.name}",
                ToolError(
                    ErrorCode.UNKNOWN_TOOL,
                    text(lang, "unknown_tool", name=_safe_name(call.name), names=names),
                    Recovery.CORRECT_ARGUMENTS,
                ),
                state,
            )
        raw = call.arguments
        if raw is None:
            raw_fp = fingerprint(tool.name, "raw:" + (call.raw_arguments or ""))
            detail = Detail(
                "$", "the arguments are not a JSON object", "a JSON object matching the schema"
            )
            return self._guarded(raw_fp, self._invalid(tool, (detail,), lang), state)
        validated = tool.validate(raw)
        if not isinstance(validated, BaseModel):
            raw_fp = fingerprint(tool.name, "raw:" + canonical_json(raw))
            return self._guarded(raw_fp, self._invalid(tool, validated, lang), state)
        prepared = _Prepared(tool, validated)
        if state.failures:  # only a turn with a failure on record can repeat one
            guard = self._guard(prepared.fingerprint, state)
            if guard is not None:
                return guard
        return prepared

    def _invalid(self, tool: Tool, details: tuple[Detail, ...], lang: Lang) -> ToolError:
        return ToolError(
            ErrorCode.INVALID_ARGUMENTS,
            text(lang, "invalid_arguments", name=tool.name),
            Recovery.CORRECT_ARGUMENTS,
            details=details,
        )

    def _guarded(self, fp: str, error: ToolError, state: TurnState) -> ToolError:
        """Return ``error``, escalated if this exact call already failed in the turn."""
        escalated = self._guard(fp, state)
        if escalated is not None:
            return escalated
        _, count, _ = state.failures.get(fp, ("", 0, error))
        state.failures[fp] = (error.code, count + 1, error)
        return error

    def _guard(self, fp: str, state: TurnState) -> ToolError | None:
        seen = state.failures.get(fp)
        if seen is None:
            return None
        code, count, first = seen
        state.failures[fp] = (code, count + 1, first)
        if count + 1 > self._guard_limit:
            return first.with_recovery(
                Recovery.STOP_TURN, text(state.lang, "guard_stop", code=code)
            )
        return first.with_recovery(
            Recovery.CHOOSE_ALTERNATIVE, text(state.lang, "guard_repeat", code=code)
        )

    # -- running ---------------------------------------------------------------------------

    async def _run_one(self, call: ToolCall, prep: _Prepared, state: TurnState) -> CallRecord:
        tool = prep.tool
        if tool.confirm and state.decisions.get(call.call_id) is False:
            denied = ToolError(
                ErrorCode.DENIED, text(state.lang, "denied"), Recovery.CHOOSE_ALTERNATIVE
            )
            return self._finish(call, denied, state, executed=False, prep=prep)
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
            return self._finish(call, outcome, state, executed=True, prep=prep)
        return await self._run_write(call, prep, state, ctx)

    async def _run_write(
        self, call: ToolCall, prep: _Prepared, state: TurnState, ctx: ToolContext
    ) -> CallRecord:
        tool = prep.tool
        ordinal = state.ordinals.get(prep.fingerprint, 0)
        state.ordinals[prep.fingerprint] = ordinal + 1
        key = make_key(
            conversation_id=state.conversation_id,
            user_turn=state.user_turn,
            tool=tool.name,
            call_fingerprint=prep.fingerprint,
            ordinal=ordinal,
        )
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
            return self._finish(call, outcome, state, executed=False, key=key, prep=prep)
        ctx.key, ctx.attempt, ctx._ledger = key, claim.entry.attempt, self.ledger
        result = await self._invoke(tool, prep, ctx)
        if isinstance(result, BaseException):
            self._diagnose(result, ctx)
            outcome = self._after_failure(tool, key, arguments, ctx, state.lang)
        else:
            outcome = self._settle(tool, key, ctx, result)
        return self._finish(call, outcome, state, executed=True, key=key, prep=prep)

    async def _invoke(
        self, tool: Tool, prep: _Prepared, ctx: ToolContext
    ) -> Outcome | BaseException:
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
            return _to_outcome(value)
        except Exception as exc:  # noqa: BLE001 - the error boundary: every failure becomes data
            return exc

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

    def _settle(self, tool: Tool, key: str, ctx: ToolContext, outcome: Outcome) -> Outcome:
        """Record the handler's outcome; report success only if the ledger agrees."""
        if isinstance(outcome, Ok):
            if ctx._committed_in_tx:
                return outcome
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
        self, *, conversation_id: str | None = None, lang: Lang = "en"
    ) -> list[LedgerEntry]:
        """Settle unconfirmed writes: expired ``pending`` become ``unknown``, then each
        ``unknown`` is decided by the ledger (atomic writes) or the tool's ``reconcile`` hook.
        Writes nobody can decide stay ``unknown``. Returns the entries as they now are."""
        settled: list[LedgerEntry] = []
        open_entries = [
            *self.ledger.entries(conversation_id=conversation_id, state="pending"),
            *self.ledger.entries(conversation_id=conversation_id, state="unknown"),
        ]
        for entry in open_entries:
            current: LedgerEntry | None = entry
            if entry.state == "pending" and entry.lease_expired:
                current = self.ledger.expire(entry.key)
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
        return ToolError(
            ErrorCode.OUTCOME_UNKNOWN, text(lang, "held_back", name=tool.name), Recovery.STOP_TURN
        )


def _stopped(state: TurnState) -> bool:
    """Whether the turn stopped (read again after awaits that may have stopped it)."""
    return state.stopped


def _to_outcome(value: object) -> Outcome:
    if isinstance(value, ToolError):
        return value
    if isinstance(value, Ok):
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if not isinstance(value, dict):
        msg = f"a tool must return a JSON object or a ToolError, not {type(value).__name__}"
        raise TypeError(msg)
    return Ok(value)


def _safe_name(name: str) -> str:
    """A model-supplied tool name, trimmed so it cannot flood the message."""
    cleaned = "".join(ch for ch in name if ch.isprintable())
    return cleaned[:64] + ("…" if len(cleaned) > 64 else "")
