"""Google Interactions: recorded live responses (a signed thought, a function call, then a
streamed answer) replayed through the adapter and the official SDK.

No public recording of an Interactions *request* was found (the fixtures used here keep the
responses only). The request side is therefore checked against what the API itself sent: the
thought and the call must go back exactly as the recorded response gave them, the strict fake's
checks must pass, and the body must validate against the SDK's own request model.
"""

from __future__ import annotations

from typing import Any

import pytest
from replay_kit import ReplayServer, collect, events_reply, json_reply, load, run

from surefoot import ModelRequest, ModelResponse, Ok
from surefoot.messages import (
    ReasoningPart,
    ResponseDone,
    TextDelta,
    TextPart,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)
from surefoot.providers.google_interactions import GoogleInteractionsModel

WEATHER = ToolSpec(
    "getWeather",
    "Get the weather in a location",
    {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
)
QUESTION = UserMessage("What is the weather in San Francisco?")
WEATHER_NOW = Ok({"weather": "sunny", "temperature": 27})


def replay(*, stream: bool) -> tuple[list[Any], list[ModelResponse], list[str]]:
    """Both recorded steps replayed (JSON or SSE): the bodies surefoot sent, its two responses
    and the streamed text deltas."""
    recording = load("google_tool_call.json")
    if stream:
        replies = [
            events_reply(recording[s]["stream_events"], "event_type") for s in ("step1", "step2")
        ]
    else:
        replies = [json_reply(200, recording[s]["json"]) for s in ("step1", "step2")]
    deltas: list[str] = []
    with ReplayServer("google", replies) as server:
        model = GoogleInteractionsModel(
            "gemini-2.5-flash", api_key="k", base_url=server.base_url, max_retries=0
        )

        def ask(messages: list[Any]) -> ModelResponse:
            request = ModelRequest(messages, [WEATHER])
            if not stream:
                return run(model.request(request))
            events = run(collect(model.stream(request)))
            deltas.extend(e.text for e in events if isinstance(e, TextDelta))
            done = events[-1]
            assert isinstance(done, ResponseDone)
            return done.response

        answer = ask([QUESTION])
        (call,) = answer.message.tool_calls
        results = ToolResultsMessage((ToolResult(call.call_id, call.name, WEATHER_NOW),))
        final = ask([QUESTION, answer.message, results])
        assert server.rejections == []
        return server.bodies, [answer, final], deltas


def sdk_accepts(body: dict[str, Any]) -> bool:
    """The body validates against the SDK's own request model and reads back unchanged."""
    from google.genai._gaos.types.interactions.createmodelinteraction import (
        CreateModelInteraction,
    )

    model = CreateModelInteraction.model_validate(body)
    return bool(model.model_dump(mode="json", by_alias=True, exclude_none=True) == body)


def recorded_steps(step: str, *, stream: bool) -> list[dict[str, Any]]:
    """The thought and call steps the API sent for ``step``, whole (JSON) or as the stream
    assembled them (the call's arguments arrive in a delta; its empty signature is nothing)."""
    recording = load("google_tool_call.json")[step]
    if not stream:
        steps: list[dict[str, Any]] = recording["json"]["steps"]
        return steps
    events = recording["stream_events"]
    starts = [dict(e["step"]) for e in events if e["event_type"] == "step.start"]
    deltas = [e["delta"] for e in events if e["event_type"] == "step.delta"]
    thought, call = starts
    thought["signature"] = deltas[0]["signature"]
    del call["signature"]
    call["arguments"] = {"location": "San Francisco"}
    assert deltas[1]["arguments"] == '{"location":"San Francisco"}'
    return [thought, call]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_function_call_then_answer_replay_with_thought_and_call_sent_back(stream: bool) -> None:
    """The recorded thought and function call parse into a ``ReasoningPart`` and a call with
    the live id; the next request sends both back exactly as the API gave them, then the result
    on that id with its name; the answer (streamed in two deltas) is the recorded text."""
    bodies, (answer, final), deltas = replay(stream=stream)
    thought, call = recorded_steps("step1", stream=stream)
    assert answer.message.parts == (
        ReasoningPart("google", thought),
        ToolCall(call["id"], "getWeather", {"location": "San Francisco"}),
    )
    assert answer.message.finish == "tool_use"
    sent = bodies[1]["input"]
    assert sent[1:3] == [thought, call]
    assert sent[3] == {
        "type": "function_result",
        "call_id": call["id"],
        "name": "getWeather",
        "result": {"weather": "sunny", "temperature": 27},
    }
    assert all(sdk_accepts(body) for body in bodies)
    recording = load("google_tool_call.json")["step2"]
    if stream:
        texts = [
            e["delta"]["text"] for e in recording["stream_events"] if "text" in e.get("delta", {})
        ]
    else:
        texts = [recording["json"]["steps"][1]["content"][0]["text"]]
    assert final.message.parts[1] == TextPart("".join(texts))
    assert deltas == (texts if stream else [])
    assert final.message.finish == "end_turn"


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_thought_tokens_are_counted_in_the_output(stream: bool) -> None:
    """The recorded usage reports thinking apart (``total_thought_tokens``); surefoot's output
    count includes it, and the cached part of the input (none here) is reported apart, so the
    counts add up to the API's total."""
    recording = load("google_tool_call.json")["step1"]
    usage = (
        recording["stream_events"][-1]["interaction"]["usage"]
        if stream
        else recording["json"]["usage"]
    )
    _, (answer, _), _ = replay(stream=stream)
    assert usage["total_thought_tokens"] > 0
    assert usage["total_cached_tokens"] == 0
    assert answer.usage == {
        "input_tokens": usage["total_input_tokens"],
        "cache_read_input_tokens": 0,
        "output_tokens": usage["total_output_tokens"] + usage["total_thought_tokens"],
    }
    assert sum(answer.usage.values()) == usage["total_tokens"]
