"""Anthropic Messages: recorded live traffic replayed through the adapter and the official SDK;
the requests surefoot builds, compared field by field with the recorded ones."""

from __future__ import annotations

import json
from typing import Any

from replay_kit import (
    ANY,
    MISSING,
    ReplayServer,
    collect,
    exchange_reply,
    load,
    run,
    unexplained,
)

from surefoot import ModelRequest, ModelResponse, Ok
from surefoot.messages import (
    AssistantMessage,
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
from surefoot.outcome import to_wire_text
from surefoot.providers.anthropic import AnthropicModel, build_messages
from surefoot.providers.google_interactions import GoogleInteractionsModel
from surefoot.providers.openai_responses import OpenAIResponsesModel
from surefoot.testing import FakeGoogleInteractionsServer, FakeOpenAIResponsesServer, turn

SUREFOOT_CHOICES = {
    "stream": (False, MISSING),  # the SDK's JSON request carries no stream flag
    "tool_choice": ({"type": "auto"}, MISSING),  # surefoot leaves the API's default (auto)
}
RESULT_FIELDS = {
    # surefoot sends the outcome's JSON text and marks only errors (is_error: true)
    "messages[2].content[*].content": (ANY, ANY),
    "messages[2].content[*].is_error": (False, MISSING),
}


def tools_of(request: dict[str, Any]) -> list[ToolSpec]:
    """The recorded request's tools, as surefoot declares them."""
    return [
        ToolSpec(t["name"], t.get("description") or "", t["input_schema"]) for t in request["tools"]
    ]


def question(request: dict[str, Any]) -> UserMessage:
    """The recorded request's first user text."""
    return UserMessage(request["messages"][0]["content"][0]["text"])


def model_for(server: ReplayServer, request: dict[str, Any]) -> AnthropicModel:
    """The adapter, as the recording's client was configured, pointed at the replay."""
    return AnthropicModel(
        request["model"],
        api_key="k",
        base_url=server.base_url,
        max_tokens=request["max_tokens"],
        max_retries=0,
    )


def replay_tool_turn(name: str, results: list[Ok]) -> tuple[list[Any], list[ModelResponse]]:
    """The recorded two-request exchange of ``name`` replayed: the bodies surefoot sent and its
    two responses, with ``results`` as the outcomes of the first response's calls."""
    recording = load(name)
    first, second = recording["exchanges"]
    request = first["request"]
    tools = tools_of(request)
    with ReplayServer("anthropic", [exchange_reply(first), exchange_reply(second)]) as server:
        model = model_for(server, request)
        asked = question(request)
        answer = run(model.request(ModelRequest([asked], tools, request.get("system"))))
        calls = answer.message.tool_calls
        outcomes = tuple(
            ToolResult(c.call_id, c.name, outcome)
            for c, outcome in zip(calls, results, strict=True)
        )
        follow_up = [asked, answer.message, ToolResultsMessage(outcomes)]
        final = run(model.request(ModelRequest(follow_up, tools, request.get("system"))))
        assert server.rejections == []
        return server.bodies, [answer, final]


PARALLEL_RESULTS = [
    Ok({"info": "alice is bob's wife"}),
    Ok({"info": "bob is alice's husband"}),
    Ok({"info": "charlie is alice's son"}),
    Ok({"info": "daisy is bob's daughter and charlie's younger sister"}),
]


def test_parallel_tool_calls_replay_like_the_recorded_requests() -> None:
    """Four parallel ``tool_use`` blocks parse into four calls with the live ids, and the next
    request sends the assistant turn back exactly as recorded, then the four results first, in
    call order, each on its call's id."""
    recording = load("anthropic_parallel_tool_calls.json")
    bodies, (answer, final) = replay_tool_turn(
        "anthropic_parallel_tool_calls.json", PARALLEL_RESULTS
    )
    recorded = [e["request"] for e in recording["exchanges"]]
    assert [c.arguments for c in answer.message.tool_calls] == [
        {"name": "Alice"},
        {"name": "Bob"},
        {"name": "Charlie"},
        {"name": "Daisy"},
    ]
    assert answer.message.finish == "tool_use"
    assert answer.usage["output_tokens"] == 202
    assert unexplained(recorded[0], bodies[0], SUREFOOT_CHOICES) == ([], [])
    assert unexplained(recorded[1], bodies[1], SUREFOOT_CHOICES | RESULT_FIELDS) == ([], [])
    sent = bodies[1]["messages"][2]["content"]
    assert [b["content"] for b in sent] == [to_wire_text(r) for r in PARALLEL_RESULTS]
    assert "Daisy is the youngest" in final.message.text


def test_thinking_block_goes_back_exactly_as_recorded() -> None:
    """A signed thinking block, text and a call parse into a ``ReasoningPart``, a text and a call;
    the next request sends the thinking block back byte for byte (signature included). The
    recording's client enabled thinking; surefoot does not ask for it."""
    recording = load("anthropic_thinking_tool_call.json")
    bodies, (answer, final) = replay_tool_turn(
        "anthropic_thinking_tool_call.json", [Ok({"country": "Mexico"})]
    )
    recorded = [e["request"] for e in recording["exchanges"]]
    thinking = recorded[1]["messages"][1]["content"][0]
    assert answer.message.parts[0] == ReasoningPart("anthropic", thinking)
    assert [type(p) for p in answer.message.parts] == [ReasoningPart, TextPart, ToolCall]
    not_asked = {"thinking": ({"budget_tokens": 3000, "type": "enabled"}, MISSING)}
    allowed = SUREFOOT_CHOICES | not_asked
    assert unexplained(recorded[0], bodies[0], allowed) == ([], [])
    assert unexplained(recorded[1], bodies[1], allowed | RESULT_FIELDS) == ([], [])
    assert bodies[1]["messages"][1] == recorded[1]["messages"][1]
    assert "Mexico City" in final.message.text


def replay_thinking_stream(chunk_sizes: tuple[int, ...]) -> tuple[dict[str, Any], list[Any]]:
    """The recorded thinking stream replayed (re-cut into ``chunk_sizes``): the body surefoot
    sent and the events it produced."""
    (exchange,) = load("anthropic_thinking_stream.json")["exchanges"]
    request = exchange["request"]
    with ReplayServer("anthropic", [exchange_reply(exchange)]) as server:
        server.chunk_sizes = chunk_sizes
        events = run(collect(model_for(server, request).stream(ModelRequest([question(request)]))))
        (body,) = server.bodies
    return body, events


def test_streamed_thinking_is_assembled_from_its_deltas() -> None:
    """The recorded stream, cut into odd pieces, gives text deltas that add up to the answer and
    one ``ReasoningPart`` holding the whole thinking and its signature; the streamed request
    matches the recorded one but for the thinking option."""
    (exchange,) = load("anthropic_thinking_stream.json")["exchanges"]
    body, events = replay_thinking_stream((7, 13, 1))
    done = events[-1]
    assert isinstance(done, ResponseDone)
    message = done.response.message
    reasoning, text = message.parts
    assert isinstance(reasoning, ReasoningPart)
    assert isinstance(text, TextPart)
    data = [
        json.loads(line[6:])
        for line in exchange["response"]["sse"].splitlines()
        if line[:6] == "data: "
    ]
    deltas = [d["delta"] for d in data if d["type"] == "content_block_delta"]
    by_type: dict[str, str] = {}
    for delta in deltas:
        key = {"thinking_delta": "thinking", "signature_delta": "signature"}.get(delta["type"])
        if key is not None:
            by_type[key] = by_type.get(key, "") + delta[key]
    assert reasoning.data == {"type": "thinking", **by_type}
    assert len(by_type["signature"]) > 100
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == text.text
    assert done.response.usage["input_tokens"] == 43
    not_asked = {"thinking": ({"budget_tokens": 1024, "type": "enabled"}, MISSING)}
    assert unexplained(exchange["request"], body, not_asked) == ([], [])


def test_recorded_thinking_moves_to_other_providers_without_a_trace() -> None:
    """The recorded conversation with its signed thinking continues on OpenAI Responses and on
    Google: their strict servers accept it and no thinking text or signature reaches them."""
    _, events = replay_thinking_stream((4096,))
    done = events[-1]
    assert isinstance(done, ResponseDone)
    reasoning = done.response.message.parts[0]
    assert isinstance(reasoning, ReasoningPart)
    (exchange,) = load("anthropic_thinking_stream.json")["exchanges"]
    messages = [question(exchange["request"]), done.response.message, UserMessage("¿Y de noche?")]
    with FakeOpenAIResponsesServer([turn("Igual.")]) as openai_server:
        openai_model = OpenAIResponsesModel(
            "gpt-test", api_key="k", base_url=openai_server.base_url
        )
        run(openai_model.request(ModelRequest(messages)))
        openai_body = json.dumps(openai_server.requests[0].body)
    with FakeGoogleInteractionsServer([turn("Igual.")]) as google_server:
        google_model = GoogleInteractionsModel(
            "gemini-test", api_key="k", base_url=google_server.base_url
        )
        run(google_model.request(ModelRequest(messages)))
        google_body = json.dumps(google_server.bodies[0])
    for body in (openai_body, google_body):
        assert reasoning.data["signature"] not in body
        assert reasoning.data["thinking"][:40] not in body
        assert json.dumps(done.response.message.text)[1:40] in body


def test_an_assistant_message_without_thinking_is_sent_unchanged() -> None:
    """A recorded parallel-call turn rebuilt as surefoot stores it gives the recorded assistant
    message again (text and tool_use blocks, nothing added)."""
    recording = load("anthropic_parallel_tool_calls.json")
    recorded_turn = recording["exchanges"][1]["request"]["messages"][1]
    parts: list[Any] = [TextPart(recorded_turn["content"][0]["text"])]
    parts += [ToolCall(b["id"], b["name"], b["input"]) for b in recorded_turn["content"][1:]]
    (user, assistant) = build_messages(
        [UserMessage("q"), AssistantMessage(tuple(parts), finish="tool_use", provider="anthropic")]
    )
    assert user["role"] == "user"
    assert assistant == recorded_turn
