"""A fake OpenAI Responses API on 127.0.0.1, strict like the real one.

``FakeOpenAIResponsesServer(turns)`` answers ``POST /v1/responses`` with the scripted assistant
turns, in order, as JSON or (when the body has ``"stream": true``) as the real event sequence::

    response.created, response.in_progress,
    per item: response.output_item.added,
              message: response.content_part.added, response.output_text.delta*,
                       response.output_text.done, response.content_part.done
              function_call: response.function_call_arguments.delta*, ...arguments.done
              response.output_item.done,
    response.completed (or response.incomplete)

Before answering it checks the request and replies with the real API's 400 shape
(``{"error": {"message", "type": "invalid_request_error", "param", "code"}}``) for a
``function_call_output`` with no earlier ``function_call`` of that ``call_id``, a
``function_call`` without a later output, a ``call_id`` over 64 characters, unknown fields
(``is_error`` on an output item is one), arguments that are not a string, tools whose
``strict`` mode their schema cannot satisfy, and reasoning items that reference stored state.
Like the official OpenAPI schema it wants an assistant message whose content is a list of parts
to be a whole output message (``id``, ``status``, and ``output_text`` parts with
``annotations`` and ``logprobs``); plain text content needs neither. Like the live API it
wants a reasoning item followed by the item it produced (one with an ``id``), and an item it
produced itself after a reasoning item (``fc_fake…``, ``msg_fake…``) preceded by that
reasoning item. ``store`` must be ``false``: surefoot runs stateless. A rejected request does
not use up a turn; running out of turns is a 500.

Scripted text parts may carry a ``phase`` in their ``provider_details``; the message is
rendered with it, as gpt-5 models do.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, assert_never

from .._messages import AssistantMessage, AssistantPart, ReasoningPart, TextPart, ToolCall
from .._outcome import dumps
from ._http import RecordedRequest, Reply, ScriptedHTTPServer, sse_event

_PATHS: Final = frozenset({"/v1/responses", "/responses"})
_TOP_LEVEL: Final = frozenset(
    {
        "model", "input", "instructions", "tools", "tool_choice", "store", "stream",
        "max_output_tokens", "include", "temperature", "top_p", "parallel_tool_calls",
        "reasoning", "text", "metadata", "truncation", "user", "service_tier",
        "previous_response_id", "prompt_cache_key", "safety_identifier", "max_tool_calls",
        "stream_options", "background", "conversation", "top_logprobs", "prompt",
    }
)  # fmt: skip
_ITEM_KEYS: Final = {
    "message": frozenset({"type", "role", "content", "id", "status", "phase"}),
    "function_call": frozenset(
        {"type", "call_id", "name", "arguments", "id", "status", "caller", "namespace"}
    ),
    "function_call_output": frozenset(
        {"type", "call_id", "output", "id", "status", "caller", "name", "namespace"}
    ),
    "reasoning": frozenset({"type", "id", "summary", "content", "encrypted_content", "status"}),
}
_PART_KEYS: Final = {
    "input_text": frozenset({"type", "text"}),
    "output_text": frozenset({"type", "text", "annotations", "logprobs"}),
    "refusal": frozenset({"type", "refusal"}),
}
_TOOL_KEYS: Final = frozenset(
    {"type", "name", "description", "parameters", "strict", "defer_loading"}
)
_ROLES: Final = frozenset({"user", "assistant", "system", "developer"})
_MAX_CALL_ID: Final = 64
_PIECE: Final = 7  # deltas carry text in pieces this long


@dataclass(frozen=True, slots=True)
class Rejection:
    """A request the real API would refuse: the fields of its error body."""

    message: str
    param: str | None = None
    code: str | None = None
    status: int = 400


class FakeOpenAIResponsesServer(ScriptedHTTPServer):
    """Plays ``turns`` as OpenAI Responses results; ``requests`` records every body.

    Point the SDK at ``base_url + "/v1"`` (``/responses`` alone is served too). ``api_key``,
    when given, must arrive as ``authorization: Bearer`` (else 401). Set ``chunk_sizes`` to
    re-cut streamed bytes. ``cached_input_tokens`` makes the usage report that many
    ``input_tokens_details.cached_tokens``, counted inside ``input_tokens`` as the real API
    counts them (None: ``cached_tokens`` is 0, as always).
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
        self._reasoning_of: dict[str, str] = {}
        """Each item this server produced after a reasoning item → that reasoning item's id."""

    def handle(self, request: RecordedRequest) -> Reply:
        """Check the request like the real API, then serve the next turn."""
        if request.method != "POST" or request.path.partition("?")[0] not in _PATHS:
            where = f"{request.method} {request.path}"
            return error_reply(Rejection(f"Invalid URL ({where})", status=404))
        if self.api_key is not None and request.headers.get("authorization") != (
            f"Bearer {self.api_key}"
        ):
            key = Rejection("Incorrect API key provided.", code="invalid_api_key", status=401)
            return error_reply(key)
        problem = request_problem(request.body) or self._linkage_problem(request.body)
        if problem is not None:
            return error_reply(problem)
        turn = self.next_turn()
        if turn is None:
            return error_reply(
                Rejection(
                    f"FakeOpenAIResponsesServer: the script has {len(self.turns)} turn(s) but "
                    f"request #{len(self.requests)} asked for another",
                    status=500,
                )
            )
        payload = response_payload(
            turn, request.body, number=self.served, cached_input_tokens=self.cached_input_tokens
        )
        self._remember_reasoning(payload["output"])
        if request.body.get("stream") is True:
            return Reply.sse(stream_events(payload))
        return Reply.json(200, payload)

    def _remember_reasoning(self, output: list[dict[str, Any]]) -> None:
        reasoning: str | None = None
        for item in output:
            if item["type"] == "reasoning":
                reasoning = item["id"]
            elif reasoning is not None:
                self._reasoning_of[item["id"]] = reasoning

    def _linkage_problem(self, body: dict[str, Any]) -> Rejection | None:
        """An item this server produced after a reasoning item, sent without that item."""
        items = [i for i in body["input"] if isinstance(i, dict)]
        present = {i.get("id") for i in items if i.get("type") == "reasoning"}
        for item in items:
            required = self._reasoning_of.get(str(item.get("id")))
            if required is not None and required not in present:
                return Rejection(
                    f"Item '{item['id']}' of type '{item.get('type')}' was provided without "
                    f"its required 'reasoning' item: '{required}'.",
                    "input",
                )
        return None


def error_reply(rejection: Rejection) -> Reply:
    """The real API's error body; ``x-should-retry: false`` keeps SDK retries out of tests."""
    kind = "invalid_request_error" if rejection.status < 500 else "server_error"
    error = {
        "message": rejection.message,
        "type": kind,
        "param": rejection.param,
        "code": rejection.code,
    }
    reply = Reply.json(rejection.status, {"error": error})
    reply.headers["x-should-retry"] = "false"
    return reply


# -- request checks ------------------------------------------------------------------------


def request_problem(body: object) -> Rejection | None:
    """What the real API (run stateless) would refuse in ``body``, or None."""
    if not isinstance(body, dict):
        return Rejection("We could not parse the JSON body of your request.")
    problem = _top_level_problem(body) or _tools_problem(body.get("tools", []))
    if problem is not None or isinstance(body["input"], str):
        return problem
    items = body["input"]
    if not isinstance(items, list):
        return Rejection("Invalid type for 'input'.", "input", "invalid_type")
    for index, item in enumerate(items):
        problem = _item_problem(index, item)
        if problem is not None:
            return problem
    return _following_item_problem(items) or _pairing_problem(items)


def _top_level_problem(body: dict[str, Any]) -> Rejection | None:
    problem = _keys_problem(body, _TOP_LEVEL, "")
    if problem is not None:
        return problem
    for key in ("model", "input"):
        if key not in body:
            return Rejection(
                f"Missing required parameter: '{key}'.", key, "missing_required_parameter"
            )
    if body.get("store") is not False:
        return Rejection(
            "FakeOpenAIResponsesServer: requests must set store: false (surefoot is stateless)",
            "store",
            "invalid_value",
        )
    return None


def _tools_problem(tools: object) -> Rejection | None:
    if not isinstance(tools, list):
        return Rejection("Invalid type for 'tools'.", "tools", "invalid_type")
    for index, tool in enumerate(tools):
        where = f"tools[{index}]"
        if not isinstance(tool, dict) or tool.get("type") != "function":
            return Rejection(f"Invalid value for '{where}.type'.", f"{where}.type", "invalid_value")
        problem = _keys_problem(tool, _TOOL_KEYS, f"{where}.")
        if problem is None and not isinstance(tool.get("name"), str):
            problem = Rejection(f"Missing required parameter: '{where}.name'.", f"{where}.name")
        if problem is None and tool.get("strict", True) is not False:
            problem = _strict_schema_problem(tool, where)
        if problem is not None:
            return problem
    return None


def _strict_schema_problem(tool: dict[str, Any], where: str) -> Rejection | None:
    schema = tool.get("parameters") or {}
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    missing = [name for name in properties if name not in required]
    if not missing and schema.get("additionalProperties") is False:
        return None
    return Rejection(
        f"Invalid schema for function '{tool['name']}': In context=(), 'required' is "
        "required to be supplied and to be an array including every key in properties. "
        f"Missing '{missing[0] if missing else '?'}'.",
        f"{where}.parameters",
        "invalid_function_parameters",
    )


def _item_problem(index: int, item: object) -> Rejection | None:
    where = f"input[{index}]"
    if not isinstance(item, dict):
        return Rejection(f"Invalid type for '{where}'.", where, "invalid_type")
    kind = item.get("type", "message")
    if kind not in _ITEM_KEYS:
        supported = "', '".join(sorted(_ITEM_KEYS))
        return Rejection(
            f"Invalid value: '{kind}'. Supported values are: '{supported}'.",
            f"{where}.type",
            "invalid_value",
        )
    problem = _keys_problem(item, _ITEM_KEYS[kind], f"{where}.")
    if problem is not None:
        return problem
    if kind == "message":
        return _message_problem(item, where)
    if kind == "reasoning" and not item.get("encrypted_content"):
        return Rejection(
            f"Item with id '{item.get('id')}' not found. Items are not persisted when `store` "
            "is set to false. Try again with `store` set to true, or remove this item from "
            "your input.",
            "input",
            status=404,
        )
    if kind == "reasoning":
        return None
    return _call_fields_problem(item, kind, where)


def _keys_problem(data: dict[str, Any], allowed: frozenset[str], prefix: str) -> Rejection | None:
    unknown = sorted(key for key in data if key not in allowed)
    if not unknown:
        return None
    name = f"{prefix}{unknown[0]}"
    return Rejection(f"Unknown parameter: '{name}'.", name, "unknown_parameter")


def _message_problem(item: dict[str, Any], where: str) -> Rejection | None:
    role = item.get("role")
    if role not in _ROLES:
        return Rejection(f"Invalid value: '{role}'.", f"{where}.role", "invalid_value")
    content = item.get("content")
    if isinstance(content, str):
        return None
    if not isinstance(content, list):
        return Rejection(f"Invalid type for '{where}.content'.", f"{where}.content", "invalid_type")
    allowed = ("output_text", "refusal") if role == "assistant" else ("input_text",)
    if role == "assistant":
        problem = _output_message_problem(item, where)
        if problem is not None:
            return problem
    for number, part in enumerate(content):
        kind = str(part.get("type")) if isinstance(part, dict) else "?"
        at = f"{where}.content[{number}]"
        if kind not in allowed:
            supported = "' and '".join(allowed)
            return Rejection(
                f"Invalid value: '{kind}'. Supported values are: '{supported}'.",
                f"{at}.type",
                "invalid_value",
            )
        problem = _keys_problem(part, _PART_KEYS[kind], f"{at}.") or _part_fields_problem(
            part, kind, at
        )
        if problem is not None:
            return problem
    return None


def _output_message_problem(item: dict[str, Any], where: str) -> Rejection | None:
    """An assistant message with content parts is an output message: id and status needed."""
    for key in ("id", "status"):
        if not isinstance(item.get(key), str):
            return Rejection(
                f"Missing required parameter: '{where}.{key}'.",
                f"{where}.{key}",
                "missing_required_parameter",
            )
    return None


def _part_fields_problem(part: dict[str, Any], kind: str, at: str) -> Rejection | None:
    required = {"output_text": ("text", "annotations", "logprobs"), "refusal": ("refusal",)}
    for key in required.get(kind, ("text",)):
        if key not in part:
            return Rejection(
                f"Missing required parameter: '{at}.{key}'.",
                f"{at}.{key}",
                "missing_required_parameter",
            )
    return None


def _following_item_problem(items: list[Any]) -> Rejection | None:
    """A reasoning item must be followed by the item it produced, which has an id."""
    for index, item in enumerate(items):
        if item.get("type") != "reasoning":
            continue
        rest = (i for i in items[index + 1 :] if i.get("type") != "reasoning")
        following: dict[str, Any] = next(rest, {})
        produced = following.get("type") in ("message", "function_call")
        if not produced or not isinstance(following.get("id"), str):
            return Rejection(
                f"Item '{item.get('id')}' of type 'reasoning' was provided without its "
                "required following item.",
                "input",
            )
    return None


def _call_fields_problem(item: dict[str, Any], kind: str, where: str) -> Rejection | None:
    call_id = item.get("call_id")
    field = "arguments" if kind == "function_call" else "output"
    value = item.get(field)
    if not isinstance(call_id, str):
        return Rejection(f"Missing required parameter: '{where}.call_id'.", f"{where}.call_id")
    if len(call_id) > _MAX_CALL_ID:
        return Rejection(
            f"Invalid '{where}.call_id': string too long. Expected a string with maximum "
            f"length {_MAX_CALL_ID}, but got a string with length {len(call_id)} instead.",
            f"{where}.call_id",
            "string_above_max_length",
        )
    if kind == "function_call" and not isinstance(value, str):
        return Rejection(
            f"Invalid type for '{where}.{field}': expected a string, but got "
            f"{type(value).__name__} instead.",
            f"{where}.{field}",
            "invalid_type",
        )
    if not isinstance(value, str | list):
        return Rejection(f"Missing required parameter: '{where}.{field}'.", f"{where}.{field}")
    return None


def _pairing_problem(items: list[dict[str, Any]]) -> Rejection | None:
    called: list[str] = []
    answered: set[str] = set()
    for item in items:
        kind = item.get("type", "message")
        if kind == "function_call":
            called.append(item["call_id"])
        elif kind == "function_call_output":
            if item["call_id"] not in called:
                return Rejection(
                    f"No tool call found for function call output with call_id {item['call_id']}.",
                    "input",
                )
            answered.add(item["call_id"])
    for call_id in called:
        if call_id not in answered:
            return Rejection(f"No tool output found for function call {call_id}.", "input")
    return None


# -- responses -----------------------------------------------------------------------------


def response_payload(
    turn: AssistantMessage,
    body: dict[str, Any],
    *,
    number: int,
    cached_input_tokens: int | None = None,
) -> dict[str, Any]:
    """The JSON ``response`` object for a scripted turn; ``cached_input_tokens`` are reported
    in ``input_tokens_details`` and added to ``input_tokens``, which includes them."""
    output = _output(turn, number)
    cached = cached_input_tokens or 0
    input_tokens = max(1, len(dumps(body.get("input"))) // 4) + cached
    output_tokens = max(1, len(dumps(output)) // 4)
    incomplete = turn.finish == "max_tokens"
    return {
        "id": f"resp_fake{number:04d}",
        "object": "response",
        "created_at": 1_700_000_000 + number,
        "status": "incomplete" if incomplete else "completed",
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "model": body["model"],
        "output": output,
        "parallel_tool_calls": True,
        "store": False,
        "temperature": 1.0,
        "tool_choice": "auto",
        "tools": body.get("tools", []),
        "top_p": 1.0,
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        },
    }


def _output(turn: AssistantMessage, number: int) -> list[dict[str, Any]]:
    output: list[dict[str, Any]] = []
    for index, part in enumerate(turn.parts):
        item = _item(part, f"{number:04d}_{index}", refusal=turn.finish == "refusal")
        same_message = output and output[-1]["type"] == item["type"] == "message"
        if same_message and output[-1].get("phase") == item.get("phase"):
            output[-1]["content"].extend(item["content"])
        else:
            output.append(item)
    return output


def _item(part: AssistantPart, suffix: str, *, refusal: bool) -> dict[str, Any]:
    match part:
        case TextPart(text=text):
            content: dict[str, Any] = (
                {"type": "refusal", "refusal": text}
                if refusal
                else {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
            )
            message = {
                "id": f"msg_fake{suffix}",
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [content],
            }
            phase = (part.provider_details or {}).get("phase")
            return {**message, "phase": phase} if phase else message
        case ToolCall():
            arguments = part.raw_arguments
            return {
                "id": f"fc_fake{suffix}",
                "type": "function_call",
                "status": "completed",
                "call_id": part.call_id,
                "name": part.name,
                "arguments": arguments if arguments is not None else dumps(part.arguments or {}),
            }
        case ReasoningPart(data=data):
            return {"id": f"rs_fake{suffix}", "summary": [], **data, "type": "reasoning"}
        case _:
            assert_never(part)


def stream_events(payload: dict[str, Any]) -> Iterator[bytes]:
    """The server-sent events that stream ``payload``."""
    counter = iter(range(1_000_000))
    opening = {**payload, "status": "in_progress", "output": [], "usage": None}
    opening["incomplete_details"] = None
    yield _event(counter, {"type": "response.created", "response": opening})
    yield _event(counter, {"type": "response.in_progress", "response": opening})
    for index, item in enumerate(payload["output"]):
        for event in _item_events(index, item):
            yield _event(counter, event)
    final = "response.incomplete" if payload["status"] == "incomplete" else "response.completed"
    yield _event(counter, {"type": final, "response": payload})


def _item_events(index: int, item: dict[str, Any]) -> Iterator[dict[str, Any]]:
    kind = item["type"]
    opening = {**item, "status": "in_progress"}
    if kind == "message":
        opening["content"] = []
    elif kind == "function_call":
        opening["arguments"] = ""
    yield {"type": "response.output_item.added", "output_index": index, "item": opening}
    if kind == "message":
        for number, part in enumerate(item["content"]):
            yield from _part_events(index, number, item["id"], part)
    elif kind == "function_call":
        where = {"item_id": item["id"], "output_index": index}
        for piece in _pieces(item["arguments"]):
            yield {"type": "response.function_call_arguments.delta", **where, "delta": piece}
        yield {
            "type": "response.function_call_arguments.done",
            **where,
            "arguments": item["arguments"],
        }
    yield {"type": "response.output_item.done", "output_index": index, "item": item}


def _part_events(
    index: int, number: int, item_id: str, part: dict[str, Any]
) -> Iterator[dict[str, Any]]:
    where = {"item_id": item_id, "output_index": index, "content_index": number}
    key, kind = ("refusal", "refusal") if part["type"] == "refusal" else ("text", "output_text")
    yield {"type": "response.content_part.added", **where, "part": {**part, key: ""}}
    for piece in _pieces(part[key]):
        delta: dict[str, Any] = {"type": f"response.{kind}.delta", **where, "delta": piece}
        if kind == "output_text":
            delta["logprobs"] = []
        yield delta
    done: dict[str, Any] = {"type": f"response.{kind}.done", **where, key: part[key]}
    if kind == "output_text":
        done["logprobs"] = []
    yield done
    yield {"type": "response.content_part.done", **where, "part": part}


def _pieces(text: str) -> list[str]:
    return [text[i : i + _PIECE] for i in range(0, len(text), _PIECE)]


def _event(counter: Iterator[int], data: dict[str, Any]) -> bytes:
    return sse_event({**data, "sequence_number": next(counter)}, data["type"])
