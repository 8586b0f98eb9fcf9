"""OpenAI-compatible Chat Completions: recorded live traffic (OpenAI, Gemini's compatible
endpoint, Ollama) replayed through the adapter and the official SDK; the requests surefoot
builds, compared field by field with the recorded ones."""

from __future__ import annotations

from typing import Any

import pytest
from replay_kit import (
    ANY,
    MISSING,
    ReplayServer,
    collect,
    exchange_reply,
    json_reply,
    load,
    run,
    unexplained,
)

from surefoot import ModelRequest, ModelResponse, Ok, Outcome, ProviderError
from surefoot.messages import (
    ReasoningPart,
    ResponseDone,
    TextDelta,
    TextPart,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)
from surefoot.outcome import to_wire_text
from surefoot.providers.openai_chat import LimitParameter, OpenAIChatModel, limit_parameter_for
from surefoot.testing._http import RecordedRequest, Reply

OPENAI_LIMIT = limit_parameter_for("https://api.openai.com/v1")
SUREFOOT_CHOICES: dict[str, tuple[object, object]] = {
    "tool_choice": ("auto", MISSING),  # the API's default
    "tools[*].function.strict": (ANY, False),  # surefoot's validator is the authority
}
RESULT = {"messages[2].content": (ANY, ANY)}  # the outcome's JSON text; checked on its own


def tools_of(request: dict[str, Any]) -> list[ToolSpec]:
    """The recorded request's tools, as surefoot declares them."""
    functions = [t["function"] for t in request["tools"]]
    return [ToolSpec(f["name"], f.get("description") or "", f["parameters"]) for f in functions]


def replay(
    name: str, outcome: Outcome, *, stream: bool, limit: LimitParameter | None
) -> tuple[list[Any], list[ModelResponse], list[str]]:
    """A recorded two-request tool exchange replayed: the bodies surefoot sent, its two
    responses and the streamed text deltas, ``outcome`` answering the one call."""
    recording = load(name)
    first = recording["exchanges"][0]["request"]
    tools = tools_of(first)
    replies = [exchange_reply(e) for e in recording["exchanges"]]
    deltas: list[str] = []
    with ReplayServer("openai-chat", replies) as server:
        model = OpenAIChatModel(
            first["model"], api_key="k", base_url=server.base_url, limit_parameter=limit
        )

        def ask(messages: list[Any]) -> ModelResponse:
            request = ModelRequest(messages, tools)
            if not stream:
                return run(model.request(request))
            events = run(collect(model.stream(request)))
            deltas.extend(e.text for e in events if isinstance(e, TextDelta))
            done = events[-1]
            assert isinstance(done, ResponseDone)
            return done.response

        asked = UserMessage(first["messages"][0]["content"])
        answer = ask([asked])
        (call,) = answer.message.tool_calls
        results = ToolResultsMessage((ToolResult(call.call_id, call.name, outcome),))
        final = ask([asked, answer.message, results])
        assert server.rejections == []
        return server.bodies, [answer, final], deltas


def test_streamed_call_and_usage_replay_like_the_recorded_requests() -> None:
    """OpenAI's stream of a call (arguments in deltas) and of its usage chunk assembles into the
    call with the live id and the reported usage; surefoot's requests (as it sends them to
    OpenAI's endpoint) are the recorded ones but for the output limit it always sets."""
    recording = load("chat_stream_tool_call_usage.json")
    recorded = [e["request"] for e in recording["exchanges"]]
    outcome = Ok({"capital": "London"})
    bodies, (answer, final), deltas = replay(
        "chat_stream_tool_call_usage.json", outcome, stream=True, limit=OPENAI_LIMIT
    )
    (call,) = answer.message.tool_calls
    assert (call.call_id, call.arguments) == ("call_ZR5UUuTt3pf61kjwAJIYdVMj", {"country": "UK"})
    # the recorded usage chunk says none of the prompt came from the cache (cached_tokens 0)
    assert answer.usage == {"input_tokens": 53, "cache_read_input_tokens": 0, "output_tokens": 15}
    assert final.usage == {"input_tokens": 78, "cache_read_input_tokens": 0, "output_tokens": 9}
    assert "".join(deltas) == final.message.text == "The capital of the UK is London."
    limit = {"max_completion_tokens": (MISSING, 1024)}  # surefoot always bounds the answer
    assert unexplained(recorded[0], bodies[0], SUREFOOT_CHOICES | limit) == ([], [])
    allowed = SUREFOOT_CHOICES | limit | RESULT
    assert unexplained(recorded[1], bodies[1], allowed) == ([], [])
    assert bodies[1]["messages"][1] == recorded[1]["messages"][1]
    assert bodies[1]["messages"][2]["content"] == to_wire_text(outcome)
    assert bodies[1]["stream_options"] == {"include_usage": True}


def test_a_call_without_an_id_gets_one_the_server_accepts_on_call_and_result() -> None:
    """Gemini's compatible endpoint sent a call with an empty id; the recording's client made up
    an id (foreign to the server) and the server accepted it. surefoot makes up its own, stable
    one and uses it on the call and on its result, which is the whole difference."""
    recording = load("chat_tool_call_without_id.json")
    recorded = [e["request"] for e in recording["exchanges"]]
    assert recorded[1]["messages"][1]["tool_calls"][0]["id"].startswith("pyd_ai_")
    outcome = Ok({"time": "Noon"})
    bodies, (answer, final), _ = replay(
        "chat_tool_call_without_id.json", outcome, stream=False, limit=None
    )
    (call,) = answer.message.tool_calls
    assert call.call_id.startswith("sf_gen_")
    ours = {
        "max_tokens": (MISSING, 1024),  # a server that is not OpenAI's own: max_tokens
        "stream": (False, MISSING),  # the SDK's JSON request carries no stream flag
    }
    assert unexplained(recorded[0], bodies[0], SUREFOOT_CHOICES | ours) == ([], [])
    ids = {
        "messages[1].tool_calls[0].id": (ANY, call.call_id),
        "messages[2].tool_call_id": (ANY, call.call_id),
        "messages[1].content": (MISSING, None),  # surefoot says "no text" explicitly
    }
    assert unexplained(recorded[1], bodies[1], SUREFOOT_CHOICES | ours | RESULT | ids) == ([], [])
    assert final.message.text == "The current time is Noon."


class LimitServer(ReplayServer):
    """OpenAI's answers for a reasoning model, as recorded: the recorded 400 when the request
    says ``max_tokens``, the recorded completion when it says ``max_completion_tokens``."""

    def handle(self, request: RecordedRequest) -> Reply:
        """Refuse ``max_tokens`` as recorded, else the next recorded reply."""
        if "max_tokens" in request.body:
            return json_reply(400, load("chat_max_tokens_refused.json")["http_400"])
        return super().handle(request)


def test_reasoning_model_gets_max_completion_tokens_from_the_openai_default() -> None:
    """The request surefoot sends for OpenAI's endpoint is the recorded one the live API
    accepted for o3-mini (``max_completion_tokens``); the local-server name, ``max_tokens``,
    gets the refusal OpenAI's endpoint recorded."""
    (exchange,) = load("chat_max_completion_tokens.json")["exchanges"]
    recorded = exchange["request"]
    with LimitServer("openai-chat", [exchange_reply(exchange)]) as server:
        url = server.base_url
        local = OpenAIChatModel("o3-mini", api_key="k", base_url=url, max_tokens=100, max_retries=0)
        with pytest.raises(ProviderError) as refused:
            run(local.request(ModelRequest([UserMessage("hello")])))
        openai = OpenAIChatModel(
            "o3-mini", api_key="k", base_url=url, max_tokens=100, limit_parameter=OPENAI_LIMIT
        )
        answer = run(openai.request(ModelRequest([UserMessage("hello")])))
        bodies = server.bodies
    assert (refused.value.kind, refused.value.status) == ("bad_request", 400)
    assert bodies[0]["max_tokens"] == 100
    assert OPENAI_LIMIT == "max_completion_tokens"
    assert unexplained(recorded, bodies[1], {"stream": (False, MISSING)}) == ([], [])
    assert answer.message.text == "Hello there! How can I help you today?"


def test_ollama_reasoning_is_kept_and_goes_back_to_the_same_provider() -> None:
    """Ollama's recorded answer keeps its ``reasoning`` as this provider's ``ReasoningPart``
    beside the text; the next request (which the strict server accepts) sends it back in the
    same field. No public recording of that next request was found: the field name follows
    Ollama's own request type, which reads ``reasoning`` back as the model's thinking."""
    recording = load("ollama_reasoning.json")
    body = recording["response"]
    thinking = body["choices"][0]["message"]["reasoning"]
    with ReplayServer("openai-chat", [json_reply(200, body), json_reply(200, body)]) as server:
        model = OpenAIChatModel(body["model"], base_url=server.base_url + "/v1")
        answer = run(model.request(ModelRequest([UserMessage("Wat is 17*3?")])))
        again = [UserMessage("Wat is 17*3?"), answer.message, UserMessage("En 17*4?")]
        run(model.request(ModelRequest(again)))
        sent = server.bodies[1]
        assert server.rejections == []
    assert answer.message.parts == (
        ReasoningPart("openai-chat", {"reasoning": thinking}),
        TextPart("51"),
    )
    # Ollama reports prompt_tokens_details.cached_tokens too (0 here)
    assert answer.usage == {"input_tokens": 26, "cache_read_input_tokens": 0, "output_tokens": 56}
    assert sent["messages"][1] == {"role": "assistant", "content": "51", "reasoning": thinking}
    assert sent["max_tokens"] == 1024
