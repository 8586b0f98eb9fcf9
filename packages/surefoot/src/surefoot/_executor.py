"""The executor: the one place where tool calls become outcomes.

For each call, in order::

    lookup ─► parse ─► validate ─► (write: done in an earlier round? ─► already_done)
        ─► (write: mint its key) ─► convergence guard ─► grounded? ─► (would wait for a
        person: the tool's precheck) ─► confirmed? (a policy may ask only some calls)
        ─► (write: claim the key) ─► run the handler inside the boundary ─► check what it
        returned ─► outcome ─► (write: settle the ledger, ``_settle.py``)

Grounding (``_grounding.py``) checks the arguments a tool declares ``grounded`` against the
turn's ``user_texts``: one the person did not say is ``not_in_message``; one derived from
their words (a conversion, a product) makes the call wait for their confirmation, exactly as
a ``confirm=True`` write does.

Nothing a handler raises — or returns that is not an outcome of plain JSON data — crosses this
module: it is kept in the diagnostics and the caller gets a safe ``ToolError``. Calls after a
``stop_turn`` outcome get ``not_executed``. A maximal run of consecutive *async* read calls
runs concurrently; sync handlers run inline (no thread hop); a write is a barrier.

A write's idempotency key is derived from the user, the conversation, the user turn, the tool,
the validated arguments and the ordinal of that identical call within the turn. Everything in
``TurnState`` (``_state.py``) that decides a key (the ordinals) or an outcome (the convergence
guard's failures, the repeat rule's successes) is a function of the turn's calls, their rounds
and their recorded outcomes: ``replay`` rebuilds it from the journal, so a resumed turn mints
exactly the keys the live run minted, and a genuinely new call never collides with an old one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from inspect import isawaitable
from typing import TYPE_CHECKING, Any

from ._context import ToolContext
from ._diagnostics import DiagnosticsSink, MemoryDiagnostics, Redactor, diagnostic_from
from ._frozen import quick_init
from ._grounding import Derived, check, refusal
from ._heartbeat import HEARTBEAT
from ._ledger import Ledger, LedgerEntry, MemoryLedger, canonical_json, fingerprint, supplied_key
from ._ledger import idempotency_key as make_key
from ._messages import ToolCall
from ._outcome import Detail, ErrorCode, Ok, Outcome, Recovery, ToolError
from ._records import CallRecord
from ._replies import described
from ._returns import outcome_of
from ._settle import Settler
from ._state import TurnState
from ._texts import Lang, text
from ._tools import Tool, ToolSet
from ._tracing import NO_TRACING, Tracer

if TYPE_CHECKING:
    from pydantic import BaseModel

Decision = Callable[[ToolCall, Tool], bool | None]
"""A confirmation policy: True approve, False deny, None ask (the turn pauses)."""


class _Prepared:
    """A validated call; its canonical form is computed only when something needs it."""

    __slots__ = ("_canonical", "_fingerprint", "args", "derived", "key", "tool")

    def __init__(self, tool: Tool, args: BaseModel) -> None:
        self.tool = tool
        self.args = args
        self.key: str | None = None
        self.derived: tuple[Derived, ...] = ()
        """Grounded values derived from the person's words: the call needs their yes."""
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


@quick_init
@dataclass(frozen=True, slots=True)
class PendingCall:
    """A call that waits for a person's decision, bound to its exact identity."""

    call: ToolCall
    key: str
    fingerprint: str
    arguments: dict[str, Any]
    derived: tuple[Derived, ...] = ()
    """Why a call that is no ``confirm`` write waits: values derived from the person's words."""
    question: str | None = None
    """What a ``Confirm`` policy asks the person (None: the harness's own words)."""


@quick_init
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
        self.settler = Settler(tools, self.ledger, self._diagnose)
        self._unavailable_errors: dict[tuple[str, Lang], ToolError] = {}

    def reconcile(
        self, *, conversation_id: str | None = None, lang: Lang = "en", orphaned: bool = False
    ) -> list[LedgerEntry]:
        """Settle unconfirmed writes (``Settler.reconcile``); nothing is run again. Returns
        the entries as they now are."""
        return self.settler.reconcile(conversation_id=conversation_id, lang=lang, orphaned=orphaned)

    # -- batches ---------------------------------------------------------------------------

    async def run_batch(self, calls: Sequence[ToolCall], state: TurnState) -> BatchResult:
        """Run ``calls`` (one response's) in order; stop early (``pending``) at a call that
        needs a person."""
        state.round += 1
        records: list[CallRecord] = []
        group: list[tuple[ToolCall, _Prepared]] = []
        tools = self.tools
        for call in calls:
            tool = tools.get(call.name)
            concurrent = tool is not None and tool.effect == "read" and tool.is_async
            # ``state.stopped`` is read again after every await: a call run may stop the turn
            if group and (not concurrent or state.stopped):
                records.extend(await self._flush(group, state))
            if state.stopped:  # checked before preparing: a skipped call takes no ordinal
                records.append(self._traced(_not_executed(call, state)))
                continue
            prepared = self._prepare(call, tool, state)
            if isinstance(prepared, ToolError):
                if group:
                    records.extend(await self._flush(group, state))
                refused = CallRecord(call, state.stop_if(prepared), executed=False)
                records.append(self._traced(refused))
            elif concurrent:
                group.append((call, prepared))
            elif _asks(prepared) and (waiting := self._waiting(call, prepared, state)) is not None:
                return BatchResult(tuple(records), pending=waiting)
            else:
                records.append(await self._run_one(call, prepared, state))
        if group:
            records.extend(await self._flush(group, state))
        return BatchResult(tuple(records))

    def replay(
        self, state: TurnState, batches: Iterable[Sequence[tuple[ToolCall, Outcome]]]
    ) -> None:
        """Bring ``state`` to where the live run stood after ``batches``: the turn's earlier
        rounds, each its calls with their recorded outcomes, in order. Nothing runs;
        ordinals, the convergence guard and the repeat rule continue exactly as they would
        have."""
        for batch in batches:
            state.round += 1
            for call, outcome in batch:
                self._replay_one(call, outcome, state)

    def _replay_one(self, call: ToolCall, outcome: Outcome, state: TurnState) -> None:
        if isinstance(outcome, ToolError) and outcome.code == ErrorCode.NOT_EXECUTED:
            return  # never prepared: the turn had stopped, or the response was cut off
        prepared = _validated(self.tools.get(call.name), call, state.lang)
        if isinstance(prepared, _Refused):
            identity = prepared.identity
        elif isinstance(outcome, ToolError) and outcome.code == ErrorCode.ALREADY_DONE:
            state.repeated(
                prepared.fingerprint, prepared.tool.name, _describer(prepared.tool, state.lang)
            )
            state.stop_if(outcome)
            return
        else:
            self._mint(prepared, state, call.call_id)
            identity = prepared.fingerprint
            if isinstance(outcome, Ok) and prepared.tool.effect == "write":
                state.succeeded(identity, outcome.data)
        if isinstance(outcome, ToolError):
            state.note_failure(identity, outcome)
            state.stop_if(outcome)

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

    def _decision(self, call: ToolCall, prepared: _Prepared, state: TurnState) -> bool | None:
        """A person's decision on exactly this call (by its key, never by its call id, which
        some servers reuse for every call): True, False, or None (nobody decided yet)."""
        del call
        return state.decisions.get(prepared.key or "")

    def _waiting(self, call: ToolCall, prepared: _Prepared, state: TurnState) -> PendingCall | None:
        """The call as it waits for a person: nobody decided on it yet, and its tool confirms
        (a ``Confirm`` policy: asks a question of this call) or a grounded value was derived
        from the person's words. A policy that raises is diagnosed and the call waits with
        the harness's own question: a person decides."""
        tool = prepared.tool
        if not _asks(prepared) or self._decision(call, prepared, state) is not None:
            return None
        question = None
        if tool.confirm:
            ctx = self._context(call, tool, state.conversation_id, state.lang)
            asks, question = self._asked(tool, prepared.args.__dict__, ctx)
            if not asks and not prepared.derived:
                return None
        assert prepared.key is not None  # confirm only applies to writes, which have keys
        # what the person reads: the validated values of the arguments the call gave (an
        # optional one it left out is not shown as null); the key binds the full identity
        given = call.arguments or {}
        arguments = {k: v for k, v in json.loads(prepared.canonical).items() if k in given}
        return PendingCall(
            call, prepared.key, prepared.fingerprint, arguments, prepared.derived, question
        )

    def question_for(self, call: ToolCall, conversation_id: str, lang: Lang) -> str | None:
        """The question a ``Confirm`` policy asks of ``call`` now (None: none, or its tool
        confirms every call): what a pending approval shows after a restart."""
        tool = self.tools.get(call.name)
        if tool is None or not callable(tool.confirm) or call.arguments is None:
            return None
        validated = tool.validate(call.arguments, lang)
        if isinstance(validated, tuple):
            return None
        ctx = self._context(call, tool, conversation_id, lang)
        return self._asked(tool, validated.__dict__, ctx)[1]

    def _asked(
        self, tool: Tool, arguments: dict[str, Any], ctx: ToolContext
    ) -> tuple[bool, str | None]:
        """Whether ``tool``'s policy asks about this call, and its question. A policy that
        raises is diagnosed, and the call waits with the harness's own words."""
        try:
            return tool.confirmation(arguments, ctx)
        except Exception as exc:  # noqa: BLE001 - the error boundary, as for handlers
            self._diagnose(exc, ctx)
            return True, None

    def _context(self, call: ToolCall, tool: Tool, conversation_id: str, lang: Lang) -> ToolContext:
        return ToolContext(call.call_id, tool.name, conversation_id, lang, app=self._app)

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
            state.failed(prep, outcome)
            state.stop_if(outcome)
        elif prep.tool.effect == "write":
            state.succeeded(prep.fingerprint, outcome.data)
        return CallRecord(call, outcome, executed, prep.key)

    # -- before the handler ------------------------------------------------------------------

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

    def _prepare(
        self, call: ToolCall, tool: Tool | None, state: TurnState
    ) -> _Prepared | ToolError:
        prepared = _validated(tool, call, state.lang)
        if isinstance(prepared, _Refused):
            refusal = _refusal(self.tools, call, prepared, state.lang)
            return state.guarded(prepared.identity, refusal, self._guard_limit)
        tool = prepared.tool
        if tool.effect == "write":
            if state.done and not tool.repeatable:
                describe = _describer(tool, state.lang)
                repeated = state.repeated(prepared.fingerprint, tool.name, describe)
                if repeated is not None:  # done in an earlier round: not run, no key taken
                    return repeated
            self._mint(prepared, state, call.call_id)
        if state.has_failures():  # only a turn with a failure on record can repeat one
            guard = state.guard(prepared.fingerprint, self._guard_limit)
            if guard is not None:
                return guard
        refused = self._ground(prepared, state) if tool.grounded else None
        if refused is None and tool.precheck is not None:
            refused = _prechecked(self, call, prepared, state)
        if refused is not None:
            state.failed(prepared, refused)
            return refused
        return prepared

    def _ground(self, prepared: _Prepared, state: TurnState) -> ToolError | None:
        """``not_in_message`` if a grounded argument is not in the person's words; else None,
        with the values derived from their words (if any) kept on ``prepared``. Read from
        the turn's user texts only, so a resumed turn finds exactly what the live run found
        (its key was minted before: a refused call takes its ordinal either way)."""
        tool = prepared.tool
        words = state.words() if tool.grounded else None
        if words is None:
            return None
        verdict = check(tool.grounded, prepared.args.__dict__, words)
        if not verdict.missing:
            prepared.derived = verdict.derived
            return None
        return refusal(tool.name, verdict.missing, state.lang)

    # -- running ---------------------------------------------------------------------------

    async def _run_one(self, call: ToolCall, prep: _Prepared, state: TurnState) -> CallRecord:
        tracer = self.tracer
        if tracer is NO_TRACING:  # nobody listens: no scope
            return await self._run(call, prep, state)
        with tracer.tool_call(call, effect=prep.tool.effect) as trace:
            record = await self._run(call, prep, state)
            trace.finished(record, self.ledger)
        return record

    async def _run(self, call: ToolCall, prep: _Prepared, state: TurnState) -> CallRecord:
        tool = prep.tool
        if _asks(prep) and self._decision(call, prep, state) is False:
            why = "denied" if tool.confirm else "denied_derived"
            denied = ToolError(ErrorCode.DENIED, text(state.lang, why), Recovery.CHOOSE_ALTERNATIVE)
            return self._finish(call, denied, state, prep, executed=False)
        conversation_id, lang = state.conversation_id, state.lang
        if tool.effect != "read":
            ctx = self._context(call, tool, conversation_id, lang)
            return await self._run_write(call, prep, state, ctx)
        # a read's context is made only for a handler that takes one, or for a diagnostic
        context = self._context(call, tool, conversation_id, lang) if tool.wants_context else None
        outcome = await _invoke(tool, prep, context)
        if isinstance(outcome, BaseException):
            self._diagnose(outcome, context or self._context(call, tool, conversation_id, lang))
            outcome = self._unavailable(tool.name, lang)
        return self._finish(call, outcome, state, prep, executed=True)

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
            outcome = self.settler.settled(tool, claim.entry, prep.fingerprint, state.lang)
            return self._finish(call, outcome, state, prep, executed=False)
        ctx.key, ctx.attempt, ctx._ledger = key, claim.entry.attempt, self.ledger
        attempt = claim.entry.attempt
        try:
            with HEARTBEAT.keep(
                lambda: self.ledger.renew(key, attempt, self._lease), every=self._lease / 3
            ):
                result = await _invoke(tool, prep, ctx)
        except BaseException:  # interrupted (Ctrl-C, cancelled): its fate is now unknown
            self.settler.abandon(tool, key, attempt, state.lang)
            raise
        if isinstance(result, BaseException):
            self._diagnose(result, ctx)
            outcome = self.settler.after_failure(tool, key, arguments, ctx, state.lang)
        else:
            outcome = self.settler.settle(tool, key, arguments, ctx, result)
        return self._finish(call, outcome, state, prep, executed=True)

    def _unavailable(self, tool: str, lang: Lang) -> ToolError:
        """What the model gets when a read fails: made once per tool and language (an
        outcome is immutable)."""
        error = self._unavailable_errors.get((tool, lang))
        if error is None:
            error = ToolError(
                ErrorCode.UNAVAILABLE,
                text(lang, "unavailable", name=tool),
                Recovery.CHOOSE_ALTERNATIVE,
            )
            self._unavailable_errors[tool, lang] = error
        return error

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


def _validated(tool: Tool | None, call: ToolCall, lang: Lang) -> _Prepared | _Refused:
    """The validated call to ``tool`` (None: the tool the call names does not exist), or why
    it cannot run (with its identity as it was sent)."""
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


async def _invoke(tool: Tool, prep: _Prepared, ctx: ToolContext | None) -> Outcome | BaseException:
    """Run the handler (``ctx``: for a handler that takes one); what it raises, or returns
    that is not an outcome of plain JSON data, comes back as the exception to diagnose (the
    error boundary)."""
    kwargs = prep.args.__dict__  # the validated field values, by name
    try:
        if tool.is_async:
            value = await (
                tool.handler(ctx, **kwargs) if tool.wants_context else tool.handler(**kwargs)
            )
        else:
            value = tool.handler(ctx, **kwargs) if tool.wants_context else tool.handler(**kwargs)
            if type(value) is not dict and isawaitable(value):
                value = await value  # an async function behind a plain decorator
        return outcome_of(value)
    except Exception as exc:  # noqa: BLE001 - the error boundary: every failure becomes data
        return exc
    except BaseException as exc:
        if _stray_cancellation(exc):
            return exc
        raise


def _refusal(tools: ToolSet, call: ToolCall, refused: _Refused, lang: Lang) -> ToolError:
    """Why a call that cannot run is refused: its tool is not declared (the declared names
    listed), or its arguments are not valid (the problems as ``details``)."""
    if refused.details is None:
        names = ", ".join(tools.names) or "-"
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


def _prechecked(
    executor: Executor, call: ToolCall, prepared: _Prepared, state: TurnState
) -> ToolError | None:
    """The error a tool's precheck finds in a call that would wait for a person, before
    anyone is asked (None: ask, or a person already decided on this call). A precheck that
    raises is diagnosed, and the person is asked."""
    tool = prepared.tool
    assert tool.precheck is not None
    if not _asks(prepared) or executor._decision(call, prepared, state) is not None:
        return None
    ctx = executor._context(call, tool, state.conversation_id, state.lang)
    try:
        return tool.precheck(prepared.args.__dict__, ctx)
    except Exception as exc:  # noqa: BLE001 - the error boundary, as for handlers
        executor._diagnose(exc, ctx)
        return None


def _not_executed(call: ToolCall, state: TurnState) -> CallRecord:
    error = ToolError(ErrorCode.NOT_EXECUTED, text(state.lang, "not_executed"), Recovery.STOP_TURN)
    return CallRecord(call, error, executed=False)


def _describer(tool: Tool, lang: Lang) -> Callable[[dict[str, Any]], str]:
    """How the repeat rule words a write's first result for the model, in ``lang``."""
    return lambda data: described(tool, data, lang)


def _asks(prepared: _Prepared) -> bool:
    """Whether the call runs only once a person says yes: a ``confirm`` write, or a write
    with a grounded value derived from the person's words."""
    return bool(prepared.tool.confirm) or bool(prepared.derived)


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
