"""OpenAI-compatible Chat Completions adapter: pure mappings, the SDK against the fake server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surefoot import (
    Agent,
    CalendarDate,
    Detail,
    ModelRequest,
    ModelResponse,
    Ok,
    ProviderError,
    Recovery,
    ToolError,
    ToolSet,
    TurnEvent,
)
from surefoot.messages import (
    AssistantMessage,
    HarnessMessage,
    ReasoningPart,
    TextDelta,
    TextPart,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)
from surefoot.providers.openai_chat import (
    OpenAIChatModel,
    StreamAssembler,
    build_request,
    limit_parameter_for,
    parse_response,
    parse_usage,
)
from surefoot.testing import FakeOpenAIChatServer, call, turn
from surefoot.testing._http import FakeHTTPServer, RecordedRequest, Reply

MODEL = "qwen-test"
KEY = "sk-test-0123456789"
T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(asyncio.wait_for(coro, timeout=30))


def model_for(server: FakeHTTPServer, **options: Any) -> OpenAIChatModel:
    options.setdefault("max_retries", 0)
    options.setdefault("timeout", 10.0)
    return OpenAIChatModel(MODEL, api_key=KEY, base_url=f"{server.base_url}/v1", **options)


def measurement_tools(calls: list[str] | None = None) -> ToolSet:
    tools = ToolSet()

    @tools.tool(effect="read")
    def read_measurement(date: CalendarDate) -> dict[str, Any] | ToolError:
        """Read the measurement saved for one calendar date."""
        if calls is not None:
            calls.append(date.isoformat())
        if date.isoformat() == "2020-01-01":
            return {"date": "2020-01-01", "weight_kg": 76.0}
        return ToolError(
            "not_found",
            f"No hay medidas para el {date.isoformat()}; esto no dice nada de otras fechas.",
            Recovery.CHOOSE_ALTERNATIVE,
        )

    return tools


USER = UserMessage("¿Cuánto pesaba el 2020-01-02?")
CALL = ToolCall(call_id="call_a", name="read_measurement", arguments={"date": "2020-01-02"})
ASSISTANT_WIRE = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_a",
            "type": "function",
            "function": {"name": "read_measurement", "arguments": '{"date":"2020-01-02"}'},
        }
    ],
}


def sent_body(messages: Sequence[Any], **request: Any) -> dict[str, Any]:
    """The body the SDK really sent for ``messages`` (the fake answers with plain text)."""
    with FakeOpenAIChatServer([turn("Vale.")]) as server:
        run(model_for(server).request(ModelRequest(messages=tuple(messages), **request)))
        (body,) = server.bodies
    return cast("dict[str, Any]", body)


def one_result(outcome: Ok | ToolError) -> list[Any]:
    assistant = AssistantMessage(parts=(CALL,), finish="tool_use")
    results = ToolResultsMessage((ToolResult("call_a", "read_measurement", outcome),))
    return [USER, assistant, results]


def expected(*tail: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": MODEL,
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": USER.text}, ASSISTANT_WIRE, *tail],
    }


# -- exact request bodies, as the SDK sent them --------------------------------------------


def test_success_result_body() -> None:
    """A success travels as the data's JSON text in a tool message; no error field."""
    body = sent_body(one_result(Ok({"date": "2020-01-02", "weight_kg": 76.5})))
    assert body == expected(
        {
            "role": "tool",
            "tool_call_id": "call_a",
            "content": '{"date":"2020-01-02","weight_kg":76.5}',
        }
    )


def test_not_found_result_body() -> None:
    """A domain error travels as the envelope's JSON text; the envelope carries the mark."""
    error = ToolError("not_found", "No hay medidas para ese día.", Recovery.CHOOSE_ALTERNATIVE)
    body = sent_body(one_result(error))
    assert body == expected(
        {
            "role": "tool",
            "tool_call_id": "call_a",
            "content": '{"kind":"tool_error","version":1,"is_error":true,"error":"not_found",'
            '"message":"No hay medidas para ese día.","recovery":"choose_alternative",'
            '"recoverable":true}',
        }
    )


def test_invalid_arguments_result_body() -> None:
    """invalid_arguments carries its structured details inside the envelope text."""
    detail = Detail("date", "must be a calendar date written YYYY-MM-DD", "a calendar date")
    error = ToolError(
        "invalid_arguments", "Los argumentos no son válidos.", Recovery.CORRECT_ARGUMENTS, (detail,)
    )
    body = sent_body(one_result(error))
    assert body == expected(
        {
            "role": "tool",
            "tool_call_id": "call_a",
            "content": '{"kind":"tool_error","version":1,"is_error":true,'
            '"error":"invalid_arguments","message":"Los argumentos no son válidos.",'
            '"recovery":"correct_arguments","recoverable":true,"details":[{"field":"date",'
            '"problem":"must be a calendar date written YYYY-MM-DD",'
            '"expected":"a calendar date"}]}',
        }
    )


def test_stop_turn_with_not_executed_fills_body() -> None:
    """After a stop_turn each later call still gets its not_executed result; no harness text."""
    write = ToolCall("call_w", "write_measurement", {"date": "2020-01-04", "weight_kg": 77.4})
    read = ToolCall("call_r", "read_measurement", {"date": "2020-01-04"})
    unknown = ToolError("outcome_unknown", "No se puede confirmar.", Recovery.STOP_TURN)
    skipped = ToolError("not_executed", "No se ejecutó.", Recovery.STOP_TURN)
    messages = [
        USER,
        AssistantMessage(parts=(TextPart("Guardo."), write, read), finish="tool_use"),
        ToolResultsMessage(
            (
                ToolResult("call_w", "write_measurement", unknown),
                ToolResult("call_r", "read_measurement", skipped, executed=False),
            )
        ),
        HarnessMessage("Gymnasia no puede confirmar si terminó.", "stop_turn"),
        UserMessage("¿Y ahora?"),
    ]

    def envelope(code: str, message: str) -> str:
        return (
            f'{{"kind":"tool_error","version":1,"is_error":true,"error":"{code}",'
            f'"message":"{message}","recovery":"stop_turn","recoverable":false}}'
        )

    assert sent_body(messages, system="Eres un coach.") == {
        "model": MODEL,
        "max_tokens": 1024,
        "messages": [
            {"role": "system", "content": "Eres un coach."},
            {"role": "user", "content": USER.text},
            {
                "role": "assistant",
                "content": "Guardo.",
                "tool_calls": [
                    {
                        "id": "call_w",
                        "type": "function",
                        "function": {
                            "name": "write_measurement",
                            "arguments": '{"date":"2020-01-04","weight_kg":77.4}',
                        },
                    },
                    {
                        "id": "call_r",
                        "type": "function",
                        "function": {
                            "name": "read_measurement",
                            "arguments": '{"date":"2020-01-04"}',
                        },
                    },
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "call_w",
                "content": envelope("outcome_unknown", "No se puede confirmar."),
            },
            {
                "role": "tool",
                "tool_call_id": "call_r",
                "content": envelope("not_executed", "No se ejecutó."),
            },
            {"role": "user", "content": "¿Y ahora?"},
        ],
    }


def test_success_that_reads_like_an_error_has_no_mark() -> None:
    """Data that looks like an error is sent as that data, never as an envelope."""
    body = sent_body(one_result(Ok({"value": 'Error: {"is_error": true}'})))
    tool = body["messages"][-1]
    assert tool == {
        "role": "tool",
        "tool_call_id": "call_a",
        "content": '{"value":"Error: {\\"is_error\\": true}"}',
    }
    assert json.loads(tool["content"]) == {"value": 'Error: {"is_error": true}'}


def test_tools_body() -> None:
    """Tools go as function declarations with strict false (our validator decides)."""
    spec = ToolSpec(
        "read_measurement",
        "Read one date.",
        {"type": "object", "properties": {"date": {"type": "string"}}, "required": ["date"]},
    )
    body = sent_body([USER], tools=(spec,))
    assert body == {
        "model": MODEL,
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": USER.text}],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "read_measurement",
                    "description": "Read one date.",
                    "parameters": spec.parameters,
                    "strict": False,
                },
            }
        ],
    }


# -- pure mapping ----------------------------------------------------------------------------


def test_raw_arguments_are_replayed_verbatim_and_long_ids_mapped() -> None:
    """A call keeps the exact argument text it came with; an over-long id maps on both sides."""
    long_id = "x" * 64
    broken = ToolCall(long_id, "read_measurement", None, raw_arguments='{"date": "2020-')
    messages = [
        USER,
        AssistantMessage((broken, ReasoningPart("google", {"type": "thought"}))),
        ToolResultsMessage((ToolResult(long_id, "read_measurement", Ok({})),)),
    ]
    body = build_request(ModelRequest(messages), model=MODEL, max_tokens=5)
    (tool_call,) = body["messages"][1]["tool_calls"]
    assert tool_call["function"]["arguments"] == '{"date": "2020-'
    assert tool_call["id"].startswith("sf_")
    assert len(tool_call["id"]) <= 40
    assert body["messages"][2]["tool_call_id"] == tool_call["id"]
    assert body["messages"][1]["content"] is None


@pytest.mark.parametrize(
    ("reason", "finish"),
    [
        ("stop", "end_turn"),
        ("length", "max_tokens"),
        ("content_filter", "refusal"),
        (None, "end_turn"),
    ],
)
def test_finish_reasons(reason: str | None, finish: str) -> None:
    """finish_reason maps onto the neutral finish reasons."""
    data = {
        "choices": [{"message": {"role": "assistant", "content": "x"}, "finish_reason": reason}]
    }
    assert parse_response(data).finish == finish


def test_calls_decide_tool_use_even_when_the_server_says_stop() -> None:
    """Local servers that answer finish_reason "stop" with tool calls still mean tool_use."""
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "t", "arguments": "{}"}}
        ],
    }
    data = {"choices": [{"message": message, "finish_reason": "stop"}]}
    assert parse_response(data).finish == "tool_use"


def test_arguments_as_string_or_object() -> None:
    """Arguments arrive as JSON text (kept raw) or as an object (from local servers)."""
    message = {
        "role": "assistant",
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "t", "arguments": '{"x":1}'}},
            {"id": "b", "type": "function", "function": {"name": "t", "arguments": {"x": 2}}},
            {"id": "c", "type": "function", "function": {"name": "t", "arguments": '{"x":'}},
            {"id": "d", "type": "function", "function": {"name": "t", "arguments": ""}},
        ],
    }
    calls = parse_response({"choices": [{"message": message, "finish_reason": "tool_calls"}]})
    assert [(c.arguments, c.raw_arguments) for c in calls.tool_calls] == [
        ({"x": 1}, '{"x":1}'),
        ({"x": 2}, None),
        (None, '{"x":'),
        ({}, ""),
    ]


def test_missing_and_duplicate_ids_are_generated_stably() -> None:
    """No id, or call_0 for every call: each call gets its own id, the same on every parse."""
    function = {"name": "t", "arguments": "{}"}
    message = {
        "role": "assistant",
        "tool_calls": [
            {"type": "function", "function": function},
            {"id": "call_0", "type": "function", "function": function},
            {"id": "call_0", "type": "function", "function": function},
        ],
    }
    data = {"id": "chatcmpl-9", "created": 7, "choices": [{"message": message}]}
    ids = [c.call_id for c in parse_response(data).tool_calls]
    assert ids[1] == "call_0"
    assert len(set(ids)) == 3
    assert all(i.startswith("sf_gen_") for i in (ids[0], ids[2]))
    assert ids == [c.call_id for c in parse_response(data).tool_calls]


# -- an Agent over the wire --------------------------------------------------------------------


SCRIPT = [
    turn(call("read_measurement", {"date": "2020-01-02"}, call_id="c1")),
    turn(call("read_measurement", {"date": "2020-01-01"}, call_id="c2")),
    turn("No hay registro del 2020-01-02. El 2020-01-01 pesabas 76 kg."),
]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    "server_options",
    [{}, {"omit_ids": True, "arguments_as_object": True}, {"duplicate_ids": True}],
    ids=["openai", "local-no-ids-object-args", "local-call_0"],
)
def test_agent_turn_end_to_end(stream: bool, server_options: dict[str, Any]) -> None:
    """A full turn works against OpenAI-like and local-server-like answers, streamed or not."""
    seen: list[str] = []
    deltas: list[str] = []

    def on_event(event: TurnEvent) -> None:
        if isinstance(event, TextDelta):
            deltas.append(event.text)

    with FakeOpenAIChatServer(SCRIPT, **server_options) as server:
        agent = Agent(model=model_for(server), tools=measurement_tools(seen), stream=stream)
        result = run(agent.run_turn("Consulta mi peso del 2020-01-02.", on_event=on_event))
        bodies = server.bodies
    assert (result.stop_reason, result.model_requests) == ("completed", 3)
    assert result.reply == "No hay registro del 2020-01-02. El 2020-01-01 pesabas 76 kg."
    assert seen == ["2020-01-02", "2020-01-01"]
    messages = bodies[2]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "tool"]
    for assistant, tool in ((messages[1], messages[2]), (messages[3], messages[4])):
        assert tool["tool_call_id"] == assistant["tool_calls"][0]["id"]
    first = json.loads(messages[2]["content"])
    assert (first["is_error"], first["error"]) == (True, "not_found")
    assert json.loads(messages[4]["content"]) == {"date": "2020-01-01", "weight_kg": 76.0}
    if not server_options:
        assert [m["tool_calls"][0]["id"] for m in (messages[1], messages[3])] == ["c1", "c2"]
    assert ("".join(deltas) == result.reply) if stream else not deltas


# -- streaming -------------------------------------------------------------------------------


STREAM_TURNS = [
    turn(
        "Déjame mirar tu día — ¡ñandú! ",
        call("read_measurement", {"date": "2020-01-02"}, call_id="s1"),
        call(
            "list_measurements", {"date_from": "2020-01-01", "date_to": "2020-01-31"}, call_id="s2"
        ),
    ),
]


def _served(
    turns: Sequence[AssistantMessage], *, stream: bool, sizes: Sequence[int] | None, **options: Any
) -> tuple[list[str], ModelResponse]:
    with FakeOpenAIChatServer(turns, chunk_sizes=sizes, **options) as server:
        model = model_for(server)
        request = ModelRequest((USER,))
        if not stream:
            return [], run(model.request(request))

        async def collect() -> list[Any]:
            return [event async for event in model.stream(request)]

        events = run(collect())
    assert all(isinstance(e, TextDelta) for e in events[:-1])
    return [e.text for e in events[:-1]], events[-1].response


@pytest.mark.parametrize("sizes", [(1,), (7,), (23,), (3, 11, 5)])
@pytest.mark.parametrize("options", [{}, {"arguments_as_object": True, "omit_ids": True}])
def test_stream_equals_json_in_odd_chunk_sizes(
    sizes: tuple[int, ...], options: dict[str, Any]
) -> None:
    """The SSE chunks, cut anywhere (even inside UTF-8), assemble to the JSON response."""
    _, whole = _served(STREAM_TURNS, stream=False, sizes=None, **options)
    deltas, streamed = _served(STREAM_TURNS, stream=True, sizes=sizes, **options)
    assert streamed == whole
    assert "".join(deltas) == whole.message.text
    assert whole.message.finish == "tool_use"
    assert [c.arguments for c in whole.message.tool_calls] == [
        {"date": "2020-01-02"},
        {"date_from": "2020-01-01", "date_to": "2020-01-31"},
    ]
    assert whole.usage["input_tokens"] == 10


# -- the output limit's name -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("base_url", "parameter"),
    [
        ("https://api.openai.com/v1", "max_completion_tokens"),
        ("https://API.openai.com/v1/", "max_completion_tokens"),
        ("https://mine.openai.azure.com/openai/v1/", "max_completion_tokens"),
        ("http://localhost:11434/v1", "max_tokens"),
        ("http://127.0.0.1:8000/v1", "max_tokens"),
        ("https://openrouter.example/api/v1", "max_tokens"),
    ],
)
def test_limit_parameter_follows_the_base_url(base_url: str, parameter: str) -> None:
    """OpenAI's own endpoint gets ``max_completion_tokens``; local servers keep
    ``max_tokens``."""
    assert limit_parameter_for(base_url) == parameter


def test_no_base_url_means_openai_unless_the_environment_says_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without a base URL the SDK talks to OpenAI (or to ``OPENAI_BASE_URL``)."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert limit_parameter_for(None) == "max_completion_tokens"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:11434/v1")
    assert limit_parameter_for(None) == "max_tokens"


def test_openai_endpoint_body_has_max_completion_tokens_only() -> None:
    """A model pointed at OpenAI sends its limit as ``max_completion_tokens`` and never
    ``max_tokens`` (reasoning models refuse it); a local server's body is unchanged."""
    request = ModelRequest((USER,))
    openai_model = OpenAIChatModel("gpt-5", api_key=KEY, base_url="https://api.openai.com/v1")
    local_model = OpenAIChatModel(MODEL, base_url="http://localhost:11434/v1", max_tokens=64)
    openai_body = openai_model._body(request)
    assert openai_body["max_completion_tokens"] == 1024
    assert "max_tokens" not in openai_body
    assert local_model._body(request)["max_tokens"] == 64
    assert "max_completion_tokens" not in local_model._body(request)


def test_limit_parameter_is_configurable_and_a_reasoning_model_accepts_it() -> None:
    """A server that refuses ``max_tokens`` (as OpenAI does for reasoning models) answers the
    default with a 400, and accepts ``limit_parameter="max_completion_tokens"``."""
    with FakeOpenAIChatServer([turn("Hola.")], refuses_max_tokens=True) as server:
        with pytest.raises(ProviderError) as caught:
            run(model_for(server).request(ModelRequest((USER,))))
        chosen = model_for(server, limit_parameter="max_completion_tokens")
        response = run(chosen.request(ModelRequest((USER,))))
        bodies = server.bodies
    assert (caught.value.kind, caught.value.status) == ("bad_request", 400)
    assert response.message.text == "Hola."
    assert bodies[-1]["max_completion_tokens"] == 1024
    assert "max_tokens" not in bodies[-1]


# -- reasoning beside the text (Ollama) -----------------------------------------------------

THINKING_TURN = AssistantMessage(
    (
        ReasoningPart("openai-chat", {"reasoning": "Miro la fecha pedida primero."}),
        TextPart("Lo miro."),
        ToolCall("call_r", "read_measurement", {"date": "2020-01-02"}),
    ),
    finish="tool_use",
)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_reasoning_field_is_kept_as_a_reasoning_part(stream: bool) -> None:
    """Ollama's ``reasoning`` (whole or in deltas) becomes this provider's ``ReasoningPart``,
    ahead of the text, instead of being dropped."""
    deltas, response = _served([THINKING_TURN], stream=stream, sizes=(5,))
    assert response.message.parts[0] == ReasoningPart(
        "openai-chat", {"reasoning": "Miro la fecha pedida primero."}
    )
    assert response.message.text == "Lo miro."
    assert "".join(deltas) == ("Lo miro." if stream else "")


def test_reasoning_goes_back_to_the_same_provider_only() -> None:
    """The assistant message sent back carries its ``reasoning``; another provider's reasoning
    is never sent, and a ``reasoning_content`` server gets its own field back."""
    results = ToolResultsMessage((ToolResult("call_r", "read_measurement", Ok({"w": 1})),))
    anthropic = ReasoningPart("anthropic", {"type": "thinking", "thinking": "t", "signature": "s"})
    llama = ReasoningPart("openai-chat", {"reasoning_content": "Pienso."})
    messages = [
        USER,
        THINKING_TURN,
        results,
        AssistantMessage((anthropic, TextPart("Hecho.")), provider="anthropic"),
        AssistantMessage((llama, TextPart("Listo.")), provider="openai-chat"),
        UserMessage("Gracias."),
    ]
    sent = sent_body(messages)["messages"]
    assert sent[1]["reasoning"] == "Miro la fecha pedida primero."
    assert sent[3] == {"role": "assistant", "content": "Hecho."}
    assert sent[4] == {"role": "assistant", "content": "Listo.", "reasoning_content": "Pienso."}


def test_reasoning_content_field_is_read_too() -> None:
    """llama.cpp's and DeepSeek's ``reasoning_content`` is kept under its own name."""
    message = {"role": "assistant", "content": "51", "reasoning_content": "17 por 3."}
    parsed = parse_response({"choices": [{"message": message, "finish_reason": "stop"}]})
    assert parsed.parts == (
        ReasoningPart("openai-chat", {"reasoning_content": "17 por 3."}),
        TextPart("51"),
    )


def test_truncated_streamed_arguments_stay_raw() -> None:
    """Argument deltas that never form a JSON object give arguments=None and the raw text."""
    turns = [turn(call("read_measurement", raw='{"date": "2020-', call_id="t1"))]
    _, whole = _served(turns, stream=False, sizes=None)
    _, streamed = _served(turns, stream=True, sizes=(4,))
    (parsed,) = streamed.message.tool_calls
    assert (parsed.arguments, parsed.raw_arguments) == (None, '{"date": "2020-')
    assert streamed == whole


def test_deltas_without_index_are_assembled() -> None:
    """Servers that omit the tool-call index still yield whole calls: a new id starts one."""
    assembler = StreamAssembler()
    for delta in (
        {"id": "a", "function": {"name": "t", "arguments": '{"x"'}},
        {"function": {"arguments": ": 1}"}},
        {"id": "b", "function": {"name": "u", "arguments": "{}"}},
    ):
        assembler.feed({"choices": [{"index": 0, "delta": {"tool_calls": [delta]}}]})
    assembler.feed({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    calls = parse_response(assembler.result()).tool_calls
    assert [(c.call_id, c.name, c.arguments) for c in calls] == [
        ("a", "t", {"x": 1}),
        ("b", "u", {}),
    ]


# -- strictness of the fake, and errors through the adapter ----------------------------------


def test_orphan_tool_message_is_rejected() -> None:
    """A tool message whose id answers no call of the assistant message: 400 → bad_request."""
    messages = [
        USER,
        AssistantMessage((CALL,), finish="tool_use"),
        ToolResultsMessage(
            (
                ToolResult("call_a", "read_measurement", Ok({})),
                ToolResult("call_zzz", "read_measurement", Ok({})),
            )
        ),
    ]
    with FakeOpenAIChatServer([turn("never")]) as server:
        with pytest.raises(ProviderError) as caught:
            run(model_for(server).request(ModelRequest(messages)))
        assert server.served == 0
    assert (caught.value.kind, caught.value.status) == ("bad_request", 400)
    assert "tool" not in caught.value.safe_message  # no response body in the safe text


def test_call_without_tool_message_is_rejected() -> None:
    """An assistant call left without its tool message: 400 → bad_request."""
    two = AssistantMessage((CALL, ToolCall("call_b", "read_measurement", {})), finish="tool_use")
    messages = [
        USER,
        two,
        ToolResultsMessage((ToolResult("call_a", "read_measurement", Ok({})),)),
        UserMessage("¿y?"),
    ]
    fake = FakeOpenAIChatServer([turn("never")])
    with fake as server, pytest.raises(ProviderError) as caught:
        run(model_for(server).request(ModelRequest(messages)))
    assert (caught.value.kind, caught.value.status) == ("bad_request", 400)


def test_fake_error_json_is_openais_shape() -> None:
    """The fake's 400 body is OpenAI's error JSON naming the offending parameter."""
    import httpx

    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "x", "content": "{}"},
        ],
    }
    with FakeOpenAIChatServer([]) as server:
        reply = httpx.post(f"{server.base_url}/v1/chat/completions", json=body, timeout=5)
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert (error["type"], error["param"]) == ("invalid_request_error", "messages.[1].tool_call_id")
    assert error["code"] is None


def test_fake_answers_500_when_the_script_runs_out() -> None:
    """Asking for a turn the script does not have is a server error, surfaced as such."""
    with FakeOpenAIChatServer([]) as server, pytest.raises(ProviderError) as caught:
        run(model_for(server).request(ModelRequest((USER,))))
    assert (caught.value.kind, caught.value.status) == ("server", 500)


class _StatusServer(FakeHTTPServer):
    def __init__(self, status: int, *, body: bytes | None = None) -> None:
        super().__init__()
        self.status = status
        self.body = body

    def handle(self, request: RecordedRequest) -> Reply:
        if self.body is not None:
            return Reply(self.status, self.body, {"content-type": "application/json"})
        error = {"message": f"secret body {KEY}", "type": "x", "param": None, "code": None}
        return Reply.json(self.status, {"error": error})


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (401, "auth"),
        (403, "auth"),
        (503, "overloaded"),
        (404, "bad_request"),
        (422, "bad_request"),
    ],
)
def test_http_errors_translate_to_kinds(status: int, kind: str) -> None:
    """Each HTTP failure becomes one ProviderError kind; no body or key in its text (429 and
    500 are in test_adapter_contract.py, for every adapter)."""
    with _StatusServer(status) as server, pytest.raises(ProviderError) as caught:
        run(model_for(server).request(ModelRequest((USER,))))
    error = caught.value
    assert (error.kind, error.status, error.provider) == (kind, status, "openai-chat")
    assert "secret" not in str(error)
    assert KEY not in str(error)


def test_unreadable_success_body_is_bad_response() -> None:
    """A 200 whose body is no completion fails as bad_response, not as a crash."""
    fake = _StatusServer(200, body=b'{"choices": "nope"}')
    with fake as server, pytest.raises(ProviderError) as caught:
        run(model_for(server).request(ModelRequest((USER,))))
    assert caught.value.kind == "bad_response"


class _CutStreamServer(FakeOpenAIChatServer):
    """Serves the stream up to the middle of the arguments, then ends it."""

    def handle(self, request: RecordedRequest) -> Reply:
        reply = super().handle(request)
        events = list(cast("list[bytes]", reply.body))
        return Reply.sse(events[: len(events) // 2])


def test_cut_stream_is_bad_response_not_a_partial_answer() -> None:
    """A stream that stops before its finish_reason fails; half a call never passes as whole."""
    fake = _CutStreamServer(STREAM_TURNS)

    async def consume(model: OpenAIChatModel) -> None:
        async for _ in model.stream(ModelRequest((USER,))):
            pass

    with fake as server, pytest.raises(ProviderError) as caught:
        run(consume(model_for(server)))
    assert caught.value.kind == "bad_response"


# -- property tests over malformed responses -------------------------------------------------


_leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
_json = st.recursive(
    _leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)


@st.composite
def _truncated_json(draw: st.DrawFn) -> str:
    text = json.dumps(draw(st.dictionaries(st.text(max_size=5), _leaf, max_size=4)))
    return text[: draw(st.integers(0, len(text)))]


_function = st.fixed_dictionaries(
    {},
    optional={
        "name": st.sampled_from(["read", ""]) | _json,
        "arguments": _truncated_json() | _json,
    },
)
_tool_call = st.fixed_dictionaries(
    {},
    optional={
        "id": st.sampled_from(["call_0", ""]) | _json,
        "type": st.sampled_from(["function", "custom"]) | _json,
        "function": _function | _json,
        "index": st.integers(-1, 3) | _json,
    },
)
_message = st.fixed_dictionaries(
    {},
    optional={
        "content": st.text() | _json | st.integers(10_000, 200_000).map(lambda n: "x" * n),
        "tool_calls": st.lists(_tool_call | _json, max_size=4) | _json,
        "refusal": _json,
    },
)
_choice = st.fixed_dictionaries(
    {}, optional={"message": _message | _json, "delta": _message | _json, "finish_reason": _json}
)
_response = st.fixed_dictionaries(
    {},
    optional={
        "id": st.text(max_size=6) | _json,
        "created": _json,
        "choices": st.lists(_choice | _json, max_size=2) | _json,
        "usage": _json,
        "model": _json,
    },
)


def _check_parsed(message: AssistantMessage) -> None:
    ids = [c.call_id for c in message.tool_calls]
    assert len(ids) == len(set(ids))
    for parsed in message.tool_calls:
        assert parsed.arguments is None or isinstance(parsed.arguments, dict)
        if parsed.arguments is None:
            assert isinstance(parsed.raw_arguments, str)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_response | _json)
def test_parse_never_crashes_on_malformed_responses(data: Any) -> None:
    """Any response parses, or fails with bad_response; broken arguments stay raw."""
    error: ProviderError | None = None
    try:
        _check_parsed(parse_response(data))
    except ProviderError as exc:
        error = exc
    assert error is None or error.kind == "bad_response"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_response | _json, max_size=8))
def test_stream_assembly_never_crashes(chunks: list[Any]) -> None:
    """Any chunk sequence assembles and parses, or fails with bad_response."""
    assembler = StreamAssembler()
    error: ProviderError | None = None
    try:
        for chunk in chunks:
            text = assembler.feed(chunk)
            assert text is None or isinstance(text, str)
        _check_parsed(parse_response(assembler.result()))
    except ProviderError as exc:
        error = exc
    assert error is None or error.kind == "bad_response"


# -- what the fake refuses, as OpenAI does ---------------------------------------------------


def _assistant_calls(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def _wire_call(call_id: Any = "call_a", arguments: Any = "{}") -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "read_measurement", "arguments": arguments},
    }


QUESTION_WIRE = {"role": "user", "content": USER.text}
REFUSED_BODIES: dict[str, tuple[Any, str]] = {
    "no_model": ({"messages": [QUESTION_WIRE]}, "you must provide a model parameter"),
    "no_messages": ({"model": MODEL, "messages": []}, "'messages' must be a non-empty array."),
    "messages_not_objects": ({"model": MODEL, "messages": ["hola"]}, "expected objects"),
    "role": (
        {"model": MODEL, "messages": [{"role": "function", "content": "x"}]},
        "Invalid value: 'function'. Supported roles",
    ),
    "arguments_not_text": (
        {"model": MODEL, "messages": [QUESTION_WIRE, _assistant_calls(_wire_call(arguments={}))]},
        "function.arguments must be a string",
    ),
    "call_without_id": (
        {"model": MODEL, "messages": [QUESTION_WIRE, _assistant_calls(_wire_call(call_id=""))]},
        "Missing required parameter: 'id'.",
    ),
    "call_id_too_long": (
        {"model": MODEL, "messages": [QUESTION_WIRE, _assistant_calls(_wire_call("c" * 41))]},
        "Invalid 'id': string too long. Expected at most 40.",
    ),
    "tool_content_not_text": (
        {
            "model": MODEL,
            "messages": [
                QUESTION_WIRE,
                _assistant_calls(_wire_call()),
                {"role": "tool", "tool_call_id": "call_a", "content": 5},
            ],
        },
        "Invalid type for 'content': expected a string.",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED_BODIES))
def test_fake_refuses_what_openai_refuses(case: str) -> None:
    """Each malformed body gets OpenAI's 400 error JSON naming the problem; no turn is used."""
    import httpx

    body, problem = REFUSED_BODIES[case]
    with FakeOpenAIChatServer([turn("no")]) as server:
        reply = httpx.post(f"{server.base_url}/v1/chat/completions", json=body, timeout=5)
        assert server.remaining == 1
    assert reply.status_code == 400
    assert set(reply.json()["error"]) == {"message", "type", "param", "code"}
    assert problem in reply.json()["error"]["message"]


# -- what servers send that the fake does not: content parts, refusals, odd tool calls --------


def completion(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    return {"id": "c1", "created": 1, "choices": [{"message": message, "finish_reason": finish}]}


def test_content_as_a_list_of_text_parts_is_read() -> None:
    parsed = parse_response(
        completion(
            {"content": [{"type": "text", "text": "Hola, "}, {"type": "text", "text": "ya."}]}
        )
    )
    assert (parsed.text, parsed.finish) == ("Hola, ya.", "end_turn")


def test_a_refusal_is_read_even_when_the_server_says_stop() -> None:
    """OpenAI puts a refusal in ``message.refusal`` with ``finish_reason: stop``; it is the
    turn's text and its finish is ``refusal``, streamed or not."""
    parsed = parse_response(completion({"content": None, "refusal": "No puedo ayudar."}))
    assert (parsed.text, parsed.finish) == ("No puedo ayudar.", "refusal")
    stream = StreamAssembler()
    for piece in ("No puedo ", "ayudar."):
        stream.feed({"id": "c1", "choices": [{"index": 0, "delta": {"refusal": piece}}]})
    stream.feed({"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    assert parse_response(stream.result()) == parsed


@pytest.mark.parametrize(
    ("message", "problem"),
    [
        ({"content": 5}, "the message content is not text"),
        ({"content": [{"type": "image_url"}]}, "a part of an unsupported type"),
        ({"content": None, "tool_calls": {"id": "x"}}, "tool_calls is not a list"),
        ({"content": None, "tool_calls": [{"type": "custom"}]}, "not a function call"),
        ({"content": None, "tool_calls": [{"id": "x", "type": "function"}]}, "has no function"),
        (
            {"content": None, "tool_calls": [{"id": "x", "function": {"arguments": "{}"}}]},
            "a tool call has no name",
        ),
    ],
    ids=["content_number", "image_part", "calls_not_list", "custom_call", "no_function", "no_name"],
)
def test_a_message_that_is_not_a_completion_is_a_bad_response(
    message: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ProviderError) as caught:
        parse_response(completion(message))
    assert caught.value.kind == "bad_response"
    assert problem in caught.value.safe_message


def test_stream_tool_deltas_that_carry_no_function_or_an_object_are_assembled() -> None:
    """A delta item that is not an object is skipped, one without ``function`` only sets the
    id, and arguments sent as an object are taken whole."""
    stream = StreamAssembler()
    deltas = [
        {"tool_calls": ["noise", {"index": 0, "id": "call_x", "type": "function"}]},
        {"tool_calls": [{"index": 0, "function": {"name": "read", "arguments": {"day": "lunes"}}}]},
    ]
    for delta in deltas:
        stream.feed({"id": "c1", "choices": [{"index": 0, "delta": delta}]})
    stream.feed({"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    (parsed,) = parse_response(stream.result()).tool_calls
    assert (parsed.call_id, parsed.name, parsed.arguments) == ("call_x", "read", {"day": "lunes"})


def test_an_assistant_turn_with_nothing_to_send_is_empty_text() -> None:
    """A turn whose only part is another provider's reasoning goes as empty content (the API
    refuses an assistant message without content or calls)."""
    messages = [
        USER,
        AssistantMessage((ReasoningPart("anthropic", {"type": "thinking"}),), provider="anthropic"),
        UserMessage("¿Y bien?"),
    ]
    body = build_request(ModelRequest(messages=messages), model=MODEL, max_tokens=10)
    assert body["messages"][1] == {"role": "assistant", "content": ""}


# -- usage: the cached prompt tokens apart ---------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("style", ["openai", "llama-server"])
def test_cached_prompt_tokens_are_reported_apart(stream: bool, style: str) -> None:
    """The prompt tokens a server read from its cache (OpenAI's and vLLM's
    ``prompt_tokens_details``, llama-server's ``timings``) leave ``input_tokens`` and are
    ``cache_read_input_tokens``, through the SDK, streamed or not."""
    _, response = _served(
        [turn("Hecho.")], stream=stream, sizes=None, cached_input_tokens=300, usage_style=style
    )
    # the fake's first response: 10 prompt tokens evaluated, plus the 300 cached ones
    assert response.usage == {
        "input_tokens": 10,
        "cache_read_input_tokens": 300,
        "output_tokens": response.usage["output_tokens"],
    }
    assert response.usage["output_tokens"] > 0


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_a_server_that_says_nothing_about_the_cache_gets_no_cache_count(stream: bool) -> None:
    """Usage without details or timings (the fake's default): ``input_tokens`` is the whole
    prompt and no cache count is invented."""
    _, response = _served([turn("Hecho.")], stream=stream, sizes=None)
    assert set(response.usage) == {"input_tokens", "output_tokens"}
    assert response.usage["input_tokens"] == 10


def test_llama_server_usage_comes_on_its_finish_chunk() -> None:
    """llama-server sends usage and ``timings`` on the chunk with the finish reason (no
    separate usage chunk); the assembled completion keeps both."""
    assembler = StreamAssembler()
    assembler.feed({"id": "c", "choices": [{"index": 0, "delta": {"content": "Sí"}}]})
    assembler.feed(
        {
            "id": "c",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            "usage": {"completion_tokens": 2, "prompt_tokens": 812, "total_tokens": 814},
            "timings": {"prompt_n": 12, "prompt_ms": 30.1, "predicted_n": 2},
        }
    )
    completion = assembler.result()
    assert parse_usage(completion) == {
        "input_tokens": 12,
        "cache_read_input_tokens": 800,
        "output_tokens": 2,
    }


OPENAI_CHAT_USAGE = {
    "prompt_tokens": 2006,
    "completion_tokens": 300,
    "total_tokens": 2306,
    "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
    "completion_tokens_details": {
        "reasoning_tokens": 0,
        "audio_tokens": 0,
        "accepted_prediction_tokens": 0,
        "rejected_prediction_tokens": 0,
    },
}
"""OpenAI's usage object, as in its prompt-caching guide (vLLM sends the same details)."""

LLAMA_SERVER_TIMINGS = {
    "prompt_n": 6,
    "prompt_ms": 47.2,
    "prompt_per_token_ms": 7.87,
    "prompt_per_second": 127.1,
    "predicted_n": 9,
    "predicted_ms": 180.4,
    "predicted_per_token_ms": 20.04,
    "predicted_per_second": 49.9,
}
"""llama-server's ``timings`` (``result_timings::to_json``): ``prompt_n`` is the prompt tokens
it evaluated, not those it reused from its KV cache."""


@pytest.mark.parametrize(
    ("completion", "usage"),
    [
        (
            {"usage": OPENAI_CHAT_USAGE},
            {"input_tokens": 86, "cache_read_input_tokens": 1920, "output_tokens": 300},
        ),
        (  # llama-server before prompt_tokens_details: the whole prompt, timings beside it
            {
                "usage": {"completion_tokens": 9, "prompt_tokens": 152, "total_tokens": 161},
                "timings": LLAMA_SERVER_TIMINGS,
            },
            {"input_tokens": 6, "cache_read_input_tokens": 146, "output_tokens": 9},
        ),
        (  # llama-server with prompt_tokens_details and timings.cache_n: the details decide
            {
                "usage": {
                    "completion_tokens": 9,
                    "prompt_tokens": 152,
                    "total_tokens": 161,
                    "prompt_tokens_details": {"cached_tokens": 146},
                },
                "timings": {**LLAMA_SERVER_TIMINGS, "cache_n": 146},
            },
            {"input_tokens": 6, "cache_read_input_tokens": 146, "output_tokens": 9},
        ),
        (  # timings.cache_n alone
            {
                "usage": {"completion_tokens": 9, "prompt_tokens": 152},
                "timings": {"cache_n": 100, "prompt_n": 52},
            },
            {"input_tokens": 52, "cache_read_input_tokens": 100, "output_tokens": 9},
        ),
        (  # a first request: nothing reused, prompt_n is the whole prompt
            {
                "usage": {"completion_tokens": 9, "prompt_tokens": 6},
                "timings": LLAMA_SERVER_TIMINGS,
            },
            {"input_tokens": 6, "cache_read_input_tokens": 0, "output_tokens": 9},
        ),
        (  # prompt_n above prompt_tokens is no cache count
            {"usage": {"completion_tokens": 9, "prompt_tokens": 4}, "timings": {"prompt_n": 6}},
            {"input_tokens": 4, "output_tokens": 9},
        ),
        (  # Ollama: no details, no timings
            {"usage": {"prompt_tokens": 26, "completion_tokens": 56, "total_tokens": 82}},
            {"input_tokens": 26, "output_tokens": 56},
        ),
        ({"usage": None, "timings": LLAMA_SERVER_TIMINGS}, {}),
    ],
    ids=[
        "openai",
        "llama_server_timings",
        "llama_server_details",
        "cache_n_only",
        "nothing_reused",
        "prompt_n_too_big",
        "no_cache_report",
        "no_usage",
    ],
)
def test_parse_usage_finds_the_cached_prompt_tokens(
    completion: dict[str, Any], usage: dict[str, int]
) -> None:
    """Usage of each server's shape: the cached prompt tokens apart, the rest of the prompt in
    ``input_tokens``, no total."""
    assert parse_usage(completion) == usage


# -- the event stream as the adapter reads it ------------------------------------------------


class _Events(FakeHTTPServer):
    """Streams ``events`` (raw bytes, cut into ``sizes``) for every chat request."""

    def __init__(self, events: bytes, sizes: Sequence[int] = (7,)) -> None:
        super().__init__()
        self.events = events
        self.chunk_sizes = sizes

    def handle(self, request: RecordedRequest) -> Reply:
        del request
        return Reply.sse([self.events])


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "x", "object": "chat.completion.chunk", "choices": [choice], **extra}


def _streamed(events: bytes) -> list[Any]:
    with _Events(events) as server:
        return run(collect(model_for(server).stream(ModelRequest(messages=(USER,)))))


async def collect(stream: Any) -> list[Any]:
    return [event async for event in stream]


def test_server_sent_events_are_read_as_the_format_has_them() -> None:
    """Comments, CRLF line ends, an event's data over two lines, fields other than data, no
    blank line after the last event, and anything after ``[DONE]``: the text is what the
    events carry, nothing more."""
    first = json.dumps(_chunk({"role": "assistant", "content": "Ho"}))
    split = "".join(
        f"data: {line}\n" for line in json.dumps(_chunk({"content": "la"}), indent=1).split("\n")
    )
    events = (
        b": keep-alive\r\n\r\n"
        + f"event: message\r\nid: 1\r\ndata: {first}\r\n\r\n".encode()
        + f"{split}\n".encode()
        + f"data:{json.dumps(_chunk({}, 'stop'))}\n\n".encode()
        + b"data: [DONE]\n\n"
        + f"data: {json.dumps(_chunk({'content': ' de mas'}))}\n\n".encode()
    )
    streamed = _streamed(events)
    assert [e.text for e in streamed if isinstance(e, TextDelta)] == ["Ho", "la"]
    assert streamed[-1].response.message.text == "Hola"
    unended = f"data: {json.dumps(_chunk({'content': 'sí'}, 'stop'))}".encode()
    assert _streamed(unended)[-1].response.message.text == "sí"


def test_an_error_event_mid_stream_is_a_server_error_without_its_text() -> None:
    """An ``{"error": ...}`` event after some text ends the stream with a ProviderError of kind
    ``server`` (the SDK's own stream raised too), and the server's words stay out of it."""
    text = json.dumps(_chunk({"role": "assistant", "content": "Ho"}))
    error = json.dumps({"error": {"message": "upstream-secret-91", "type": "server_error"}})
    with pytest.raises(ProviderError) as caught:
        _streamed(f"data: {text}\n\ndata: {error}\n\n".encode())
    assert (caught.value.kind, caught.value.status) == ("server", None)
    assert "upstream-secret-91" not in str(caught.value)
    with pytest.raises(ProviderError) as unreadable:
        _streamed(b"data: {not json\n\n")
    assert unreadable.value.kind == "bad_response"
