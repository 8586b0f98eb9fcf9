"""Google Interactions API adapter, over ``google-genai``'s ``client.aio.interactions``.

Stateless by default: ``store: false`` and no ``previous_interaction_id``, so the whole
transcript travels in ``input`` every time and no health data stays on Google's servers.

Wire shapes (the "steps" revision of the API that the installed SDK speaks)::

    request   {"model", "store": false, "input": [step, ...], "system_instruction"?,
               "tools"?: [{"type": "function", "name", "description", "parameters"}],
               "generation_config": {"max_output_tokens"}}
    user      {"type": "user_input", "content": [{"type": "text", "text"}]}
    text      {"type": "model_output", "content": [{"type": "text", "text"}]}
    call      {"type": "function_call", "id", "name", "arguments": {...}}
    result    {"type": "function_result", "call_id", "name", "result": {...}, "is_error": true}
              (``result`` is always an object: the data, or the error envelope; ``is_error``
              only for a ``ToolError``; ``name`` always sent)
    thought   the ``thought`` step as Google sent it (signature, summary); echoed to Google
              only, dropped for any other provider's reasoning
    response  {"id", "status", "model", "steps": [...], "usage": {...}}

A ``function_call`` step that carries a non-empty ``signature`` keeps it in the call's
``provider_details`` and gets it back, to Google only. Usage counts thinking as output: the
API reports ``total_thought_tokens`` apart from ``total_output_tokens``, and the model
produced (and is billed for) both. The prompt's cached part (``total_cached_tokens``, inside
``total_input_tokens`` on the wire) is reported apart, as ``cache_read_input_tokens``.

Harness messages are never sent: they are the harness's words, not the model's.
Ids that break the API's id rules are mapped with ``wire_id`` on both the call and its
result, so a transcript recorded elsewhere continues here unchanged.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Final, assert_never

from .._exceptions import ProviderError
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
from .._outcome import ToolError, to_wire
from ._common import (
    PROVIDER_MESSAGES,
    CallIds,
    ResponseCallIds,
    SDKModel,
    bad_response,
    client_for_request,
    connection_error,
    count_at,
    credentials_error,
    http_errors,
    json_object,
    kind_for_status,
    lenient_arguments,
    split_cached,
    tls_context,
    token_counts,
)
from ._ids import wire_id

PROVIDER: Final = "google"

_INPUT_STEPS: Final = frozenset({"user_input", "function_result"})
"""Steps that belong to the request; a response that echoes them is read after the last."""


# -- request -------------------------------------------------------------------------------


def build_request(request: ModelRequest, *, model: str, max_tokens: int) -> dict[str, Any]:
    """The ``interactions.create`` body for ``request`` (pure; no network)."""
    body: dict[str, Any] = {
        "model": model,
        "store": False,
        "input": _input_steps(request.messages),
        "generation_config": {"max_output_tokens": max_tokens},
    }
    if request.system:
        body["system_instruction"] = request.system
    if request.tools:
        body["tools"] = [_tool(spec) for spec in request.tools]
    if request.output_schema is not None:  # structured outputs; the harness validates anyway
        body["response_mime_type"] = "application/json"
        body["response_format"] = {
            "type": "text",
            "mime_type": "application/json",
            "schema": request.output_schema,
        }
    return body


def _tool(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.parameters,
    }


def _input_steps(messages: Sequence[Message]) -> list[dict[str, Any]]:
    ids = CallIds(wire_id)  # ids unique across the conversation, as the API requires
    return [step for message in messages for step in _message_steps(message, ids)]


def _message_steps(message: Message, ids: CallIds) -> list[dict[str, Any]]:
    match message:
        case UserMessage():
            return [{"type": "user_input", "content": [_text(message.text)]}]
        case AssistantMessage():
            ids.start_turn()
            native = message.provider == PROVIDER
            return [step for part in message.parts for step in _part_steps(part, ids, native)]
        case ToolResultsMessage():
            return [_result_step(result, ids) for result in message.results]
        case HarnessMessage():
            return []
        case HarnessNote():
            return [{"type": "user_input", "content": [_text(message.text)]}]
        case _:
            assert_never(message)


def _part_steps(part: AssistantPart, ids: CallIds, native: bool) -> list[dict[str, Any]]:
    match part:
        case TextPart():
            return [{"type": "model_output", "content": [_text(part.text)]}] if part.text else []
        case ToolCall():
            arguments = part.arguments if part.arguments is not None else {}
            step = {"type": "function_call", "id": ids.for_call(part.call_id), "name": part.name}
            signature = _call_signature(part) if native else {}
            return [{**step, "arguments": arguments, **signature}]
        case ReasoningPart():
            return [dict(part.data)] if part.provider == PROVIDER else []
        case _:
            assert_never(part)


def _call_signature(call: ToolCall) -> dict[str, str]:
    """The signature Google put on this call, to send back with it."""
    signature = (call.provider_details or {}).get("signature")
    return {"signature": signature} if isinstance(signature, str) and signature else {}


def _result_step(result: ToolResult, ids: CallIds) -> dict[str, Any]:
    step: dict[str, Any] = {
        "type": "function_result",
        "call_id": ids.for_result(result.call_id),
        "name": result.name,
        "result": to_wire(result.outcome),
    }
    if isinstance(result.outcome, ToolError):
        step["is_error"] = True
    return step


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


# -- response ------------------------------------------------------------------------------


def parse_response(data: dict[str, Any]) -> AssistantMessage:
    """The assistant turn in an Interaction resource (pure; no network).

    Raises ``ProviderError(kind="bad_response")`` for anything it cannot read (no steps, an
    unsupported step or content type, a call without a name); arguments that are not a
    JSON object become ``arguments=None`` with the text kept in ``raw_arguments``.
    """
    payload: object = data  # typed for callers, checked for what the wire really sent
    if not isinstance(payload, dict):
        raise _bad("the response is not a JSON object")
    steps = data.get("steps")
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        raise _bad("the response has no readable steps")
    output = _output_steps(steps)
    parts = _parts(output, seed=_str(data.get("id")))
    model = data.get("model")
    interaction_id = data.get("id")
    return AssistantMessage(
        parts=tuple(parts),
        finish=_finish(data.get("status"), output, parts),
        provider=PROVIDER,
        model=model if isinstance(model, str) else None,
        provider_details={"interaction_id": interaction_id}
        if isinstance(interaction_id, str) and interaction_id
        else None,
    )


def _output_steps(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    last_input = max(
        (i for i, s in enumerate(steps) if _str(s.get("type")) in _INPUT_STEPS), default=-1
    )
    return steps[last_input + 1 :]


def _parts(steps: list[dict[str, Any]], *, seed: str) -> list[AssistantPart]:
    parts: list[AssistantPart] = []
    ids = ResponseCallIds()
    for step in steps:
        kind = step.get("type")
        if kind == "model_output":
            parts.extend(_output_text(step))
        elif kind == "function_call":
            parts.append(_call(step, ids, seed))
        elif kind == "thought":
            parts.append(ReasoningPart(provider=PROVIDER, data=step))
        else:
            raise _bad("the response has a step of an unsupported type")
    return parts


def _output_text(step: dict[str, Any]) -> list[TextPart]:
    content = step.get("content")
    if content is None:
        return []
    if not isinstance(content, list):
        raise _bad("a model_output step has unreadable content")
    parts: list[TextPart] = []
    for item in content:
        if not isinstance(item, dict) or item.get("type") != "text":
            raise _bad("a model_output step has content of an unsupported type")
        text = item.get("text")
        if not isinstance(text, str):
            raise _bad("a text content block has no text")
        if text:
            parts.append(TextPart(text))
    return parts


def _call(step: dict[str, Any], ids: ResponseCallIds, seed: str) -> ToolCall:
    name = step.get("name")
    if not isinstance(name, str) or not name:
        raise _bad("a function_call step has no name")
    arguments, raw = lenient_arguments(step.get("arguments"))
    call_id = ids.take(step.get("id"), f"{seed}\x00{name}")
    signature = step.get("signature")
    details = {"signature": signature} if isinstance(signature, str) and signature else None
    return ToolCall(
        call_id=call_id,
        name=name,
        arguments=arguments,
        raw_arguments=raw,
        provider_details=details,
    )


_FINISH_BY_STATUS: Final[dict[str, FinishReason]] = {
    "incomplete": "max_tokens",
    "budget_exceeded": "max_tokens",
    "requires_continuation": "max_tokens",
}


def _finish(
    status: object, steps: list[dict[str, Any]], parts: list[AssistantPart]
) -> FinishReason:
    if any(s.get("type") == "model_output" and s.get("error") for s in steps):
        return "refusal"  # the API withheld the output itself (safety / policy)
    if status in ("requires_action", "completed"):
        return "tool_use" if any(isinstance(p, ToolCall) for p in parts) else "end_turn"
    if isinstance(status, str) and status in _FINISH_BY_STATUS:
        return _FINISH_BY_STATUS[status]
    if status in ("failed", "cancelled"):
        raise ProviderError(
            provider=PROVIDER, status=None, kind="server", safe_message="the interaction failed"
        )
    raise _bad("the interaction has no usable status")


_USAGE: Final = {
    "input_tokens": "total_input_tokens",
    "output_tokens": "total_output_tokens",
    "thought_tokens": "total_thought_tokens",
}


def parse_usage(data: object) -> dict[str, int]:
    """Token counts of an interaction: thinking is counted in ``output_tokens`` (the API
    reports it apart, in ``total_thought_tokens``), and the prompt's cached part
    (``total_cached_tokens``, which the API counts inside ``total_input_tokens``) is reported
    apart as ``cache_read_input_tokens`` (zero included, whenever the API gives the count),
    ``input_tokens`` keeping the rest."""
    counts = token_counts(data, _USAGE)
    thought = counts.pop("thought_tokens", 0)
    if thought:
        counts["output_tokens"] = counts.get("output_tokens", 0) + thought
    return split_cached(counts, count_at(data, "usage", "total_cached_tokens"))


def _bad(message: str) -> ProviderError:
    return bad_response(PROVIDER, message)


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


# -- streaming -----------------------------------------------------------------------------


class StreamAssembler:
    """Rebuilds an Interaction from its SSE events (pure; no network).

    ``feed`` takes each event as a dict and returns the text it added (or None);
    ``result`` gives the interaction, ready for ``parse_response``. Argument deltas are
    joined per step and only read once the stream is over.
    """

    def __init__(self) -> None:
        self._interaction: dict[str, Any] = {}
        self._steps: dict[int, dict[str, Any]] = {}
        self._arguments: dict[int, list[str]] = {}

    def feed(self, event: dict[str, Any]) -> str | None:
        """Take one event; the assistant text it carried, if any."""
        payload: object = event  # typed for callers, checked for what the wire really sent
        if not isinstance(payload, dict):
            raise _bad("a stream event is not a JSON object")
        handler = _EVENT_HANDLERS.get(_str(event.get("event_type")))
        return handler(self, event) if handler is not None else None

    def result(self) -> dict[str, Any]:
        """The interaction the events described."""
        if "status" not in self._interaction:
            raise _bad("the stream ended before the interaction did")
        if not self._steps and "steps" in self._interaction:
            return dict(self._interaction)  # the steps came whole, not as deltas
        steps = []
        for index in sorted(self._steps):
            step = self._steps[index]
            if index in self._arguments:
                step = {**step, "arguments": _joined(self._arguments[index])}
            steps.append(step)
        return {**self._interaction, "steps": steps}

    # -- event handlers --------------------------------------------------------------------

    def _lifecycle(self, event: dict[str, Any]) -> None:
        interaction = event.get("interaction")
        if isinstance(interaction, dict):
            fields = ("id", "status", "model", "usage", "steps")
            self._interaction.update({k: interaction[k] for k in fields if k in interaction})

    def _status(self, event: dict[str, Any]) -> None:
        for key in ("status", "usage"):
            if key in event:
                self._interaction[key] = event[key]

    def _start(self, event: dict[str, Any]) -> str | None:
        step = event.get("step")
        if not isinstance(step, dict):
            raise _bad("a step.start event has no step")
        step = dict(step)
        content = step.get("content")
        if isinstance(content, list):
            step["content"] = list(content)
        self._steps[_index(event)] = step
        if step.get("type") != "model_output" or not isinstance(content, list):
            return None
        texts = [c.get("text") for c in content if isinstance(c, dict)]
        return "".join(t for t in texts if isinstance(t, str)) or None

    def _delta(self, event: dict[str, Any]) -> str | None:
        delta = event.get("delta")
        if not isinstance(delta, dict):
            raise _bad("a step.delta event has no delta")
        index = _index(event)
        kind = delta.get("type")
        if kind == "text":
            return self._text_delta(index, delta)
        if kind == "arguments_delta":
            self._arguments.setdefault(index, []).append(_str(delta.get("arguments")))
        elif kind == "thought_signature":
            step = self._steps.setdefault(index, {"type": "thought"})
            step["signature"] = _str(step.get("signature")) + _str(delta.get("signature"))
        elif kind == "thought_summary" and isinstance(delta.get("content"), dict):
            step = self._steps.setdefault(index, {"type": "thought"})
            summary = step.get("summary")
            step["summary"] = [*(summary if isinstance(summary, list) else ()), delta["content"]]
        return None

    def _text_delta(self, index: int, delta: dict[str, Any]) -> str | None:
        text = delta.get("text")
        if not isinstance(text, str):
            raise _bad("a text delta has no text")
        step = self._steps.setdefault(index, {"type": "model_output"})
        content = step.setdefault("content", [])
        if not isinstance(content, list):
            raise _bad("a text delta belongs to a step without text content")
        if content and isinstance(content[-1], dict) and content[-1].get("type") == "text":
            content[-1] = {**content[-1], "text": _str(content[-1].get("text")) + text}
        else:
            content.append(_text(text))
        return text or None

    def _error(self, event: dict[str, Any]) -> None:
        del event  # the provider's own text is not shown: it may carry request details
        raise ProviderError(
            provider=PROVIDER,
            status=None,
            kind="server",
            safe_message="the provider reported an error during the stream",
        )


def _index(event: dict[str, Any]) -> int:
    index = event.get("index")
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        raise _bad("a step event has no valid index")
    return index


def _joined(pieces: Sequence[str]) -> object:
    text = "".join(pieces)
    parsed = json_object(text)
    return parsed if parsed is not None else text


_EVENT_HANDLERS: Final[dict[str, Callable[[StreamAssembler, dict[str, Any]], str | None]]] = {
    "interaction.created": StreamAssembler._lifecycle,
    "interaction.completed": StreamAssembler._lifecycle,
    "interaction.status_update": StreamAssembler._status,
    "step.start": StreamAssembler._start,
    "step.delta": StreamAssembler._delta,
    "error": StreamAssembler._error,
}


# -- the model -----------------------------------------------------------------------------


class GoogleInteractionsModel(SDKModel):
    """A Gemini model behind the Interactions API (``google-genai``).

    Each request uses its own SDK client (closed when the request ends), so the model can be
    shared across event loops and leaves no connection behind.
    """

    _provider = PROVIDER

    async def request(self, request: ModelRequest) -> ModelResponse:
        """One interaction, answered as a whole."""
        body = build_request(request, model=self._model, max_tokens=self._max_tokens)
        async with client_for_request(self._request_client, _sdk_errors, _translate) as client:
            data = _as_dict(await client.interactions.create(**body))
        return self._response(data)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """One interaction over SSE: text deltas as they arrive, then the response."""
        body = build_request(request, model=self._model, max_tokens=self._max_tokens)
        assembler = StreamAssembler()
        async with client_for_request(self._request_client, _sdk_errors, _translate) as client:
            events = await client.interactions.create(**body, stream=True)
            async with events:  # closed even when the caller stops early or parsing fails
                async for event in events:
                    text = assembler.feed(_as_dict(event))
                    if text:
                        yield TextDelta(text)
        yield ResponseDone(self._response(assembler.result()))

    def _response(self, data: dict[str, Any]) -> ModelResponse:
        return ModelResponse(self._with_model(parse_response(data)), parse_usage(data))

    def _client(self) -> Any:
        """The SDK's async client (``genai.Client().aio``); ``async with`` closes it."""
        from google import genai
        from google.genai import types

        key = self._api_key or os.environ.get("GOOGLE_API_KEY") or os.environ.get("GEMINI_API_KEY")
        if not key:
            raise credentials_error(PROVIDER, "no API key is configured (set GEMINI_API_KEY)")
        retry = None
        if self._max_retries is not None:
            retry = types.HttpRetryOptions(attempts=self._max_retries + 1)
        options = types.HttpOptions(
            base_url=self._base_url,
            timeout=int(self._timeout * 1000),
            retry_options=retry,
            # The SDK builds a TLS context for each client unless given one: ``verify`` for
            # its HTTP client, ``ssl`` for its websockets.
            async_client_args={"verify": tls_context(), "ssl": tls_context()},
        )
        return genai.Client(api_key=key, vertexai=False, http_options=options).aio


def _as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    dump = getattr(value, "model_dump", None)
    if dump is None:
        raise _bad("the SDK returned something that is not an interaction")
    dumped = dump(mode="json", by_alias=True, exclude_none=True, warnings=False)
    if not isinstance(dumped, dict):
        raise _bad("the SDK returned something that is not an interaction")
    return dumped


# -- errors: the one place SDK exceptions become ProviderError --------------------------------


def _sdk_errors() -> tuple[type[BaseException], ...]:
    from google.genai import _interactions, errors

    return (
        _interactions.GeminiNextGenAPIClientError,
        errors.APIError,
        errors.ContinuationInterruptedError,
        *http_errors("HTTPError"),
    )


def _translate(exc: BaseException) -> ProviderError:
    """The ``ProviderError`` for an exception of the SDK or the HTTP layer under it."""
    from google.genai import _interactions, errors

    if isinstance(exc, errors.ContinuationInterruptedError) and exc.__cause__ is not None:
        return _translate(exc.__cause__)
    connection: tuple[type[BaseException], ...] = (
        _interactions.APIConnectionError,
        *http_errors("TransportError"),
    )
    if isinstance(exc, connection):
        timeouts: tuple[type[BaseException], ...] = (
            _interactions.APITimeoutError,
            *http_errors("TimeoutException"),
        )
        timeout = isinstance(exc, timeouts)
        text = "the request to the provider timed out" if timeout else "the provider is unreachable"
        return connection_error(PROVIDER, text)
    status: int | None = None
    if isinstance(exc, _interactions.APIResponseValidationError):
        status = None
    elif isinstance(exc, _interactions.APIError):
        status = exc.status_code
    elif isinstance(exc, errors.APIError):
        status = exc.code
    kind = kind_for_status(status)
    return ProviderError(
        provider=PROVIDER, status=status, kind=kind, safe_message=PROVIDER_MESSAGES[kind]
    )


__all__ = [
    "GoogleInteractionsModel",
    "StreamAssembler",
    "build_request",
    "parse_response",
    "parse_usage",
]
