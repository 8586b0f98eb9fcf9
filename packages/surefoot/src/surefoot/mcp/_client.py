"""The tools of any MCP server, as surefoot tools.

Each listed tool becomes a ``RemoteTool``: its input schema is the server's (checked locally
before anything is sent), and its handler calls the server. What comes back is mapped onto the
contract:

* ``isError`` with ``structuredContent.error`` (a surefoot server's envelope) → that
  ``ToolError``; ``isError`` without it → a safe default: ``unavailable`` for a read, and for a
  write ``outcome_unknown`` (the server did not say whether anything changed); a read whose
  result carries only ``_meta["io.modelcontextprotocol/toolFailure"]`` (the MCP ToolFailure
  proposal, not the specification) → a ``ToolError`` with its ``code`` and ``agentGuidance``;
* a connection lost (or timed out) once a write was sent → ``outcome_unknown``: the ledger
  holds the write as unknown and nothing re-sends it;
* a name the server did not list → ``unknown_tool``, without a request;
* a write's idempotency key travels in ``_meta[IDEMPOTENCY_KEY]``, so a surefoot server
  answers a repeated key from its own ledger.

A server's annotations are hints from whoever runs it. They set a tool's effect only when the
application marks the server ``trusted``; otherwise every tool is a write (keyed, ledgered,
never re-run blindly).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Final, Literal, cast

import mcp_types as types
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from pydantic import BaseModel, ConfigDict, model_serializer

from .._context import ToolContext
from .._messages import ToolSpec
from .._outcome import Detail, ErrorCode, Ok, Outcome, Recovery, ToolError, checked_data
from .._texts import Lang, text
from .._tools import Tool, ToolSet
from ._server import IDEMPOTENCY_KEY, TOOL_FAILURE

_NAME: Final = re.compile(r"[^a-zA-Z0-9_]")
_MAX_MESSAGE: Final = 2000
_CODE: Final = re.compile(r"[a-z][a-z0-9_]{0,63}")
_UNSETTLED: Final = frozenset({ErrorCode.OUTCOME_UNKNOWN.value, ErrorCode.IN_PROGRESS.value})


class RemoteOutcomeUnknownError(RuntimeError):
    """A remote write's fate is not known (a lost connection, or an error that does not say)."""


class _Arguments(BaseModel):
    """A remote call's arguments, already checked against the server's schema."""

    model_config = ConfigDict(strict=True, extra="forbid")
    arguments: dict[str, Any]

    @model_serializer
    def _as_sent(self) -> dict[str, Any]:
        return self.arguments


@dataclass(frozen=True, slots=True)
class RemoteTool(Tool):
    """A tool of an MCP server. ``remote_name`` is its name there; ``input_schema`` the
    schema the server declared (what the model is shown, and what arguments are checked
    against before a request is sent)."""

    remote_name: str = ""
    input_schema: dict[str, Any] = field(default_factory=dict)

    def spec(self) -> ToolSpec:
        """The server's own declaration, under this tool's local name."""
        return ToolSpec(
            name=self.name,
            description=self.description,
            parameters=self.input_schema,
            effect=self.effect,
        )

    def validate(
        self, arguments: dict[str, Any], lang: Lang = "en"
    ) -> BaseModel | tuple[Detail, ...]:
        """The arguments as sent, or where they break the server's schema (in ``lang``: the
        schema library's English text only in English)."""
        problems = _schema_problems(self.input_schema, arguments, lang)
        if problems:
            return problems
        return _Arguments(arguments=arguments)


# JSON Schema keywords, as the harness names what was wrong
_KEYWORD_PROBLEMS: Final = {
    "required": "arg_missing",
    "additionalProperties": "arg_extra",
    "enum": "arg_choice",
    "const": "arg_choice",
    "minimum": "arg_range",
    "maximum": "arg_range",
    "exclusiveMinimum": "arg_range",
    "exclusiveMaximum": "arg_range",
    "minLength": "arg_too_short",
    "minItems": "arg_too_short",
    "maxLength": "arg_too_long",
    "maxItems": "arg_too_long",
    "format": "arg_invalid",
}


def _schema_problems(
    schema: dict[str, Any], arguments: dict[str, Any], lang: Lang = "en"
) -> tuple[Detail, ...]:
    import jsonschema

    try:
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
    except jsonschema.SchemaError:
        return ()  # a schema we cannot read is the server's to enforce
    validator = validator_class(schema)
    return tuple(
        Detail(
            ".".join(str(part) for part in error.absolute_path) or "$",
            error.message[:300]
            if lang == "en"
            else text(lang, _KEYWORD_PROBLEMS.get(str(error.validator), "arg_invalid")),
        )
        for error in validator.iter_errors(arguments)
    )


def remote_tools(
    client: Client,
    listed: Collection[types.Tool],
    *,
    trusted: bool = False,
    prefix: str = "",
    confirm: Collection[str] = (),
) -> ToolSet:
    """A ``ToolSet`` over ``listed`` (the server's tools) calling them through ``client``.
    ``confirm`` names the remote tools a person must approve first."""
    tools = ToolSet()
    for declared in listed:
        tools.add(_remote(client, declared, trusted=trusted, prefix=prefix, confirm=confirm))
    return tools


@asynccontextmanager
async def connect(
    server: Any,
    *,
    trusted: bool = False,
    prefix: str = "",
    confirm: Collection[str] = (),
    read_timeout: float = 60.0,
) -> AsyncIterator[ToolSet]:
    """Connect to ``server`` (a Streamable HTTP URL, ``mcp.StdioServerParameters``, a
    transport, or an in-process SDK server) and yield its tools, usable while the block
    runs. ``read_timeout``: how long one request may wait for its answer (then a read is
    ``unavailable`` and a write ``outcome_unknown``)."""
    async with Client(server, read_timeout_seconds=read_timeout) as client:
        listed: list[types.Tool] = []
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor)
            listed.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        yield remote_tools(client, listed, trusted=trusted, prefix=prefix, confirm=confirm)


def _remote(
    client: Client,
    declared: types.Tool,
    *,
    trusted: bool,
    prefix: str,
    confirm: Collection[str],
) -> RemoteTool:
    hints = declared.annotations
    read = trusted and hints is not None and hints.read_only_hint is True
    idempotent = trusted and not read and hints is not None and hints.idempotent_hint is True
    local = (prefix + _NAME.sub("_", declared.name))[:64]
    if not local[:1].isalpha():
        local = ("t" + local)[:64]
    remote_name = declared.name
    effect: Literal["read", "write"] = "read" if read else "write"

    async def call(ctx: ToolContext, arguments: dict[str, Any]) -> Outcome:
        meta: types.RequestParamsMeta | None = None
        if ctx.key is not None:
            meta = cast("types.RequestParamsMeta", {IDEMPOTENCY_KEY: ctx.key})
        try:
            result = await client.call_tool(remote_name, arguments, meta=meta)
        except MCPError as exc:
            if exc.code == INVALID_PARAMS:
                return ToolError(
                    ErrorCode.INVALID_ARGUMENTS,
                    text(ctx.lang, "invalid_arguments", name=ctx.tool),
                    Recovery.CORRECT_ARGUMENTS,
                )
            if effect == "write":
                ctx.mark_unverifiable()
            raise
        except BaseException:
            if effect == "write":
                ctx.mark_unverifiable()  # it may have arrived: never decided, never re-sent
            raise
        return _outcome(result, ctx, write=effect == "write")

    return RemoteTool(
        name=local,
        description=declared.description or declared.title or declared.name,
        handler=call,
        arguments=_Arguments,
        effect=effect,
        idempotent=idempotent,
        confirm=declared.name in confirm and effect == "write",
        title=declared.title or (hints.title if hints is not None else None),
        wants_context=True,
        is_async=True,
        remote_name=remote_name,
        input_schema=dict(declared.input_schema),
    )


def _outcome(result: types.CallToolResult, ctx: ToolContext, *, write: bool) -> Outcome:
    if not result.is_error:
        return Ok(checked_data(_data(result)))
    error = _envelope(result.structured_content)
    if error is None and not write:  # a server that follows the ToolFailure proposal only
        error = _failure(result.meta)
    if error is None or error.code in _UNSETTLED:
        if write:
            ctx.mark_unverifiable()
            msg = "the server reported an error without saying whether the write took effect"
            raise RemoteOutcomeUnknownError(msg)
        return ToolError(
            ErrorCode.UNAVAILABLE,
            text(ctx.lang, "remote_failed", name=ctx.tool),
            Recovery.CHOOSE_ALTERNATIVE,
        )
    if error.code == ErrorCode.NOT_EXECUTED:  # the server's harness never ran it
        return ToolError(ErrorCode.NOT_APPLIED, error.message, error.recovery, error.details)
    return error


def _data(result: types.CallToolResult) -> dict[str, Any]:
    structured = result.structured_content
    if isinstance(structured, dict):
        return structured
    if structured is not None:
        return {"result": structured}
    texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
    others = [block.type for block in result.content if not isinstance(block, types.TextContent)]
    data: dict[str, Any] = {"text": "\n".join(texts)}
    if others:
        data["other_content"] = others
    return data


def _envelope(structured: object) -> ToolError | None:
    """The ``ToolError`` in a surefoot-style ``{"error": {...}}``, or None if it is not one."""
    if not isinstance(structured, dict) or not isinstance(structured.get("error"), dict):
        return None
    body = structured["error"]
    try:
        recovery = Recovery(body["recovery"])
        details = tuple(
            Detail(str(d["field"]), str(d["problem"]), _optional(d.get("expected")))
            for d in body.get("details") or ()
        )
        message = str(body["message"])[:_MAX_MESSAGE]
        return ToolError(str(body["code"]), message, recovery, details)
    except (KeyError, TypeError, ValueError):
        return None


def _failure(meta: object) -> ToolError | None:
    """The ``ToolError`` a ToolFailure-proposal ``_meta`` value describes, or None. Only for
    reads: the proposal does not say whether a failed write changed anything."""
    body = meta.get(TOOL_FAILURE) if isinstance(meta, dict) else None
    if not isinstance(body, dict):
        return None
    code, guidance = body.get("code"), body.get("agentGuidance")
    if not isinstance(code, str) or not _CODE.fullmatch(code):
        return None
    if not isinstance(guidance, str) or not guidance.strip():
        return None
    wrong = code == ErrorCode.INVALID_ARGUMENTS
    recovery = Recovery.CORRECT_ARGUMENTS if wrong else Recovery.CHOOSE_ALTERNATIVE
    return ToolError(code, guidance[:_MAX_MESSAGE], recovery)


def _optional(value: object) -> str | None:
    return None if value is None else str(value)


__all__ = ["RemoteOutcomeUnknownError", "RemoteTool", "connect", "remote_tools"]
