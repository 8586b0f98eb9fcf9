"""Anthropic Messages, over the official ``anthropic`` SDK.

The mapping is pure and tested without a network (``build_request``, ``parse_response``)::

    UserMessage          → user message, one text block
    AssistantMessage     → assistant message: text, tool_use (id, name, input object) and
                           this provider's own thinking blocks, in order
    ToolResultsMessage   → user message whose blocks are all the tool_result blocks first
                           (content = the outcome's JSON text, ``is_error: true`` only for a
                           ToolError), then the text of a UserMessage that follows
    HarnessMessage       → not sent: the harness's words are never presented as the model's
    HarnessNote          → user text (the harness asking the model again)

Consecutive messages of one role are merged, so skipping a message keeps the user/assistant
alternation valid. Call ids that break ``^[a-zA-Z0-9_-]+$``, or repeat an earlier call's id
(the API wants them unique in the whole conversation), are mapped with ``wire_id``, the same
way for a ``tool_use`` and its ``tool_result``.

The SDK's exceptions are translated into ``ProviderError`` at exactly one place
(``_translate``).
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, Final, assert_never

from .._exceptions import ProviderError, ProviderErrorKind
from .._messages import (
    AssistantMessage,
    AssistantPart,
    FinishReason,
    HarnessMessage,
    HarnessNote,
    Message,
    ModelRequest,
    ModelResponse,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)
from .._model import ResponseDone, StreamEvent, TextDelta
from .._outcome import ToolError, to_wire_text
from ._common import (
    API_MESSAGES,
    BILLING_IS_AUTH,
    CallIds,
    SDKModel,
    bad_response,
    client_for_request,
    connection_error,
    credentials_error,
    decode_json,
    http_errors,
    json_object,
    kind_for_status,
    tls_context,
    token_counts,
)
from ._ids import wire_id

if TYPE_CHECKING:
    import anthropic

PROVIDER: Final = "anthropic"

_FINISH: Final[dict[str, FinishReason]] = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "pause_turn": "pause",
    "refusal": "refusal",
}

_REASONING_BLOCKS: Final = frozenset({"thinking", "redacted_thinking"})
_USAGE_KEYS: Final = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)

# -- transcript → request ------------------------------------------------------------------


def build_request(request: ModelRequest, *, model: str, max_tokens: int) -> dict[str, Any]:
    """The body of ``messages.create`` for ``request`` (without ``stream``)."""
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens,
        "messages": build_messages(request.messages),
    }
    if request.system:
        body["system"] = request.system
    if request.tools:
        body["tools"] = [_tool(spec) for spec in request.tools]
    if request.output_schema is not None:  # structured outputs; the harness validates anyway
        body["output_config"] = {"format": {"type": "json_schema", "schema": request.output_schema}}
    return body


def build_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The wire ``messages``: one entry per role turn, same-role neighbours merged."""
    ids = CallIds(wire_id)
    wire: list[dict[str, Any]] = []
    for message in messages:
        role, blocks = _blocks(message, ids)
        if not blocks:
            continue
        if wire and wire[-1]["role"] == role:
            wire[-1]["content"].extend(blocks)
        else:
            wire.append({"role": role, "content": blocks})
    return wire


def _blocks(message: Message, ids: CallIds) -> tuple[str, list[dict[str, Any]]]:
    match message:
        case UserMessage(text=text):
            return "user", _text_blocks(text)
        case AssistantMessage(parts=parts):
            ids.start_turn()
            return "assistant", [b for p in parts if (b := _assistant_block(p, ids)) is not None]
        case ToolResultsMessage(results=results):
            return "user", [_result_block(r, ids) for r in results]
        case HarnessMessage():
            return "user", []
        case HarnessNote(text=text):
            return "user", _text_blocks(text)
        case _:
            assert_never(message)


def _text_blocks(text: str) -> list[dict[str, Any]]:
    # The API rejects empty and whitespace-only text blocks.
    return [{"type": "text", "text": text}] if text.strip() else []


def _assistant_block(part: AssistantPart, ids: CallIds) -> dict[str, Any] | None:
    match part:
        case TextPart(text=text):
            return {"type": "text", "text": text} if text.strip() else None
        case ToolCall():
            return {
                "type": "tool_use",
                "id": ids.for_call(part.call_id),
                "name": part.name,
                "input": part.arguments if part.arguments is not None else {},
            }
        case ReasoningPart(provider=provider, data=data):
            return dict(data) if provider == PROVIDER else None
        case _:
            assert_never(part)


def _result_block(result: ToolResult, ids: CallIds) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": ids.for_result(result.call_id),
        "content": to_wire_text(result.outcome),
    }
    if isinstance(result.outcome, ToolError):
        block["is_error"] = True
    return block


def _tool(spec: ToolSpec) -> dict[str, Any]:
    return {"name": spec.name, "description": spec.description, "input_schema": spec.parameters}


# -- response → transcript -----------------------------------------------------------------


def parse_response(message: object, *, model: str | None = None) -> AssistantMessage:
    """The assistant turn in a Messages API ``message`` object (a decoded JSON dict).

    Raises ``ProviderError(kind="bad_response")`` when it is not one. A ``tool_use`` whose
    ``input`` is not an object (a stream cut short leaves its text there) becomes a call with
    ``arguments=None`` and the text in ``raw_arguments``.
    """
    data = _object(message, "the response is not a JSON object")
    content = data.get("content")
    if not isinstance(content, list):
        raise _bad("the response has no content list")
    parts = tuple(_part(block) for block in content)
    message_id = data.get("id")
    reported_model = data.get("model")
    return AssistantMessage(
        parts=parts,
        finish=_finish(data.get("stop_reason"), parts),
        provider=PROVIDER,
        model=reported_model if isinstance(reported_model, str) else model,
        provider_details={"id": message_id} if isinstance(message_id, str) else None,
    )


def parse_usage(message: object) -> dict[str, int]:
    """The token counts of a ``message`` object (empty when it has none)."""
    return token_counts(message, {key: key for key in _USAGE_KEYS})


def _part(block: object) -> AssistantPart:
    data = _object(block, "a content block is not an object")
    kind = data.get("type")
    if kind == "text":
        text = data.get("text")
        if not isinstance(text, str):
            raise _bad("a text block has no text")
        return TextPart(text)
    if kind == "tool_use":
        return _tool_call(data)
    if isinstance(kind, str) and kind in _REASONING_BLOCKS:
        return ReasoningPart(PROVIDER, data)
    raise _bad("the response has a content block of an unsupported type")


def _tool_call(block: dict[str, Any]) -> ToolCall:
    call_id = block.get("id")
    name = block.get("name")
    if not isinstance(call_id, str) or not call_id:
        raise _bad("a tool_use block has no id")
    if not isinstance(name, str) or not name:
        raise _bad("a tool_use block has no name")
    arguments, raw = _arguments(block.get("input"))
    return ToolCall(call_id=call_id, name=name, arguments=arguments, raw_arguments=raw)


def _arguments(value: object) -> tuple[dict[str, Any] | None, str | None]:
    if isinstance(value, dict):
        return value, None
    if isinstance(value, str):
        return json_object(value), value
    return None, json.dumps(value, ensure_ascii=False, default=str)


def _finish(stop_reason: object, parts: Sequence[AssistantPart]) -> FinishReason:
    if isinstance(stop_reason, str) and stop_reason in _FINISH:
        return _FINISH[stop_reason]
    return "tool_use" if any(isinstance(p, ToolCall) for p in parts) else "end_turn"


def _object(value: object, problem: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _bad(problem)
    return value


def _bad(problem: str) -> ProviderError:
    return bad_response(PROVIDER, problem)


# -- streaming -----------------------------------------------------------------------------


class _MessageStream:
    """Rebuilds the ``message`` object from stream events, so a streamed turn parses exactly
    like a non-streamed one. Tool input arrives as JSON text deltas and is decoded only when
    its block is complete."""

    def __init__(self) -> None:
        self.message: dict[str, Any] | None = None
        self.blocks: dict[int, dict[str, Any]] = {}
        self.pending_json: dict[int, list[str]] = {}
        self.stopped = False

    def feed(self, event: dict[str, Any]) -> str:
        """Apply one event; returns the assistant text it added."""
        match event.get("type"):
            case "message_start":
                start = _object(event.get("message"), "message_start has no message")
                self.message = {**start, "content": []}
            case "content_block_start":
                block = _object(event.get("content_block"), "a block start has no block")
                self.blocks[_index(event)] = dict(block)
            case "content_block_delta":
                return self._delta(_index(event), event.get("delta"))
            case "content_block_stop":
                self._finish_block(_index(event))
            case "message_delta":
                self._message_delta(event)
            case "message_stop":
                self.stopped = True
            case _:
                pass  # ping, and event types added later: the API asks clients to ignore them
        return ""

    def result(self) -> dict[str, Any]:
        """The complete ``message`` object."""
        if self.message is None or not self.stopped:
            raise _bad("the stream ended before the message was complete")
        for index in list(self.pending_json):
            self._finish_block(index)
        return {**self.message, "content": [self.blocks[i] for i in sorted(self.blocks)]}

    def _delta(self, index: int, delta: object) -> str:
        block = self.blocks.get(index)
        if block is None:
            raise _bad("the stream sent a delta for a block that never started")
        change = _object(delta, "a block delta is not an object")
        match change.get("type"):
            case "text_delta":
                text = _text(change, "text")
                block["text"] = _text(block, "text") + text
                return text
            case "input_json_delta":
                self.pending_json.setdefault(index, []).append(_text(change, "partial_json"))
            case "thinking_delta":
                block["thinking"] = _text(block, "thinking") + _text(change, "thinking")
            case "signature_delta":
                block["signature"] = _text(change, "signature")
            case "citations_delta":
                block.setdefault("citations", []).append(change.get("citation"))
            case _:
                pass
        return ""

    def _finish_block(self, index: int) -> None:
        pieces = self.pending_json.pop(index, None)
        block = self.blocks.get(index)
        if block is None or not pieces or not "".join(pieces):
            return
        text = "".join(pieces)
        parsed = json_object(text)
        block["input"] = parsed if parsed is not None else text

    def _message_delta(self, event: dict[str, Any]) -> None:
        if self.message is None:
            raise _bad("the stream sent message_delta before message_start")
        delta = event.get("delta")
        if isinstance(delta, dict):
            self.message.update({k: v for k, v in delta.items() if v is not None})
        usage = event.get("usage")
        if isinstance(usage, dict):
            merged = dict(self.message.get("usage") or {})
            merged.update({k: v for k, v in usage.items() if v is not None})
            self.message["usage"] = merged


def _index(event: dict[str, Any]) -> int:
    index = event.get("index")
    if type(index) is not int:
        raise _bad("a stream event has no block index")
    return index


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise _bad(f"a stream event's {key} is not text")
    return value


# -- the model -----------------------------------------------------------------------------


class AnthropicModel(SDKModel):
    """A ``Model`` over the Anthropic Messages API.

    Each request uses its own SDK client (closed when the request ends), so the model can be
    shared across event loops and leaves no connection behind. The SDK retries model requests
    with its normal policy (``max_retries``, 2 by default); tools are never retried.
    """

    _provider = PROVIDER

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 120.0,
        max_tokens: int = 1024,
        max_retries: int = 2,
    ) -> None:
        super().__init__(
            model,
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_tokens=max_tokens,
            max_retries=max_retries,
        )

    async def request(self, request: ModelRequest) -> ModelResponse:
        """Answer one request with one ``messages.create`` call."""
        body = build_request(request, model=self._model, max_tokens=self._max_tokens)
        async with client_for_request(self._request_client, _sdk_errors, _translate) as client:
            raw = await client.messages.with_raw_response.create(**body)
            content = await raw.read()
        return _response(decode_json(content, PROVIDER), self._model)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Text deltas as they arrive, then the complete response."""
        body = build_request(request, model=self._model, max_tokens=self._max_tokens)
        state = _MessageStream()
        async with client_for_request(self._request_client, _sdk_errors, _translate) as client:
            events = await client.messages.create(**body, stream=True)
            async with events:
                async for event in events:
                    text = state.feed(event.to_dict(mode="json", warnings=False))
                    if text:
                        yield TextDelta(text)
        yield ResponseDone(_response(state.result(), self._model))

    def _client(self) -> anthropic.AsyncAnthropic:
        import anthropic

        api_key = self._api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not api_key and not os.environ.get("ANTHROPIC_AUTH_TOKEN"):
            raise credentials_error(PROVIDER, "no API key: pass api_key or set ANTHROPIC_API_KEY")
        return anthropic.AsyncAnthropic(
            api_key=api_key,
            base_url=self._base_url,
            timeout=self._timeout,
            max_retries=self._retries(anthropic.DEFAULT_MAX_RETRIES),
            http_client=anthropic.DefaultAsyncHttpxClient(verify=tls_context()),
        )


def _response(data: object, model: str) -> ModelResponse:
    return ModelResponse(parse_response(data, model=model), parse_usage(data))


# -- errors --------------------------------------------------------------------------------

_KIND_BY_ERROR_TYPE: Final[dict[str, ProviderErrorKind]] = {
    "authentication_error": "auth",
    "permission_error": "auth",
    "billing_error": "auth",
    "rate_limit_error": "rate_limit",
    "overloaded_error": "overloaded",
    "invalid_request_error": "bad_request",
    "not_found_error": "bad_request",
    "request_too_large": "bad_request",
    "api_error": "server",
    "timeout_error": "server",
}


def _sdk_errors() -> tuple[type[Exception], ...]:
    """The exceptions ``_translate`` handles: the SDK's, and its HTTP library's transport
    errors (the SDK lets those escape while a stream is being read)."""
    import anthropic

    return (anthropic.AnthropicError, *http_errors("TransportError"))


def _translate(exc: Exception) -> ProviderError:
    """The one place SDK exceptions become surefoot's; no response body, no key."""
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        error_type = str(exc.type) if exc.type else ""
        kind = _KIND_BY_ERROR_TYPE.get(error_type) or kind_for_status(status, auth=BILLING_IS_AUTH)
        detail = f", {error_type}" if error_type in _KIND_BY_ERROR_TYPE else ""
        message = f"{API_MESSAGES[kind]} (HTTP {status}{detail})"
        return ProviderError(provider=PROVIDER, status=status, kind=kind, safe_message=message)
    if isinstance(exc, anthropic.APITimeoutError):
        return connection_error(PROVIDER, "the request timed out")
    if isinstance(exc, anthropic.APIConnectionError):
        return connection_error(PROVIDER, "the API could not be reached")
    if isinstance(exc, anthropic.AnthropicError):
        return _bad("the SDK could not read the API's answer")
    return connection_error(PROVIDER, "the connection broke while the response was being read")


__all__ = ["AnthropicModel", "build_messages", "build_request", "parse_response", "parse_usage"]
