"""OpenAI Responses: the official SDK, through the adapter, against the strict fake server."""

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
from surefoot.outcome import envelope_to_error, to_wire_text
from surefoot.providers.anthropic import AnthropicModel
from surefoot.providers.openai_responses import (
    OpenAIResponsesModel,
    _ResponseStream,
    _translate,
    build_request,
    parse_response,
    parse_usage,
    wire_call_id,
)
from surefoot.testing import FakeAnthropicServer, FakeOpenAIResponsesServer, call, turn
from surefoot.testing._http import FakeHTTPServer, RecordedRequest, Reply, sse_event

T = TypeVar("T")

MODEL = "gpt-test"
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
    "type": "function",
    "name": "read_measurement",
    "description": "Lee la medida guardada para una fecha.",
    "parameters": SPEC.parameters,
    "strict": False,
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
REASONING = {
    "type": "reasoning",
    "id": "rs_01",
    "summary": [{"type": "summary_text", "text": "Miro la fecha."}],
    "encrypted_content": "gAAAAB-cifrado",
}


def run(awaitable: Awaitable[T]) -> T:
    """Run one coroutine to completion (each test owns its event loop)."""

    async def main() -> T:
        return await asyncio.wait_for(awaitable, timeout=60)

    return asyncio.run(main())


def model_for(server: FakeHTTPServer, **options: Any) -> OpenAIResponsesModel:
    """The adapter pointed at ``server``."""
    return OpenAIResponsesModel(
        MODEL, api_key="test-key", base_url=server.base_url + "/v1", timeout=10, **options
    )


async def collect(events: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    """Every event of a stream."""
    return [event async for event in events]


def exchange(outcome: Ok | ToolError, *, call_id: str = "call_01A") -> list[Message]:
    """A question, one call of ``read_measurement`` (as OpenAI sent it) and its result."""
    return [
        UserMessage(QUESTION),
        AssistantMessage(
            (
                ReasoningPart("openai", REASONING),
                TextPart("Voy a mirarlo.", {"id": "msg_01", "status": "completed"}),
                ToolCall(
                    call_id,
                    "read_measurement",
                    {"date": "2020-01-02"},
                    raw_arguments='{"date": "2020-01-02"}',
                    provider_details={"id": "fc_01", "status": "completed"},
                ),
            ),
            finish="tool_use",
            provider="openai",
            model=MODEL,
        ),
        ToolResultsMessage((ToolResult(call_id, "read_measurement", outcome),)),
    ]


def sent_body(messages: list[Message], *, tools: tuple[ToolSpec, ...] = (SPEC,)) -> Any:
    """The body the SDK sent for ``messages`` (the fake server accepted it)."""
    with FakeOpenAIResponsesServer([turn("Hecho.")]) as server:
        response = run(model_for(server).request(ModelRequest(messages, tools, SYSTEM)))
        assert response.message.text == "Hecho."
        server.assert_consumed()
        return server.requests[0].body


def expected_body(output: str, call_id: str = "call_01A") -> dict[str, Any]:
    """The whole request body around one function_call_output."""
    return {
        "model": MODEL,
        "store": False,
        "max_output_tokens": 1024,
        "instructions": SYSTEM,
        "tools": [WIRE_TOOL],
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": QUESTION}],
            },
            REASONING,
            {
                "type": "message",
                "role": "assistant",
                "id": "msg_01",
                "status": "completed",
                "content": [
                    {
                        "type": "output_text",
                        "annotations": [],
                        "logprobs": [],
                        "text": "Voy a mirarlo.",
                    }
                ],
            },
            {
                "type": "function_call",
                "id": "fc_01",
                "call_id": call_id,
                "name": "read_measurement",
                "arguments": '{"date": "2020-01-02"}',
                "status": "completed",
            },
            {"type": "function_call_output", "call_id": call_id, "output": output},
        ],
    }


# -- exact request bodies ------------------------------------------------------------------


def test_success_result_body() -> None:
    """A success's output is the data's JSON text; the model's own argument text is echoed."""
    body = sent_body(exchange(Ok({"date": "2020-01-01", "weight_kg": 76.0})))
    assert body == expected_body('{"date":"2020-01-01","weight_kg":76.0}')


def test_not_found_result_body() -> None:
    """A domain error's output is the envelope; no top-level error field is invented."""
    body = sent_body(exchange(NOT_FOUND))
    assert body == expected_body(
        '{"kind":"tool_error","version":1,"is_error":true,"error":"not_found",'
        '"message":"No hay registro de medidas para el 2020-01-02. Esto no dice nada '
        'sobre otras fechas.","recovery":"choose_alternative","recoverable":true}'
    )


def test_invalid_arguments_result_body() -> None:
    """``invalid_arguments`` carries its structured details inside the envelope."""
    body = sent_body(exchange(INVALID))
    assert body == expected_body(
        '{"kind":"tool_error","version":1,"is_error":true,"error":"invalid_arguments",'
        '"message":"Los argumentos de read_measurement no son válidos.",'
        '"recovery":"correct_arguments","recoverable":true,"details":[{"field":"date",'
        '"problem":"must be a calendar date written YYYY-MM-DD","expected":"YYYY-MM-DD"}]}'
    )


def test_success_that_reads_like_an_error_has_no_mark() -> None:
    """Data that looks like an error is sent as the data itself, nothing added."""
    body = sent_body(exchange(Ok({"value": 'Error: {"is_error": true}'})))
    assert body == expected_body('{"value":"Error: {\\"is_error\\": true}"}')


def test_stop_turn_fills_every_call_and_skips_the_harness_message() -> None:
    """After a stop_turn every call has its output, in order; the harness's message is not
    presented as the model's, and the next question follows."""
    unknown = ToolError(
        "outcome_unknown", "No se puede confirmar si se guardó.", Recovery.STOP_TURN
    )
    skipped = ToolError("not_executed", "No se ejecutó: el turno se detuvo.", Recovery.STOP_TURN)
    calls = (
        ToolCall("call_W", "write_measurement", {"date": "2020-01-04", "weight_kg": 77.4}),
        ToolCall("call_R1", "read_measurement", {"date": "2020-01-04"}),
        ToolCall("call_R2", "read_measurement", {"date": "2020-01-03"}),
    )
    messages: list[Message] = [
        UserMessage("Guarda mi peso: 77,4 kg el 2020-01-04."),
        AssistantMessage(calls, finish="tool_use", provider="openai"),
        ToolResultsMessage(
            (
                ToolResult("call_W", "write_measurement", unknown),
                ToolResult("call_R1", "read_measurement", skipped, executed=False),
                ToolResult("call_R2", "read_measurement", skipped, executed=False),
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

    assert body["input"] == [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "Guarda mi peso: 77,4 kg el 2020-01-04."}],
        },
        {
            "type": "function_call",
            "call_id": "call_W",
            "name": "write_measurement",
            "arguments": '{"date":"2020-01-04","weight_kg":77.4}',
        },
        {
            "type": "function_call",
            "call_id": "call_R1",
            "name": "read_measurement",
            "arguments": '{"date":"2020-01-04"}',
        },
        {
            "type": "function_call",
            "call_id": "call_R2",
            "name": "read_measurement",
            "arguments": '{"date":"2020-01-03"}',
        },
        {
            "type": "function_call_output",
            "call_id": "call_W",
            "output": envelope("outcome_unknown", "No se puede confirmar si se guardó."),
        },
        {
            "type": "function_call_output",
            "call_id": "call_R1",
            "output": envelope("not_executed", "No se ejecutó: el turno se detuvo."),
        },
        {
            "type": "function_call_output",
            "call_id": "call_R2",
            "output": envelope("not_executed", "No se ejecutó: el turno se detuvo."),
        },
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "¿Se guardó?"}],
        },
    ]


def test_long_ids_are_mapped_the_same_way_for_call_and_output() -> None:
    """A call id over 64 characters becomes one stable short id on both items, and the strict
    server accepts it; printable ids within the limit are kept as they are."""
    long_id = "toolu_" + "x" * 70
    body = sent_body(exchange(NOT_FOUND, call_id=long_id))
    mapped = wire_call_id(long_id)
    assert len(mapped) <= 64
    assert mapped.startswith("sf_")
    assert body["input"][3]["call_id"] == mapped
    assert body["input"][4]["call_id"] == mapped
    assert wire_call_id("call_9Xy|fc_68a/1") == "call_9Xy|fc_68a/1"


def test_reused_call_ids_get_distinct_wire_ids() -> None:
    """A repeated ``call_0`` gets a distinct stable id, each output follows its own call, and
    the strict server accepts the request."""
    first = ToolCall("call_0", "read_measurement", {"date": "2020-01-02"})
    second = ToolCall("call_0", "read_measurement", {"date": "2020-01-01"})
    messages: list[Message] = [
        UserMessage(QUESTION),
        AssistantMessage((first,), finish="tool_use", provider="openai-chat"),
        ToolResultsMessage((ToolResult("call_0", "read_measurement", NOT_FOUND),)),
        AssistantMessage((second,), finish="tool_use", provider="openai-chat"),
        ToolResultsMessage((ToolResult("call_0", "read_measurement", Ok({"weight_kg": 76.0})),)),
    ]
    body = sent_body(messages)
    pairs = [(i["type"], i["call_id"]) for i in body["input"] if "call_id" in i]
    assert pairs == [
        ("function_call", "call_0"),
        ("function_call_output", "call_0"),
        ("function_call", "call_0#1"),
        ("function_call_output", "call_0#1"),
    ]
    assert body["input"][-1]["output"] == '{"weight_kg":76.0}'


def test_build_request_is_pure_and_echoes_only_openai_reasoning() -> None:
    """Other providers' reasoning, reasoning without encrypted content, empty text and
    harness messages never reach the wire; ``encrypted_reasoning`` asks for it."""
    messages: list[Message] = [
        UserMessage("Hola"),
        AssistantMessage(
            (
                ReasoningPart("anthropic", {"type": "thinking", "thinking": "t", "signature": "s"}),
                ReasoningPart("openai", {"type": "reasoning", "id": "rs_2", "summary": []}),
                TextPart(""),
            ),
            provider="anthropic",
        ),
        HarnessMessage("El proveedor no respondió.", "provider_error"),
    ]
    body = build_request(
        ModelRequest(messages), model=MODEL, max_tokens=50, encrypted_reasoning=True
    )
    assert body == {
        "model": MODEL,
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hola"}]}
        ],
        "store": False,
        "max_output_tokens": 50,
        "include": ["reasoning.encrypted_content"],
    }


# -- item ids, phase, and the plain form ---------------------------------------------------

ENCRYPTED = {**REASONING, "id": "rs_x"}
"""A scripted reasoning item with encrypted content (the fake server renames its id)."""


def reasoning_turn(reasoning: dict[str, Any]) -> AssistantMessage:
    """Reasoning, a commentary message and a call, as a gpt-5 model answers."""
    return AssistantMessage(
        (
            ReasoningPart("openai", reasoning),
            TextPart("Voy a mirarlo.", {"phase": "commentary"}),
            ToolCall("call_01A", "read_measurement", {"date": "2020-01-02"}),
        ),
        finish="tool_use",
    )


def continuation(first_turn: AssistantMessage) -> tuple[list[dict[str, Any]], list[Any]]:
    """The output the fake server gave for ``first_turn`` and the input of the next request
    (after the call's result), which the strict server accepted."""
    with FakeOpenAIResponsesServer([first_turn, turn("Hecho.")]) as server:
        model = model_for(server, encrypted_reasoning=True)
        first = run(model.request(ModelRequest([UserMessage(QUESTION)], (SPEC,))))
        results = ToolResultsMessage((ToolResult("call_01A", "read_measurement", NOT_FOUND),))
        messages = [UserMessage(QUESTION), first.message, results]
        final = run(model.request(ModelRequest(messages, (SPEC,))))
        server.assert_consumed()
        output = response_output(server, 0)
        sent = server.requests[1].body["input"]
    assert final.message.text == "Hecho."
    return output, sent


def response_output(server: FakeOpenAIResponsesServer, number: int) -> list[dict[str, Any]]:
    """The output items the fake server rendered for its scripted turn ``number``."""
    from surefoot.testing._fake_openai_responses import response_payload

    body = server.requests[number].body
    payload: list[dict[str, Any]] = response_payload(server.turns[number], body, number=number + 1)[
        "output"
    ]
    return payload


def test_reasoning_message_and_call_go_back_with_their_item_ids() -> None:
    """After reasoning with encrypted content, a message and a call, the next request sends
    the three items back as received: ids, status and the message's phase (the strict server
    checks the reasoning item is followed by its item and each item by its reasoning)."""
    output, sent = continuation(reasoning_turn(ENCRYPTED))
    reasoning, message, call_item = output
    assert sent[1:4] == [
        reasoning,
        {
            "type": "message",
            "role": "assistant",
            "id": message["id"],
            "status": "completed",
            "content": [
                {"type": "output_text", "annotations": [], "logprobs": [], "text": "Voy a mirarlo."}
            ],
            "phase": "commentary",
        },
        {**call_item, "type": "function_call"},
    ]
    assert [i.get("id") for i in sent[1:4]] == ["rs_x", "msg_fake0001_1", "fc_fake0001_2"]


def test_reasoning_without_encrypted_content_goes_back_plain() -> None:
    """Reasoning that cannot be sent back takes the item ids with it: the message goes as plain
    text with its phase and the call by ``call_id`` only, so nothing names a missing reasoning
    item (the strict server rejects ``fc_…`` without its ``rs_…``)."""
    bare = {"type": "reasoning", "id": "rs_x", "summary": []}
    _, sent = continuation(reasoning_turn(bare))
    assert sent[1:3] == [
        {
            "type": "message",
            "role": "assistant",
            "content": "Voy a mirarlo.",
            "phase": "commentary",
        },
        {
            "type": "function_call",
            "call_id": "call_01A",
            "name": "read_measurement",
            "arguments": '{"date":"2020-01-02"}',
        },
    ]


def test_reasoning_cut_before_its_item_goes_back_plain() -> None:
    """A response cut off after its reasoning (nothing followed it) sends no reasoning item
    back, which the live API would refuse without its following item; the next question is
    accepted by the strict server."""
    cut = AssistantMessage((ReasoningPart("openai", ENCRYPTED),), finish="max_tokens")
    with FakeOpenAIResponsesServer([cut, turn("Hola.")]) as server:
        model = model_for(server, encrypted_reasoning=True)
        first = run(model.request(ModelRequest([UserMessage(QUESTION)])))
        assert first.message.finish == "max_tokens"
        again = [UserMessage(QUESTION), first.message, UserMessage("¿Y bien?")]
        final = run(model.request(ModelRequest(again)))
        sent = server.requests[1].body["input"]
    assert final.message.text == "Hola."
    assert [i["type"] for i in sent] == ["message", "message"]


def test_an_item_id_without_its_reasoning_is_rejected_like_the_live_api() -> None:
    """The strict server refuses a call it produced after reasoning when the reasoning item is
    left out, with the live API's message."""
    with FakeOpenAIResponsesServer([reasoning_turn(ENCRYPTED), turn("no")]) as server:
        run(model_for(server).request(ModelRequest([UserMessage(QUESTION)], (SPEC,))))
        call_item = response_output(server, 0)[2]
        status, answer = post(server, raw_body(call_item, function_output("call_01A")))
    assert status == 400
    assert answer["error"]["message"] == (
        "Item 'fc_fake0001_2' of type 'function_call' was provided without its required "
        "'reasoning' item: 'rs_x'."
    )


def test_other_providers_messages_drop_every_openai_field() -> None:
    """A message recorded elsewhere goes as plain text and calls without item ids, even when its
    parts carry fields that look like this provider's."""
    messages: list[Message] = [
        UserMessage(QUESTION),
        AssistantMessage(
            (
                TextPart("Miro.", {"id": "msg_1", "status": "completed", "phase": "commentary"}),
                TextPart(" Un momento.", {"id": "msg_1", "phase": "commentary"}),
                ToolCall("toolu_1", "read_measurement", {"date": "2020-01-02"}, None, {"id": "x"}),
            ),
            finish="tool_use",
            provider="anthropic",
        ),
        ToolResultsMessage((ToolResult("toolu_1", "read_measurement", NOT_FOUND),)),
    ]
    body = sent_body(messages)
    assert body["input"][1:3] == [
        {"type": "message", "role": "assistant", "content": "Miro. Un momento."},
        {
            "type": "function_call",
            "call_id": "toolu_1",
            "name": "read_measurement",
            "arguments": '{"date":"2020-01-02"}',
        },
    ]


def test_messages_of_different_phases_stay_apart() -> None:
    """A commentary message and a final answer are two items, each with its phase."""
    commentary = TextPart("Lo miro.", {"id": "msg_a", "status": "completed", "phase": "commentary"})
    answer = TextPart("No hay.", {"id": "msg_b", "status": "completed", "phase": "final_answer"})
    messages: list[Message] = [
        UserMessage(QUESTION),
        AssistantMessage((commentary, answer), provider="openai"),
        UserMessage("Gracias."),
    ]
    items = build_request(ModelRequest(messages), model=MODEL, max_tokens=10)["input"][1:3]
    assert [(i["id"], i["phase"], i["content"][0]["text"]) for i in items] == [
        ("msg_a", "commentary", "Lo miro."),
        ("msg_b", "final_answer", "No hay."),
    ]


def test_parsed_parts_keep_item_ids_status_and_phase() -> None:
    """Parsing keeps each message's id, status, phase and its content part's own fields, and
    each call's id and status, in ``provider_details``."""
    message = {
        "type": "message",
        "id": "msg_9",
        "status": "completed",
        "role": "assistant",
        "phase": "final_answer",
        "content": [{"type": "output_text", "text": "Hola", "annotations": [], "logprobs": []}],
    }
    call_item = {
        "type": "function_call",
        "id": "fc_9",
        "status": "completed",
        "call_id": "call_9",
        "name": "read_measurement",
        "arguments": "{}",
    }
    parsed = parse_response({"status": "completed", "output": [message, call_item]})
    assert parsed.parts == (
        TextPart(
            "Hola",
            {
                "id": "msg_9",
                "status": "completed",
                "phase": "final_answer",
                "content": {"type": "output_text", "annotations": [], "logprobs": []},
            },
        ),
        ToolCall("call_9", "read_measurement", {}, "{}", {"id": "fc_9", "status": "completed"}),
    )


def test_item_ids_survive_the_journal() -> None:
    """A transcript stored as JSON and read back builds the same request, ids included."""
    from surefoot.messages import message_from_json, message_to_json

    messages = exchange(NOT_FOUND)
    reloaded = [message_from_json(json.loads(json.dumps(message_to_json(m)))) for m in messages]
    assert reloaded == messages
    rebuilt = build_request(ModelRequest(reloaded), model=MODEL, max_tokens=10)
    assert rebuilt == build_request(ModelRequest(messages), model=MODEL, max_tokens=10)


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
    turn(call("read_measurement", {"date": "2020-01-02"}, call_id="call_01A")),
    turn(
        "Miro el día anterior. ",
        call("read_measurement", {"date": "2020-01-01"}, call_id="call_01B"),
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

    with FakeOpenAIResponsesServer(FALLBACK_SCRIPT) as server:
        agent = Agent(model=model_for(server), tools=coach_tools(log), system=SYSTEM, stream=stream)
        result = run(agent.run_turn(QUESTION, on_event=on_event))
        server.assert_consumed()
        bodies = [r.body for r in server.requests]
    assert result.stop_reason == "completed"
    assert result.reply == "No hay registro para el 2020-01-02. El 2020-01-01 pesabas 76 kg."
    assert result.model_requests == 3
    assert log == ["read 2020-01-02", "read 2020-01-01"]
    assert all(b.get("stream", False) is stream for b in bodies)
    first_output = bodies[1]["input"][-1]
    assert first_output["call_id"] == "call_01A"
    assert set(first_output) == {"type", "call_id", "output"}
    assert envelope_to_error(json.loads(first_output["output"])).code == "not_found"
    assert bodies[2]["input"][-1] == {
        "type": "function_call_output",
        "call_id": "call_01B",
        "output": '{"date":"2020-01-01","weight_kg":76.0}',
    }
    if stream:
        assert "".join(deltas) == "Miro el día anterior. " + result.reply


def test_agent_stop_turn_then_next_question_is_accepted() -> None:
    """A write whose storage fails stops the turn after one request; the next question sends
    every output first and the strict server accepts it."""
    log: list[str] = []
    script = [
        turn(
            call("write_measurement", {"date": "2020-01-04", "weight_kg": 77.4}, call_id="call_W"),
            call("read_memory", {"key": "nota"}, call_id="call_M"),
        ),
        turn("No puedo confirmarlo."),
    ]
    with FakeOpenAIResponsesServer(script) as server:
        agent = Agent(model=model_for(server), tools=coach_tools(log), journal=MemoryJournal())
        first = run(agent.run_turn("Guarda mi peso: 77,4 kg el 2020-01-04."))
        assert (first.stop_reason, first.model_requests) == ("stop_turn", 1)
        second = run(agent.run_turn("¿Se guardó?", conversation_id=first.conversation_id))
        server.assert_consumed()
        body = server.requests[-1].body
    assert log == ["write 2020-01-04"]
    assert second.stop_reason == "completed"
    outputs = [i for i in body["input"] if i["type"] == "function_call_output"]
    assert [json.loads(o["output"])["error"] for o in outputs] == [
        "outcome_unknown",
        "not_executed",
    ]
    assert body["input"][-1]["content"] == [{"type": "input_text", "text": "¿Se guardó?"}]
    assert "secret" not in json.dumps(body)


def test_success_that_reads_like_an_error_stays_a_success_end_to_end() -> None:
    """A memory note reading ``Error: {"is_error": true}`` is sent back as plain data."""
    script = [
        turn(call("read_memory", {"key": "nota"}, call_id="call_M")),
        turn("Tu nota dice eso."),
    ]
    with FakeOpenAIResponsesServer(script) as server:
        result = run(Agent(model=model_for(server), tools=coach_tools([])).run_turn("Lee mi nota."))
        output = server.requests[1].body["input"][-1]
    assert result.stop_reason == "completed"
    assert json.loads(output["output"]) == {
        "key": "nota",
        "description": "nota",
        "value": 'Error: {"is_error": true}',
    }


# -- streaming -----------------------------------------------------------------------------

RICH_TURN = AssistantMessage(
    (
        ReasoningPart("openai", REASONING),
        TextPart("Voy a mirar tus datos, ñandú 🏋️ — «paso a paso».\nLínea dos."),
        ToolCall("call_01A", "read_measurement", {"date": "2020-01-02"}),
        ToolCall(
            "call_01B",
            "create_routine",
            {"name": "Fuerza", "exercises": [{"exercise_id": "sq", "series": [{"reps": 5}]}]},
        ),
    ),
    finish="tool_use",
)


def json_response(turn_: AssistantMessage) -> ModelResponse:
    """What the non-streamed request gives for ``turn_``."""
    with FakeOpenAIResponsesServer([turn_]) as server:
        return run(model_for(server).request(ModelRequest([UserMessage(QUESTION)])))


def streamed(turn_: AssistantMessage, chunk_sizes: tuple[int, ...]) -> list[StreamEvent]:
    """The events of the streamed request for ``turn_``, SSE cut into ``chunk_sizes``."""
    with FakeOpenAIResponsesServer([turn_]) as server:
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
    assert isinstance(expected.message.parts[0], ReasoningPart)
    assert expected.message.tool_calls[1].arguments == RICH_TURN.tool_calls[1].arguments


def test_streamed_refusal_equals_the_json_response() -> None:
    """A refusal part streams as text and ends the turn with finish ``refusal``."""
    refusal = turn("No puedo ayudar con eso.", finish="refusal")
    expected = json_response(refusal)
    events = streamed(refusal, (4,))
    assert isinstance(events[-1], ResponseDone)
    assert events[-1].response == expected
    assert expected.message.finish == "refusal"
    assert (
        "".join(e.text for e in events[:-1] if isinstance(e, TextDelta))
        == "No puedo ayudar con eso."
    )


def test_truncated_call_is_kept_unparsed_and_never_runs() -> None:
    """A function call cut by max_output_tokens keeps its raw text, has no arguments, and the
    loop does not execute it — streamed or not."""
    cut = turn(
        call("write_measurement", raw='{"date": "2020-01-04", "weight_k', call_id="call_T"),
        finish="max_tokens",
    )
    final = streamed(cut, (5,))[-1]
    assert isinstance(final, ResponseDone)
    for response in (json_response(cut), final.response):
        (truncated,) = response.message.tool_calls
        assert response.message.finish == "max_tokens"
        assert truncated.arguments is None
        assert truncated.raw_arguments == '{"date": "2020-01-04", "weight_k'

    log: list[str] = []
    with FakeOpenAIResponsesServer([cut]) as server:
        result = run(
            Agent(model=model_for(server), tools=coach_tools(log), stream=True).run_turn("Guarda.")
        )
    assert result.stop_reason == "max_tokens"
    assert log == []


class ErrorEventServer(FakeHTTPServer):
    """Starts a stream, then sends an ``error`` event, as the API does on a failure."""

    def handle(self, request: RecordedRequest) -> Reply:
        """Always the failing stream."""
        del request
        error = {"type": "error", "code": "server_error", "message": "boom", "param": None}
        return Reply.sse([sse_event({**error, "sequence_number": 0}, "error")])


def test_error_event_in_a_stream_is_a_provider_error() -> None:
    """An ``error`` event mid-stream surfaces as a ``ProviderError``, not as a turn."""
    with ErrorEventServer() as server, pytest.raises(ProviderError) as caught:
        run(collect(model_for(server).stream(ModelRequest([UserMessage("hola")]))))
    assert caught.value.kind == "server"
    assert "boom" not in caught.value.safe_message


class QuotaServer(FakeHTTPServer):
    """The quota used up: as a 429 before any stream (``stream=False``), or as the ``error``
    event of a started stream, its code under ``error`` as the live API sends it."""

    def __init__(self, *, stream: bool) -> None:
        super().__init__()
        self.stream = stream

    def handle(self, request: RecordedRequest) -> Reply:
        """The same condition, in either form."""
        del request
        error = {
            "type": "insufficient_quota",
            "code": "insufficient_quota",
            "message": "You exceeded your current quota.",
            "param": None,
        }
        if not self.stream:
            reply = Reply.json(429, {"error": error})
            reply.headers["x-should-retry"] = "false"
            return reply
        created = {"type": "response.created", "sequence_number": 0, "response": {"id": "r"}}
        event = {"type": "error", "sequence_number": 1, "error": error}
        return Reply.sse([sse_event(created, "response.created"), sse_event(event, "error")])


@pytest.mark.parametrize("stream", [False, True], ids=["http_429", "stream_error_event"])
def test_used_up_quota_is_the_same_kind_as_a_stream_error_and_as_a_429(stream: bool) -> None:
    """``insufficient_quota`` is ``rate_limit`` whether it comes as an HTTP 429 or as an
    ``error`` event inside the stream; the provider's own text is not shown."""
    with QuotaServer(stream=stream) as server:
        model = model_for(server, max_retries=0)
        with pytest.raises(ProviderError) as caught:
            run(collect(model.stream(ModelRequest([UserMessage("hola")]))))
    assert caught.value.kind == "rate_limit"
    assert caught.value.status == (None if stream else 429)
    assert "exceeded" not in caught.value.safe_message
    assert "quota" in caught.value.safe_message


@pytest.mark.parametrize(
    "event",
    [
        {"type": "error", "code": "insufficient_quota", "message": "m", "param": None},
        {"type": "error", "error": {"code": "insufficient_quota", "message": "m"}},
    ],
    ids=["code_on_top", "code_under_error"],
)
def test_error_event_code_is_read_where_either_form_puts_it(event: dict[str, Any]) -> None:
    """The stream reader finds the code at the top (the SDK's event type) or under ``error``
    (the live wire) and gives the kind the same condition has over HTTP."""
    with pytest.raises(ProviderError) as caught:
        _ResponseStream().feed(event)
    assert caught.value.kind == "rate_limit"


# -- strictness ----------------------------------------------------------------------------


def post(server: FakeOpenAIResponsesServer, body: dict[str, Any]) -> tuple[int, Any]:
    """POST ``body`` to the fake's /v1/responses without the SDK: status and JSON answer."""
    request = urllib.request.Request(
        server.base_url + "/v1/responses",
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


def raw_body(*items: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A hand-written request with these input items after the question."""
    question = {"role": "user", "content": QUESTION}
    return {"model": MODEL, "store": False, "input": [question, *items], **extra}


def function_call(call_id: str) -> dict[str, Any]:
    """A function_call input item."""
    return {
        "type": "function_call",
        "call_id": call_id,
        "name": "read_measurement",
        "arguments": "{}",
    }


def function_output(call_id: str, **extra: Any) -> dict[str, Any]:
    """A function_call_output input item."""
    return {"type": "function_call_output", "call_id": call_id, "output": "{}", **extra}


LONG = "call_" + "9" * 60
BAD_BODIES: dict[str, tuple[dict[str, Any], str]] = {
    "orphan": (
        raw_body(function_call("call_1"), function_output("call_1"), function_output("call_2")),
        "No tool call found for function call output with call_id call_2.",
    ),
    "missing_output": (
        raw_body(function_call("call_1")),
        "No tool output found for function call call_1.",
    ),
    "long_call_id": (
        raw_body(function_call(LONG), function_output(LONG)),
        "string too long. Expected a string with maximum length 64",
    ),
    "is_error_field": (
        raw_body(function_call("call_1"), function_output("call_1", is_error=True)),
        "Unknown parameter: 'input[2].is_error'.",
    ),
    "store_not_false": ({**raw_body(), "store": True}, "store: false"),
    "store_missing": ({k: v for k, v in raw_body().items() if k != "store"}, "store: false"),
    "arguments_object": (
        raw_body({**function_call("call_1"), "arguments": {}}, function_output("call_1")),
        "expected a string",
    ),
    "strict_by_default": (
        raw_body(
            tools=[
                {
                    "type": "function",
                    "name": "f",
                    "parameters": {"type": "object", "properties": {"a": {}}},
                }
            ]
        ),
        "Invalid schema for function 'f'",
    ),
    "unknown_top_level": (raw_body(is_error=True), "Unknown parameter: 'is_error'."),
    "reasoning_without_its_following_item": (
        raw_body(REASONING, {"type": "message", "role": "assistant", "content": "Hola"}),
        "Item 'rs_01' of type 'reasoning' was provided without its required following item.",
    ),
    "output_message_without_id": (
        raw_body(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "a", "annotations": []}],
            }
        ),
        "Missing required parameter: 'input[1].id'.",
    ),
    "output_text_without_logprobs": (
        raw_body(
            {
                "type": "message",
                "role": "assistant",
                "id": "msg_1",
                "status": "completed",
                "content": [{"type": "output_text", "text": "a", "annotations": []}],
            }
        ),
        "Missing required parameter: 'input[1].content[0].logprobs'.",
    ),
    "not_an_object": ([QUESTION], "We could not parse the JSON body of your request."),  # type: ignore[dict-item]
    "missing_model": (
        {k: v for k, v in raw_body().items() if k != "model"},
        "Missing required parameter: 'model'.",
    ),
    "input_not_a_list": (raw_body() | {"input": {"role": "user"}}, "Invalid type for 'input'."),
    "tools_not_a_list": (raw_body(tools={}), "Invalid type for 'tools'."),
    "tool_type": (
        raw_body(tools=[{"type": "web_search"}]),
        "Invalid value for 'tools[0].type'.",
    ),
    "tool_without_name": (
        raw_body(tools=[{"type": "function", "parameters": {}, "strict": False}]),
        "Missing required parameter: 'tools[0].name'.",
    ),
    "item_not_an_object": (raw_body("hola"), "Invalid type for 'input[1]'."),  # type: ignore[arg-type]
    "item_type": (raw_body({"type": "file_search_call"}), "Invalid value: 'file_search_call'."),
    "role": (
        raw_body({"type": "message", "role": "tool", "content": "x"}),
        "Invalid value: 'tool'.",
    ),
    "content_not_text_or_list": (
        raw_body({"type": "message", "role": "user", "content": 5}),
        "Invalid type for 'input[1].content'.",
    ),
    "user_part_type": (
        raw_body({"type": "message", "role": "user", "content": [{"type": "output_text"}]}),
        "Invalid value: 'output_text'. Supported values are: 'input_text'.",
    ),
    "part_without_text": (
        raw_body({"type": "message", "role": "user", "content": [{"type": "input_text"}]}),
        "Missing required parameter: 'input[1].content[0].text'.",
    ),
    "call_without_call_id": (
        raw_body({"type": "function_call", "name": "f", "arguments": "{}"}),
        "Missing required parameter: 'input[1].call_id'.",
    ),
    "output_not_text": (
        raw_body(function_call("call_1"), function_output("call_1", output=5)),
        "Missing required parameter: 'input[2].output'.",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_BODIES))
def test_fake_server_rejects_like_the_real_api(case: str) -> None:
    """Each violation gets the real API's 400 body, and uses up no scripted turn."""
    body, reason = BAD_BODIES[case]
    with FakeOpenAIResponsesServer([turn("no")]) as server:
        status, answer = post(server, body)
        assert server.remaining == 1
    assert status == 400
    assert set(answer["error"]) == {"message", "type", "param", "code"}
    assert answer["error"]["type"] == "invalid_request_error"
    assert reason in answer["error"]["message"]


def test_orphan_output_has_the_real_message() -> None:
    """The orphan rejection reads like the real API's."""
    with FakeOpenAIResponsesServer([]) as server:
        _, answer = post(server, BAD_BODIES["orphan"][0])
    assert answer == {
        "error": {
            "message": "No tool call found for function call output with call_id call_2.",
            "type": "invalid_request_error",
            "param": "input",
            "code": None,
        }
    }


def test_reasoning_without_encrypted_content_is_not_found() -> None:
    """A bare reasoning item refers to stored state, which ``store: false`` does not keep."""
    with FakeOpenAIResponsesServer([]) as server:
        status, answer = post(server, raw_body({"type": "reasoning", "id": "rs_1", "summary": []}))
    assert status == 404
    assert "not persisted" in answer["error"]["message"]


@pytest.mark.parametrize("case", ["orphan", "long_call_id", "is_error_field"])
def test_sdk_400_becomes_bad_request(case: str) -> None:
    """The SDK's BadRequestError for those bodies is translated to kind ``bad_request``."""
    import openai

    async def send() -> Exception:
        async with openai.AsyncOpenAI(
            api_key="k", base_url=server.base_url + "/v1", max_retries=0
        ) as client:
            try:
                await client.responses.create(**BAD_BODIES[case][0])
            except openai.APIError as exc:
                return exc
        raise AssertionError("accepted")

    with FakeOpenAIResponsesServer([turn("no")]) as server:
        error = _translate(run(send()))
    assert (error.kind, error.status, error.provider) == ("bad_request", 400, "openai")
    assert "call_id" not in error.safe_message


def test_adapter_orphan_output_is_a_bad_request() -> None:
    """A transcript whose result answers no call is rejected, and surfaces as bad_request."""
    messages = exchange(NOT_FOUND)
    messages[2] = ToolResultsMessage((ToolResult("call_ZZ", "read_measurement", NOT_FOUND),))
    with FakeOpenAIResponsesServer([turn("no")]) as server, pytest.raises(ProviderError) as caught:
        run(model_for(server).request(ModelRequest(messages)))
    assert (caught.value.kind, caught.value.status) == ("bad_request", 400)


def test_running_out_of_turns_is_a_server_error() -> None:
    """A request past the script is a 500 with a clear message, not retried."""
    with FakeOpenAIResponsesServer([]) as server, pytest.raises(ProviderError) as caught:
        run(model_for(server).request(ModelRequest([UserMessage("hola")])))
    assert caught.value.kind == "server"
    assert len(server.requests) == 1


def test_wrong_key_is_auth_and_the_key_never_shows() -> None:
    """A 401 becomes kind ``auth``; neither key appears in the error."""
    with FakeOpenAIResponsesServer([turn("no")], api_key="right-key") as server:
        model = OpenAIResponsesModel(MODEL, api_key="wrong-key", base_url=server.base_url + "/v1")
        with pytest.raises(ProviderError) as caught:
            run(model.request(ModelRequest([UserMessage("hola")])))
    assert (caught.value.kind, caught.value.status) == ("auth", 401)
    assert "wrong-key" not in str(caught.value)
    assert "right-key" not in str(caught.value)


def test_missing_key_is_auth_without_a_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key anywhere: an ``auth`` error before anything is sent."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeOpenAIResponsesServer([turn("no")]) as server:
        model = OpenAIResponsesModel(MODEL, base_url=server.base_url + "/v1")
        with pytest.raises(ProviderError) as caught:
            run(model.request(ModelRequest([UserMessage("hola")])))
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
def argument_text(draw: st.DrawFn) -> str:
    """Argument JSON, possibly cut somewhere."""
    text = json.dumps(draw(arguments))
    return text[: draw(st.integers(0, len(text)))]


content_parts = st.one_of(
    st.fixed_dictionaries({"type": st.just("output_text"), "text": st.text(max_size=30)}),
    st.fixed_dictionaries({"type": st.just("refusal"), "refusal": st.text(max_size=30)}),
    st.fixed_dictionaries({"type": st.text(max_size=10), "text": json_values}),
    json_values,
)
items = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.just("message"),
            "role": st.just("assistant"),
            "content": st.lists(content_parts, max_size=3),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("function_call"),
            "call_id": st.text(min_size=1, max_size=12),
            "name": st.just("read_measurement"),
            "arguments": argument_text() | json_values,
        },
        optional={"id": json_values},
    ),
    st.fixed_dictionaries(
        {"type": st.just("function_call"), "name": st.just("x"), "arguments": st.just("{}")}
    ),
    st.just(REASONING),
    st.fixed_dictionaries({"type": st.text(max_size=12), "payload": json_values}),
    json_values,
)
responses = st.one_of(
    st.fixed_dictionaries(
        {"output": st.lists(items, max_size=5)},
        optional={
            "status": st.sampled_from(["completed", "incomplete", "failed", "in_progress"])
            | json_values,
            "incomplete_details": st.fixed_dictionaries(
                {"reason": st.sampled_from(["max_output_tokens", "content_filter"])}
            )
            | json_values,
            "error": st.fixed_dictionaries(
                {"code": st.sampled_from(["server_error", "invalid_prompt"])}
            )
            | json_values,
            "id": json_values,
            "model": json_values,
        },
    ),
    json_values,
)


def parsed_or_error(response: Any) -> AssistantMessage | ProviderError:
    """``parse_response``'s turn, or the ``ProviderError`` it raised."""
    try:
        return parse_response(response)
    except ProviderError as exc:
        return exc


@settings(max_examples=150, deadline=None)
@given(responses)
def test_parse_response_never_crashes(response: Any) -> None:
    """Malformed responses give a clear ``ProviderError`` (``bad_response``, or the failure's
    own kind for ``status: failed``), or calls whose bad arguments are ``None``."""
    parsed = parsed_or_error(response)
    if isinstance(parsed, ProviderError):
        assert parsed.provider == "openai"
        failed = isinstance(response, dict) and response.get("status") == "failed"
        assert parsed.kind == "bad_response" or failed
        return
    for part in parsed.tool_calls:
        assert part.call_id
        assert part.raw_arguments is not None
        assert part.arguments is None or isinstance(part.arguments, dict)


@settings(max_examples=60, deadline=None)
@given(arguments, st.data())
def test_truncated_argument_json_is_never_parsed_into_a_call(
    args: dict[str, Any], data: st.DataObject
) -> None:
    """Any prefix of the argument JSON yields ``arguments=None`` unless it is a whole object."""
    text = json.dumps(args)
    cut = text[: data.draw(st.integers(0, len(text)))]
    item = {"type": "function_call", "call_id": "call_1", "name": "save_memory", "arguments": cut}
    (parsed,) = parse_response({"output": [item], "status": "incomplete"}).tool_calls
    assert parsed.raw_arguments == cut
    if parsed.arguments is not None:
        assert json.loads(cut) == parsed.arguments


def sse_events(turn_: AssistantMessage) -> list[dict[str, Any]]:
    """The event objects the fake server streams for ``turn_``."""
    from surefoot.testing._fake_openai_responses import response_payload, stream_events

    payload = response_payload(turn_, {"model": MODEL, "input": []}, number=1)
    raw = b"".join(stream_events(payload)).decode()
    return [json.loads(line[6:]) for line in raw.splitlines() if line.startswith("data: ")]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_stream_cut_anywhere_is_a_bad_response(data: st.DataObject) -> None:
    """A stream that stops before its final event is a ``bad_response``, never a turn."""
    events = sse_events(RICH_TURN)
    keep = data.draw(st.integers(0, len(events) - 1))
    state = _ResponseStream()
    for event in events[:keep]:
        state.feed(event)
    with pytest.raises(ProviderError) as caught:
        state.result()
    assert caught.value.kind == "bad_response"


def test_huge_text_parses() -> None:
    """A response with megabytes of text is parsed whole."""
    text = "ñ" * 2_000_000
    message = {"type": "message", "content": [{"type": "output_text", "text": text}]}
    assert parse_response({"output": [message], "status": "completed"}).text == text


def test_unknown_item_type_is_a_bad_response() -> None:
    """An item type the adapter does not know is reported, never silently dropped."""
    with pytest.raises(ProviderError) as caught:
        parse_response(
            {"output": [{"type": "web_search_call", "id": "ws_1"}], "status": "completed"}
        )
    assert caught.value.kind == "bad_response"


@pytest.mark.parametrize(
    ("response", "finish"),
    [
        ({"status": "completed"}, "end_turn"),
        (
            {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}},
            "max_tokens",
        ),
        ({"status": "incomplete", "incomplete_details": {"reason": "content_filter"}}, "refusal"),
    ],
)
def test_status_maps_to_finish(response: dict[str, Any], finish: str) -> None:
    """``incomplete`` maps by its reason; a finished response without calls ends the turn."""
    assert parse_response({**response, "output": []}).finish == finish


def test_failed_response_carries_its_kind() -> None:
    """``status: failed`` with ``rate_limit_exceeded`` is a rate-limit ``ProviderError``."""
    with pytest.raises(ProviderError) as caught:
        parse_response({"status": "failed", "error": {"code": "rate_limit_exceeded"}, "output": []})
    assert caught.value.kind == "rate_limit"


# -- replay across providers ---------------------------------------------------------------


def test_transcript_recorded_on_anthropic_replays_to_openai_with_every_mark() -> None:
    """A conversation recorded on Anthropic (``toolu_`` ids, a thinking block) continues on
    OpenAI Responses: the strict server accepts it, thinking is dropped, and each output is
    exactly the outcome's wire text with nothing added."""
    thinking = {"type": "thinking", "thinking": "Miro.", "signature": "c2ln"}
    script = [
        AssistantMessage(
            (
                ReasoningPart("anthropic", thinking),
                ToolCall("toolu_01XyZ", "read_measurement", {"date": "2020-01-02"}),
                ToolCall("toolu_01Abc", "read_memory", {"key": "nota"}),
            ),
            finish="tool_use",
        ),
        turn("No hay registro el 2020-01-02; tu nota dice eso."),
    ]
    journal = MemoryJournal()
    with FakeAnthropicServer(script) as anthropic_server:
        recorder = AnthropicModel("claude-test", api_key="k", base_url=anthropic_server.base_url)
        agent = Agent(model=recorder, tools=coach_tools([]), journal=journal)
        recorded = run(agent.run_turn(QUESTION))
        anthropic_server.assert_consumed()
    history = journal.load(recorded.conversation_id)
    results = [r for m in history if isinstance(m, ToolResultsMessage) for r in m.results]
    assert [type(r.outcome) for r in results] == [ToolError, Ok]

    with FakeOpenAIResponsesServer([turn("Sigo aquí.")]) as server:
        request = ModelRequest(
            [*history, UserMessage("¿Y el 2020-01-01?")], coach_tools([]).specs()
        )
        run(model_for(server).request(request))
        body = server.requests[0].body
    assert "thinking" not in json.dumps(body)
    calls = [i for i in body["input"] if i["type"] == "function_call"]
    outputs = [i for i in body["input"] if i["type"] == "function_call_output"]
    assert [c["call_id"] for c in calls] == ["toolu_01XyZ", "toolu_01Abc"]
    assert [o["call_id"] for o in outputs] == ["toolu_01XyZ", "toolu_01Abc"]
    for output, result in zip(outputs, results, strict=True):
        assert set(output) == {"type", "call_id", "output"}
        assert output["output"] == to_wire_text(result.outcome)
        assert (json.loads(output["output"]).get("kind") == "tool_error") is isinstance(
            result.outcome, ToolError
        )


# -- output items and stream events the reader must refuse or tolerate -----------------------


@pytest.mark.parametrize(
    ("item", "problem"),
    [
        ({"type": "message", "id": "m", "content": "Hola"}, "a message item has no content list"),
        (
            {"type": "message", "id": "m", "content": [{"type": "output_text"}]},
            "a output_text part has no text",
        ),
        ({"type": "function_call", "call_id": "c1", "arguments": "{}"}, "has no name"),
    ],
    ids=["content_text", "part_without_text", "call_without_name"],
)
def test_an_unreadable_output_item_is_a_bad_response(item: dict[str, Any], problem: str) -> None:
    with pytest.raises(ProviderError) as caught:
        parse_response({"status": "completed", "output": [item]})
    assert caught.value.kind == "bad_response"
    assert problem in caught.value.safe_message


ADDED = {"type": "response.output_item.added", "output_index": 0}


@pytest.mark.parametrize(
    ("events", "problem"),
    [
        (
            [{"type": "response.output_text.delta", "output_index": 0, "content_index": 0}],
            "an item that never started",
        ),
        (
            [
                {**ADDED, "item": {"type": "message", "content": "x"}},
                {"type": "response.content_part.added", "output_index": 0, "part": {}},
            ],
            "content is not a list",
        ),
        (
            [
                {**ADDED, "item": {"type": "message", "content": []}},
                {"type": "response.output_text.delta", "output_index": 0, "content_index": -1},
            ],
            "has no content_index",
        ),
        (
            [
                {**ADDED, "item": {"type": "function_call", "arguments": ""}},
                {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": 5},
            ],
            "delta is not text",
        ),
    ],
    ids=["unstarted_item", "content_not_list", "negative_index", "delta_not_text"],
)
def test_a_malformed_stream_event_is_a_bad_response(
    events: list[dict[str, Any]], problem: str
) -> None:
    state = _ResponseStream()
    *before, last = events
    for event in before:
        state.feed(event)
    with pytest.raises(ProviderError) as caught:
        state.feed(last)
    assert caught.value.kind == "bad_response"
    assert problem in caught.value.safe_message


def test_text_before_its_part_and_a_stream_of_only_the_final_response_are_read() -> None:
    """A text delta whose content part was never announced creates it; a stream that sends
    only the final response keeps that response's own output."""
    state = _ResponseStream()
    state.feed({**ADDED, "item": {"type": "message", "id": "m", "status": "completed"}})
    added = state.feed(
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 1, "delta": "Sí"}
    )
    state.feed({"type": "response.completed", "response": {"status": "completed", "output": []}})
    assert added == "Sí"
    assert parse_response(state.result()).text == "Sí"
    only_final = _ResponseStream()
    output = [{"type": "message", "id": "m", "content": [{"type": "output_text", "text": "Ya."}]}]
    only_final.feed(
        {"type": "response.completed", "response": {"status": "completed", "output": output}}
    )
    assert parse_response(only_final.result()).text == "Ya."


# -- usage: the cached input tokens apart ---------------------------------------------------


def served_usage(server: FakeOpenAIResponsesServer, *, stream: bool) -> dict[str, int]:
    """The usage of one answer from ``server``, asked as JSON or as a stream."""
    model = model_for(server, max_retries=0)
    request = ModelRequest([UserMessage(QUESTION)])
    if not stream:
        return run(model.request(request)).usage
    final = run(collect(model.stream(request)))[-1]
    assert isinstance(final, ResponseDone)
    return final.response.usage


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_cached_input_tokens_are_reported_apart_from_input(stream: bool) -> None:
    """``input_tokens_details.cached_tokens`` leaves ``input_tokens`` (which counts it) and is
    ``cache_read_input_tokens``, through the SDK, streamed or not."""
    from surefoot.testing._fake_openai_responses import response_payload

    with FakeOpenAIResponsesServer([turn("Hecho.")], cached_input_tokens=1024) as server:
        usage = served_usage(server, stream=stream)
        body = server.requests[0].body
    wire = response_payload(turn("Hecho."), body, number=1, cached_input_tokens=1024)["usage"]
    assert wire["input_tokens_details"] == {"cached_tokens": 1024}
    assert usage == {
        "input_tokens": wire["input_tokens"] - 1024,
        "cache_read_input_tokens": 1024,
        "output_tokens": wire["output_tokens"],
    }
    assert sum(usage.values()) == wire["total_tokens"]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_no_cached_tokens_is_reported_as_zero(stream: bool) -> None:
    """The API always gives ``cached_tokens`` (0 when nothing was cached): the usage says 0,
    and ``input_tokens`` is the whole input."""
    with FakeOpenAIResponsesServer([turn("Hecho.")]) as server:
        usage = served_usage(server, stream=stream)
    assert usage["cache_read_input_tokens"] == 0
    assert usage["input_tokens"] > 0


def test_parse_usage_splits_a_recorded_usage() -> None:
    """A usage object of the shape gpt-5 models send (``cache_write_tokens`` beside
    ``cached_tokens``, reasoning inside ``output_tokens``): cached tokens apart, no total."""
    usage = {
        "input_tokens": 2113,
        "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 1920},
        "output_tokens": 69,
        "output_tokens_details": {"reasoning_tokens": 26},
        "total_tokens": 2182,
    }
    assert parse_usage({"usage": usage}) == {
        "input_tokens": 193,
        "cache_read_input_tokens": 1920,
        "output_tokens": 69,
    }


def test_parse_usage_without_details_reports_no_cache() -> None:
    """No ``input_tokens_details`` (or a count that is not one): nothing about the cache is
    invented, and ``input_tokens`` stays whole."""
    assert parse_usage({"usage": {"input_tokens": 40, "output_tokens": 5}}) == {
        "input_tokens": 40,
        "output_tokens": 5,
    }
    odd = {"input_tokens": 40, "input_tokens_details": {"cached_tokens": "9"}, "output_tokens": 5}
    assert parse_usage({"usage": odd}) == {"input_tokens": 40, "output_tokens": 5}
    assert parse_usage({"usage": None}) == {}
