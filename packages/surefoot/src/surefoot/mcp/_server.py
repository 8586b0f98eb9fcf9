"""Serving a ``ToolSet`` over the Model Context Protocol, through the executor.

Every ``tools/call`` is one call of a one-call batch on an ``Executor``: validation, the
ledger's claim and settlement, confirmations and the error boundary are the ones every other
caller gets. What MCP adds is carried in the result:

* each tool is listed with a human ``title``, its input schema, an ``outputSchema`` that
  describes its ``structuredContent`` (the result from the handler's return annotation, or
  the error envelope) and annotations from its declaration (``destructiveHint`` for every
  write not declared ``destructive=False``);
* a success is ``structuredContent`` (the data object) and its JSON as text;
* an error is ``isError: true`` and ``structuredContent``
  ``{"error": {"code", "message", "recovery", "recoverable", "details"}}``, with the same JSON
  as text (a client that reads only text misses nothing);
* an error also carries ``_meta["io.modelcontextprotocol/toolFailure"]`` shaped like the
  ToolFailure *proposal* for MCP (not part of the specification): ``class`` (capability,
  reliability or governance), ``code`` (the stable code), ``retryable`` (whether the very same
  call may succeed later), ``correlationId`` (the call's id in the server's diagnostics) and
  ``agentGuidance`` (the safe message), for clients that read that key and not the envelope;
* a request the protocol itself refuses (``params`` of the wrong shape) is a JSON-RPC
  ``invalid params`` error naming each field and what it must be, never pydantic's text;
* a write called with ``_meta[IDEMPOTENCY_KEY]`` is keyed by that key alone: a client's retry
  with the same key is answered from the ledger, never run twice;
* a tool declared ``confirm=True`` is asked to the person through the client (the
  ``input_required`` round of 2026-07-28, or an ``elicitation/create`` request on older
  connections) and refused with ``denied`` when the client cannot ask.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Collection
from typing import Any, Final

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware
from mcp.shared.exceptions import MCPError
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from .._executor import Executor, PendingCall
from .._messages import ToolCall
from .._outcome import Detail, ErrorCode, Ok, Outcome, Recovery, ToolError, dumps
from .._state import TurnState
from .._texts import Lang, text
from .._tools import Tool, ToolSet

IDEMPOTENCY_KEY: Final = "surefoot/idempotency-key"
"""The request ``_meta`` key under which a client sends a write's idempotency key."""
CONFIRMATION: Final = "surefoot/confirmation"
"""The key of the confirmation among a call's input requests and responses."""
TOOL_FAILURE: Final = "io.modelcontextprotocol/toolFailure"
"""The result ``_meta`` key of the MCP ToolFailure proposal (a proposal, not the spec)."""
_GOVERNANCE: Final = frozenset({ErrorCode.DENIED, ErrorCode.NOT_IN_MESSAGE})
_RELIABILITY: Final = frozenset(
    {ErrorCode.UNAVAILABLE, ErrorCode.OUTCOME_UNKNOWN, ErrorCode.IN_PROGRESS}
)
_RETRYABLE: Final = frozenset({ErrorCode.UNAVAILABLE, ErrorCode.IN_PROGRESS})
_APPROVE: Final = "approve"
_MAX_KEY: Final = 200


def error_content(error: ToolError) -> dict[str, Any]:
    """The ``structuredContent`` of an error result."""
    return {
        "error": {
            "code": error.code,
            "message": error.message,
            "recovery": error.recovery.value,
            "recoverable": error.recoverable,
            "details": [d.to_json() for d in error.details],
        }
    }


def tool_failure(error: ToolError, correlation_id: str) -> dict[str, Any]:
    """``error`` as the ToolFailure proposal's ``_meta`` value. Only ``unavailable`` and
    ``in_progress`` are ``retryable``: an ``outcome_unknown`` write must never be sent again
    blindly, and a call with wrong arguments needs new ones, not a retry."""
    if error.code in _GOVERNANCE:
        kind = "governance"
    elif error.code in _RELIABILITY or error.recovery is Recovery.STOP_TURN:
        kind = "reliability"
    else:
        kind = "capability"
    return {
        "class": kind,
        "code": error.code,
        "retryable": error.code in _RETRYABLE,
        "correlationId": correlation_id,
        "agentGuidance": error.message,
    }


ERROR_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "recovery": {"enum": [r.value for r in Recovery]},
                "recoverable": {"type": "boolean"},
                "details": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "field": {"type": "string"},
                            "problem": {"type": "string"},
                            "expected": {"type": "string"},
                        },
                        "required": ["field", "problem"],
                        "additionalProperties": False,
                    },
                },
            },
            "required": ["code", "message", "recovery", "recoverable", "details"],
            "additionalProperties": False,
        }
    },
    "required": ["error"],
    "additionalProperties": False,
}
"""The JSON Schema of an error result's ``structuredContent``."""


def output_schema(tool: Tool) -> dict[str, Any]:
    """The tool's MCP ``outputSchema``: its ``structuredContent`` is its result (described by
    the handler's return annotation) or, with ``isError``, the error envelope. Some clients
    check every ``structuredContent`` against it, errors included, so it names both."""
    result = dict(tool.result_schema())
    definitions = result.pop("$defs", None)
    schema: dict[str, Any] = {"type": "object", "anyOf": [result, ERROR_SCHEMA]}
    if definitions:
        schema["$defs"] = definitions
    return schema


def call_result(outcome: Outcome, correlation_id: str | None = None) -> types.CallToolResult:
    """The MCP result of one outcome: ``structuredContent`` and the same JSON as text; an
    error also under ``_meta[TOOL_FAILURE]`` (``correlation_id``: the call's id, if known)."""
    if isinstance(outcome, Ok):
        return types.CallToolResult(
            content=[types.TextContent(text=dumps(outcome.data))],
            structured_content=outcome.data,
        )
    content = error_content(outcome)
    correlation_id = correlation_id or "mcp_" + uuid.uuid4().hex[:20]
    return types.CallToolResult(
        content=[types.TextContent(text=dumps(content))],
        structured_content=content,
        is_error=True,
        _meta={TOOL_FAILURE: tool_failure(outcome, correlation_id)},
    )


def tool_annotations(tool: Tool, *, open_world: bool) -> types.ToolAnnotations:
    """What the tool's declaration says about its effect, as MCP hints (with its title)."""
    hints = tool.annotations
    return types.ToolAnnotations(
        title=tool.human_title,
        read_only_hint=hints["readOnlyHint"],
        destructive_hint=hints["destructiveHint"],
        idempotent_hint=hints["idempotentHint"],
        open_world_hint=open_world,
    )


class ToolServer:
    """An MCP server for ``tools``, running every call through ``executor``.

    ``executor`` is normally the application's own (``agent.executor``), so MCP calls share its
    ledger, diagnostics and tracer; by default a fresh one with an in-memory ledger.
    ``open_world`` names the tools that reach outside the application's own data (a web
    service, another person's inbox); the others are declared closed-world.
    ``conversation_id`` is where the ledger files this server's writes.
    """

    def __init__(
        self,
        tools: ToolSet,
        *,
        executor: Executor | None = None,
        name: str = "surefoot",
        version: str = "",
        instructions: str | None = None,
        lang: Lang = "en",
        conversation_id: str = "mcp",
        open_world: Collection[str] = (),
    ) -> None:
        self.tools = tools
        self.executor = executor if executor is not None else Executor(tools)
        if self.executor.tools is not tools:
            msg = "the executor must run the same ToolSet the server lists"
            raise ValueError(msg)
        self.lang: Lang = lang
        self.conversation_id = conversation_id
        self._open_world = frozenset(open_world)
        self.server: Server[Any] = Server(
            name,
            version=version,
            instructions=instructions,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )
        self.server.middleware.append(_PlainRequestErrors())
        self._declared: list[types.Tool] | None = None

    # -- transports ------------------------------------------------------------------------

    async def run_stdio(self) -> None:
        """Serve one client over this process's stdin and stdout until it disconnects."""
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read_stream, write_stream):
            await self.server.run(
                read_stream, write_stream, self.server.create_initialization_options()
            )

    def http_app(self, *, path: str = "/mcp", host: str = "127.0.0.1") -> Any:
        """A Streamable HTTP ASGI application serving at ``path`` (give ``host`` as the
        address it listens on: a local one keeps DNS-rebinding protection on)."""
        return self.server.streamable_http_app(streamable_http_path=path, host=host)

    # -- handlers --------------------------------------------------------------------------

    def declarations(self) -> list[types.Tool]:
        """The tools as MCP declares them (built once: the set does not change)."""
        if self._declared is None or len(self._declared) != len(self.tools):
            self._declared = [
                types.Tool(
                    name=tool.name,
                    title=tool.human_title,
                    description=tool.description,
                    input_schema=tool.spec().parameters,
                    output_schema=output_schema(tool),
                    annotations=tool_annotations(tool, open_world=tool.name in self._open_world),
                )
                for tool in self.tools
            ]
        return self._declared

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        del ctx, params
        return types.ListToolsResult(tools=self.declarations())

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        meta = dict(params.meta or {})
        given = meta.get(IDEMPOTENCY_KEY)
        if given is not None and not _valid_key(given):
            return call_result(self._bad_key(params.name))
        call = ToolCall("mcp_" + uuid.uuid4().hex[:20], params.name, params.arguments or {})
        # without a key every call is a new write: a random key keeps it apart from all others
        key = given if isinstance(given, str) else "anon-" + uuid.uuid4().hex
        keys = {call.call_id: key}
        batch = await self.executor.run_batch([call], self._state(keys))
        if batch.pending is not None:
            decision = await self._decide(ctx, params, batch.pending)
            if isinstance(decision, types.InputRequiredResult):
                return decision
            if decision is None:
                return call_result(self._unconfirmable(params.name))
            state = self._state(keys)
            state.decisions[batch.pending.key] = decision
            batch = await self.executor.run_batch([call], state)
        (record,) = batch.records
        return call_result(record.outcome, call.call_id)

    def _state(self, keys: dict[str, str]) -> TurnState:
        return TurnState(self.conversation_id, 0, lang=self.lang, given_keys=keys)

    # -- confirmations ---------------------------------------------------------------------

    async def _decide(
        self,
        ctx: ServerRequestContext[Any],
        params: types.CallToolRequestParams,
        pending: PendingCall,
    ) -> bool | types.InputRequiredResult | None:
        """The person's decision on ``pending`` (True/False), a request for it, or None when
        this client cannot ask. A write already in the ledger was approved when it was first
        claimed: its retry is answered from the ledger without asking again."""
        if self.executor.ledger.get(pending.key) is not None:
            return True
        if not _can_elicit(ctx):
            return None
        message = text(
            self.lang,
            "confirm_prompt",
            tool=pending.call.name,
            arguments=json.dumps(pending.arguments, ensure_ascii=False, sort_keys=True),
        )
        schema = {
            "type": "object",
            "properties": {
                _APPROVE: {"type": "boolean", "title": text(self.lang, "confirm_field")}
            },
            "required": [_APPROVE],
        }
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            answer = (params.input_responses or {}).get(CONFIRMATION)
            if params.request_state == pending.fingerprint and isinstance(
                answer, types.ElicitResult
            ):
                return _approved(answer)
            request = types.ElicitRequest(
                params=types.ElicitRequestFormParams(message=message, requested_schema=schema)
            )
            return types.InputRequiredResult(
                input_requests={CONFIRMATION: request}, request_state=pending.fingerprint
            )
        try:
            answer = await ctx.session.elicit_form(
                message, schema, related_request_id=ctx.request_id
            )
        except Exception:  # noqa: BLE001 - a client that cannot answer has not approved
            return None
        return _approved(answer)

    def _unconfirmable(self, name: str) -> ToolError:
        return ToolError(
            ErrorCode.DENIED,
            text(self.lang, "confirm_unsupported", name=name),
            Recovery.CHOOSE_ALTERNATIVE,
        )

    def _bad_key(self, name: str) -> ToolError:
        return ToolError(
            ErrorCode.INVALID_ARGUMENTS,
            text(self.lang, "invalid_arguments", name=name),
            Recovery.CORRECT_ARGUMENTS,
            details=(
                Detail(
                    f"_meta.{IDEMPOTENCY_KEY}",
                    "is not a usable idempotency key",
                    f"a non-empty string of at most {_MAX_KEY} characters",
                ),
            ),
        )


_PROBLEMS: Final = {
    "missing": "is required",
    "extra_forbidden": "is not a known parameter",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "int_parsing": "must be an integer",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "bool_type": "must be a boolean",
    "bool_parsing": "must be a boolean",
    "list_type": "must be an array",
    "literal_error": "is not one of the allowed values",
    "enum": "is not one of the allowed values",
}


def request_problems(error: ValidationError) -> list[dict[str, str]]:
    """What is wrong with a request's ``params``, in the protocol's own field names (from
    pydantic's error types and locations only: its text, which repeats the client's input
    and names server classes, is left out)."""
    problems: list[dict[str, str]] = []
    for item in error.errors(include_url=False, include_input=False, include_context=False):
        parts = [str(part) for part in item["loc"]] or ["params"]
        found = {
            "field": ".".join(parts),
            "problem": _PROBLEMS.get(item["type"], "is not valid"),
        }
        if found not in problems:
            problems.append(found)
    return problems


class _PlainRequestErrors(ServerMiddleware[Any]):
    """Turns the SDK's bare "Invalid request parameters" for a malformed request into one that
    says which fields are wrong and how (``data.problems`` lists them)."""

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        try:
            return await call_next(ctx)
        except ValidationError as exc:
            problems = request_problems(exc)
            said = "; ".join(f"{p['field']} {p['problem']}" for p in problems)
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Invalid request parameters for {ctx.method}: {said}",
                data={"problems": problems},
            ) from None


def _valid_key(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= _MAX_KEY and value.isprintable()


def _can_elicit(ctx: ServerRequestContext[Any]) -> bool:
    capabilities = ctx.session.client_capabilities
    if capabilities is None or capabilities.elicitation is None:
        return False
    elicitation = capabilities.elicitation
    # an empty elicitation capability means form mode (the only mode before 2025-11-25)
    return elicitation.form is not None or elicitation.url is None


def _approved(answer: types.ElicitResult) -> bool:
    return answer.action == "accept" and (answer.content or {}).get(_APPROVE) is True


__all__ = [
    "CONFIRMATION",
    "ERROR_SCHEMA",
    "IDEMPOTENCY_KEY",
    "ToolServer",
    "call_result",
    "output_schema",
    "request_problems",
    "tool_annotations",
]
