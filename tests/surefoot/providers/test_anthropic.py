"""Anthropic Messages: the official SDK, through the adapter, against the strict fake server."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from surefoot import (
    Agent,
    CalendarDate,
    Detail,
    MemoryJournal,
    ModelRequest,
    ModelResponse,
    Ok,
    ProviderError,
    Recovery,
    ToolError,
    ToolSet,
)
from surefoot.messages import (
    AssistantMessage,
    HarnessMessage,
    Message,
    ReasoningPart,
    ResponseDone,
    StreamEvent,
    TextDelta,
    TextPart,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)
from surefoot.outcome import to_wire_text
from surefoot.providers._ids import wire_id
from surefoot.providers.anthropic import (
    AnthropicModel,
    _MessageStream,
    _translate,
    build_request,
    parse_response,
    parse_usage,
)
from surefoot.providers.openai_responses import OpenAIResponsesModel
from surefoot.testing import FakeAnthropicServer, FakeOpenAIResponsesServer, call, turn

T = TypeVar("T")

MODEL = "claude-test"
SYSTEM = "Eres un coach de fitness."
SPEC = ToolSpec(
    "read_measurement",
    "Lee la medida guardada para una fecha.",
    {
        "type": "object",
        "properties": {"date": {"type": "string", "format": "date"}},
        "required": ["date"],
        "additionalProperties": False,
    },
)
WIRE_TOOL = {
    "name": "read_measurement",
    "description": "Lee la medida guardada para una fecha.",
    "input_schema": SPEC.parameters,
}
QUESTION = "Consulta mi peso del 2020-01-02."
NOT_FOUND = ToolError(
    "not_found",
    "No hay registro de medidas para el 2020-01-02. Esto no dice nada sobre otras fechas.",
    Recovery.CHOOSE_ALTERNATIVE,
)
INVALID = ToolError(
    "invalid_arguments",
    "Los argumentos de read_measurement no son válidos.",
    Recovery.CORRECT_ARGUMENTS,
    details=(Detail("date", "must be a calendar date written YYYY-MM-DD", "YYYY-MM-DD"),),
)
THINKING = {"type": "thinking", "thinking": "Miro la fecha pedida.", "signature": "c2lnbmF0dXJh"}


def run(awaitable: Awaitable[T]) -> T:
    """Run one coroutine to completion (each test owns its event loop)."""

    async def main() -> T:
        return await asyncio.wait_for(awaitable, timeout=60)

    return asyncio.run(main())


def model_for(server: FakeAnthropicServer, **options: Any) -> AnthropicModel:
    """The adapter pointed at ``server``."""
    return AnthropicModel(
        MODEL, api_key="test-key", base_url=server.base_url, timeout=10, **options
    )


async def collect(events: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    """Every event of a stream."""
    return [event async for event in events]


def exchange(outcome: Ok | ToolError, *, call_id: str = "toolu_01A") -> list[Message]:
    """A question, one call of ``read_measurement`` and its result."""
    return [
        UserMessage(QUESTION),
        AssistantMessage(
            (
                ReasoningPart("anthropic", THINKING),
                TextPart("Voy a mirarlo."),
                ToolCall(call_id, "read_measurement", {"date": "2020-01-02"}),
            ),
            finish="tool_use",
            provider="anthropic",
            model=MODEL,
        ),
        ToolResultsMessage((ToolResult(call_id, "read_measurement", outcome),)),
    ]


def sent_body(messages: list[Message], *, tools: tuple[ToolSpec, ...] = (SPEC,)) -> Any:
    """The body the SDK sent for ``messages`` (the fake server accepted it)."""
    with FakeAnthropicServer([turn("Hecho.")]) as server:
        response = run(model_for(server).request(ModelRequest(messages, tools, SYSTEM)))
        assert response.message.text == "Hecho."
        server.assert_consumed()
        return server.requests[0].body


def assistant_wire(call_id: str = "toolu_01A") -> dict[str, Any]:
    """The assistant message of ``exchange`` on the wire."""
    return {
        "role": "assistant",
        "content": [
            THINKING,
            {"type": "text", "text": "Voy a mirarlo."},
            {
                "type": "tool_use",
                "id": call_id,
                "name": "read_measurement",
                "input": {"date": "2020-01-02"},
            },
        ],
    }


def expected_body(result_block: dict[str, Any]) -> dict[str, Any]:
    """The whole request body around one tool_result block."""
    return {
        "model": MODEL,
        "max_tokens": 1024,
        "system": SYSTEM,
        "tools": [WIRE_TOOL],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": QUESTION}]},
            assistant_wire(),
            {"role": "user", "content": [result_block]},
        ],
    }


# -- exact request bodies ------------------------------------------------------------------


def test_success_result_body() -> None:
    """A success is the data's JSON text, with no error mark."""
    body = sent_body(exchange(Ok({"date": "2020-01-01", "weight_kg": 76.0})))
    assert body == expected_body(
        {
            "type": "tool_result",
            "tool_use_id": "toolu_01A",
            "content": '{"date":"2020-01-01","weight_kg":76.0}',
        }
    )


def test_not_found_result_body() -> None:
    """A domain error is the envelope's JSON text with ``is_error: true``."""
    body = sent_body(exchange(NOT_FOUND))
    assert body == expected_body(
        {
            "type": "tool_result",
            "tool_use_id": "toolu_01A",
            "content": (
                '{"kind":"tool_error","version":1,"is_error":true,"error":"not_found",'
                '"message":"No hay registro de medidas para el 2020-01-02. Esto no dice nada '
                'sobre otras fechas.","recovery":"choose_alternative","recoverable":true}'
            ),
            "is_error": True,
        }
    )


def test_invalid_arguments_result_body() -> None:
    """``invalid_arguments`` carries its structured details inside the envelope."""
    body = sent_body(exchange(INVALID))
    assert body == expected_body(
        {
            "type": "tool_result",
            "tool_use_id": "toolu_01A",
            "content": (
                '{"kind":"tool_error","version":1,"is_error":true,"error":"invalid_arguments",'
                '"message":"Los argumentos de read_measurement no son válidos.",'
                '"recovery":"correct_arguments","recoverable":true,"details":[{"field":"date",'
                '"problem":"must be a calendar date written YYYY-MM-DD","expected":"YYYY-MM-DD"}]}'
            ),
            "is_error": True,
        }
    )


def test_success_that_reads_like_an_error_has_no_mark() -> None:
    """Data that looks like an error envelope is still a success: no ``is_error``."""
    body = sent_body(exchange(Ok({"value": 'Error: {"is_error": true}'})))
    assert body == expected_body(
        {
            "type": "tool_result",
            "tool_use_id": "toolu_01A",
            "content": '{"value":"Error: {\\"is_error\\": true}"}',
        }
    )


def test_stop_turn_fills_and_the_next_question_share_one_user_message() -> None:
    """After a stop_turn every call has a result, all results come first, then the user's
    next text; the harness's own message is not sent as the model's words."""
    unknown = ToolError(
        "outcome_unknown", "No se puede confirmar si se guardó.", Recovery.STOP_TURN
    )
    skipped = ToolError("not_executed", "No se ejecutó: el turno se detuvo.", Recovery.STOP_TURN)
    calls = (
        ToolCall("toolu_W", "write_measurement", {"date": "2020-01-04", "weight_kg": 77.4}),
        ToolCall("toolu_R1", "read_measurement", {"date": "2020-01-04"}),
        ToolCall("toolu_R2", "read_measurement", {"date": "2020-01-03"}),
    )
    messages: list[Message] = [
        UserMessage("Guarda mi peso: 77,4 kg el 2020-01-04."),
        AssistantMessage(calls, finish="tool_use", provider="anthropic"),
        ToolResultsMessage(
            (
                ToolResult("toolu_W", "write_measurement", unknown),
                ToolResult("toolu_R1", "read_measurement", skipped, executed=False),
                ToolResult("toolu_R2", "read_measurement", skipped, executed=False),
            )
        ),
        HarnessMessage("No puedo confirmar si la acción terminó.", "stop_turn"),
        UserMessage("¿Se guardó?"),
    ]
    body = sent_body(messages)

    def envelope(code: str, message: str) -> str:
        return (
            f'{{"kind":"tool_error","version":1,"is_error":true,"error":"{code}",'
            f'"message":"{message}","recovery":"stop_turn","recoverable":false}}'
        )

    assert body["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Guarda mi peso: 77,4 kg el 2020-01-04."}],
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_W",
                    "name": "write_measurement",
                    "input": {"date": "2020-01-04", "weight_kg": 77.4},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_R1",
                    "name": "read_measurement",
                    "input": {"date": "2020-01-04"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_R2",
                    "name": "read_measurement",
                    "input": {"date": "2020-01-03"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_W",
                    "content": envelope("outcome_unknown", "No se puede confirmar si se guardó."),
                    "is_error": True,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_R1",
                    "content": envelope("not_executed", "No se ejecutó: el turno se detuvo."),
                    "is_error": True,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_R2",
                    "content": envelope("not_executed", "No se ejecutó: el turno se detuvo."),
                    "is_error": True,
                },
                {"type": "text", "text": "¿Se guardó?"},
            ],
        },
    ]


def test_ids_outside_the_pattern_are_mapped_the_same_way_for_call_and_result() -> None:
    """An id with ``|`` and ``/`` becomes one stable ``sf_`` id on both sides, and the strict
    server accepts it."""
    odd = "call_9Xy|fc_68a/1"
    body = sent_body(exchange(NOT_FOUND, call_id=odd))
    mapped = wire_id(odd)
    assert mapped.startswith("sf_")
    assert mapped == wire_id(odd)
    assert body["messages"][1]["content"][2]["id"] == mapped
    assert body["messages"][2]["content"][0]["tool_use_id"] == mapped


def reused_ids_transcript() -> list[Message]:
    """Two rounds whose calls are both ``call_0``, as some local servers send them."""
    first = ToolCall("call_0", "read_measurement", {"date": "2020-01-02"})
    second = ToolCall("call_0", "read_measurement", {"date": "2020-01-01"})
    return [
        UserMessage(QUESTION),
        AssistantMessage((first,), finish="tool_use", provider="openai-chat"),
        ToolResultsMessage((ToolResult("call_0", "read_measurement", NOT_FOUND),)),
        AssistantMessage((second,), finish="tool_use", provider="openai-chat"),
        ToolResultsMessage((ToolResult("call_0", "read_measurement", Ok({"weight_kg": 76.0})),)),
        UserMessage("¿Y entonces?"),
    ]


def test_reused_call_ids_get_distinct_wire_ids() -> None:
    """A repeated ``call_0`` is mapped to a stable unique id, its result follows it, and the
    strict server (unique ids across the conversation) accepts the request."""
    body = sent_body(reused_ids_transcript())
    uses = [b["id"] for m in body["messages"] for b in m["content"] if b["type"] == "tool_use"]
    answers = [
        (b["tool_use_id"], "is_error" in b)
        for m in body["messages"]
        for b in m["content"]
        if b["type"] == "tool_result"
    ]
    assert uses == ["call_0", wire_id("call_0#1")]
    assert answers == [("call_0", True), (wire_id("call_0#1"), False)]
    again = build_request(ModelRequest(reused_ids_transcript()), model=MODEL, max_tokens=9)
    assert again["messages"] == body["messages"]


def test_build_request_is_pure_and_skips_what_the_api_rejects() -> None:
    """Empty text, other providers' reasoning and harness messages never reach the wire."""
    messages: list[Message] = [
        UserMessage("Hola"),
        AssistantMessage(
            (ReasoningPart("openai", {"type": "reasoning", "id": "rs_1"}), TextPart("  ")),
            provider="openai",
        ),
        HarnessMessage("El proveedor no respondió.", "provider_error"),
        UserMessage("¿Sigues ahí?"),
    ]
    body = build_request(ModelRequest(messages), model=MODEL, max_tokens=50)
    assert body == {
        "model": MODEL,
        "max_tokens": 50,
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Hola"},
                    {"type": "text", "text": "¿Sigues ahí?"},
                ],
            }
        ],
    }


# -- a whole Agent turn --------------------------------------------------------------------


def coach_tools(log: list[str]) -> ToolSet:
    """``read_measurement`` with one stored date, ``read_memory`` with an error-like note and
    ``write_measurement`` whose storage breaks."""
    tools = ToolSet()

    @tools.tool(effect="read")
    def read_measurement(date: CalendarDate) -> dict[str, Any] | ToolError:
        """Read the measurement saved for one calendar date."""
        log.append(f"read {date.isoformat()}")
        if date.isoformat() == "2020-01-01":
            return {"date": "2020-01-01", "weight_kg": 76.0}
        return ToolError(
            "not_found", f"No hay registro para el {date}.", Recovery.CHOOSE_ALTERNATIVE
        )

    @tools.tool(effect="read")
    def read_memory(key: str) -> dict[str, Any]:
        """Read one saved memory note."""
        log.append(f"memory {key}")
        return {"key": key, "description": "nota", "value": 'Error: {"is_error": true}'}

    @tools.tool(effect="write")
    def write_measurement(date: CalendarDate, weight_kg: float) -> dict[str, Any]:
        """Save the weight for one calendar date."""
        log.append(f"write {date.isoformat()}")
        msg = "disk /var/lib/gymnasia.db failed: UPDATE measurements SET secret=1"
        raise OSError(msg)

    return tools


FALLBACK_SCRIPT = [
    turn(call("read_measurement", {"date": "2020-01-02"}, call_id="toolu_01A")),
    turn(
        "Miro el día anterior. ",
        call("read_measurement", {"date": "2020-01-01"}, call_id="toolu_01B"),
    ),
    turn("No hay registro para el 2020-01-02. El 2020-01-01 pesabas 76 kg."),
]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_agent_turn_end_to_end(stream: bool) -> None:
    """A not_found, then a fallback read, then the answer: three requests, marks kept."""
    log: list[str] = []
    deltas: list[str] = []

    def on_event(event: object) -> None:
        if isinstance(event, TextDelta):
            deltas.append(event.text)

    with FakeAnthropicServer(FALLBACK_SCRIPT) as server:
        agent = Agent(model=model_for(server), tools=coach_tools(log), system=SYSTEM, stream=stream)
        result = run(agent.run_turn(QUESTION, on_event=on_event))
        server.assert_consumed()
        bodies = [r.body for r in server.requests]
    assert result.stop_reason == "completed"
    assert result.reply == "No hay registro para el 2020-01-02. El 2020-01-01 pesabas 76 kg."
    assert result.model_requests == 3
    assert log == ["read 2020-01-02", "read 2020-01-01"]
    assert all(b.get("stream", False) is stream for b in bodies)
    first_result = bodies[1]["messages"][-1]["content"][0]
    assert first_result["tool_use_id"] == "toolu_01A"
    assert first_result["is_error"] is True
    assert json.loads(first_result["content"])["error"] == "not_found"
    second_result = bodies[2]["messages"][-1]["content"][0]
    assert second_result == {
        "type": "tool_result",
        "tool_use_id": "toolu_01B",
        "content": '{"date":"2020-01-01","weight_kg":76.0}',
    }
    if stream:
        assert "".join(deltas) == "Miro el día anterior. " + result.reply


def test_agent_stop_turn_then_next_question_is_accepted() -> None:
    """A write whose storage fails stops the turn after one request; the next question sends
    every result (with its mark) first and the strict server accepts it."""
    log: list[str] = []
    script = [
        turn(
            call("write_measurement", {"date": "2020-01-04", "weight_kg": 77.4}, call_id="toolu_W"),
            call("read_memory", {"key": "nota"}, call_id="toolu_M"),
        ),
        turn("No puedo confirmarlo."),
    ]
    with FakeAnthropicServer(script) as server:
        agent = Agent(model=model_for(server), tools=coach_tools(log), journal=MemoryJournal())
        first = run(agent.run_turn("Guarda mi peso: 77,4 kg el 2020-01-04."))
        assert first.stop_reason == "stop_turn"
        assert first.model_requests == 1
        second = run(agent.run_turn("¿Se guardó?", conversation_id=first.conversation_id))
        server.assert_consumed()
        body = server.requests[-1].body
    assert log == ["write 2020-01-04"]
    assert second.stop_reason == "completed"
    results = body["messages"][-1]["content"]
    assert [b["type"] for b in results] == ["tool_result", "tool_result", "text"]
    assert [json.loads(b["content"])["error"] for b in results[:2]] == [
        "outcome_unknown",
        "not_executed",
    ]
    assert all(b["is_error"] is True for b in results[:2])
    assert results[2] == {"type": "text", "text": "¿Se guardó?"}
    assert "secret" not in json.dumps(body)


def test_success_that_reads_like_an_error_stays_a_success_end_to_end() -> None:
    """A memory note reading ``Error: {"is_error": true}`` travels without an error mark."""
    script = [
        turn(call("read_memory", {"key": "nota"}, call_id="toolu_M")),
        turn("Tu nota dice eso."),
    ]
    with FakeAnthropicServer(script) as server:
        result = run(Agent(model=model_for(server), tools=coach_tools([])).run_turn("Lee mi nota."))
        block = server.requests[1].body["messages"][-1]["content"][0]
    assert result.stop_reason == "completed"
    assert "is_error" not in block
    assert json.loads(block["content"])["value"] == 'Error: {"is_error": true}'


# -- streaming -----------------------------------------------------------------------------

RICH_TURN = AssistantMessage(
    (
        ReasoningPart("anthropic", THINKING),
        TextPart("Voy a mirar tus datos, ñandú 🏋️ — «paso a paso».\nLínea dos."),
        ToolCall("toolu_01A", "read_measurement", {"date": "2020-01-02"}),
        ToolCall(
            "toolu_01B",
            "create_routine",
            {"name": "Fuerza", "exercises": [{"exercise_id": "sq", "series": [{"reps": 5}]}]},
        ),
    ),
    finish="tool_use",
)


def json_response(turn_: AssistantMessage) -> ModelResponse:
    """What the non-streamed request gives for ``turn_``."""
    with FakeAnthropicServer([turn_]) as server:
        return run(model_for(server).request(ModelRequest([UserMessage(QUESTION)])))


def streamed(turn_: AssistantMessage, chunk_sizes: tuple[int, ...]) -> list[StreamEvent]:
    """The events of the streamed request for ``turn_``, SSE cut into ``chunk_sizes``."""
    with FakeAnthropicServer([turn_]) as server:
        server.chunk_sizes = chunk_sizes
        return run(collect(model_for(server).stream(ModelRequest([UserMessage(QUESTION)]))))


@pytest.mark.parametrize("chunk_sizes", [(1,), (7,), (23,), (3, 11, 5)], ids=str)
def test_stream_in_odd_chunks_equals_the_json_response(chunk_sizes: tuple[int, ...]) -> None:
    """However the SSE bytes are cut, the final response equals the non-streamed one and the
    text deltas add up to its text."""
    expected = json_response(RICH_TURN)
    events = streamed(RICH_TURN, chunk_sizes)
    assert isinstance(events[-1], ResponseDone)
    assert all(isinstance(e, TextDelta) for e in events[:-1])
    assert events[-1].response == expected
    assert "".join(e.text for e in events[:-1] if isinstance(e, TextDelta)) == expected.message.text
    assert expected.message.parts[0] == ReasoningPart("anthropic", THINKING)
    assert expected.message.tool_calls[1].arguments == RICH_TURN.tool_calls[1].arguments


def test_truncated_streamed_call_is_kept_unparsed_and_never_runs() -> None:
    """A tool_use cut by max_tokens keeps its raw text, has no arguments, and the loop does
    not execute it."""
    cut = turn(
        "Guardo: ",
        call("write_measurement", raw='{"date": "2020-01-04", "weight_k', call_id="toolu_T"),
        finish="max_tokens",
    )
    events = streamed(cut, (5,))
    final = events[-1]
    assert isinstance(final, ResponseDone)
    (truncated,) = final.response.message.tool_calls
    assert final.response.message.finish == "max_tokens"
    assert truncated.arguments is None
    assert truncated.raw_arguments == '{"date": "2020-01-04", "weight_k'

    log: list[str] = []
    with FakeAnthropicServer([cut]) as server:
        agent = Agent(model=model_for(server), tools=coach_tools(log), stream=True)
        result = run(agent.run_turn("Guarda mi peso."))
    assert result.stop_reason == "max_tokens"
    assert log == []
    assert [r.executed for r in result.calls] == [False]


# -- strictness ----------------------------------------------------------------------------


def post(server: FakeAnthropicServer, body: dict[str, Any]) -> tuple[int, Any]:
    """POST ``body`` to the fake's /v1/messages without the SDK: status and JSON answer."""
    request = urllib.request.Request(
        server.base_url + "/v1/messages",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


def raw_body(result_block: dict[str, Any], *, call_id: str = "toolu_01A") -> dict[str, Any]:
    """A hand-written request around one result block."""
    return {
        "model": MODEL,
        "max_tokens": 64,
        "messages": [
            {"role": "user", "content": QUESTION},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": call_id, "name": "read_measurement", "input": {}}
                ],
            },
            {"role": "user", "content": [result_block]},
        ],
    }


def result(tool_use_id: str, content: str = "{}", **extra: Any) -> dict[str, Any]:
    """A tool_result block."""
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content, **extra}


QUESTION_ONLY = [{"role": "user", "content": "hola"}]
BAD_BODIES: dict[str, tuple[dict[str, Any], str]] = {
    "orphan": (
        {
            **raw_body(result("toolu_01A")),
            "messages": [
                *raw_body({})["messages"][:2],
                {"role": "user", "content": [result("toolu_01A"), result("toolu_99")]},
            ],
        },
        "unexpected `tool_use_id` found in `tool_result` blocks: toolu_99",
    ),
    "empty_error_content": (
        raw_body(result("toolu_01A", "", is_error=True)),
        "content cannot be empty if `is_error` is true",
    ),
    "id_pattern": (
        raw_body(result("call|1"), call_id="call|1"),
        "String should match pattern '^[a-zA-Z0-9_-]+$'",
    ),
    "result_not_first": (
        {
            **raw_body({}),
            "messages": [
                *raw_body({})["messages"][:2],
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "antes"}, result("toolu_01A")],
                },
            ],
        },
        "tool_result blocks must come before any other content",
    ),
    "missing_result": (
        {
            **raw_body({}),
            "messages": [*raw_body({})["messages"][:2], {"role": "user", "content": "¿y?"}],
        },
        "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A",
    ),
    "missing_max_tokens": (
        {"model": MODEL, "messages": QUESTION_ONLY},
        "max_tokens: Field required",
    ),
    "missing_model": ({"max_tokens": 5, "messages": QUESTION_ONLY}, "model: Field required"),
    "empty_text": (
        {"model": MODEL, "max_tokens": 5, "messages": [{"role": "user", "content": " "}]},
        "text content blocks must contain non-whitespace text",
    ),
    "not_an_object": ([QUESTION_ONLY], "The request body is not valid JSON."),  # type: ignore[dict-item]
    "extra_top_level": (
        {"model": MODEL, "max_tokens": 5, "messages": QUESTION_ONLY, "n": 2},
        "n: Extra inputs are not permitted",
    ),
    "empty_model": (
        {"model": "", "max_tokens": 5, "messages": QUESTION_ONLY},
        "model: Input should be a valid string",
    ),
    "zero_max_tokens": (
        {"model": MODEL, "max_tokens": 0, "messages": QUESTION_ONLY},
        "max_tokens: Input should be greater than or equal to 1",
    ),
    "no_messages": (
        {"model": MODEL, "max_tokens": 5, "messages": []},
        "messages: at least one message is required",
    ),
    "tools_not_a_list": (
        {"model": MODEL, "max_tokens": 5, "messages": QUESTION_ONLY, "tools": {}},
        "tools: Input should be a valid list",
    ),
    "tool_name_pattern": (
        {**raw_body(result("toolu_01A")), "tools": [{**WIRE_TOOL, "name": "read.measurement"}]},
        "tools.0.custom.name: String should match pattern",
    ),
    "tool_schema_not_an_object": (
        {**raw_body(result("toolu_01A")), "tools": [{**WIRE_TOOL, "input_schema": {}}]},
        "tools.0.custom.input_schema.type: Input should be 'object'",
    ),
    "role": (
        {"model": MODEL, "max_tokens": 5, "messages": [{"role": "system", "content": "x"}]},
        "messages.0.role: Input should be 'user' or 'assistant'",
    ),
    "content_not_text_or_list": (
        {"model": MODEL, "max_tokens": 5, "messages": [{"role": "user", "content": 5}]},
        "messages.0.content: Input should be a valid string or list",
    ),
    "empty_content": (
        {"model": MODEL, "max_tokens": 5, "messages": [{"role": "user", "content": []}]},
        "messages.0: all messages must have non-empty content",
    ),
    "block_type": (
        {
            "model": MODEL,
            "max_tokens": 5,
            "messages": [{"role": "user", "content": [{"type": "tool_use", "id": "x"}]}],
        },
        "Input tag 'tool_use' found using 'type' does not match any of the expected tags",
    ),
    "extra_block_key": (
        {
            "model": MODEL,
            "max_tokens": 5,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "x", "y": 1}]}],
        },
        "messages.0.content.0.text.y: Extra inputs are not permitted",
    ),
    "thinking_without_signature": (
        {
            **raw_body(result("toolu_01A")),
            "messages": [
                *QUESTION_ONLY,
                {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm"}]},
            ],
        },
        "messages.1.content.0.thinking.signature: Field required",
    ),
    "duplicate_tool_use_ids": (
        {
            **raw_body({}),
            "messages": [
                *raw_body(result("toolu_01A"))["messages"],
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "toolu_01A", "name": "read", "input": {}}
                    ],
                },
                {"role": "user", "content": [result("toolu_01A")]},
            ],
        },
        "messages.3.content.0: `tool_use` ids must be unique",
    ),
    "tool_use_without_name": (
        {
            **raw_body({}),
            "messages": [
                *QUESTION_ONLY,
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "input": {}}]},
            ],
        },
        "messages.1.content.0.tool_use.name: Field required",
    ),
    "tool_use_input_not_an_object": (
        {
            **raw_body({}),
            "messages": [
                *QUESTION_ONLY,
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t1", "name": "r", "input": "{}"}],
                },
            ],
        },
        "messages.1.content.0.tool_use.input: Input should be a valid dictionary",
    ),
    "result_content_not_text_or_list": (
        raw_body(result("toolu_01A", 5)),  # type: ignore[arg-type]
        "tool_result.content: Input should be a valid string or list",
    ),
    "is_error_not_a_boolean": (
        raw_body(result("toolu_01A", "x", is_error="yes")),
        "tool_result.is_error: Input should be a valid boolean",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_BODIES))
def test_fake_server_rejects_like_the_real_api(case: str) -> None:
    """Each violation gets the real API's 400 body, and uses up no scripted turn."""
    body, reason = BAD_BODIES[case]
    with FakeAnthropicServer([turn("no")]) as server:
        status, answer = post(server, body)
        assert server.remaining == 1
    assert status == 400
    assert answer["type"] == "error"
    assert answer["error"]["type"] == "invalid_request_error"
    assert reason in answer["error"]["message"]


@pytest.mark.parametrize("case", ["orphan", "empty_error_content", "id_pattern"])
def test_sdk_400_becomes_bad_request(case: str) -> None:
    """The SDK's BadRequestError for those bodies is translated to kind ``bad_request``."""
    import anthropic

    async def send() -> Exception:
        async with anthropic.AsyncAnthropic(
            api_key="k", base_url=server.base_url, max_retries=0
        ) as client:
            try:
                await client.messages.create(**BAD_BODIES[case][0])
            except anthropic.APIError as exc:
                return exc
        raise AssertionError("accepted")

    with FakeAnthropicServer([turn("no")]) as server:
        error = _translate(run(send()))
    assert (error.kind, error.status, error.provider) == ("bad_request", 400, "anthropic")
    assert "tool_result" not in error.safe_message


def test_adapter_orphan_result_is_a_bad_request() -> None:
    """A transcript whose result answers no call is rejected, and surfaces as bad_request."""
    messages = exchange(NOT_FOUND)
    messages[2] = ToolResultsMessage((ToolResult("toolu_ZZ", "read_measurement", NOT_FOUND),))
    with FakeAnthropicServer([turn("no")]) as server, pytest.raises(ProviderError) as caught:
        run(model_for(server).request(ModelRequest(messages)))
    assert (caught.value.kind, caught.value.status) == ("bad_request", 400)
    assert "toolu_ZZ" not in caught.value.safe_message


def test_running_out_of_turns_is_a_server_error() -> None:
    """A request past the script is a 500 with a clear message, not retried."""
    with FakeAnthropicServer([]) as server, pytest.raises(ProviderError) as caught:
        run(model_for(server).request(ModelRequest([UserMessage("hola")])))
    assert caught.value.kind == "server"
    assert len(server.requests) == 1


def test_wrong_key_is_auth_and_the_key_never_shows() -> None:
    """A 401 becomes kind ``auth``; neither key appears in the error."""
    with FakeAnthropicServer([turn("no")], api_key="right-key") as server:
        model = AnthropicModel(MODEL, api_key="wrong-key", base_url=server.base_url)
        with pytest.raises(ProviderError) as caught:
            run(model.request(ModelRequest([UserMessage("hola")])))
    assert (caught.value.kind, caught.value.status) == ("auth", 401)
    assert "key" not in str(caught.value).replace("API key", "")


def test_missing_key_is_auth_without_a_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key anywhere: an ``auth`` error before anything is sent."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    with FakeAnthropicServer([turn("no")]) as server:
        with pytest.raises(ProviderError) as caught:
            run(AnthropicModel(MODEL, base_url=server.base_url).request(ModelRequest([])))
        assert server.requests == []
    assert caught.value.kind == "auth"


# -- malformed responses (property-based) --------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
arguments = st.dictionaries(st.text(max_size=8), json_values, max_size=4)


@st.composite
def truncated_input(draw: st.DrawFn) -> str:
    """Argument JSON cut somewhere, as a stream cut by max_tokens leaves it."""
    text = json.dumps(draw(arguments))
    return text[: draw(st.integers(0, len(text)))]


blocks = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": st.text(max_size=30)}),
    st.fixed_dictionaries(
        {
            "type": st.just("tool_use"),
            "id": st.text(min_size=1, max_size=12),
            "name": st.sampled_from(["read_measurement", "save_memory"]),
            "input": arguments | truncated_input() | json_values,
        }
    ),
    st.fixed_dictionaries({"type": st.just("tool_use"), "name": st.just("x"), "input": arguments}),
    st.fixed_dictionaries({"type": st.just("tool_use"), "id": st.just(""), "input": arguments}),
    st.fixed_dictionaries({"type": st.text(max_size=12), "payload": json_values}),
    st.just(THINKING),
    json_values,
)
messages = st.one_of(
    st.fixed_dictionaries(
        {"content": st.lists(blocks, max_size=5)},
        optional={
            "id": json_values,
            "model": json_values,
            "stop_reason": st.sampled_from(["end_turn", "tool_use", "max_tokens", "weird"])
            | json_values,
            "usage": json_values,
        },
    ),
    json_values,
)


def parsed_or_error(message: Any) -> AssistantMessage | ProviderError:
    """``parse_response``'s turn, or the ``ProviderError`` it raised."""
    try:
        return parse_response(message)
    except ProviderError as exc:
        return exc


@settings(max_examples=150, deadline=None)
@given(messages)
def test_parse_response_never_crashes(message: Any) -> None:
    """Malformed responses give a clear ``bad_response`` or calls whose bad arguments are
    ``None`` with the raw text kept; nothing else."""
    parsed = parsed_or_error(message)
    if isinstance(parsed, ProviderError):
        assert (parsed.kind, parsed.provider) == ("bad_response", "anthropic")
        return
    for part in parsed.tool_calls:
        assert part.call_id
        assert part.arguments is None or isinstance(part.arguments, dict)
        if part.arguments is None:
            assert part.raw_arguments is not None


@settings(max_examples=60, deadline=None)
@given(arguments, st.data())
def test_truncated_argument_json_is_never_parsed_into_a_call(
    args: dict[str, Any], data: st.DataObject
) -> None:
    """Any strict prefix of the argument JSON yields ``arguments=None`` (or a complete
    object when the prefix happens to be one), never a wrong object."""
    text = json.dumps(args)
    cut = text[: data.draw(st.integers(0, len(text)))]
    block = {"type": "tool_use", "id": "toolu_1", "name": "save_memory", "input": cut}
    (parsed,) = parse_response({"content": [block], "stop_reason": "max_tokens"}).tool_calls
    assert parsed.raw_arguments == cut
    if parsed.arguments is not None:
        assert json.loads(cut) == parsed.arguments


def sse_events(turn_: AssistantMessage) -> list[dict[str, Any]]:
    """The event objects the fake server streams for ``turn_``."""
    from surefoot.testing._fake_anthropic import message_payload, stream_events

    payload = message_payload(turn_, model=MODEL, number=1)
    raw = b"".join(stream_events(turn_, payload)).decode()
    return [json.loads(line[6:]) for line in raw.splitlines() if line.startswith("data: ")]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_stream_cut_anywhere_is_a_bad_response(data: st.DataObject) -> None:
    """A stream that stops before ``message_stop`` is a ``bad_response``, never a turn."""
    events = sse_events(RICH_TURN)
    keep = data.draw(st.integers(0, len(events) - 1))
    state = _MessageStream()
    for event in events[:keep]:
        state.feed(event)
    with pytest.raises(ProviderError) as caught:
        state.result()
    assert caught.value.kind == "bad_response"


def test_huge_text_parses() -> None:
    """A response with megabytes of text is parsed whole."""
    text = "ñ" * 2_000_000
    parsed = parse_response(
        {"content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}
    )
    assert parsed.text == text


def test_unknown_block_type_is_a_bad_response() -> None:
    """A block type the adapter does not know is reported, never silently dropped."""
    with pytest.raises(ProviderError) as caught:
        parse_response({"content": [{"type": "server_tool_use", "id": "x"}]})
    assert caught.value.kind == "bad_response"


@pytest.mark.parametrize(
    ("stop_reason", "finish"),
    [
        ("end_turn", "end_turn"),
        ("tool_use", "tool_use"),
        ("max_tokens", "max_tokens"),
        ("pause_turn", "pause"),
        ("refusal", "refusal"),
        ("stop_sequence", "end_turn"),
    ],
)
def test_stop_reasons(stop_reason: str, finish: str) -> None:
    """Each Anthropic stop reason maps to its neutral finish reason."""
    parsed = parse_response(
        {"content": [{"type": "text", "text": "x"}], "stop_reason": stop_reason}
    )
    assert parsed.finish == finish


# -- replay across providers ---------------------------------------------------------------


def test_transcript_recorded_on_openai_replays_to_anthropic_with_every_mark() -> None:
    """A conversation recorded on OpenAI Responses (call ids with ``|`` and ``/``, reasoning
    items) continues on Anthropic: the strict server accepts it, ids are mapped, reasoning is
    dropped, and ``is_error`` is set exactly on the errors."""
    script = [
        AssistantMessage(
            (
                ReasoningPart(
                    "openai", {"type": "reasoning", "summary": [], "encrypted_content": "e"}
                ),
                ToolCall("call_9Xy|fc_68a/1", "read_measurement", {"date": "2020-01-02"}),
                ToolCall("call_9Xy|fc_68a/2", "read_memory", {"key": "nota"}),
            ),
            finish="tool_use",
        ),
        turn("No hay registro el 2020-01-02; tu nota dice eso."),
    ]
    journal = MemoryJournal()
    with FakeOpenAIResponsesServer(script) as openai_server:
        recorder = OpenAIResponsesModel(
            "gpt-test", api_key="k", base_url=openai_server.base_url + "/v1"
        )
        agent = Agent(model=recorder, tools=coach_tools([]), journal=journal)
        recorded = run(agent.run_turn(QUESTION))
        openai_server.assert_consumed()
    history = journal.load(recorded.conversation_id)
    outcomes = {
        r.call_id: r.outcome
        for m in history
        if isinstance(m, ToolResultsMessage)
        for r in m.results
    }
    assert isinstance(outcomes["call_9Xy|fc_68a/1"], ToolError)
    assert isinstance(outcomes["call_9Xy|fc_68a/2"], Ok)

    with FakeAnthropicServer([turn("Sigo aquí.")]) as server:
        request = ModelRequest(
            [*history, UserMessage("¿Y el 2020-01-01?")], coach_tools([]).specs()
        )
        run(model_for(server).request(request))
        body = server.requests[0].body
    assert "reasoning" not in json.dumps(body)
    uses = [b for m in body["messages"] for b in m["content"] if b["type"] == "tool_use"]
    results = [b for m in body["messages"] for b in m["content"] if b["type"] == "tool_result"]
    assert [u["id"] for u in uses] == [wire_id("call_9Xy|fc_68a/1"), wire_id("call_9Xy|fc_68a/2")]
    assert [r["tool_use_id"] for r in results] == [u["id"] for u in uses]
    for result, original in zip(results, outcomes.values(), strict=True):
        assert result["content"] == to_wire_text(original)
        assert result.get("is_error", False) is isinstance(original, ToolError)


@pytest.mark.parametrize("odd_type", [["text"], {"type": "text"}, 7, None])
def test_a_block_type_that_is_not_a_string_is_a_bad_response(odd_type: object) -> None:
    """A content block whose ``type`` is a list, dict or number fails as bad_response."""
    with pytest.raises(ProviderError) as caught:
        parse_response({"content": [{"type": odd_type}]})
    assert caught.value.kind == "bad_response"


# -- stream events the assembler must refuse or tolerate -------------------------------------

START = {"type": "message_start", "message": {"id": "msg_1", "content": [], "usage": {}}}


def assembled(*events: dict[str, Any]) -> dict[str, Any]:
    """The message a stream of ``events`` (after ``message_start``) assembles to."""
    state = _MessageStream()
    for event in (START, *events, {"type": "message_stop"}):
        state.feed(event)
    return state.result()


@pytest.mark.parametrize(
    ("events", "problem"),
    [
        ([{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"}}], "never"),
        ([{"type": "content_block_start", "index": "0", "content_block": {}}], "block index"),
        (
            [
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": 5},
                },
            ],
            "text is not text",
        ),
    ],
    ids=["delta_before_start", "index_not_int", "text_not_text"],
)
def test_a_malformed_stream_event_is_a_bad_response(
    events: list[dict[str, Any]], problem: str
) -> None:
    with pytest.raises(ProviderError) as caught:
        assembled(*events)
    assert caught.value.kind == "bad_response"
    assert problem in caught.value.safe_message


def test_message_delta_before_message_start_is_a_bad_response() -> None:
    with pytest.raises(ProviderError) as caught:
        _MessageStream().feed({"type": "message_delta", "delta": {"stop_reason": "end_turn"}})
    assert "before message_start" in caught.value.safe_message


def test_citations_unknown_deltas_and_unclosed_calls_are_assembled() -> None:
    """Citations are kept on their text block, delta types added later are ignored, a call
    whose block never closed still gets its arguments, and a message_delta without a delta
    or usage object changes nothing."""
    message = assembled(
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Sí"}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "citations_delta", "citation": {"cited_text": "x"}},
        },
        {"type": "content_block_delta", "index": 0, "delta": {"type": "future_delta"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": '{"a": 1}'},
        },
        {"type": "message_delta", "delta": None, "usage": None},
    )
    assert message["content"] == [
        {"type": "text", "text": "Sí", "citations": [{"cited_text": "x"}]},
        {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"a": 1}},
    ]
    assert message["usage"] == {}


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        ({"type": "text", "text": None}, "a text block has no text"),
        ({"type": "tool_use", "id": "toolu_1", "input": {}}, "a tool_use block has no name"),
    ],
)
def test_a_block_missing_what_it_needs_is_a_bad_response(
    block: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ProviderError) as caught:
        parse_response({"content": [block], "stop_reason": "end_turn"})
    assert (caught.value.kind, caught.value.safe_message) == ("bad_response", problem)


# -- usage: the cache counts ------------------------------------------------------------------


def served_usage(server: FakeAnthropicServer, *, stream: bool) -> dict[str, int]:
    """The usage of one answer from ``server``, asked as JSON or as a stream."""
    model = model_for(server, max_retries=0)
    request = ModelRequest([UserMessage(QUESTION)])
    if not stream:
        return run(model.request(request)).usage
    final = run(collect(model.stream(request)))[-1]
    assert isinstance(final, ResponseDone)
    return final.response.usage


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_cache_counts_are_reported_beside_input(stream: bool) -> None:
    """The API's own ``cache_read_input_tokens`` and ``cache_creation_input_tokens`` (outside
    ``input_tokens`` on this wire) are reported as they are, through the SDK; streamed, from
    ``message_start`` and the cumulative ``message_delta`` counts."""
    with FakeAnthropicServer([turn("Hecho.")]) as server:
        plain = served_usage(server, stream=stream)
    with FakeAnthropicServer([turn("Hecho.")], cached_input_tokens=2048) as server:
        usage = served_usage(server, stream=stream)
    assert set(plain) == {"input_tokens", "output_tokens"}
    assert usage == {**plain, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 2048}


RECORDED_START_USAGE = {
    "input_tokens": 43,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
    "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
    "output_tokens": 1,
    "service_tier": "standard",
    "inference_geo": "not_available",
}
"""``message_start``'s usage in a recorded claude-sonnet-4 stream (recorded/data)."""


def test_parse_usage_reads_a_recorded_usage() -> None:
    """The recorded usage object: its four counts, the nested ``cache_creation`` breakdown and
    the labels left out (they are parts of the counts, or not counts)."""
    assert parse_usage({"usage": {**RECORDED_START_USAGE, "cache_read_input_tokens": 1500}}) == {
        "input_tokens": 43,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 1500,
        "output_tokens": 1,
    }


def test_stream_usage_merges_message_start_and_message_delta() -> None:
    """``message_delta``'s counts are cumulative and replace ``message_start``'s; a count the
    delta leaves out (older streams send only ``output_tokens``) or sends as null keeps the
    start's."""
    start = {**START, "message": {**START["message"], "usage": RECORDED_START_USAGE}}
    cumulative = {
        "input_tokens": 43,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 1500,
        "output_tokens": 282,
    }
    for delta_usage, read in (
        (cumulative, 1500),
        ({"output_tokens": 282}, 0),
        ({"output_tokens": 282, "cache_read_input_tokens": None}, 0),
    ):
        state = _MessageStream()
        for event in (
            start,
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": delta_usage},
            {"type": "message_stop"},
        ):
            state.feed(event)
        assert parse_usage(state.result()) == {
            "input_tokens": 43,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": read,
            "output_tokens": 282,
        }
