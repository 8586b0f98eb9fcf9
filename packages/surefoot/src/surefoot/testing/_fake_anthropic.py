"""A fake Anthropic Messages API on 127.0.0.1, strict like the real one.

``FakeAnthropicServer(turns)`` answers ``POST /v1/messages`` with the scripted assistant turns,
in order, as JSON or (when the body has ``"stream": true``) as the real event sequence::

    message_start, ping, (content_block_start, content_block_delta*, content_block_stop)*,
    message_delta, message_stop

Before answering it checks the request the way the real API does and replies with the real
400 error shape (``{"type": "error", "error": {"type": "invalid_request_error", ...}}``) for
an orphan ``tool_result``, a ``tool_use`` without its result in the next user message,
``tool_result`` blocks that are not first, ``is_error`` with empty content, ids outside
``^[a-zA-Z0-9_-]+$``, empty text blocks, missing ``model`` / ``max_tokens`` and unknown
fields. A rejected request does not use up a turn; running out of turns is a 500.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any, Final, assert_never

from .._messages import AssistantMessage, AssistantPart, ReasoningPart, TextPart, ToolCall
from .._outcome import dumps
from ._http import RecordedRequest, Reply, ScriptedHTTPServer, sse_event

_ID: Final = re.compile(r"^[a-zA-Z0-9_-]+$")
_TOOL_NAME: Final = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
_TOP_LEVEL: Final = frozenset(
    {
        "model", "max_tokens", "messages", "system", "tools", "tool_choice", "stream",
        "temperature", "top_p", "top_k", "stop_sequences", "metadata", "thinking",
        "service_tier", "container", "output_config", "cache_control", "inference_geo",
    }
)  # fmt: skip
_BLOCK_KEYS: Final = {
    "text": frozenset({"type", "text", "citations", "cache_control"}),
    "tool_use": frozenset({"type", "id", "name", "input", "cache_control", "caller"}),
    "tool_result": frozenset({"type", "tool_use_id", "content", "is_error", "cache_control"}),
    "thinking": frozenset({"type", "thinking", "signature"}),
    "redacted_thinking": frozenset({"type", "data"}),
    "image": frozenset({"type", "source", "cache_control"}),
    "document": frozenset({"type", "source", "title", "context", "citations", "cache_control"}),
}
_USER_BLOCKS: Final = frozenset({"text", "tool_result", "image", "document"})
_ASSISTANT_BLOCKS: Final = frozenset({"text", "tool_use", "thinking", "redacted_thinking"})
_STOP_REASON: Final = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "pause": "pause_turn",
    "refusal": "refusal",
}
_PIECE: Final = 7  # deltas carry text in pieces this long


class FakeAnthropicServer(ScriptedHTTPServer):
    """Plays ``turns`` as Anthropic Messages responses; ``requests`` records every body.

    ``api_key``, when given, must arrive in ``x-api-key`` or ``authorization: Bearer``
    (else 401). Set ``chunk_sizes`` to re-cut streamed bytes. ``cached_input_tokens`` makes
    the usage report that many ``cache_read_input_tokens`` beside ``input_tokens`` (which,
    as in the real API, leaves them out), in the real usage object (``message_start`` and the
    cumulative ``message_delta`` counts when streamed).
    """

    def __init__(
        self,
        turns: Sequence[AssistantMessage],
        *,
        api_key: str | None = None,
        cached_input_tokens: int | None = None,
    ) -> None:
        super().__init__(turns, cached_input_tokens=cached_input_tokens)
        self.api_key = api_key

    def handle(self, request: RecordedRequest) -> Reply:
        """Check the request like the real API, then serve the next turn."""
        if request.method != "POST" or request.path.partition("?")[0] != "/v1/messages":
            return error_reply(
                404, "not_found_error", f"Not found: {request.method} {request.path}"
            )
        if self.api_key is not None and not _authorized(request.headers, self.api_key):
            return error_reply(401, "authentication_error", "invalid x-api-key")
        problem = request_problem(request.body)
        if problem is not None:
            return error_reply(400, "invalid_request_error", problem)
        turn = self.next_turn()
        if turn is None:
            return error_reply(
                500,
                "api_error",
                f"FakeAnthropicServer: the script has {len(self.turns)} turn(s) but request "
                f"#{len(self.requests)} asked for another",
            )
        payload = message_payload(
            turn,
            model=request.body["model"],
            number=self.served,
            input_tokens=max(1, len(dumps(request.body["messages"])) // 4),
            cached_input_tokens=self.cached_input_tokens,
        )
        if request.body.get("stream") is True:
            return Reply.sse(stream_events(turn, payload))
        return Reply.json(200, payload)


def error_reply(status: int, error_type: str, message: str) -> Reply:
    """The real API's error body; ``x-should-retry: false`` keeps SDK retries out of tests."""
    reply = Reply.json(
        status,
        {
            "type": "error",
            "error": {"type": error_type, "message": message},
            "request_id": "req_fake",
        },
    )
    reply.headers["x-should-retry"] = "false"
    return reply


def _authorized(headers: dict[str, str], api_key: str) -> bool:
    return headers.get("x-api-key") == api_key or headers.get("authorization") == (
        f"Bearer {api_key}"
    )


# -- request checks ------------------------------------------------------------------------


def request_problem(body: object) -> str | None:
    """What the real API would reject in ``body``, or None."""
    if not isinstance(body, dict):
        return "The request body is not valid JSON."
    return (
        _top_level_problem(body)
        or _tools_problem(body.get("tools"))
        or _messages_problem(body["messages"])
    )


def _top_level_problem(body: dict[str, Any]) -> str | None:
    for key in ("model", "max_tokens", "messages"):
        if key not in body:
            return f"{key}: Field required"
    extra = sorted(set(body) - _TOP_LEVEL)
    if extra:
        return f"{extra[0]}: Extra inputs are not permitted"
    if not isinstance(body["model"], str) or not body["model"]:
        return "model: Input should be a valid string"
    if type(body["max_tokens"]) is not int or body["max_tokens"] < 1:
        return "max_tokens: Input should be greater than or equal to 1"
    if not isinstance(body["messages"], list) or not body["messages"]:
        return "messages: at least one message is required"
    return None


def _tools_problem(tools: object) -> str | None:
    if tools is None:
        return None
    if not isinstance(tools, list):
        return "tools: Input should be a valid list"
    for index, tool in enumerate(tools):
        if not isinstance(tool, dict) or not _TOOL_NAME.match(str(tool.get("name", ""))):
            pattern = "^[a-zA-Z0-9_-]{1,128}$"
            return f"tools.{index}.custom.name: String should match pattern '{pattern}'"
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            return f"tools.{index}.custom.input_schema.type: Input should be 'object'"
    return None


def _messages_problem(messages: list[Any]) -> str | None:
    for index, message in enumerate(messages):
        problem = _message_problem(index, message)
        if problem is not None:
            return problem
    problem = _unique_ids_problem(messages)
    if problem is not None:
        return problem
    for index, message in enumerate(messages):
        problem = _pairing_problem(index, message, messages)
        if problem is not None:
            return problem
    return None


def _unique_ids_problem(messages: list[Any]) -> str | None:
    """``tool_use`` ids must be unique in the whole conversation, not only in one message."""
    seen: set[str] = set()
    for index, message in enumerate(messages):
        for number, block in enumerate(_content(message) or []):
            if block["type"] != "tool_use":
                continue
            if block["id"] in seen:
                return f"messages.{index}.content.{number}: `tool_use` ids must be unique"
            seen.add(block["id"])
    return None


def _message_problem(index: int, message: object) -> str | None:
    if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
        return f"messages.{index}.role: Input should be 'user' or 'assistant'"
    blocks = _content(message)
    if blocks is None:
        return f"messages.{index}.content: Input should be a valid string or list"
    if not blocks:
        return f"messages.{index}: all messages must have non-empty content"
    allowed = _USER_BLOCKS if message["role"] == "user" else _ASSISTANT_BLOCKS
    seen_other = False
    for number, block in enumerate(blocks):
        where = f"messages.{index}.content.{number}"
        problem = _block_problem(where, block, allowed)
        if problem is not None:
            return problem
        if block["type"] != "tool_result":
            seen_other = True
        elif seen_other:
            return (
                f"messages.{index}: tool_result blocks must come before any other content "
                "in a user message"
            )
    return None


def _block_problem(where: str, block: object, allowed: frozenset[str]) -> str | None:
    kind = block.get("type") if isinstance(block, dict) else None
    if not isinstance(block, dict) or kind not in allowed:
        expected = "', '".join(sorted(allowed))
        return (
            f"{where}: Input tag '{kind}' found using 'type' does not match any of the "
            f"expected tags: '{expected}'"
        )
    extra = sorted(set(block) - _BLOCK_KEYS[kind])
    if extra:
        return f"{where}.{kind}.{extra[0]}: Extra inputs are not permitted"
    if kind == "text" and not (isinstance(block.get("text"), str) and block["text"].strip()):
        return f"{where}.text: text content blocks must contain non-whitespace text"
    if kind == "tool_use":
        return _tool_use_problem(where, block)
    if kind == "tool_result":
        return _tool_result_problem(where, block)
    if kind == "thinking" and not isinstance(block.get("signature"), str):
        return f"{where}.thinking.signature: Field required"
    return None


def _tool_use_problem(where: str, block: dict[str, Any]) -> str | None:
    if not isinstance(block.get("id"), str) or not _ID.match(block["id"]):
        return f"{where}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
    if not isinstance(block.get("name"), str) or not block["name"]:
        return f"{where}.tool_use.name: Field required"
    if not isinstance(block.get("input"), dict):
        return f"{where}.tool_use.input: Input should be a valid dictionary"
    return None


def _tool_result_problem(where: str, block: dict[str, Any]) -> str | None:
    if not isinstance(block.get("tool_use_id"), str) or not _ID.match(block["tool_use_id"]):
        return f"{where}.tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'"
    content = block.get("content", "")
    if not isinstance(content, str | list):
        return f"{where}.tool_result.content: Input should be a valid string or list"
    if "is_error" in block and not isinstance(block["is_error"], bool):
        return f"{where}.tool_result.is_error: Input should be a valid boolean"
    if block.get("is_error") is True and not content:
        return f"{where}.tool_result: content cannot be empty if `is_error` is true"
    return None


def _pairing_problem(index: int, message: dict[str, Any], messages: list[Any]) -> str | None:
    blocks = _content(message) or []
    if message["role"] == "assistant":
        used = [b["id"] for b in blocks if b["type"] == "tool_use"]
        following = messages[index + 1] if index + 1 < len(messages) else None
        answered = _result_ids(following) if _role(following) == "user" else set()
        missing = [i for i in used if i not in answered]
        if missing:
            return (
                f"messages.{index + 1 if following else index}: `tool_use` ids were found "
                f"without `tool_result` blocks immediately after: {', '.join(missing)}. Each "
                "`tool_use` block must have a corresponding `tool_result` block in the next "
                "message."
            )
        return None
    previous = messages[index - 1] if index > 0 else None
    offered = _tool_use_ids(previous) if _role(previous) == "assistant" else set()
    for number, block in enumerate(blocks):
        if block["type"] == "tool_result" and block["tool_use_id"] not in offered:
            return (
                f"messages.{index}.content.{number}: unexpected `tool_use_id` found in "
                f"`tool_result` blocks: {block['tool_use_id']}. Each `tool_result` block must "
                "have a corresponding `tool_use` block in the previous message."
            )
    return None


def _content(message: dict[str, Any]) -> list[Any] | None:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else None


def _role(message: object) -> str | None:
    return message.get("role") if isinstance(message, dict) else None


def _tool_use_ids(message: Any) -> set[str]:
    return {b["id"] for b in _content(message) or [] if b["type"] == "tool_use"}


def _result_ids(message: Any) -> set[str]:
    return {b["tool_use_id"] for b in _content(message) or [] if b["type"] == "tool_result"}


# -- responses -----------------------------------------------------------------------------


def message_payload(
    turn: AssistantMessage,
    *,
    model: str,
    number: int,
    input_tokens: int = 1,
    cached_input_tokens: int | None = None,
) -> dict[str, Any]:
    """The JSON ``message`` object for a scripted turn; ``cached_input_tokens`` given, its
    usage is the real API's whole object, cache counts included."""
    content = [_block(part) for part in turn.parts]
    output_tokens = max(1, len(dumps(content)) // 4)
    usage: dict[str, Any] = {"input_tokens": input_tokens, "output_tokens": output_tokens}
    if cached_input_tokens is not None:
        usage = {
            "input_tokens": input_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": cached_input_tokens,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "output_tokens": output_tokens,
            "service_tier": "standard",
        }
    return {
        "id": f"msg_fake{number:04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": _STOP_REASON[turn.finish],
        "stop_sequence": None,
        "usage": usage,
    }


def _block(part: AssistantPart) -> dict[str, Any]:
    match part:
        case TextPart(text=text):
            return {"type": "text", "text": text}
        case ToolCall():
            return {
                "type": "tool_use",
                "id": part.call_id,
                "name": part.name,
                "input": part.arguments if part.arguments is not None else _object(part),
            }
        case ReasoningPart(data=data):
            return dict(data)
        case _:
            assert_never(part)


def _object(call: ToolCall) -> dict[str, Any]:
    try:
        value = json.loads(call.raw_arguments or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def stream_events(turn: AssistantMessage, payload: dict[str, Any]) -> Iterator[bytes]:
    """The server-sent events that stream ``payload`` (the JSON form of ``turn``)."""
    start = {
        **payload,
        "content": [],
        "stop_reason": None,
        "usage": {**payload["usage"], "output_tokens": 1},
    }
    yield _event({"type": "message_start", "message": start})
    yield _event({"type": "ping"})
    for index, (part, block) in enumerate(zip(turn.parts, payload["content"], strict=True)):
        yield from _block_events(index, part, block)
    yield _event(
        {
            "type": "message_delta",
            "delta": {"stop_reason": payload["stop_reason"], "stop_sequence": None},
            "usage": _delta_usage(payload["usage"]),
        }
    )
    yield _event({"type": "message_stop"})


def _delta_usage(usage: dict[str, Any]) -> dict[str, Any]:
    """``message_delta``'s cumulative counts: the output alone, or (when the usage reports
    the cache) the input and cache counts too, as the real API sends them."""
    if "cache_read_input_tokens" not in usage:
        return {"output_tokens": usage["output_tokens"]}
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return {**{key: usage[key] for key in keys}, "output_tokens": usage["output_tokens"]}


def _block_events(index: int, part: AssistantPart, block: dict[str, Any]) -> Iterator[bytes]:
    match part:
        case TextPart(text=text):
            opening: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in _pieces(text)]
        case ToolCall():
            opening = {**block, "input": {}}
            json_text = part.raw_arguments if part.arguments is None else dumps(part.arguments)
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in _pieces(json_text)]
        case ReasoningPart():
            opening, deltas = _reasoning_events(block)
        case _:
            assert_never(part)
    yield _event({"type": "content_block_start", "index": index, "content_block": opening})
    for delta in deltas:
        yield _event({"type": "content_block_delta", "index": index, "delta": delta})
    yield _event({"type": "content_block_stop", "index": index})


def _reasoning_events(block: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    if block.get("type") != "thinking":
        return block, []
    deltas: list[dict[str, Any]] = [
        {"type": "thinking_delta", "thinking": p} for p in _pieces(str(block.get("thinking", "")))
    ]
    deltas.append({"type": "signature_delta", "signature": str(block.get("signature", ""))})
    return {"type": "thinking", "thinking": "", "signature": ""}, deltas


def _pieces(text: str | None) -> list[str]:
    text = text or ""
    return [text[i : i + _PIECE] for i in range(0, len(text), _PIECE)]


def _event(data: dict[str, Any]) -> bytes:
    return sse_event(data, data["type"])
