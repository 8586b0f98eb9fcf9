"""Google Interactions adapter: pure mappings, the real SDK against the strict fake server."""

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
from surefoot.providers.google_interactions import (
    GoogleInteractionsModel,
    StreamAssembler,
    build_request,
    parse_response,
    parse_usage,
)
from surefoot.testing import FakeGoogleInteractionsServer, call, turn
from surefoot.testing._http import FakeHTTPServer, RecordedRequest, Reply

MODEL = "gemini-test"
KEY = "test-key-0123456789"
HEAD: dict[str, Any] = {
    "model": MODEL,
    "store": False,
    "generation_config": {"max_output_tokens": 1024},
}


T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(asyncio.wait_for(coro, timeout=30))


def model_for(server: FakeHTTPServer, **options: Any) -> GoogleInteractionsModel:
    options.setdefault("max_retries", 0)
    options.setdefault("timeout", 10.0)
    return GoogleInteractionsModel(MODEL, api_key=KEY, base_url=server.base_url, **options)


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

    @tools.tool(effect="write", idempotent=True)
    def write_measurement(date: CalendarDate, weight_kg: float) -> dict[str, Any]:
        """Save the weight for one calendar date."""
        msg = f"disk full at /var/db while saving {date} {weight_kg}"
        raise OSError(msg)

    return tools


USER = UserMessage("¿Cuánto pesaba el 2020-01-02?")
USER_STEP = {"type": "user_input", "content": [{"type": "text", "text": USER.text}]}
CALL = ToolCall(call_id="call_a", name="read_measurement", arguments={"date": "2020-01-02"})
CALL_STEP = {
    "type": "function_call",
    "id": "call_a",
    "name": "read_measurement",
    "arguments": {"date": "2020-01-02"},
}


def sent_body(messages: Sequence[Any], **request: Any) -> dict[str, Any]:
    """The body the SDK really sent for ``messages`` (the fake answers with plain text)."""
    with FakeGoogleInteractionsServer([turn("Vale.")]) as server:
        run(model_for(server).request(ModelRequest(messages=tuple(messages), **request)))
        (body,) = server.bodies
    return cast("dict[str, Any]", body)


def one_result(outcome: Ok | ToolError) -> list[Any]:
    assistant = AssistantMessage(parts=(CALL,), finish="tool_use", provider="google")
    results = ToolResultsMessage((ToolResult("call_a", "read_measurement", outcome),))
    return [USER, assistant, results]


# -- exact request bodies, as the SDK sent them --------------------------------------------


def test_success_result_body() -> None:
    """A success travels as the data object itself, with name and no error mark."""
    body = sent_body(one_result(Ok({"date": "2020-01-02", "weight_kg": 76.5})))
    assert body == {
        **HEAD,
        "input": [
            USER_STEP,
            CALL_STEP,
            {
                "type": "function_result",
                "call_id": "call_a",
                "name": "read_measurement",
                "result": {"date": "2020-01-02", "weight_kg": 76.5},
            },
        ],
    }


def test_not_found_result_body() -> None:
    """A domain error travels as the envelope object with is_error true."""
    error = ToolError("not_found", "No hay medidas para ese día.", Recovery.CHOOSE_ALTERNATIVE)
    body = sent_body(one_result(error))
    assert body["input"][2] == {
        "type": "function_result",
        "call_id": "call_a",
        "name": "read_measurement",
        "is_error": True,
        "result": {
            "kind": "tool_error",
            "version": 1,
            "is_error": True,
            "error": "not_found",
            "message": "No hay medidas para ese día.",
            "recovery": "choose_alternative",
            "recoverable": True,
        },
    }
    assert body == {**HEAD, "input": [USER_STEP, CALL_STEP, body["input"][2]]}


def test_invalid_arguments_result_body() -> None:
    """invalid_arguments carries its structured details inside the envelope."""
    detail = Detail("date", "must be a calendar date written YYYY-MM-DD", "a calendar date")
    error = ToolError(
        "invalid_arguments", "Los argumentos no son válidos.", Recovery.CORRECT_ARGUMENTS, (detail,)
    )
    body = sent_body(one_result(error))
    assert body == {
        **HEAD,
        "input": [
            USER_STEP,
            CALL_STEP,
            {
                "type": "function_result",
                "call_id": "call_a",
                "name": "read_measurement",
                "is_error": True,
                "result": {
                    "kind": "tool_error",
                    "version": 1,
                    "is_error": True,
                    "error": "invalid_arguments",
                    "message": "Los argumentos no son válidos.",
                    "recovery": "correct_arguments",
                    "recoverable": True,
                    "details": [
                        {
                            "field": "date",
                            "problem": "must be a calendar date written YYYY-MM-DD",
                            "expected": "a calendar date",
                        }
                    ],
                },
            },
        ],
    }


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

    def envelope(code: str, message: str) -> dict[str, Any]:
        return {
            "kind": "tool_error",
            "version": 1,
            "is_error": True,
            "error": code,
            "message": message,
            "recovery": "stop_turn",
            "recoverable": False,
        }

    assert sent_body(messages) == {
        **HEAD,
        "input": [
            USER_STEP,
            {"type": "model_output", "content": [{"type": "text", "text": "Guardo."}]},
            {
                "type": "function_call",
                "id": "call_w",
                "name": "write_measurement",
                "arguments": {"date": "2020-01-04", "weight_kg": 77.4},
            },
            {
                "type": "function_call",
                "id": "call_r",
                "name": "read_measurement",
                "arguments": {"date": "2020-01-04"},
            },
            {
                "type": "function_result",
                "call_id": "call_w",
                "name": "write_measurement",
                "is_error": True,
                "result": envelope("outcome_unknown", "No se puede confirmar."),
            },
            {
                "type": "function_result",
                "call_id": "call_r",
                "name": "read_measurement",
                "is_error": True,
                "result": envelope("not_executed", "No se ejecutó."),
            },
            {"type": "user_input", "content": [{"type": "text", "text": "¿Y ahora?"}]},
        ],
    }


def test_success_that_reads_like_an_error_has_no_mark() -> None:
    """Data that looks like an error envelope is still a success: no is_error anywhere."""
    data = {"value": 'Error: {"is_error": true}'}
    (_, _, result) = sent_body(one_result(Ok(data)))["input"]
    assert result == {
        "type": "function_result",
        "call_id": "call_a",
        "name": "read_measurement",
        "result": {"value": 'Error: {"is_error": true}'},
    }


def test_tools_and_system_body() -> None:
    """Tools go as function declarations with their JSON Schema; the system as instruction."""
    spec = ToolSpec(
        "read_measurement",
        "Read one date.",
        {"type": "object", "properties": {"date": {"type": "string"}}, "required": ["date"]},
    )
    body = sent_body([USER], tools=(spec,), system="Eres un coach.")
    assert body == {
        **HEAD,
        "system_instruction": "Eres un coach.",
        "tools": [
            {
                "type": "function",
                "name": "read_measurement",
                "description": "Read one date.",
                "parameters": spec.parameters,
            }
        ],
        "input": [USER_STEP],
    }


# -- pure mapping ----------------------------------------------------------------------------


def test_ids_that_break_the_rules_are_mapped_on_call_and_result() -> None:
    """A foreign id with odd characters maps to the same stable id on both sides."""
    odd = "toolu/01:ünïcode id"
    messages = [
        USER,
        AssistantMessage(parts=(ToolCall(odd, "read_measurement", {}),), finish="tool_use"),
        ToolResultsMessage((ToolResult(odd, "read_measurement", Ok({})),)),
    ]
    first = build_request(ModelRequest(messages), model=MODEL, max_tokens=10)
    again = build_request(ModelRequest(messages), model=MODEL, max_tokens=10)
    call_id = first["input"][1]["id"]
    assert call_id.startswith("sf_")
    assert first["input"][2]["call_id"] == call_id
    assert first == again


def test_reasoning_is_echoed_to_google_only() -> None:
    """A Google thought goes back verbatim; another provider's reasoning is dropped."""
    thought = {"type": "thought", "signature": "c2ln", "summary": [{"type": "text", "text": "…"}]}
    message = AssistantMessage(
        parts=(
            ReasoningPart("google", thought),
            ReasoningPart("anthropic", {"type": "thinking", "signature": "x"}),
            TextPart("Hola"),
        )
    )
    body = build_request(ModelRequest([USER, message]), model=MODEL, max_tokens=10)
    assert body["input"][1:] == [
        thought,
        {"type": "model_output", "content": [{"type": "text", "text": "Hola"}]},
    ]


def test_unparseable_arguments_are_sent_as_an_empty_object() -> None:
    """A call whose raw arguments never parsed still goes out as a valid function_call."""
    broken = ToolCall("c1", "read_measurement", None, raw_arguments='{"date": "2020-')
    body = build_request(
        ModelRequest([USER, AssistantMessage((broken,))]), model=MODEL, max_tokens=10
    )
    assert body["input"][1]["arguments"] == {}


def test_parse_text_calls_and_thoughts() -> None:
    """Steps become parts in order: thought, text, calls; requires_action means tool_use."""
    data = {
        "id": "i1",
        "model": "gemini-x",
        "status": "requires_action",
        "steps": [
            {"type": "thought", "signature": "c2ln"},
            {"type": "model_output", "content": [{"type": "text", "text": "Miro."}]},
            {"type": "function_call", "id": "f1", "name": "a", "arguments": {"x": 1}},
            {"type": "function_call", "id": "f2", "name": "b", "arguments": {}},
        ],
    }
    assert parse_response(data) == AssistantMessage(
        parts=(
            ReasoningPart("google", {"type": "thought", "signature": "c2ln"}),
            TextPart("Miro."),
            ToolCall("f1", "a", {"x": 1}),
            ToolCall("f2", "b", {}),
        ),
        finish="tool_use",
        provider="google",
        model="gemini-x",
        provider_details={"interaction_id": "i1"},
    )


@pytest.mark.parametrize(
    ("status", "extra", "finish"),
    [
        ("completed", {}, "end_turn"),
        ("incomplete", {}, "max_tokens"),
        ("budget_exceeded", {}, "max_tokens"),
        ("completed", {"error": {"code": 3, "message": "blocked"}}, "refusal"),
    ],
)
def test_status_maps_to_finish(status: str, extra: dict[str, Any], finish: str) -> None:
    """Interaction status (and a withheld output) map onto the neutral finish reasons."""
    steps = [{"type": "model_output", "content": [{"type": "text", "text": "x"}], **extra}]
    assert parse_response({"status": status, "steps": steps}).finish == finish


def test_failed_interaction_is_a_server_error() -> None:
    """A failed interaction is the provider's failure, not an answer."""
    with pytest.raises(ProviderError) as caught:
        parse_response({"status": "failed", "steps": []})
    assert caught.value.kind == "server"


def test_missing_and_repeated_ids_get_stable_generated_ids() -> None:
    """Calls without ids, or repeating one, get distinct ids that are the same every parse."""
    data = {
        "id": "i9",
        "status": "requires_action",
        "steps": [
            {"type": "function_call", "name": "a", "arguments": {}},
            {"type": "function_call", "id": "same", "name": "a", "arguments": {}},
            {"type": "function_call", "id": "same", "name": "a", "arguments": {}},
        ],
    }
    ids = [c.call_id for c in parse_response(data).tool_calls]
    assert ids[1] == "same"
    assert len(set(ids)) == 3
    assert ids == [c.call_id for c in parse_response(data).tool_calls]


def test_echoed_input_steps_are_not_read_as_output() -> None:
    """If the response repeats the input, only the steps after it are the new turn."""
    data = {
        "status": "completed",
        "steps": [
            USER_STEP,
            {"type": "model_output", "content": [{"type": "text", "text": "old"}]},
            {"type": "function_result", "call_id": "x", "name": "a", "result": {}},
            {"type": "model_output", "content": [{"type": "text", "text": "new"}]},
        ],
    }
    assert parse_response(data).text == "new"


def test_string_arguments_are_parsed_or_kept_raw() -> None:
    """Argument text that parses becomes the object; broken text stays raw with arguments=None."""
    data = {
        "status": "requires_action",
        "steps": [
            {"type": "function_call", "id": "a", "name": "t", "arguments": '{"x": 1}'},
            {"type": "function_call", "id": "b", "name": "t", "arguments": '{"x": '},
            {"type": "function_call", "id": "c", "name": "t", "arguments": "[1, 2]"},
        ],
    }
    calls = parse_response(data).tool_calls
    assert [(c.arguments, c.raw_arguments) for c in calls] == [
        ({"x": 1}, '{"x": 1}'),
        (None, '{"x": '),
        (None, "[1, 2]"),
    ]


# -- an Agent over the wire --------------------------------------------------------------------


SCRIPT = [
    turn(call("read_measurement", {"date": "2020-01-02"}, call_id="g1")),
    turn(call("read_measurement", {"date": "2020-01-01"}, call_id="g2")),
    turn("No hay registro del 2020-01-02. El 2020-01-01 pesabas 76 kg."),
]


@pytest.mark.parametrize("stream", [False, True])
def test_agent_turn_end_to_end(stream: bool) -> None:
    """A full turn: not_found, the alternative, the answer; every result linked and marked."""
    seen: list[str] = []
    deltas: list[str] = []

    def on_event(event: TurnEvent) -> None:
        if isinstance(event, TextDelta):
            deltas.append(event.text)

    with FakeGoogleInteractionsServer(SCRIPT) as server:
        agent = Agent(model=model_for(server), tools=measurement_tools(seen), stream=stream)
        result = run(agent.run_turn("Consulta mi peso del 2020-01-02.", on_event=on_event))
        bodies = server.bodies
    assert result.stop_reason == "completed"
    assert result.reply == "No hay registro del 2020-01-02. El 2020-01-01 pesabas 76 kg."
    assert result.model_requests == 3
    assert seen == ["2020-01-02", "2020-01-01"]
    assert [b.get("stream", False) for b in bodies] == [stream] * 3
    first_result = bodies[1]["input"][-1]
    assert first_result["call_id"] == "g1"
    assert first_result["is_error"] is True
    assert first_result["result"]["error"] == "not_found"
    assert bodies[2]["input"][-1] == {
        "type": "function_result",
        "call_id": "g2",
        "name": "read_measurement",
        "result": {"date": "2020-01-01", "weight_kg": 76.0},
    }
    assert [s["type"] for s in bodies[2]["input"]] == [
        "user_input",
        "function_call",
        "function_result",
        "function_call",
        "function_result",
    ]
    assert ("".join(deltas) == result.reply) if stream else not deltas


def test_agent_stop_turn_then_next_turn_sends_fills() -> None:
    """A failed write stops the turn after one request; the next turn carries both results."""
    script = [
        turn(
            call("write_measurement", {"date": "2020-01-04", "weight_kg": 77.4}, call_id="w1"),
            call("read_measurement", {"date": "2020-01-04"}, call_id="r1"),
        ),
        turn("Entendido."),
    ]
    with FakeGoogleInteractionsServer(script) as server:
        agent = Agent(model=model_for(server), tools=measurement_tools())
        first = run(agent.run_turn("Guarda 77,4 kg el 2020-01-04."))
        second = run(agent.run_turn("¿Y ahora?", conversation_id=first.conversation_id))
        bodies = server.bodies
    assert (first.stop_reason, first.model_requests) == ("stop_turn", 1)
    assert second.reply == "Entendido."
    steps = bodies[1]["input"]
    results = [s for s in steps if s["type"] == "function_result"]
    assert [(r["call_id"], r["is_error"], r["result"]["error"]) for r in results] == [
        ("w1", True, "outcome_unknown"),
        ("r1", True, "not_executed"),
    ]
    assert all(r["result"]["recoverable"] is False for r in results)
    assert "disk full" not in json.dumps(bodies)
    assert first.reply not in json.dumps(bodies)  # the harness's words are not the model's
    assert steps[-1] == {"type": "user_input", "content": [{"type": "text", "text": "¿Y ahora?"}]}


# -- streaming -------------------------------------------------------------------------------


STREAM_TURNS = [
    turn(
        ReasoningPart(
            "google", {"signature": "c2lnbmF0dXJl", "summary": [{"type": "text", "text": "pienso"}]}
        ),
        "Déjame mirar tu día — ¡ñandú! ",
        call("read_measurement", {"date": "2020-01-02"}, call_id="s1"),
        call(
            "list_measurements", {"date_from": "2020-01-01", "date_to": "2020-01-31"}, call_id="s2"
        ),
    ),
]


def _served(
    turns: Sequence[AssistantMessage],
    *,
    stream: bool,
    sizes: Sequence[int] | None,
    cached_input_tokens: int | None = None,
) -> tuple[list[str], ModelResponse]:
    with FakeGoogleInteractionsServer(
        turns, chunk_sizes=sizes, cached_input_tokens=cached_input_tokens
    ) as server:
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
def test_stream_equals_json_in_odd_chunk_sizes(sizes: tuple[int, ...]) -> None:
    """The SSE stream, cut anywhere (even inside UTF-8), assembles to the JSON response."""
    _, whole = _served(STREAM_TURNS, stream=False, sizes=None)
    deltas, streamed = _served(STREAM_TURNS, stream=True, sizes=sizes)
    assert streamed == whole
    assert "".join(deltas) == whole.message.text
    assert [c.arguments for c in whole.message.tool_calls] == [
        {"date": "2020-01-02"},
        {"date_from": "2020-01-01", "date_to": "2020-01-31"},
    ]
    assert whole.message.parts[0] == ReasoningPart(
        "google",
        {
            "type": "thought",
            "signature": "c2lnbmF0dXJl",
            "summary": [{"type": "text", "text": "pienso"}],
        },
    )


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_thought_tokens_count_as_output(stream: bool) -> None:
    """The API reports thinking apart (``total_thought_tokens``); usage counts it as output,
    as the other adapters do, streamed or not."""
    from surefoot.testing._fake_google import render_interaction

    _, response = _served(STREAM_TURNS, stream=stream, sizes=None)
    usage = render_interaction(STREAM_TURNS[0], number=1, model="gemini-fake")["usage"]
    assert usage["total_thought_tokens"] > 0
    assert response.usage == {
        "input_tokens": usage["total_input_tokens"],
        "output_tokens": usage["total_output_tokens"] + usage["total_thought_tokens"],
    }


def test_usage_without_thoughts_is_unchanged() -> None:
    """No thinking reported: output is ``total_output_tokens`` alone."""
    usage = {"total_input_tokens": 95, "total_output_tokens": 16, "total_thought_tokens": 0}
    assert parse_usage({"usage": usage}) == {"input_tokens": 95, "output_tokens": 16}
    assert parse_usage({"usage": {"total_output_tokens": 3}}) == {"output_tokens": 3}


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_cached_input_tokens_are_reported_apart(stream: bool) -> None:
    """``total_cached_tokens`` (the prompt's cached part, inside ``total_input_tokens``) leaves
    ``input_tokens`` and is ``cache_read_input_tokens``, through the SDK, streamed or not."""
    from surefoot.testing._fake_google import render_interaction

    _, response = _served(STREAM_TURNS, stream=stream, sizes=None, cached_input_tokens=4096)
    wire = render_interaction(
        STREAM_TURNS[0], number=1, model="gemini-fake", cached_input_tokens=4096
    )["usage"]
    assert wire["total_cached_tokens"] == 4096
    assert response.usage == {
        "input_tokens": wire["total_input_tokens"] - 4096,
        "cache_read_input_tokens": 4096,
        "output_tokens": wire["total_output_tokens"] + wire["total_thought_tokens"],
    }
    assert sum(response.usage.values()) == wire["total_tokens"]


def test_parse_usage_splits_a_recorded_usage() -> None:
    """A usage object of the shape Gemini sends (modalities, tool-use and thought counts): the
    cached part apart, thinking in the output, no total."""
    usage = {
        "total_tokens": 3180,
        "total_input_tokens": 3117,
        "input_tokens_by_modality": [{"modality": "text", "tokens": 3117}],
        "total_cached_tokens": 2048,
        "cached_tokens_by_modality": [{"modality": "text", "tokens": 2048}],
        "total_output_tokens": 22,
        "total_tool_use_tokens": 0,
        "total_thought_tokens": 41,
    }
    assert parse_usage({"usage": usage}) == {
        "input_tokens": 1069,
        "cache_read_input_tokens": 2048,
        "output_tokens": 63,
    }
    none_cached = {**usage, "total_cached_tokens": 0}
    assert parse_usage({"usage": none_cached})["cache_read_input_tokens"] == 0


def test_a_call_signature_goes_back_to_google_only() -> None:
    """A signature on a ``function_call`` step is kept with the call and sent back with it to
    Google; the same call recorded by another provider goes without it."""
    step = {"type": "function_call", "id": "c1", "name": "read_measurement", "arguments": {}}
    parsed = parse_response(
        {"status": "requires_action", "steps": [{**step, "signature": "c2ln"}, {**step}]}
    )
    assert parsed.parts[0] == ToolCall(
        "c1", "read_measurement", {}, None, provider_details={"signature": "c2ln"}
    )
    assert parsed.parts[1].provider_details is None
    results = ToolResultsMessage((ToolResult("c1", "read_measurement", Ok({"w": 1})),))
    for provider, expected_step in (("google", {**step, "signature": "c2ln"}), ("openai", step)):
        message = AssistantMessage(parsed.parts[:1], finish="tool_use", provider=provider)
        request = ModelRequest([USER, message, results])
        assert build_request(request, model=MODEL, max_tokens=10)["input"][1] == expected_step


def test_truncated_streamed_arguments_stay_raw() -> None:
    """Argument deltas that never form a JSON object give arguments=None and the raw text."""
    turns = [turn(call("read_measurement", raw='{"date": "2020-', call_id="t1"))]
    _, whole = _served(turns, stream=False, sizes=None)
    _, streamed = _served(turns, stream=True, sizes=(4,))
    (parsed,) = streamed.message.tool_calls
    assert (parsed.arguments, parsed.raw_arguments) == (None, '{"date": "2020-')
    assert streamed == whole


def test_stream_error_event_is_a_provider_error() -> None:
    """An error event mid-stream ends the stream with a ProviderError, not partial data."""
    assembler = StreamAssembler()
    assembler.feed({"event_type": "interaction.created", "interaction": {"id": "i", "status": "x"}})
    with pytest.raises(ProviderError) as caught:
        assembler.feed({"event_type": "error", "error": {"code": "x", "message": "secret"}})
    assert caught.value.kind == "server"
    assert "secret" not in str(caught.value)


# -- strictness of the fake, and errors through the adapter ----------------------------------


def _strict_case(kind: str) -> list[Any]:
    assistant = AssistantMessage(parts=(CALL,), finish="tool_use")
    if kind == "orphan":
        return [USER, assistant, ToolResultsMessage((ToolResult("call_zzz", "x", Ok({})),))]
    if kind == "missing_name":
        return [USER, assistant, ToolResultsMessage((ToolResult("call_a", "", Ok({})),))]
    if kind == "not_object":
        bad = Ok(cast("Any", "a string is not an object"))
        return [USER, assistant, ToolResultsMessage((ToolResult("call_a", "read", bad),))]
    return [USER, assistant, UserMessage("sin resultado")]


@pytest.mark.parametrize("case", ["orphan", "missing_name", "not_object", "unanswered"])
def test_fake_rejects_like_the_api_and_adapter_says_bad_request(case: str) -> None:
    """Orphan ids, a result without name, a non-object result, a call left unanswered: 400."""
    with FakeGoogleInteractionsServer([turn("never")]) as server:
        with pytest.raises(ProviderError) as caught:
            run(model_for(server).request(ModelRequest(_strict_case(case))))
        assert server.served == 0
    assert (caught.value.kind, caught.value.status) == ("bad_request", 400)
    assert "function" not in caught.value.safe_message  # no response body in the safe text


def test_fake_error_json_is_googles_shape() -> None:
    """The fake's 400 body is Google's error JSON with INVALID_ARGUMENT."""
    import httpx

    body = {"model": "m", "input": [{"type": "function_result", "call_id": "x", "result": {}}]}
    with FakeGoogleInteractionsServer([]) as server:
        reply = httpx.post(f"{server.base_url}/v1beta/interactions", json=body, timeout=5)
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert (error["code"], error["status"]) == (400, "INVALID_ARGUMENT")
    assert "name" in error["message"]


def test_fake_answers_500_when_the_script_runs_out() -> None:
    """Asking for a turn the script does not have is a server error, surfaced as such."""
    with FakeGoogleInteractionsServer([]) as server, pytest.raises(ProviderError) as caught:
        run(model_for(server).request(ModelRequest((USER,))))
    assert (caught.value.kind, caught.value.status) == ("server", 500)


class _StatusServer(FakeHTTPServer):
    def __init__(self, status: int) -> None:
        super().__init__()
        self.status = status

    def handle(self, request: RecordedRequest) -> Reply:
        error = {"code": self.status, "message": f"secret body {KEY}", "status": "X"}
        return Reply.json(self.status, {"error": error})


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (401, "auth"),
        (403, "auth"),
        (503, "overloaded"),
        (404, "bad_request"),
    ],
)
def test_http_errors_translate_to_kinds(status: int, kind: str) -> None:
    """Each HTTP failure becomes one ProviderError kind; no body or key in its text (429 and
    500 are in test_adapter_contract.py, for every adapter)."""
    with _StatusServer(status) as server, pytest.raises(ProviderError) as caught:
        run(model_for(server).request(ModelRequest((USER,))))
    error = caught.value
    assert (error.kind, error.status, error.provider) == (kind, status, "google")
    assert "secret" not in str(error)
    assert KEY not in str(error)


class _CutStreamServer(FakeGoogleInteractionsServer):
    """Serves the stream up to the middle of the steps, then ends it."""

    def handle(self, request: RecordedRequest) -> Reply:
        reply = super().handle(request)
        events = list(cast("list[bytes]", reply.body))
        return Reply.sse(events[: len(events) // 2])


def test_cut_stream_is_bad_response_not_a_partial_answer() -> None:
    """A stream that stops before interaction.completed fails; half a call never passes."""
    fake = _CutStreamServer(STREAM_TURNS)

    async def consume(model: GoogleInteractionsModel) -> None:
        async for _ in model.stream(ModelRequest((USER,))):
            pass

    with fake as server, pytest.raises(ProviderError) as caught:
        run(consume(model_for(server)))
    assert caught.value.kind == "bad_response"


@pytest.mark.parametrize("body", [b"garbage", b'{"status": 5, "steps": "x"}', b"[1, 2]"])
def test_unreadable_success_body_is_bad_response(body: bytes) -> None:
    """A 200 whose body is no interaction fails as bad_response, not as a crash."""

    class Garbage(FakeHTTPServer):
        def handle(self, request: RecordedRequest) -> Reply:
            return Reply(200, body, {"content-type": "application/json"})

    with Garbage() as server, pytest.raises(ProviderError) as caught:
        run(model_for(server).request(ModelRequest((USER,))))
    assert caught.value.kind == "bad_response"


def test_missing_key_is_an_auth_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key anywhere: a clear auth ProviderError before any request."""
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    model = GoogleInteractionsModel(MODEL, base_url="http://127.0.0.1:9")
    with pytest.raises(ProviderError) as caught:
        run(model.request(ModelRequest((USER,))))
    assert caught.value.kind == "auth"


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


_text_item = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "audio"])}, optional={"text": st.text() | _json}
)
_step = st.one_of(
    st.fixed_dictionaries(
        {"type": st.just("model_output")},
        optional={"content": st.lists(_text_item, max_size=3) | _json, "error": _json},
    ),
    st.fixed_dictionaries(
        {"type": st.just("function_call")},
        optional={
            "id": st.none() | st.sampled_from(["dup", "", "f1"]) | _json,
            "name": st.sampled_from(["read", ""]) | _json,
            "arguments": _truncated_json() | _json,
        },
    ),
    st.fixed_dictionaries({"type": st.just("thought")}, optional={"signature": _json}),
    st.fixed_dictionaries({"type": st.text(max_size=12) | _json}),
    st.integers(10_000, 200_000).map(
        lambda n: {"type": "model_output", "content": [{"type": "text", "text": "x" * n}]}
    ),
    _json,
)
_response = st.fixed_dictionaries(
    {},
    optional={
        "id": st.text(max_size=6) | _json,
        "status": st.sampled_from(["completed", "requires_action", "incomplete", "queued"]) | _json,
        "steps": st.lists(_step, max_size=6) | _json,
        "model": _json,
        "usage": _json,
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
    if error is not None:
        failed = isinstance(data, dict) and data.get("status") in ("failed", "cancelled")
        assert error.kind == ("server" if failed and error.kind == "server" else "bad_response")


_event = st.one_of(
    st.fixed_dictionaries(
        {"event_type": st.sampled_from(["interaction.created", "interaction.completed"])},
        optional={
            "interaction": st.fixed_dictionaries({}, optional={"id": _json, "status": _json})
        },
    ),
    st.fixed_dictionaries(
        {"event_type": st.just("step.start")},
        optional={"index": st.integers(-1, 3) | _json, "step": _step},
    ),
    st.fixed_dictionaries(
        {"event_type": st.just("step.delta")},
        optional={
            "index": st.integers(-1, 3) | _json,
            "delta": st.fixed_dictionaries(
                {
                    "type": st.sampled_from(
                        [
                            "text",
                            "arguments_delta",
                            "thought_signature",
                            "thought_summary",
                            "mystery",
                        ]
                    )
                },
                optional={
                    "text": _json,
                    "arguments": _truncated_json() | _json,
                    "signature": _json,
                    "content": _json,
                },
            )
            | _json,
        },
    ),
    st.fixed_dictionaries({"event_type": st.text(max_size=10) | _json}),
    _json,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_event, max_size=10))
def test_stream_assembly_never_crashes(events: list[Any]) -> None:
    """Any event sequence assembles and parses, or fails with a ProviderError."""
    assembler = StreamAssembler()
    error: ProviderError | None = None
    try:
        for event in events:
            text = assembler.feed(event)
            assert text is None or isinstance(text, str)
        _check_parsed(parse_response(assembler.result()))
    except ProviderError as exc:
        error = exc
    assert error is None or error.kind in ("bad_response", "server")


# -- what the fake refuses, as the real API does ---------------------------------------------

CALL_STEP_2 = {**CALL_STEP, "id": "call_b"}
RESULT_A = {"type": "function_result", "call_id": "call_a", "name": "read_measurement"}
REFUSED_BODIES: dict[str, tuple[Any, str]] = {
    "not_an_object": ([], "a model is required"),
    "no_model": ({"input": "hola"}, "a model is required"),
    "steps_not_objects": ({"model": "m", "input": ["hola"]}, "expected a list of steps"),
    "call_without_id": (
        {"model": "m", "input": [USER_STEP, {**CALL_STEP, "id": ""}]},
        "input[1].id: a function_call needs an id.",
    ),
    "duplicate_call_id": (
        {"model": "m", "input": [USER_STEP, CALL_STEP, CALL_STEP]},
        "input[2].id: duplicate function_call id 'call_a'.",
    ),
    "call_without_arguments_object": (
        {"model": "m", "input": [USER_STEP, {**CALL_STEP, "arguments": "{}"}]},
        "input[1]: a function_call needs a name and an arguments object.",
    ),
    "is_error_not_a_boolean": (
        {"model": "m", "input": [USER_STEP, CALL_STEP, {**RESULT_A, "result": {}, "is_error": 1}]},
        "input[2].is_error: must be a boolean.",
    ),
    "user_input_before_the_result": (
        {"model": "m", "input": [USER_STEP, CALL_STEP, CALL_STEP_2, USER_STEP]},
        "function_call 'call_a' has no matching function_result.",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED_BODIES))
def test_fake_refuses_what_the_api_refuses(case: str) -> None:
    """Each malformed body gets Google's 400 with the problem named; no turn is used."""
    import httpx

    body, problem = REFUSED_BODIES[case]
    with FakeGoogleInteractionsServer([turn("no")]) as server:
        reply = httpx.post(f"{server.base_url}/v1beta/interactions", json=body, timeout=5)
        assert server.remaining == 1
    assert reply.status_code == 400
    assert reply.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert problem in reply.json()["error"]["message"]


def test_fake_accepts_plain_text_input_and_answers_404_elsewhere() -> None:
    """``input`` may be a plain string; any other path is Google's 404."""
    import httpx

    with FakeGoogleInteractionsServer([turn("Hola.")]) as server:
        ok = httpx.post(
            f"{server.base_url}/v1beta/interactions",
            json={"model": "m", "input": "hola"},
            timeout=5,
        )
        missing = httpx.get(f"{server.base_url}/v1beta/models", timeout=5)
    assert ok.status_code == 200
    assert ok.json()["steps"][0]["content"][0]["text"] == "Hola."
    assert (missing.status_code, missing.json()["error"]["status"]) == (404, "NOT_FOUND")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("hola", "a model_output step has unreadable content"),
        (
            [{"type": "image", "data": "x"}],
            "a model_output step has content of an unsupported type",
        ),
        (["hola"], "a model_output step has content of an unsupported type"),
        ([{"type": "text"}], "a text content block has no text"),
    ],
    ids=["content_text", "image", "not_an_object", "no_text"],
)
def test_unreadable_output_content_is_a_bad_response(content: Any, problem: str) -> None:
    steps = [{"type": "model_output", "content": content}]
    with pytest.raises(ProviderError) as caught:
        parse_response({"status": "completed", "steps": steps})
    assert (caught.value.kind, caught.value.safe_message) == ("bad_response", problem)


def test_empty_and_missing_output_content_add_no_text() -> None:
    steps = [
        {"type": "model_output"},
        {"type": "model_output", "content": [{"type": "text", "text": ""}]},
        {"type": "model_output", "content": [{"type": "text", "text": "Hola."}]},
    ]
    parsed = parse_response({"status": "completed", "steps": steps})
    assert parsed.parts == (TextPart("Hola."),)
