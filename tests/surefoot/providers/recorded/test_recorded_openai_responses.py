"""OpenAI Responses: recorded live traffic replayed through the adapter and the official SDK;
the requests surefoot builds, compared field by field with the recorded ones and validated
against the official OpenAPI schema."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from replay_kit import (
    ANY,
    MISSING,
    ReplayServer,
    collect,
    events_reply,
    exchange_reply,
    json_reply,
    load,
    run,
    schema_problems,
    unexplained,
)

from surefoot import ModelRequest, ModelResponse, Ok, Outcome, ProviderError, Recovery, ToolError
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
from surefoot.providers.anthropic import AnthropicModel
from surefoot.providers.google_interactions import GoogleInteractionsModel
from surefoot.providers.openai_responses import OpenAIResponsesModel, build_input
from surefoot.testing import (
    FakeAnthropicServer,
    FakeGoogleInteractionsServer,
    turn,
)

SUREFOOT_CHOICES: dict[str, tuple[object, object]] = {
    "store": (MISSING, False),  # stateless: health data is not left on the provider's servers
    "max_output_tokens": (MISSING, 1024),  # surefoot always bounds the answer
    "tool_choice": ("auto", MISSING),  # the API's default
    "tools[*].strict": (True, False),  # surefoot's validator is the authority
    # the question as an input message with an input_text part (the recording sent a string)
    "input[0].type": (MISSING, "message"),
    "input[0].content": (ANY, ANY),
}
OUTPUTS = {"input[*].output": (ANY, ANY)}  # the outcome's JSON text; checked on its own
CALL_STATUS = {"input[*].status": (MISSING, "completed")}  # the call's status, as received


def tools_of(request: dict[str, Any]) -> list[ToolSpec]:
    """The recorded request's tools, as surefoot declares them."""
    return [
        ToolSpec(t["name"], t.get("description") or "", t["parameters"]) for t in request["tools"]
    ]


def question(request: dict[str, Any]) -> UserMessage:
    """The recorded request's first user text."""
    content = request["input"][0]["content"]
    return UserMessage(content if isinstance(content, str) else content[0]["text"])


class Replay:
    """One recorded two-request exchange, replayed through ``OpenAIResponsesModel``."""

    def __init__(self, name: str, *, stream: bool, chunk_sizes: Sequence[int] = ()) -> None:
        self.recording = load(name)
        self.recorded = [e["request"] for e in self.recording["exchanges"]]
        self.stream = stream
        self.chunk_sizes = chunk_sizes
        self.deltas: list[str] = []

    def run(self, outcomes: Sequence[Outcome]) -> tuple[list[Any], list[ModelResponse]]:
        """The bodies surefoot sent and its two responses, with ``outcomes`` as the results of
        the first response's calls."""
        first = self.recorded[0]
        replies = [exchange_reply(e) for e in self.recording["exchanges"]]
        with ReplayServer("openai", replies) as server:
            if self.chunk_sizes:
                server.chunk_sizes = self.chunk_sizes
            model = OpenAIResponsesModel(
                first["model"],
                api_key="k",
                base_url=server.base_url,
                max_retries=0,
                encrypted_reasoning="include" in first,
            )
            asked = question(first)
            answer = self._ask(model, [asked])
            pairs = zip(answer.message.tool_calls, outcomes, strict=True)
            results = ToolResultsMessage(tuple(ToolResult(c.call_id, c.name, o) for c, o in pairs))
            final = self._ask(model, [asked, answer.message, results])
            assert server.rejections == []
            return server.bodies, [answer, final]

    def _ask(self, model: OpenAIResponsesModel, messages: list[Any]) -> ModelResponse:
        first = self.recorded[0]
        request = ModelRequest(messages, tools_of(first), first.get("instructions"))
        if not self.stream:
            return run(model.request(request))
        events = run(collect(model.stream(request)))
        self.deltas += [e.text for e in events if isinstance(e, TextDelta)]
        done = events[-1]
        assert isinstance(done, ResponseDone)
        return done.response


# -- parallel calls, one answered with an error ---------------------------------------------

NOT_LONDON = ToolError("not_found", "Solo conozco Londres.", Recovery.CHOOSE_ALTERNATIVE)
PARALLEL_OUTCOMES: list[Outcome] = [NOT_LONDON, Ok({"lat": 51, "lng": 0})]


def test_parallel_calls_with_an_error_output_replay_like_the_recorded_requests() -> None:
    """Two parallel ``function_call`` items parse into two calls with the live ids; the next
    request sends both back (with their ``fc_`` ids and status, as received), then the two
    outputs in call order: the error as its envelope, the data as its JSON text."""
    replay = Replay("responses_parallel_calls_error_output.json", stream=False)
    bodies, (answer, final) = replay.run(PARALLEL_OUTCOMES)
    recorded = replay.recorded
    assert [c.call_id for c in answer.message.tool_calls] == [
        "call_LWVp74L5HaH2KNvgVz9PJsrj",
        "call_YnRAWeTyxI91m5uNa5bxXwVO",
    ]
    empty_instructions = {"instructions": ("", MISSING)}  # the recording sent "", surefoot none
    allowed = SUREFOOT_CHOICES | empty_instructions
    assert unexplained(recorded[0], bodies[0], allowed) == ([], [])
    # The recording's client sent an empty assistant message before the calls; surefoot
    # sends no empty text. Everything else is compared as it stands.
    empty = {"content": "", "role": "assistant"}
    recorded_input = [item for item in recorded[1]["input"] if item != empty]
    assert len(recorded_input) == len(recorded[1]["input"]) - 1
    ids = {"input[1].id": (MISSING, ANY), "input[2].id": (MISSING, ANY)}
    second = {**recorded[1], "input": recorded_input}
    allowed |= OUTPUTS | CALL_STATUS | ids
    assert unexplained(second, bodies[1], allowed) == ([], [])
    calls = [i for i in bodies[1]["input"] if i["type"] == "function_call"]
    assert [c["id"] for c in calls] == [
        "fc_67e547c540648191bc7505ac667e023f0ae6111e84dd5c08",
        "fc_67e547c55c3081919da7a3f7fe81a1030ae6111e84dd5c08",
    ]
    outputs = [i["output"] for i in bodies[1]["input"] if i["type"] == "function_call_output"]
    assert outputs == [to_wire_text(o) for o in PARALLEL_OUTCOMES]
    assert json.loads(outputs[0])["is_error"] is True
    assert schema_problems(bodies[1]["input"]) == []
    assert "London" in final.message.text


# -- reasoning, a message with its phase, and a call (gpt-5, gpt-5.5) ------------------------


def test_reasoning_and_call_go_back_with_their_ids_as_recorded() -> None:
    """gpt-5's encrypted reasoning item and its call parse into a ``ReasoningPart`` and a call;
    the next request sends the reasoning item back byte for byte and the call with its
    ``fc_`` id, as the recorded request did (which the live API accepted)."""
    replay = Replay("responses_reasoning_tool_call.json", stream=False)
    outcome = Ok({"result": "plan updated"})
    bodies, (answer, final) = replay.run([outcome])
    recorded = replay.recorded
    reasoning = recorded[1]["input"][1]
    assert answer.message.parts[0] == ReasoningPart("openai", reasoning)
    not_asked = {
        "reasoning": ({"effort": "low", "summary": "detailed"}, MISSING),  # the model's default
        "stream": (False, MISSING),  # the SDK's JSON request carries no stream flag
        "tools[*].description": (None, ""),  # surefoot always describes a tool
    }
    allowed = SUREFOOT_CHOICES | not_asked
    assert unexplained(recorded[0], bodies[0], allowed) == ([], [])
    assert unexplained(recorded[1], bodies[1], allowed | OUTPUTS | CALL_STATUS) == ([], [])
    assert bodies[1]["input"][1] == reasoning
    assert schema_problems(bodies[1]["input"]) == []
    assert final.message.text.startswith("Softly old fountains")


GPT55_ALLOWED: dict[str, tuple[object, object]] = {
    **SUREFOOT_CHOICES,
    "tools[*].description": (None, ""),  # surefoot always describes a tool
}
GPT55_SECOND: dict[str, tuple[object, object]] = {
    **GPT55_ALLOWED,
    **OUTPUTS,
    **CALL_STATUS,
    # the reasoning item and the message's text part exactly as the stream's
    # output_item.done gave them (the recording's client dropped these empty lists)
    "input[1].content": (MISSING, []),
    "input[2].content[0].logprobs": (MISSING, []),
    # the recorder rewrote curly quotes as straight ones in request bodies (not in the
    # recorded stream); surefoot sends the text the API streamed
    "input[2].content[0].text": (
        'I\'ll check the capital lookup tool for "PotatoLand."',
        "I\u2019ll check the capital lookup tool for \u201cPotatoLand.\u201d",
    ),
}


@pytest.mark.parametrize("chunk_sizes", [(), (1,), (7, 13)], ids=["as_recorded", "1", "7_13"])
def test_streamed_reasoning_message_and_call_continue_as_recorded(
    chunk_sizes: tuple[int, ...],
) -> None:
    """gpt-5.5 streams reasoning, a commentary message and a call; however the stream is cut,
    the next request carries every item id (``rs_``, ``msg_``, ``fc_``), the message's status
    and phase, exactly as the recorded request the live API accepted, and validates against
    the official schema."""
    replay = Replay("responses_stream_phase_reasoning.json", stream=True, chunk_sizes=chunk_sizes)
    bodies, (answer, final) = replay.run([Ok({"capital": "Potato City"})])
    recorded = replay.recorded
    reasoning, text, call = answer.message.parts
    assert isinstance(reasoning, ReasoningPart)
    assert isinstance(text, TextPart)
    assert isinstance(call, ToolCall)
    assert text.provider_details is not None
    assert text.provider_details["phase"] == "commentary"
    assert unexplained(recorded[0], bodies[0], GPT55_ALLOWED) == ([], [])
    assert unexplained(recorded[1], bodies[1], GPT55_SECOND) == ([], [])
    sent = bodies[1]["input"]
    assert [i.get("id") for i in sent[1:4]] == [i["id"] for i in recorded[1]["input"][1:4]]
    assert (sent[2]["status"], sent[2]["phase"]) == ("completed", "commentary")
    assert schema_problems(sent) == []
    assert "".join(replay.deltas) == text.text + final.message.text
    assert final.message.text == "The capital of PotatoLand is **Potato City**."


def test_continuation_carries_every_item_id_and_moves_to_other_providers_cleanly() -> None:
    """The recorded gpt-5.5 turn (reasoning, message, call) continued on OpenAI carries every
    item id and passes the official schema; the same transcript continued on Anthropic and on
    Google is accepted by their strict servers and carries none of OpenAI's fields."""
    replay = Replay("responses_stream_phase_reasoning.json", stream=True)
    bodies, (answer, final) = replay.run([Ok({"capital": "Potato City"})])
    question_ = question(replay.recorded[0])
    call = answer.message.tool_calls[0]
    results = ToolResultsMessage((ToolResult(call.call_id, call.name, Ok({"c": "Potato City"})),))
    transcript = [question_, answer.message, results, final.message, UserMessage("¿Y Papa?")]
    sent = bodies[1]["input"]
    assert [i["type"] for i in sent[1:4]] == ["reasoning", "message", "function_call"]
    assert all(
        i["id"].startswith(p) for i, p in zip(sent[1:4], ("rs_", "msg_", "fc_"), strict=True)
    )
    assert schema_problems(sent) == []

    with FakeAnthropicServer([turn("No sé.")]) as anthropic_server:
        model = AnthropicModel("claude-test", api_key="k", base_url=anthropic_server.base_url)
        run(model.request(ModelRequest(transcript, tools_of(replay.recorded[0]))))
        anthropic_server.assert_consumed()
        anthropic_body = json.dumps(anthropic_server.requests[0].body, ensure_ascii=False)
    with FakeGoogleInteractionsServer([turn("No sé.")]) as google_server:
        google = GoogleInteractionsModel(
            "gemini-test", api_key="k", base_url=google_server.base_url
        )
        run(google.request(ModelRequest(transcript, tools_of(replay.recorded[0]))))
        google_server.assert_consumed()
        google_body = json.dumps(google_server.bodies[0], ensure_ascii=False)
    openai_fields = ["rs_0fabc", "msg_0fabc", "fc_0fabc", "encrypted_content", "phase", "gAAAA"]
    for body in (anthropic_body, google_body):
        assert [f for f in openai_fields if f in body] == []
        assert call.call_id in body
        assert "\u2019ll check the capital lookup tool" in body


def test_the_schema_check_is_not_vacuous() -> None:
    """The official schema refuses what surefoot used to send: an assistant message with
    ``output_text`` parts but no id, status or logprobs."""
    old_form = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Hola", "annotations": []}],
    }
    assert len(schema_problems([old_form])) == 1
    assert schema_problems([{**old_form, "content": "Hola"}]) == []


# -- a used-up quota, inside a stream and as HTTP 429 ---------------------------------------


def test_recorded_quota_error_has_the_same_kind_in_a_stream_and_as_a_429() -> None:
    """The live API's ``insufficient_quota``: as the ``error`` event of a started stream (code
    under ``error.code``) and as the body of an HTTP 429, both become ``rate_limit``."""
    recording = load("responses_insufficient_quota.json")
    replies = [
        events_reply(recording["stream_events"], "type"),
        json_reply(429, recording["http_429"]),
    ]
    errors: list[ProviderError] = []
    with ReplayServer("openai", replies) as server:
        model = OpenAIResponsesModel("gpt-5-nano", api_key="k", base_url=server.base_url)
        with pytest.raises(ProviderError) as streamed:
            run(collect(model.stream(ModelRequest([UserMessage("hola")]))))
        errors.append(streamed.value)
        with pytest.raises(ProviderError) as answered:
            run(model.request(ModelRequest([UserMessage("hola")])))
        errors.append(answered.value)
        assert len(server.requests) == 2
    assert [(e.kind, e.status) for e in errors] == [("rate_limit", None), ("rate_limit", 429)]
    assert all("quota" in e.safe_message and "billing" not in e.safe_message for e in errors)


def test_assistant_turn_without_ids_goes_back_plain() -> None:
    """A turn stored before item ids were kept (reasoning, text and a call without ids) goes
    back without reasoning and without ids, so nothing names a missing item; it still passes
    the official schema."""
    replay = Replay("responses_stream_phase_reasoning.json", stream=True)
    _, (answer, _) = replay.run([Ok({"capital": "Potato City"})])
    reasoning, text, call = answer.message.parts
    assert isinstance(text, TextPart)
    assert isinstance(call, ToolCall)
    old = AssistantMessage(
        (reasoning, TextPart(text.text), ToolCall(call.call_id, call.name, call.arguments)),
        finish="tool_use",
        provider="openai",
    )
    results = ToolResultsMessage((ToolResult(call.call_id, call.name, Ok({"c": 1})),))
    items = build_input([question(replay.recorded[0]), old, results])
    assert [i["type"] for i in items] == [
        "message",
        "message",
        "function_call",
        "function_call_output",
    ]
    assert items[1] == {"type": "message", "role": "assistant", "content": text.text}
    assert "id" not in items[2]
    assert schema_problems(items) == []
