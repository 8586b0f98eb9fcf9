"""The naive arm's loop: what common harnesses do by default, for comparison.

It asks the model, runs each call's handler directly and sends back what happened as an
ordinary result, then asks again, until the model answers without calls or the round limit:

* a returned ``ToolError``, a refused argument or an unknown tool: ``"Error: <message>"``;
* an exception (a failed read, a write whose fate is unknown): ``"Error: <its text>"``, and the
  loop goes on: no stop, no conservative reply;
* every write runs under a fresh key, so a repeated write is a second write: no idempotency,
  no convergence guard, no repeat rule, no confirmation, no grounding.

The ledger is still told about each write (the handlers of atomic writes commit their ledger
row with the effect; after a write that raised, the tool's reconcile hook says what happened,
for counting only), so what the writes did is counted the same way in every arm. What the
loop records for each call is the outcome the contract would have given it (an exception in
a write is ``outcome_unknown``), so its runs are scored like the others.
"""

from __future__ import annotations

import inspect
import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any

from .._context import ToolContext
from .._exceptions import ProviderError
from .._ledger import Ledger, canonical_json, fingerprint
from .._messages import (
    AssistantMessage,
    Message,
    ModelRequest,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    UserMessage,
)
from .._model import Model
from .._outcome import ErrorCode, Ok, Outcome, Recovery, ToolError
from .._records import CallRecord, Usage
from .._result import StopReason, TurnResult
from .._returns import outcome_of
from .._runner import OfferTools
from .._texts import Lang, text
from .._tools import ReconcileResult, Tool, ToolSet
from ._arms import plain_text

_fresh = itertools.count(1)
_REFUSED = frozenset({ErrorCode.UNKNOWN_TOOL, ErrorCode.INVALID_ARGUMENTS})


@dataclass(slots=True)
class NaiveTurn:
    """One naive turn: what the model was sent, what really happened, how it ended."""

    sent: list[Message]
    kept: list[Message]
    calls: list[CallRecord] = field(default_factory=list)
    requests: int = 0
    usage: Usage = field(default_factory=Usage)


class NaiveLoop:
    """A loop without the contract's decisions, over the same model, tools and ledger.

    Args:
        model: The model under evaluation.
        tools: The tools it may call.
        ledger: Where each write is recorded (under a fresh key per call).
        system: The system prompt.
        lang: The language of the outcomes recorded for scoring.
        app_context: Passed to handlers as ``ctx.app``.
        max_rounds: Tool rounds before the loop gives up, as in the other arms.
        offer: Which tools each request declares (None: all), as the agent would.
    """

    def __init__(
        self,
        *,
        model: Model,
        tools: ToolSet,
        ledger: Ledger,
        system: str | None = None,
        lang: Lang = "en",
        app_context: dict[str, Any] | None = None,
        max_rounds: int = 10,
        offer: OfferTools | None = None,
    ) -> None:
        self.model = model
        self.tools = tools
        self.ledger = ledger
        self.system = system
        self.lang: Lang = lang
        self.app_context = app_context or {}
        self.max_rounds = max_rounds
        self.offer = offer
        self.specs = tools.specs()

    async def run_turn(
        self, user_text: str, *, conversation_id: str
    ) -> tuple[TurnResult, list[Message]]:
        """Run one turn; the result, and the transcript with the true outcomes."""
        first = UserMessage(user_text)
        turn = NaiveTurn([first], [first])
        reason: StopReason = "round_limit"
        reply = ""
        for _ in range(self.max_rounds + 1):
            try:
                message = await self._ask(turn)
            except ProviderError as exc:
                reason, reply = "provider_error", exc.safe_message
                break
            if not message.tool_calls:
                reason, reply = "completed", message.text
                break
            if turn.requests > self.max_rounds:
                break
            await self._run_calls(turn, message, conversation_id)
        result = TurnResult(
            conversation_id=conversation_id,
            reply=reply,
            reply_author="model" if reason == "completed" else "harness",
            stop_reason=reason,
            model_requests=turn.requests,
            calls=tuple(turn.calls),
            usage=turn.usage,
        )
        return result, turn.kept

    async def _ask(self, turn: NaiveTurn) -> AssistantMessage:
        offered = self.specs
        if self.offer is not None:
            names = set(self.offer(turn.kept))
            offered = tuple(s for s in self.specs if s.name in names)
        request = ModelRequest(messages=tuple(turn.sent), tools=offered, system=self.system)
        turn.requests += 1
        response = await self.model.request(request)
        turn.usage = turn.usage.add(response.usage)
        turn.sent.append(response.message)
        turn.kept.append(response.message)
        return response.message

    async def _run_calls(self, turn: NaiveTurn, message: AssistantMessage, cid: str) -> None:
        sent: list[ToolResult] = []
        kept: list[ToolResult] = []
        for call in message.tool_calls:
            true, seen, key = await self._run_one(call, cid)
            ran = not (isinstance(true, ToolError) and true.code in _REFUSED)
            turn.calls.append(CallRecord(call, true, executed=ran, key=key))
            kept.append(ToolResult(call.call_id, call.name, true, key=key))
            sent.append(ToolResult(call.call_id, call.name, seen))
        turn.kept.append(ToolResultsMessage(tuple(kept)))
        turn.sent.append(ToolResultsMessage(tuple(sent)))

    async def _run_one(self, call: ToolCall, cid: str) -> tuple[Outcome, Outcome, str | None]:
        """The true outcome, what the model is shown, and the write's key."""
        tool = self.tools.get(call.name)
        if tool is None:
            names = ", ".join(self.tools.names)
            error = ToolError(
                ErrorCode.UNKNOWN_TOOL,
                text(self.lang, "unknown_tool", name=call.name[:64], names=names),
                Recovery.CORRECT_ARGUMENTS,
            )
            return error, _plain(error), None
        validated = tool.validate(call.arguments or {}, self.lang)
        if isinstance(validated, tuple):
            error = ToolError(
                ErrorCode.INVALID_ARGUMENTS,
                text(self.lang, "invalid_arguments", name=tool.name),
                Recovery.CORRECT_ARGUMENTS,
                details=validated,
            )
            return error, _plain(error), None
        arguments = validated.__dict__
        ctx = ToolContext(call.call_id, tool.name, cid, self.lang, app=self.app_context)
        if tool.effect == "write":
            self._claim(ctx, tool, call)
        try:
            value = await _call(tool, ctx, arguments)
            outcome = outcome_of(value)
        except Exception as exc:  # noqa: BLE001 - the naive way: the exception's text to the model
            return self._failed(tool, ctx, arguments), Ok({"result": f"Error: {exc}"}), ctx.key
        if ctx.key is not None and not ctx._committed_in_tx:
            if isinstance(outcome, Ok):
                self.ledger.finalize(ctx.key, ctx.attempt, "committed", result=outcome.data)
            else:
                self.ledger.finalize(ctx.key, ctx.attempt, "failed")
        return outcome, _plain(outcome), ctx.key

    def _claim(self, ctx: ToolContext, tool: Tool, call: ToolCall) -> None:
        """A fresh key for this one call: nothing ties it to an earlier identical call."""
        key = f"naive_{time.time_ns()}_{next(_fresh)}"
        canonical = canonical_json(call.arguments or {})
        claim = self.ledger.claim(
            key=key,
            conversation_id=ctx.conversation_id,
            tool=tool.name,
            fingerprint=fingerprint(tool.name, canonical),
            arguments=call.arguments or {},
            lease_seconds=300.0,
        )
        ctx.key, ctx.attempt, ctx._ledger = key, claim.entry.attempt, self.ledger

    def _failed(self, tool: Tool, ctx: ToolContext, arguments: dict[str, Any]) -> ToolError:
        """The outcome the contract gives a handler that raised (a write: unknown). What a
        write that raised really did is recorded in the ledger, for counting only: its own
        commit, else the tool's reconcile hook (the model is told none of it)."""
        if tool.effect == "read":
            message = text(self.lang, "unavailable", name=tool.name)
            return ToolError(ErrorCode.UNAVAILABLE, message, Recovery.CHOOSE_ALTERNATIVE)
        if ctx.key is not None and not ctx._committed_in_tx:
            self._record_truth(tool, ctx.key, ctx.attempt, arguments)
        message = text(self.lang, "outcome_unknown", name=tool.name)
        return ToolError(ErrorCode.OUTCOME_UNKNOWN, message, Recovery.STOP_TURN)

    def _record_truth(self, tool: Tool, key: str, attempt: int, arguments: dict[str, Any]) -> None:
        verdict: ReconcileResult = None
        if tool.atomic:
            verdict = "absent"  # its effect commits only with the ledger's record
        elif tool.reconcile is not None:
            try:
                verdict = tool.reconcile(key, json.loads(canonical_json(arguments)))
            except Exception:  # noqa: BLE001 - a failing check decides nothing
                verdict = None
        if isinstance(verdict, Ok):
            self.ledger.finalize(key, attempt, "committed", result=verdict.data)
        else:
            self.ledger.finalize(key, attempt, "failed" if verdict == "absent" else "unknown")


def _plain(outcome: Outcome) -> Outcome:
    return outcome if isinstance(outcome, Ok) else Ok({"result": plain_text(outcome)})


async def _call(tool: Tool, ctx: ToolContext, arguments: dict[str, Any]) -> object:
    value = tool.handler(ctx, **arguments) if tool.wants_context else tool.handler(**arguments)
    if inspect.isawaitable(value):
        value = await value
    return value
