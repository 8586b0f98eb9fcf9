"""OpenAI Responses, over the official ``openai`` SDK (``client.responses.create``).

Stateless: every request has ``store: false`` and carries the full history. The mapping is
pure and tested without a network (``build_request``, ``parse_response``)::

    UserMessage          → message item, role user, input_text
    AssistantMessage     → message items (role assistant), function_call items (call_id,
                           name, arguments as a JSON string) and this provider's reasoning
                           items, in order (see "Items sent back" below)
    ToolResultsMessage   → one function_call_output item per result, output = the outcome's
                           JSON text; the error mark travels inside it, no field is invented
    HarnessMessage       → not sent: the harness's words are never presented as the model's
    HarnessNote          → user text (the harness asking the model again)
    system               → instructions

Items sent back. A response's items keep their ids (``rs_…``, ``msg_…``, ``fc_…``), status and
a message's ``phase`` in the transcript (the ``provider_details`` of each part; reasoning items
whole, as ``ReasoningPart``). A reasoning item must be followed by the items it produced, and
those items name it, so an assistant message of this provider goes back in one of two forms:

* linked — every reasoning item carries its encrypted content and is followed by a message or
  call, and every message and call carries its id: all of it goes back as received
  (``OutputMessage`` items with id, status, phase and ``output_text`` parts; ``function_call``
  items with id and status; reasoning items whole);
* plain — otherwise (no encrypted reasoning, a response cut off after its reasoning, or a
  transcript written before ids were kept): no reasoning and no item ids, so nothing refers
  to an item the request lacks; text goes as ``{"role": "assistant", "content": "<text>"}``
  (with its phase), calls by ``call_id`` only.

Another provider's messages always go in the plain form, without any vendor field.

Function tools are sent with ``strict: false``: surefoot's validator is the authority and
answers bad arguments with ``correct_arguments``. ``call_id`` values longer than 64 characters
(or with non-printable characters), or repeating an earlier call's id, are mapped with
``wire_id``, the same way for a call and its output. The SDK's exceptions are translated into
``ProviderError`` at exactly one place (``_translate``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
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
from .._outcome import dumps, to_wire_text
from ._common import (
    API_MESSAGES,
    BILLING_IS_AUTH,
    OUTPUT_NAME,
    CallIds,
    SDKModel,
    bad_response,
    client_for_request,
    connection_error,
    count_at,
    credentials_error,
    decode_json,
    http_errors,
    json_object,
    kind_for_status,
    split_cached,
    tls_context,
    token_counts,
)
from ._ids import wire_id

if TYPE_CHECKING:
    import openai

PROVIDER: Final = "openai"

_CALL_ID: Final = re.compile(r"[\x20-\x7e]{1,64}")
"""What a ``call_id`` may be on the wire here: printable, at most 64 characters."""

_FAILED_KINDS: Final[dict[str, ProviderErrorKind]] = {
    "rate_limit_exceeded": "rate_limit",
    # Served as HTTP 429 when it comes before the stream; the same kind when it comes inside.
    "insufficient_quota": "rate_limit",
    "server_error": "server",
    "vector_store_timeout": "server",
}
_PHASES: Final = frozenset({"commentary", "final_answer"})
_TEXT_SHAPE: Final = {"type": "output_text", "annotations": [], "logprobs": []}
"""An ``output_text`` part without its text, as the API returns one (no citations, no
log probabilities were asked for)."""
_SAFE_CODE: Final = re.compile(r"[a-z][a-z0-9_]{0,63}")
_SAFE_MESSAGES: Final = {
    **API_MESSAGES,
    "rate_limit": "requests are being rate-limited or the quota is used up",
}

# -- transcript → request ------------------------------------------------------------------


def build_request(
    request: ModelRequest, *, model: str, max_tokens: int, encrypted_reasoning: bool = False
) -> dict[str, Any]:
    """The body of ``responses.create`` for ``request`` (without ``stream``)."""
    body: dict[str, Any] = {
        "model": model,
        "input": build_input(request.messages),
        "store": False,
        "max_output_tokens": max_tokens,
    }
    if request.system:
        body["instructions"] = request.system
    if request.tools:
        body["tools"] = [_tool(spec) for spec in request.tools]
    if encrypted_reasoning:
        body["include"] = ["reasoning.encrypted_content"]
    if request.output_schema is not None:  # structured outputs; the harness validates anyway
        body["text"] = {
            "format": {
                "type": "json_schema",
                "name": OUTPUT_NAME,
                "schema": request.output_schema,
                "strict": False,
            }
        }
    return body


def build_input(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The wire ``input`` items for a transcript."""
    ids = CallIds(wire_call_id)
    items: list[dict[str, Any]] = []
    for message in messages:
        items.extend(_items(message, ids))
    return items


def _input_text(text: str) -> dict[str, str]:
    return {"type": "input_text", "text": text}


def _items(message: Message, ids: CallIds) -> list[dict[str, Any]]:
    match message:
        case UserMessage(text=text):
            if not text:
                return []
            return [{"type": "message", "role": "user", "content": [_input_text(text)]}]
        case AssistantMessage():
            ids.start_turn()
            return _assistant_items(message, ids)
        case ToolResultsMessage(results=results):
            return [_output_item(r, ids) for r in results]
        case HarnessMessage():
            return []
        case HarnessNote(text=text):
            return [{"type": "message", "role": "user", "content": [_input_text(text)]}]
        case _:
            assert_never(message)


def _assistant_items(message: AssistantMessage, ids: CallIds) -> list[dict[str, Any]]:
    native = message.provider == PROVIDER
    form = _Form(native=native, linked=native and _linked(message.parts))
    items: list[dict[str, Any]] = []
    for part in message.parts:
        item = _assistant_item(part, ids, form)
        if item is None:
            continue
        if items and _same_message(items[-1], item):
            _merge_message(items[-1], item)
        else:
            items.append(item)
    return items


@dataclass(frozen=True, slots=True)
class _Form:
    """How an assistant message goes back: ``native`` (it came from this provider) and
    ``linked`` (its reasoning and item ids go back as received)."""

    native: bool
    linked: bool


def _linked(parts: Sequence[AssistantPart]) -> bool:
    """Every reasoning item can be sent whole and is followed by an item it produced, and
    every message and call has its id."""
    awaiting = False  # a reasoning item that no message or call has followed yet
    for part in parts:
        if isinstance(part, ReasoningPart):
            if part.provider == PROVIDER:
                if not part.data.get("encrypted_content"):
                    return False
                awaiting = True
        elif isinstance(part, ToolCall) or part.text:
            if _detail(part, "id") is None:
                return False
            awaiting = False
    return not awaiting


def _detail(part: TextPart | ToolCall, key: str) -> str | None:
    value = (part.provider_details or {}).get(key)
    return value if isinstance(value, str) and value else None


def _assistant_item(part: AssistantPart, ids: CallIds, form: _Form) -> dict[str, Any] | None:
    match part:
        case TextPart(text=text):
            return _text_item(part, form) if text else None
        case ToolCall():
            return _call_item(part, ids, form)
        case ReasoningPart(provider=provider, data=data):
            # Without encrypted content a reasoning item is a reference to stored state,
            # which a stateless request does not have; see "Items sent back" above.
            return dict(data) if form.linked and provider == PROVIDER else None
        case _:
            assert_never(part)


def _text_item(part: TextPart, form: _Form) -> dict[str, Any]:
    phase = _detail(part, "phase") if form.native else None
    item: dict[str, Any] = {"type": "message", "role": "assistant"}
    if form.linked:
        item["id"] = _detail(part, "id")
        item["status"] = _detail(part, "status") or "completed"
        item["content"] = [_content_part(part)]
    else:
        item["content"] = part.text
    if phase in _PHASES:
        item["phase"] = phase
    return item


def _content_part(part: TextPart) -> dict[str, Any]:
    """The content part as received (``output_text`` or ``refusal``), with its text."""
    shape = (part.provider_details or {}).get("content")
    if isinstance(shape, dict) and shape.get("type") == "refusal":
        return {**shape, "refusal": part.text}
    fields = shape if isinstance(shape, dict) else {}
    return {**_TEXT_SHAPE, **fields, "text": part.text}


def _same_message(last: dict[str, Any], item: dict[str, Any]) -> bool:
    """Two neighbouring text items that are one message: the same item id (linked), or both
    plain text of the same phase."""
    if last["type"] != "message" or item["type"] != "message":
        return False
    if last.get("phase") != item.get("phase"):
        return False
    if "id" in item:
        return bool(last.get("id") == item["id"])
    return "id" not in last and isinstance(last["content"], str)


def _merge_message(last: dict[str, Any], item: dict[str, Any]) -> None:
    if isinstance(last["content"], str):
        last["content"] += item["content"]
    else:
        last["content"].extend(item["content"])


def _call_item(part: ToolCall, ids: CallIds, form: _Form) -> dict[str, Any]:
    arguments = part.raw_arguments
    if arguments is None:
        arguments = dumps(part.arguments if part.arguments is not None else {})
    item: dict[str, Any] = {"type": "function_call"}
    if form.linked:
        item["id"] = _detail(part, "id")
    item |= {"call_id": ids.for_call(part.call_id), "name": part.name, "arguments": arguments}
    status = _detail(part, "status")
    if form.linked and status is not None:
        item["status"] = status
    return item


def _output_item(result: ToolResult, ids: CallIds) -> dict[str, Any]:
    return {
        "type": "function_call_output",
        "call_id": ids.for_result(result.call_id),
        "output": to_wire_text(result.outcome),
    }


def wire_call_id(call_id: str) -> str:
    """``call_id`` as this API accepts it (at most 64 printable characters), stably."""
    return wire_id(call_id, pattern=_CALL_ID, max_len=64)


def _tool(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.parameters,
        "strict": False,
    }


# -- response → transcript -----------------------------------------------------------------


def parse_response(response: object, *, model: str | None = None) -> AssistantMessage:
    """The assistant turn in a Responses API ``response`` object (a decoded JSON dict).

    Raises ``ProviderError`` with kind ``bad_response`` when it is not one, or the failure's
    kind when the response reports ``status: failed``. A ``function_call`` whose arguments
    are not a JSON object becomes a call with ``arguments=None``; ``raw_arguments`` always
    keeps the string the model sent.
    """
    data = _object(response, "the response is not a JSON object")
    _check_status(data)
    output = data.get("output")
    if not isinstance(output, list):
        raise _bad("the response has no output list")
    parts: list[AssistantPart] = []
    refused = False
    for item in output:
        item_parts, item_refused = _item_parts(item)
        parts.extend(item_parts)
        refused = refused or item_refused
    response_id = data.get("id")
    reported_model = data.get("model")
    return AssistantMessage(
        parts=tuple(parts),
        finish=_finish(data, parts, refused=refused),
        provider=PROVIDER,
        model=reported_model if isinstance(reported_model, str) else model,
        provider_details={"id": response_id} if isinstance(response_id, str) else None,
    )


def parse_usage(response: object) -> dict[str, int]:
    """The token counts of a ``response`` object (empty when it has none).

    The API counts the tokens read from its prompt cache inside ``input_tokens``
    (``input_tokens_details.cached_tokens``): they are reported apart, as
    ``cache_read_input_tokens`` (zero included, whenever the API gives the count), and
    ``input_tokens`` keeps the rest. ``output_tokens`` includes the reasoning tokens, as the
    API counts them. The API's ``total_tokens`` is left out: no adapter reports a sum (adding
    up a usage's values must not count a token twice)."""
    keys = ("input_tokens", "output_tokens")
    counts = token_counts(response, {key: key for key in keys})
    cached = count_at(response, "usage", "input_tokens_details", "cached_tokens")
    return split_cached(counts, cached)


def _check_status(data: dict[str, Any]) -> None:
    status = data.get("status")
    if status == "failed":
        error = data.get("error")
        code = error.get("code") if isinstance(error, dict) else None
        raise _failure(code)
    if status in ("cancelled", "queued", "in_progress"):
        raise _bad(f"the response is {status}, not finished")


def _item_parts(item: object) -> tuple[list[AssistantPart], bool]:
    data = _object(item, "an output item is not an object")
    kind = data.get("type")
    if kind == "message":
        return _message_parts(data)
    if kind == "function_call":
        return [_tool_call(data)], False
    if kind == "reasoning":
        return [ReasoningPart(PROVIDER, data)], False
    raise _bad("the response has an output item of an unsupported type")


def _message_parts(item: dict[str, Any]) -> tuple[list[AssistantPart], bool]:
    content = item.get("content")
    if not isinstance(content, list):
        raise _bad("a message item has no content list")
    fields = _item_fields(item, ("id", "status", "phase"))
    parts: list[AssistantPart] = []
    refused = False
    for entry in content:
        part = _object(entry, "a content part is not an object")
        kind = part.get("type")
        key = "text" if kind == "output_text" else "refusal" if kind == "refusal" else None
        if key is None:
            raise _bad("a message has a content part of an unsupported type")
        text = part.get(key)
        if not isinstance(text, str):
            raise _bad(f"a {kind} part has no text")
        shape = {k: v for k, v in part.items() if k != key}
        parts.append(TextPart(text, {**fields, "content": shape}))
        refused = refused or kind == "refusal"
    return parts, refused


def _item_fields(item: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The item's own fields among ``keys`` that are text (its id, status, phase)."""
    return {key: item[key] for key in keys if isinstance(item.get(key), str) and item[key]}


def _tool_call(item: dict[str, Any]) -> ToolCall:
    call_id = item.get("call_id")
    name = item.get("name")
    if not isinstance(call_id, str) or not call_id:
        raise _bad("a function_call item has no call_id")
    if not isinstance(name, str) or not name:
        raise _bad("a function_call item has no name")
    raw = item.get("arguments")
    if not isinstance(raw, str):
        raw = json.dumps(raw, ensure_ascii=False, default=str)
    return ToolCall(
        call_id=call_id,
        name=name,
        arguments=json_object(raw),
        raw_arguments=raw,
        provider_details=_item_fields(item, ("id", "status")) or None,
    )


def _finish(data: dict[str, Any], parts: Sequence[AssistantPart], *, refused: bool) -> FinishReason:
    if data.get("status") == "incomplete":
        details = data.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        # Any other cut (max_output_tokens, ...) is a truncation: its calls must not run.
        return "refusal" if reason == "content_filter" else "max_tokens"
    if refused:
        return "refusal"
    return "tool_use" if any(isinstance(p, ToolCall) for p in parts) else "end_turn"


def _object(value: object, problem: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _bad(problem)
    return value


def _bad(problem: str) -> ProviderError:
    return bad_response(PROVIDER, problem)


def _failure(code: object) -> ProviderError:
    """A response that reports it failed (``status: failed`` or a stream ``error`` event),
    of the kind the same condition has as an HTTP error (``insufficient_quota`` is a 429)."""
    safe = isinstance(code, str) and _SAFE_CODE.fullmatch(code) is not None
    # Without a code the failure is the server's; other codes describe the request.
    kind: ProviderErrorKind = (
        _FAILED_KINDS.get(code, "bad_request") if isinstance(code, str) else "server"
    )
    message = f"{_SAFE_MESSAGES[kind]} ({code})" if safe else _SAFE_MESSAGES[kind]
    return ProviderError(provider=PROVIDER, status=None, kind=kind, safe_message=message)


def _error_code(event: dict[str, Any]) -> object:
    """An ``error`` event's code: at the top (the SDK's type) or under ``error`` (the wire)."""
    error = event.get("error")
    return error.get("code") if isinstance(error, dict) else event.get("code")


# -- streaming -----------------------------------------------------------------------------


class _ResponseStream:
    """Rebuilds the ``response`` object from stream events, so a streamed turn parses exactly
    like a non-streamed one. Output items are assembled from their deltas; each item's
    ``output_item.done`` (complete, as the API sends it) replaces the assembled one."""

    def __init__(self) -> None:
        self.items: dict[int, dict[str, Any]] = {}
        self.final: dict[str, Any] | None = None

    def feed(self, event: dict[str, Any]) -> str:
        """Apply one event; returns the assistant text it added."""
        match event.get("type"):
            case "response.output_item.added" | "response.output_item.done":
                item = _object(event.get("item"), "an output item event has no item")
                self.items[_index(event, "output_index")] = dict(item)
            case "response.content_part.added":
                part = _object(event.get("part"), "a content part event has no part")
                self._content(event).append(dict(part))
            case "response.output_text.delta":
                return self._text(event, "text")
            case "response.refusal.delta":
                return self._text(event, "refusal")
            case "response.function_call_arguments.delta":
                item = self._item(event)
                item["arguments"] = _string(item, "arguments") + _string(event, "delta")
            case "response.function_call_arguments.done":
                self._item(event)["arguments"] = _string(event, "arguments")
            case "response.completed" | "response.incomplete" | "response.failed":
                self.final = dict(_object(event.get("response"), "a final event has no response"))
            case "error":
                raise _failure(_error_code(event))
            case _:
                pass  # created, in_progress, *.done echoes, and event types added later
        return ""

    def result(self) -> dict[str, Any]:
        """The complete ``response`` object."""
        if self.final is None:
            raise _bad("the stream ended before the response was complete")
        if self.items:
            self.final["output"] = [self.items[i] for i in sorted(self.items)]
        return self.final

    def _item(self, event: dict[str, Any]) -> dict[str, Any]:
        item = self.items.get(_index(event, "output_index"))
        if item is None:
            raise _bad("the stream sent a delta for an item that never started")
        return item

    def _content(self, event: dict[str, Any]) -> list[Any]:
        content = self._item(event).setdefault("content", [])
        if not isinstance(content, list):
            raise _bad("a message item's content is not a list")
        return content

    def _text(self, event: dict[str, Any], key: str) -> str:
        content = self._content(event)
        index = _index(event, "content_index")
        while len(content) <= index:
            content.append({"type": "output_text", "text": "", "annotations": []})
        part = _object(content[index], "a content part is not an object")
        delta = _string(event, "delta")
        part[key] = _string(part, key) + delta
        return delta


def _index(event: dict[str, Any], key: str) -> int:
    index = event.get(key)
    if type(index) is not int or index < 0:
        raise _bad(f"a stream event has no {key}")
    return index


def _string(data: dict[str, Any], key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise _bad(f"a stream event's {key} is not text")
    return value


# -- the model -----------------------------------------------------------------------------


class OpenAIResponsesModel(SDKModel):
    """A ``Model`` over the OpenAI Responses API, stateless (``store: false``).

    ``encrypted_reasoning=True`` asks reasoning models for encrypted reasoning items
    (``include: ["reasoning.encrypted_content"]``) so they can be echoed in later requests;
    models without reasoning reject that option, so it is off by default.

    Each request uses its own SDK client (closed when the request ends). The SDK retries
    model requests with its normal policy (``max_retries``, 2 by default); tools are never
    retried.
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
        encrypted_reasoning: bool = False,
    ) -> None:
        super().__init__(
            model,
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_tokens=max_tokens,
            max_retries=max_retries,
        )
        self._encrypted_reasoning = encrypted_reasoning

    async def request(self, request: ModelRequest) -> ModelResponse:
        """Answer one request with one ``responses.create`` call."""
        body = self._body(request)
        async with client_for_request(self._request_client, _sdk_errors, _translate) as client:
            raw = await client.responses.with_raw_response.create(**body)
            content = raw.content
        return _response(decode_json(content, PROVIDER), self._model)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Text deltas as they arrive, then the complete response."""
        body = self._body(request)
        state = _ResponseStream()
        async with client_for_request(self._request_client, _sdk_errors, _translate) as client:
            events = await client.responses.create(**body, stream=True)
            async with events:
                async for event in events:
                    text = state.feed(event.to_dict(mode="json", warnings=False))
                    if text:
                        yield TextDelta(text)
        yield ResponseDone(_response(state.result(), self._model))

    def _body(self, request: ModelRequest) -> dict[str, Any]:
        return build_request(
            request,
            model=self._model,
            max_tokens=self._max_tokens,
            encrypted_reasoning=self._encrypted_reasoning,
        )

    def _client(self) -> openai.AsyncOpenAI:
        import openai

        api_key = self._api_key or os.environ.get("OPENAI_API_KEY")
        if not api_key:
            raise credentials_error(PROVIDER, "no API key: pass api_key or set OPENAI_API_KEY")
        return openai.AsyncOpenAI(
            api_key=api_key,
            base_url=self._base_url,
            timeout=self._timeout,
            max_retries=self._retries(openai.DEFAULT_MAX_RETRIES),
            http_client=openai.DefaultAsyncHttpxClient(verify=tls_context()),
        )


def _response(data: object, model: str) -> ModelResponse:
    return ModelResponse(parse_response(data, model=model), parse_usage(data))


# -- errors --------------------------------------------------------------------------------


def _sdk_errors() -> tuple[type[Exception], ...]:
    """The exceptions ``_translate`` handles: the SDK's, its HTTP library's transport errors
    (in case one escapes the SDK while a stream is being read), and the ``JSONDecodeError``
    the SDK lets escape for a stream event whose data is not JSON."""
    import openai

    return (openai.OpenAIError, json.JSONDecodeError, *http_errors("TransportError"))


def _translate(exc: Exception) -> ProviderError:
    """The one place SDK exceptions become surefoot's; no response body, no key."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        kind = kind_for_status(status, auth=BILLING_IS_AUTH)
        message = f"{_SAFE_MESSAGES[kind]} (HTTP {status})"
        return ProviderError(provider=PROVIDER, status=status, kind=kind, safe_message=message)
    if isinstance(exc, openai.APITimeoutError):
        return connection_error(PROVIDER, "the request timed out")
    if isinstance(exc, openai.APIConnectionError):
        return connection_error(PROVIDER, "the API could not be reached")
    if isinstance(exc, openai.APIResponseValidationError):
        return _bad("the API's answer could not be read")
    if isinstance(exc, openai.APIError):
        # An ``error`` event inside a stream: the SDK raises it with the event's error object,
        # whose code decides the kind exactly as for a failed response.
        return _failure(exc.code)
    if isinstance(exc, openai.OpenAIError):
        return credentials_error(PROVIDER, "the OpenAI client could not be set up (credentials)")
    if isinstance(exc, json.JSONDecodeError):
        return _bad("the API's answer could not be read")
    return connection_error(PROVIDER, "the connection broke while the response was being read")


__all__ = [
    "OpenAIResponsesModel",
    "build_input",
    "build_request",
    "parse_response",
    "parse_usage",
    "wire_call_id",
]
