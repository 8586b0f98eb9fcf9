"""OpenAI-compatible Chat Completions adapter (Ollama, vLLM, llama.cpp's server, OpenAI).

Over ``openai.AsyncOpenAI().chat.completions.create``; point ``base_url`` at the local
server (``http://localhost:11434/v1`` for Ollama). Local servers are lenient in their own
ways, so the reader is too: ``function.arguments`` may be a JSON string or an object, ids may
be missing or repeated (``call_0`` for every call), and a stream may carry whole calls.

Wire shapes::

    request   {"model", "messages": [...], "max_tokens" | "max_completion_tokens",
               "tools"?: [{"type": "function", "function": {"name", "description",
                                                             "parameters", "strict": false}}]}
    system    {"role": "system", "content"}                       (first, when given)
    user      {"role": "user", "content"}
    assistant {"role": "assistant", "content": text | null, "reasoning"?: text,
               "tool_calls"?: [{"id", "type": "function",
                                "function": {"name", "arguments": "<JSON text>"}}]}
    result    {"role": "tool", "tool_call_id", "content": "<data or envelope as JSON text>"}

There is no error field on this wire: the envelope inside ``content`` carries the mark.
Harness messages and other providers' reasoning are never sent. Ids are mapped with
``wire_id`` (at most 40 characters, as OpenAI requires) on both the call and its result.
Missing or repeated ids in a response get ``generated_id``s, stable for that response.

The output limit has two names: OpenAI's own endpoint wants ``max_completion_tokens`` (its
reasoning models refuse ``max_tokens``), local servers read ``max_tokens`` (not all of them know
the newer name). ``limit_parameter_for`` picks one from the base URL; ``limit_parameter``
overrides it.

Reasoning a server returns beside the text (Ollama's and vLLM's ``reasoning``, llama.cpp's and
DeepSeek's ``reasoning_content``) is kept as a ``ReasoningPart`` under that field name and sent
back in the same field to this provider only (Ollama reads ``reasoning`` back as the model's
thinking).

Usage: the prompt tokens a server read from its cache are taken out of ``prompt_tokens`` and
reported as ``cache_read_input_tokens``, from ``usage.prompt_tokens_details`` (OpenAI, vLLM,
Ollama, llama.cpp) or llama.cpp's ``timings`` (``parse_usage``), streamed or not.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Final, Literal, assert_never
from urllib.parse import urlsplit

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
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)
from .._model import ResponseDone, StreamEvent, TextDelta
from .._outcome import dumps, to_wire_text
from ._common import (
    OUTPUT_NAME,
    PROVIDER_MESSAGES,
    CallIds,
    ResponseCallIds,
    SDKModel,
    bad_response,
    client_for_request,
    connection_error,
    count_at,
    http_errors,
    kind_for_status,
    lenient_arguments,
    split_cached,
    tls_context,
    token_counts,
)
from ._ids import wire_id

if TYPE_CHECKING:
    import openai

PROVIDER: Final = "openai-chat"
_ID_MAX: Final = 40
_REASONING_FIELDS: Final = ("reasoning", "reasoning_content")
"""Where servers put reasoning beside the text, in the order they are looked for."""

LimitParameter = Literal["max_tokens", "max_completion_tokens"]
"""The two names of the output-token limit on this wire."""

_OPENAI_URL: Final = "https://api.openai.com/v1"
_OPENAI_HOSTS: Final = ("api.openai.com",)
_OPENAI_HOST_SUFFIXES: Final = (".openai.azure.com",)


def limit_parameter_for(base_url: str | None) -> LimitParameter:
    """The name of the output limit the server at ``base_url`` reads: ``max_completion_tokens``
    for OpenAI's own endpoint (no base URL, ``OPENAI_BASE_URL`` unset) and Azure OpenAI,
    ``max_tokens`` for every other server (Ollama, vLLM, llama.cpp)."""
    url = base_url or os.environ.get("OPENAI_BASE_URL") or _OPENAI_URL
    host = (urlsplit(url).hostname or "").lower()
    if host in _OPENAI_HOSTS or host.endswith(_OPENAI_HOST_SUFFIXES):
        return "max_completion_tokens"
    return "max_tokens"


# -- request -------------------------------------------------------------------------------


def build_request(
    request: ModelRequest,
    *,
    model: str,
    max_tokens: int,
    limit_parameter: LimitParameter = "max_tokens",
) -> dict[str, Any]:
    """The ``chat.completions.create`` body for ``request`` (pure; no network); the output
    limit goes under ``limit_parameter``."""
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    ids = CallIds(_wire_id)  # ids unique across the conversation, each result on its call
    for message in request.messages:
        messages.extend(_messages(message, ids))
    body: dict[str, Any] = {"model": model, "messages": messages, limit_parameter: max_tokens}
    if request.tools:
        body["tools"] = [_tool(spec) for spec in request.tools]
    if request.output_schema is not None and limit_parameter == "max_completion_tokens":
        # OpenAI's own endpoint: structured outputs beside tools. Local servers turn a schema
        # into a grammar that some refuse beside tools, so there the prompt and the harness's
        # validation carry it alone.
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": OUTPUT_NAME, "schema": request.output_schema, "strict": False},
        }
    return body


def _tool(spec: ToolSpec) -> dict[str, Any]:
    function = {
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.parameters,
        "strict": False,
    }
    return {"type": "function", "function": function}


def _messages(message: Message, ids: CallIds) -> list[dict[str, Any]]:
    match message:
        case UserMessage():
            return [{"role": "user", "content": message.text}]
        case AssistantMessage():
            ids.start_turn()
            return [_assistant(message, ids)]
        case ToolResultsMessage():
            return [
                {
                    "role": "tool",
                    "tool_call_id": ids.for_result(r.call_id),
                    "content": to_wire_text(r.outcome),
                }
                for r in message.results
            ]
        case HarnessMessage():
            return []
        case HarnessNote():
            return [{"role": "user", "content": message.text}]
        case _:
            assert_never(message)


def _assistant(message: AssistantMessage, ids: CallIds) -> dict[str, Any]:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for part in message.parts:
        _add_part(part, texts, calls, ids)
    out: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
    out |= _reasoning_fields(message.parts)
    if calls:
        out["tool_calls"] = calls
    elif out["content"] is None:
        out["content"] = ""
    return out


def _add_part(
    part: AssistantPart, texts: list[str], calls: list[dict[str, Any]], ids: CallIds
) -> None:
    match part:
        case TextPart():
            texts.append(part.text)
        case ToolCall():
            calls.append(
                {
                    "id": ids.for_call(part.call_id),
                    "type": "function",
                    "function": {"name": part.name, "arguments": _argument_text(part)},
                }
            )
        case ReasoningPart():
            pass  # sent beside the text, by ``_reasoning_fields``
        case _:
            assert_never(part)


def _reasoning_fields(parts: tuple[AssistantPart, ...]) -> dict[str, str]:
    """This provider's reasoning, back in the field it came in; others' never."""
    fields: dict[str, str] = {}
    for part in parts:
        if isinstance(part, ReasoningPart) and part.provider == PROVIDER:
            for name in _REASONING_FIELDS:
                value = part.data.get(name)
                if isinstance(value, str) and value:
                    fields[name] = fields.get(name, "") + value
    return fields


def _argument_text(call: ToolCall) -> str:
    if call.raw_arguments is not None:
        return call.raw_arguments
    return dumps(call.arguments if call.arguments is not None else {})


def _wire_id(call_id: str) -> str:
    return wire_id(call_id, max_len=_ID_MAX)


# -- response ------------------------------------------------------------------------------


def parse_response(data: dict[str, Any]) -> AssistantMessage:
    """The assistant turn in a chat completion (pure; no network).

    Raises ``ProviderError(kind="bad_response")`` for anything it cannot read (no choices,
    no message, a call without a name); arguments that are not a JSON object become
    ``arguments=None`` with the text kept in ``raw_arguments``.
    """
    payload: object = data  # typed for callers, checked for what the wire really sent
    if not isinstance(payload, dict):
        raise _bad("the response is not a JSON object")
    choice = _first_choice(data)
    message = choice.get("message")
    if not isinstance(message, dict):
        raise _bad("the response's choice has no message")
    parts: list[AssistantPart] = _reasoning(message)
    parts.extend(TextPart(t) for t in _texts(message) if t)
    parts.extend(_calls(message.get("tool_calls"), seed=_seed(data)))
    model = data.get("model")
    return AssistantMessage(
        parts=tuple(parts),
        finish=_finish(choice.get("finish_reason"), message, parts),
        provider=PROVIDER,
        model=model if isinstance(model, str) else None,
    )


def _first_choice(data: dict[str, Any]) -> dict[str, Any]:
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise _bad("the response has no choices")
    return choices[0]


def _reasoning(message: dict[str, Any]) -> list[AssistantPart]:
    """The reasoning a server put beside the text (the first field that has any)."""
    for name in _REASONING_FIELDS:
        value = message.get(name)
        if isinstance(value, str) and value:
            return [ReasoningPart(PROVIDER, {name: value})]
    return []


def _texts(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if content is None or isinstance(content, str):
        texts = [content or ""]
    elif isinstance(content, list):
        texts = [_content_text(item) for item in content]
    else:
        raise _bad("the message content is not text")
    refusal = message.get("refusal")
    if isinstance(refusal, str):
        texts.append(refusal)
    return texts


def _content_text(item: object) -> str:
    if isinstance(item, dict) and item.get("type") == "text" and isinstance(item.get("text"), str):
        return str(item["text"])
    raise _bad("the message content has a part of an unsupported type")


def _calls(value: object, *, seed: str) -> list[ToolCall]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _bad("tool_calls is not a list")
    calls: list[ToolCall] = []
    ids = ResponseCallIds()
    for item in value:
        name, arguments, raw, raw_id = _call_fields(item)
        call_id = ids.take(raw_id, seed)
        calls.append(ToolCall(call_id=call_id, name=name, arguments=arguments, raw_arguments=raw))
    return calls


def _call_fields(item: object) -> tuple[str, dict[str, Any] | None, str | None, str | None]:
    if not isinstance(item, dict) or item.get("type", "function") != "function":
        raise _bad("a tool call is not a function call")
    function = item.get("function")
    if not isinstance(function, dict):
        raise _bad("a tool call has no function")
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise _bad("a tool call has no name")
    arguments, raw = lenient_arguments(function.get("arguments"))
    raw_id = item.get("id")
    return name, arguments, raw, raw_id if isinstance(raw_id, str) else None


_FINISH: Final[dict[str, FinishReason]] = {
    "length": "max_tokens",
    "content_filter": "refusal",
}


def _finish(reason: object, message: dict[str, Any], parts: list[AssistantPart]) -> FinishReason:
    if isinstance(reason, str) and reason in _FINISH:
        return _FINISH[reason]
    if isinstance(message.get("refusal"), str) and message["refusal"]:
        return "refusal"
    # Some local servers say "stop" even when they called tools: the calls decide.
    return "tool_use" if any(isinstance(p, ToolCall) for p in parts) else "end_turn"


def _seed(data: dict[str, Any]) -> str:
    return f"{data.get('id', '')}\x00{data.get('created', '')}"


_USAGE: Final = {"input_tokens": "prompt_tokens", "output_tokens": "completion_tokens"}


def parse_usage(data: object) -> dict[str, int]:
    """The token counts of a chat completion (pure; empty when it has none).

    ``prompt_tokens`` counts the whole prompt, the part a server read from its prompt cache
    included; that part is reported apart, as ``cache_read_input_tokens`` (zero included,
    whenever the server gives the count), and ``input_tokens`` keeps the rest. Where the count
    is found, first to last:

    * ``usage.prompt_tokens_details.cached_tokens``: OpenAI, vLLM, Ollama, and llama.cpp's
      server since it added the field;
    * ``timings.cache_n``: llama.cpp's server, the prompt tokens it reused from its KV cache;
    * ``usage.prompt_tokens - timings.prompt_n``: older llama.cpp servers, whose ``timings``
      count only the prompt tokens they evaluated (``prompt_n``) while ``prompt_tokens`` is the
      whole prompt.

    ``completion_tokens`` (reasoning included) is ``output_tokens``; ``total_tokens`` is left
    out, as no adapter reports a sum.
    """
    counts = token_counts(data, _USAGE)
    return split_cached(counts, _cached_prompt_tokens(data, counts.get("input_tokens")))


def _cached_prompt_tokens(data: object, prompt: int | None) -> int | None:
    cached = count_at(data, "usage", "prompt_tokens_details", "cached_tokens")
    if cached is None:
        cached = count_at(data, "timings", "cache_n")
    evaluated = count_at(data, "timings", "prompt_n")
    if cached is None and evaluated is not None and prompt is not None and evaluated <= prompt:
        cached = prompt - evaluated
    return cached


def _bad(message: str) -> ProviderError:
    return bad_response(PROVIDER, message)


# -- streaming -----------------------------------------------------------------------------


class StreamAssembler:
    """Rebuilds a chat completion from its chunks (pure; no network).

    ``feed`` takes each chunk as a dict and returns the text it added (or None); ``result``
    gives the completion, ready for ``parse_response``. Tool calls are assembled by
    ``index`` (argument text joined, or an object taken whole) and read only at the end.
    """

    def __init__(self) -> None:
        self._head: dict[str, Any] = {}
        self._text: list[str] = []
        self._refusal: list[str] = []
        self._reasoning: dict[str, list[str]] = {}
        self._calls: dict[int, dict[str, Any]] = {}
        self._finish: object = None

    def feed(self, chunk: dict[str, Any]) -> str | None:
        """Take one chunk; the assistant text it carried, if any."""
        payload: object = chunk  # typed for callers, checked for what the wire really sent
        if not isinstance(payload, dict):
            raise _bad("a stream chunk is not a JSON object")
        for key in ("id", "created", "model"):
            if key in chunk and key not in self._head:
                self._head[key] = chunk[key]
        for key in ("usage", "timings"):  # llama.cpp's server adds ``timings`` beside usage
            if isinstance(chunk.get(key), dict):
                self._head[key] = chunk[key]
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return None
        choice = choices[0]
        if choice.get("finish_reason") is not None:
            self._finish = choice["finish_reason"]
        delta = choice.get("delta")
        return self._delta(delta) if isinstance(delta, dict) else None

    def result(self) -> dict[str, Any]:
        """The completion the chunks described."""
        if self._finish is None:  # cut off: partial text or arguments must not pass as whole
            raise _bad("the stream ended before the response did")
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self._text) or None}
        if self._refusal:
            message["refusal"] = "".join(self._refusal)
        message |= {name: "".join(pieces) for name, pieces in self._reasoning.items()}
        if self._calls:
            message["tool_calls"] = [_call(self._calls[i]) for i in sorted(self._calls)]
        choice = {"index": 0, "message": message, "finish_reason": self._finish}
        return {**self._head, "choices": [choice]}

    def _delta(self, delta: dict[str, Any]) -> str | None:
        if isinstance(delta.get("refusal"), str):
            self._refusal.append(delta["refusal"])
        for name in _REASONING_FIELDS:
            if isinstance(delta.get(name), str) and delta[name]:
                self._reasoning.setdefault(name, []).append(delta[name])
        tool_calls = delta.get("tool_calls")
        if isinstance(tool_calls, list):
            for item in tool_calls:
                if isinstance(item, dict):
                    self._tool_delta(item)
        content = delta.get("content")
        if isinstance(content, str) and content:
            self._text.append(content)
            return content
        return None

    def _tool_delta(self, item: dict[str, Any]) -> None:
        slot = self._calls.setdefault(self._slot_index(item), {"arguments": []})
        if isinstance(item.get("id"), str) and item["id"] and "id" not in slot:
            slot["id"] = item["id"]
        if isinstance(item.get("type"), str):
            slot.setdefault("type", item["type"])
        function = item.get("function")
        if not isinstance(function, dict):
            return
        if isinstance(function.get("name"), str) and function["name"] and "name" not in slot:
            slot["name"] = function["name"]
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            slot["arguments"].append(arguments)
        elif arguments is not None:
            slot["object"] = arguments

    def _slot_index(self, item: dict[str, Any]) -> int:
        index = item.get("index")
        if isinstance(index, int) and not isinstance(index, bool):
            return index
        # No index (some servers): a new id starts a new call, anything else continues one.
        known = {slot.get("id") for slot in self._calls.values()}
        if not self._calls or (isinstance(item.get("id"), str) and item["id"] not in known):
            return max(self._calls, default=-1) + 1
        return max(self._calls)


def _call(slot: dict[str, Any]) -> dict[str, Any]:
    arguments = slot["object"] if "object" in slot else "".join(slot["arguments"])
    call: dict[str, Any] = {
        "type": slot.get("type", "function"),
        "function": {"name": slot.get("name"), "arguments": arguments},
    }
    if "id" in slot:
        call["id"] = slot["id"]
    return call


# -- the model -----------------------------------------------------------------------------


class OpenAIChatModel(SDKModel):
    """A model behind an OpenAI-compatible Chat Completions endpoint.

    Each request uses its own SDK client (closed when the request ends), so the model can be
    shared across event loops and leaves no connection behind.
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
        max_retries: int | None = None,
        limit_parameter: LimitParameter | None = None,
    ) -> None:
        """``limit_parameter`` names the output limit on the wire; None picks it from the base
        URL (``limit_parameter_for``)."""
        super().__init__(
            model,
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_tokens=max_tokens,
            max_retries=max_retries,
        )
        self._limit_parameter = limit_parameter

    async def request(self, request: ModelRequest) -> ModelResponse:
        """One completion, answered as a whole."""
        body = self._body(request)
        async with client_for_request(self._request_client, _sdk_errors, _translate) as client:
            completion = await client.chat.completions.create(**_as_sent(body))
        return self._response(_as_dict(completion))

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """One completion over SSE: text deltas as they arrive, then the response."""
        body = self._body(request)
        body |= {"stream": True, "stream_options": {"include_usage": True}}
        assembler = StreamAssembler()
        async with client_for_request(self._request_client, _sdk_errors, _translate) as client:
            # the SDK checks the status (an error is raised here, as create's is); the events
            # are read as JSON, not built into the SDK's chunk models and dumped back to the
            # dicts the assembler reads (a sixth of a web worker's CPU per request, py-spy)
            answer = client.chat.completions.with_streaming_response.create(**_as_sent(body))
            async with answer as response:  # closed even when the caller stops early
                async for data in _sse_data(response.iter_lines()):
                    text = assembler.feed(_chunk(data))
                    if text:
                        yield TextDelta(text)
        yield ResponseDone(self._response(assembler.result()))

    def _body(self, request: ModelRequest) -> dict[str, Any]:
        limit = self._limit_parameter or limit_parameter_for(self._base_url)
        return build_request(
            request, model=self._model, max_tokens=self._max_tokens, limit_parameter=limit
        )

    def _response(self, data: dict[str, Any]) -> ModelResponse:
        return ModelResponse(self._with_model(parse_response(data)), parse_usage(data))

    def _client(self) -> openai.AsyncOpenAI:
        import openai

        # Local servers need no key; the SDK refuses to start without one, so say "none".
        key = self._api_key or os.environ.get("OPENAI_API_KEY") or "none"
        return openai.AsyncOpenAI(
            api_key=key,
            base_url=self._base_url,
            timeout=self._timeout,
            max_retries=self._retries(openai.DEFAULT_MAX_RETRIES),
            http_client=openai.DefaultAsyncHttpxClient(verify=tls_context()),
        )


def _as_sent(body: dict[str, Any]) -> dict[str, Any]:
    """``create``'s arguments for ``body``, a request ``build_request`` already wrote as the
    API takes it: ``model`` and ``stream`` as the SDK reads them, everything else as
    ``extra_body``, which the SDK sends as it is. Given as parameters, the SDK would first
    walk every message and every tool's JSON schema against its own type declarations (a
    quarter of a web server's CPU per request, measured with py-spy on ``gymnasia serve``),
    to send the same JSON."""
    read: dict[str, Any] = {key: body[key] for key in ("model", "stream") if key in body}
    sent = {key: value for key, value in body.items() if key not in read}
    # messages is required by the signature: extra_body's replace it on the wire
    return {**read, "messages": [], "extra_body": sent}


async def _sse_data(lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """The data of each server-sent event in ``lines`` (a field split over several ``data:``
    lines joined by newlines, comments and other fields skipped), up to ``[DONE]``; what
    follows it is read to the end and dropped, so the connection can serve the next request."""
    data: list[str] = []
    done = False
    async for line in lines:
        if done:
            continue
        field, _, value = line.partition(":")
        if field == "data":
            data.append(value.removeprefix(" "))
        elif not line and data:  # a blank line ends an event
            event, data = "\n".join(data), []
            done = event.startswith("[DONE]")
            if not done:
                yield event
    if data and not done and not data[0].startswith("[DONE]"):
        yield "\n".join(data)  # the last event, without the blank line that ends it


def _chunk(data: str) -> dict[str, Any]:
    """One streamed chunk; an error event (``{"error": ...}``) ends the stream as a server
    failure, as the SDK's own stream does."""
    chunk = json.loads(data)
    if not isinstance(chunk, dict):
        raise _bad("the server streamed something that is not a chunk")
    if chunk.get("error"):
        kind: ProviderErrorKind = "server"
        raise ProviderError(
            provider=PROVIDER, status=None, kind=kind, safe_message=PROVIDER_MESSAGES[kind]
        )
    return chunk


def _as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    to_dict = getattr(value, "to_dict", None)
    if to_dict is None:
        raise _bad("the SDK returned something that is not a completion")
    dumped = to_dict(mode="json", warnings=False)
    if not isinstance(dumped, dict):
        raise _bad("the SDK returned something that is not a completion")
    return dumped


# -- errors: the one place SDK exceptions become ProviderError --------------------------------


def _sdk_errors() -> tuple[type[BaseException], ...]:
    import openai

    # A body that is not JSON escapes the SDK as JSONDecodeError; a connection dropped
    # mid-stream as an error of its HTTP library.
    return (openai.OpenAIError, json.JSONDecodeError, *http_errors("HTTPError"))


def _translate(exc: BaseException) -> ProviderError:
    """The ``ProviderError`` for an exception of the ``openai`` SDK or the HTTP layer."""
    import openai

    if isinstance(exc, (openai.APIConnectionError, *http_errors("TransportError"))):
        timeout = isinstance(exc, (openai.APITimeoutError, *http_errors("TimeoutException")))
        text = "the request to the provider timed out" if timeout else "the provider is unreachable"
        return connection_error(PROVIDER, text)
    status: int | None = None
    kind: ProviderErrorKind
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        kind = kind_for_status(status)
    elif isinstance(exc, openai.APIResponseValidationError) or not isinstance(exc, openai.APIError):
        kind = "bad_response"
    else:
        kind = "server"  # an error event inside a stream
    return ProviderError(
        provider=PROVIDER, status=status, kind=kind, safe_message=PROVIDER_MESSAGES[kind]
    )


__all__ = [
    "LimitParameter",
    "OpenAIChatModel",
    "StreamAssembler",
    "build_request",
    "limit_parameter_for",
    "parse_response",
    "parse_usage",
]
