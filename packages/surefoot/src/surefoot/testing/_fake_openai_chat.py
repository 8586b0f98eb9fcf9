"""A fake OpenAI-compatible Chat Completions server on 127.0.0.1, strict like OpenAI.

``FakeOpenAIChatServer(turns)`` answers ``POST /v1/chat/completions`` with the scripted
assistant turns in order, as JSON or, when the body asks for ``stream: true``, as SSE
chunks (tool calls as deltas by ``index``; a usage chunk when ``stream_options`` asks for
one) ending with ``data: [DONE]``. It records every request body.

Like a local server, it can leave ids out (``omit_ids=True``), number them ``call_0`` in
every response (``duplicate_ids=True`` gives every call of a response the same
``call_0``), or send ``function.arguments`` as an object (``arguments_as_object=True``).
A scripted ``ReasoningPart`` of provider ``openai-chat`` is sent the way Ollama sends its
reasoning: in the message's ``reasoning`` field (streamed as ``reasoning`` deltas).
``refuses_max_tokens=True`` answers ``max_tokens`` the way OpenAI does for its reasoning
models (a 400 asking for ``max_completion_tokens``).

``cached_input_tokens`` adds that many prompt tokens read from the cache to ``prompt_tokens``,
and says so the way ``usage_style`` tells: ``"openai"`` (the default; OpenAI, vLLM) in
``usage.prompt_tokens_details.cached_tokens``; ``"llama-server"`` as llama.cpp's server did
before it had that field: usage without details, and a ``timings`` object beside it whose
``prompt_n`` counts only the prompt tokens evaluated; when streamed, usage and ``timings``
travel on the chunk with the finish reason, whether or not ``stream_options`` asked.

It rejects, with OpenAI's 400 (``{"error": {"message", "type": "invalid_request_error",
"param", "code"}}``): a ``role: "tool"`` message whose ``tool_call_id`` answers no tool call
of the preceding assistant message (or one already answered); an assistant tool call left
without a tool message. When the script has no turn left it answers 500.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, Final, Literal

from .._messages import AssistantMessage, ReasoningPart, TextPart, ToolCall
from ._http import RecordedRequest, Reply, ScriptedHTTPServer, sse_event

_PATH: Final = "/v1/chat/completions"
_FINISH: Final = {
    "end_turn": "stop",
    "pause": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
}


UsageStyle = Literal["openai", "llama-server"]
"""How ``FakeOpenAIChatServer`` reports the prompt tokens read from the cache."""


class FakeOpenAIChatServer(ScriptedHTTPServer):
    """Plays ``turns`` as Chat Completions responses; see the module docstring."""

    def __init__(
        self,
        turns: Sequence[AssistantMessage],
        *,
        model: str = "fake-chat",
        omit_ids: bool = False,
        duplicate_ids: bool = False,
        arguments_as_object: bool = False,
        refuses_max_tokens: bool = False,
        chunk_sizes: Sequence[int] | None = None,
        cached_input_tokens: int | None = None,
        usage_style: UsageStyle = "openai",
    ) -> None:
        super().__init__(turns, chunk_sizes=chunk_sizes, cached_input_tokens=cached_input_tokens)
        self.model = model
        self.usage_style: UsageStyle = usage_style
        self.omit_ids = omit_ids
        self.duplicate_ids = duplicate_ids
        self.arguments_as_object = arguments_as_object
        self.refuses_max_tokens = refuses_max_tokens

    @property
    def bodies(self) -> list[Any]:
        """Every chat-completion request body received, in order."""
        return [r.body for r in self.requests if _is_create(r)]

    def handle(self, request: RecordedRequest) -> Reply:
        """Check the request like OpenAI, then serve the next scripted turn."""
        if not _is_create(request):
            return _error(404, f"Unknown request URL: {request.method} {request.path}", None)
        problem = check_request(request.body)
        if problem is None and self.refuses_max_tokens and "max_tokens" in request.body:
            return _error(400, _MAX_TOKENS_REFUSED, "max_tokens", code="unsupported_parameter")
        if problem is not None:
            return _error(400, *problem)
        turn = self.next_turn()
        if turn is None:
            return _error(500, "The fake server has no scripted turn left.", None, "server_error")
        completion = self.render(turn, number=self.served)
        if request.body.get("stream") is True:
            options = request.body.get("stream_options") or {}
            usage = isinstance(options, dict) and options.get("include_usage") is True
            return Reply.sse(list(self._sse(turn, completion, usage=usage)))
        return Reply.json(200, completion)

    # -- rendering ---------------------------------------------------------------------------

    def render(self, turn: AssistantMessage, *, number: int) -> dict[str, Any]:
        """The chat completion a server would return for ``turn``."""
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
        reasoning = _reasoning(turn)
        if reasoning:
            message["reasoning"] = reasoning
        calls = [self._tool_call(c) for c in turn.tool_calls]
        if calls:
            message["tool_calls"] = calls
        output = len(json.dumps(message)) // 4
        completion: dict[str, Any] = {
            "id": f"chatcmpl-fake{number}",
            "object": "chat.completion",
            "created": 1_767_225_600 + number,
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": _FINISH[turn.finish],
                }
            ],
            "usage": self._usage(10 * number, output),
        }
        if self.usage_style == "llama-server":
            completion["timings"] = _timings(10 * number, output)
        return completion

    def _usage(self, evaluated: int, output: int) -> dict[str, Any]:
        """``usage`` for a prompt of ``evaluated`` tokens plus the cached ones, if any."""
        cached = self.cached_input_tokens
        prompt = evaluated + (cached or 0)
        usage: dict[str, Any] = {
            "prompt_tokens": prompt,
            "completion_tokens": output,
            "total_tokens": prompt + output,
        }
        if cached is not None and self.usage_style == "openai":
            usage["prompt_tokens_details"] = {"cached_tokens": cached, "audio_tokens": 0}
        return usage

    def _tool_call(self, call: ToolCall) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "function", "function": {"name": call.name}}
        if not self.omit_ids:
            out["id"] = "call_0" if self.duplicate_ids else call.call_id
        if call.arguments is None:
            out["function"]["arguments"] = call.raw_arguments or ""
        elif self.arguments_as_object:
            out["function"]["arguments"] = call.arguments
        else:
            out["function"]["arguments"] = json.dumps(call.arguments)
        return out

    def _sse(
        self, turn: AssistantMessage, completion: dict[str, Any], *, usage: bool
    ) -> Iterator[bytes]:
        head = {k: completion[k] for k in ("id", "created", "model")}
        head["object"] = "chat.completion.chunk"

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            return sse_event({**head, "choices": [choice]})

        yield chunk({"role": "assistant", "content": ""})
        for piece in _pieces(_reasoning(turn), 6):
            yield chunk({"content": "", "reasoning": piece})
        for part in turn.parts:
            if isinstance(part, TextPart):
                for piece in _pieces(part.text, 6):
                    yield chunk({"content": piece})
        message = completion["choices"][0]["message"]
        for index, call in enumerate(message.get("tool_calls", ())):
            yield from (chunk({"tool_calls": [d]}) for d in _call_deltas(index, call))
        finish = completion["choices"][0]["finish_reason"]
        if "timings" in completion:  # llama-server: usage and timings on the last chunk
            choice = {"index": 0, "delta": {}, "finish_reason": finish}
            last = {"usage": completion["usage"], "timings": completion["timings"]}
            yield sse_event({**head, "choices": [choice], **last})
        else:
            yield chunk({}, finish)
            if usage:
                yield sse_event({**head, "choices": [], "usage": completion["usage"]})
        yield b"data: [DONE]\n\n"


def _timings(evaluated: int, output: int) -> dict[str, Any]:
    """llama-server's ``timings``: ``prompt_n`` counts only the prompt tokens it evaluated,
    not those reused from its KV cache (``predicted_n``: the tokens generated)."""
    prompt_ms, predicted_ms = 0.5 * max(1, evaluated), 20.0 * max(1, output)
    return {
        "prompt_n": evaluated,
        "prompt_ms": prompt_ms,
        "prompt_per_token_ms": prompt_ms / max(1, evaluated),
        "prompt_per_second": 1e3 * evaluated / prompt_ms,
        "predicted_n": output,
        "predicted_ms": predicted_ms,
        "predicted_per_token_ms": predicted_ms / max(1, output),
        "predicted_per_second": 1e3 * output / predicted_ms,
    }


def _call_deltas(index: int, call: dict[str, Any]) -> Iterator[dict[str, Any]]:
    arguments = call["function"]["arguments"]
    first: dict[str, Any] = {"index": index, "type": "function"}
    if "id" in call:
        first["id"] = call["id"]
    if not isinstance(arguments, str):  # an object travels whole, as local servers send it
        yield {**first, "function": {"name": call["function"]["name"], "arguments": arguments}}
        return
    yield {**first, "function": {"name": call["function"]["name"], "arguments": ""}}
    for piece in _pieces(arguments, 5):
        yield {"index": index, "function": {"arguments": piece}}


def _reasoning(turn: AssistantMessage) -> str:
    """The scripted reasoning this server sends, as Ollama does, in ``reasoning``."""
    texts = [
        str(p.data.get("reasoning", ""))
        for p in turn.parts
        if isinstance(p, ReasoningPart) and p.provider == "openai-chat"
    ]
    return "".join(texts)


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _is_create(request: RecordedRequest) -> bool:
    return request.method == "POST" and request.path.split("?")[0] == _PATH


def _error(
    status: int,
    message: str,
    param: str | None,
    kind: str = "invalid_request_error",
    *,
    code: str | None = None,
) -> Reply:
    error = {"message": message, "type": kind, "param": param, "code": code}
    return Reply.json(status, {"error": error})


_MAX_TOKENS_REFUSED: Final = (
    "Unsupported parameter: 'max_tokens' is not supported with this model. "
    "Use 'max_completion_tokens' instead."
)


# -- strictness ----------------------------------------------------------------------------


def check_request(body: Any) -> tuple[str, str | None] | None:
    """What OpenAI would reject in ``body``: (message, param), or None."""
    if not isinstance(body, dict) or not isinstance(body.get("model"), str):
        return "you must provide a model parameter", "model"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty array.", "messages"
    if not all(isinstance(m, dict) for m in messages):
        return "Invalid type for 'messages': expected objects.", "messages"
    return _check_messages(messages)


def _check_messages(messages: list[dict[str, Any]]) -> tuple[str, str | None] | None:
    awaiting: list[str] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            problem = _check_tool(index, message, awaiting)
            if problem is not None:
                return problem
            continue
        if awaiting:
            return _unanswered(awaiting)
        if role == "assistant":
            problem = _collect_calls(index, message, awaiting)
            if problem is not None:
                return problem
        elif role not in ("system", "developer", "user"):
            return f"Invalid value: {role!r}. Supported roles: system, user, assistant, tool.", (
                f"messages.[{index}].role"
            )
    return _unanswered(awaiting) if awaiting else None


def _collect_calls(
    index: int, message: dict[str, Any], awaiting: list[str]
) -> tuple[str, str | None] | None:
    calls = message.get("tool_calls") or []
    for position, call in enumerate(calls):
        param = f"messages.[{index}].tool_calls.[{position}]"
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("arguments"), str):
            return "Invalid tool call: function.arguments must be a string.", param
        call_id = call.get("id")
        if not isinstance(call_id, str) or not call_id:
            return "Missing required parameter: 'id'.", f"{param}.id"
        if len(call_id) > 40:
            return "Invalid 'id': string too long. Expected at most 40.", f"{param}.id"
        awaiting.append(call_id)
    return None


def _check_tool(
    index: int, message: dict[str, Any], awaiting: list[str]
) -> tuple[str, str | None] | None:
    if message.get("tool_call_id") not in awaiting:
        return _ORPHAN, f"messages.[{index}].tool_call_id"
    if not isinstance(message.get("content"), str | list):
        return "Invalid type for 'content': expected a string.", f"messages.[{index}].content"
    awaiting.remove(message["tool_call_id"])
    return None


_ORPHAN: Final = (
    "Invalid parameter: messages with role 'tool' must be a response to a "
    "preceeding message with 'tool_calls'."
)


def _unanswered(awaiting: list[str]) -> tuple[str, str | None]:
    return (
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        + ", ".join(awaiting),
        "messages",
    )


__all__ = ["FakeOpenAIChatServer", "UsageStyle", "check_request"]
