"""What every provider adapter promises, checked on all four the same way: each case runs the
official SDK, through the adapter, against that provider's strict fake server on 127.0.0.1.

Where the wire APIs differ (an ``is_error`` field beside the result, or only the envelope
inside it; the names of usage counters), the case asserts the shared neutral result and the
per-adapter files keep the exact wire bodies.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest

from surefoot import (
    Agent,
    CalendarDate,
    Model,
    ModelRequest,
    ModelResponse,
    Ok,
    Outcome,
    ProviderConnectionError,
    ProviderError,
    Recovery,
    ToolError,
    ToolSet,
)
from surefoot.messages import AssistantMessage, ResponseDone, StreamEvent, TextDelta, UserMessage
from surefoot.outcome import to_wire
from surefoot.providers.anthropic import AnthropicModel
from surefoot.providers.google_interactions import GoogleInteractionsModel
from surefoot.providers.openai_chat import OpenAIChatModel
from surefoot.providers.openai_responses import OpenAIResponsesModel
from surefoot.testing import (
    FakeAnthropicServer,
    FakeGoogleInteractionsServer,
    FakeOpenAIChatServer,
    FakeOpenAIResponsesServer,
    call,
    turn,
)
from surefoot.testing._http import FakeHTTPServer, RecordedRequest, Reply, ScriptedHTTPServer

T = TypeVar("T")

SECRET = "upstream-detail-7f3a"
"""Text the provider puts in its error bodies; it must never reach a ProviderError."""


@dataclass(frozen=True, slots=True)
class WireResult:
    """One tool result as the adapter put it on the wire: the id of the call it answers, the
    payload the model reads (decoded), and the error field beside it (None: the wire API has
    no such field, the envelope inside the payload is the mark)."""

    call_id: str
    payload: Any
    error_field: bool | None


# -- the four adapters, and the little each one's wire needs -------------------------------


def _anthropic_results(body: dict[str, Any]) -> list[WireResult]:
    return [
        WireResult(b["tool_use_id"], json.loads(b["content"]), b.get("is_error", False))
        for m in body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "tool_result"
    ]


def _responses_results(body: dict[str, Any]) -> list[WireResult]:
    return [
        WireResult(i["call_id"], json.loads(i["output"]), None)
        for i in body["input"]
        if i.get("type") == "function_call_output"
    ]


def _google_results(body: dict[str, Any]) -> list[WireResult]:
    return [
        WireResult(s["call_id"], s["result"], s.get("is_error", False))
        for s in body["input"]
        if s.get("type") == "function_result"
    ]


def _chat_results(body: dict[str, Any]) -> list[WireResult]:
    return [
        WireResult(m["tool_call_id"], json.loads(m["content"]), None)
        for m in body["messages"]
        if m["role"] == "tool"
    ]


def _anthropic_error(status: int) -> Reply:
    kind = "rate_limit_error" if status == 429 else "api_error"
    reply = Reply.json(
        status, {"type": "error", "error": {"type": kind, "message": SECRET}, "request_id": "r"}
    )
    reply.headers["x-should-retry"] = "false"
    return reply


def _openai_error(status: int) -> Reply:
    kind = "rate_limit_exceeded" if status == 429 else "server_error"
    return Reply.json(
        status, {"error": {"message": SECRET, "type": kind, "param": None, "code": kind}}
    )


def _google_error(status: int) -> Reply:
    state = "RESOURCE_EXHAUSTED" if status == 429 else "INTERNAL"
    return Reply.json(status, {"error": {"code": status, "message": SECRET, "status": state}})


@dataclass(frozen=True, slots=True)
class Adapter:
    """One adapter under the contract."""

    provider: str
    """The label its responses carry."""
    fake: type[ScriptedHTTPServer]
    make: Callable[[str, float], Model]
    """The adapter talking to a fake server's base URL with a timeout (SDK retries off)."""
    sdk: str
    """The SDK module it imports, only when first asked for a response."""
    results: Callable[[dict[str, Any]], list[WireResult]]
    error_reply: Callable[[int], Reply]
    """The provider's own error body for an HTTP status."""

    def model(self, server: FakeHTTPServer, *, timeout: float = 10.0) -> Model:
        return self.make(server.base_url, timeout)


ADAPTERS = {
    "anthropic": Adapter(
        "anthropic",
        FakeAnthropicServer,
        lambda url, timeout: AnthropicModel(
            "claude-test", api_key="k", base_url=url, timeout=timeout, max_retries=0
        ),
        "anthropic",
        _anthropic_results,
        _anthropic_error,
    ),
    "openai_responses": Adapter(
        "openai",
        FakeOpenAIResponsesServer,
        lambda url, timeout: OpenAIResponsesModel(
            "gpt-test", api_key="k", base_url=url + "/v1", timeout=timeout, max_retries=0
        ),
        "openai",
        _responses_results,
        _openai_error,
    ),
    "google_interactions": Adapter(
        "google",
        FakeGoogleInteractionsServer,
        lambda url, timeout: GoogleInteractionsModel(
            "gemini-fake", api_key="k", base_url=url, timeout=timeout, max_retries=0
        ),
        "google.genai",
        _google_results,
        _google_error,
    ),
    "openai_chat": Adapter(
        "openai-chat",
        FakeOpenAIChatServer,
        lambda url, timeout: OpenAIChatModel(
            "fake-chat", api_key="k", base_url=url + "/v1", timeout=timeout, max_retries=0
        ),
        "openai",
        _chat_results,
        _openai_error,
    ),
}


@pytest.fixture(params=sorted(ADAPTERS))
def adapter(request: pytest.FixtureRequest) -> Adapter:
    """Each contract case runs once per adapter."""
    return ADAPTERS[request.param]


# -- helpers --------------------------------------------------------------------------------


def run(awaitable: Awaitable[T]) -> T:
    """Run one coroutine to completion (each test owns its event loop)."""

    async def main() -> T:
        return await asyncio.wait_for(awaitable, timeout=60)

    return asyncio.run(main())


async def collect(events: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    """Every event of a stream."""
    return [event async for event in events]


def bodies(server: ScriptedHTTPServer) -> list[dict[str, Any]]:
    """The request bodies the server accepted or refused, in order."""
    return [r.body for r in server.requests]


QUESTION = UserMessage("¿Cuánto pesaba el 2020-01-01 y el 2020-01-02?")
WEIGHTS = {"2020-01-01": 76.0, "2020-01-03": 75.5}


def measurement_tools(log: list[str]) -> ToolSet:
    """``read_measurement``: two stored dates, ``not_found`` for any other."""
    tools = ToolSet()

    @tools.tool(effect="read")
    def read_measurement(date: CalendarDate) -> dict[str, Any] | ToolError:
        """Read the measurement saved for one calendar date."""
        day = date.isoformat()
        log.append(day)
        if day in WEIGHTS:
            return {"date": day, "weight_kg": WEIGHTS[day]}
        return ToolError(
            "not_found", f"No hay registro para el {day}.", Recovery.CHOOSE_ALTERNATIVE
        )

    return tools


def read(date: str, call_id: str) -> Any:
    """A scripted ``read_measurement`` call."""
    return call("read_measurement", {"date": date}, call_id=call_id)


def agent_turn(
    adapter: Adapter, script: Sequence[AssistantMessage], *, stream: bool = False
) -> tuple[Any, list[str], list[dict[str, Any]]]:
    """One whole Agent turn on ``script``: its result, the tool log, the bodies sent."""
    log: list[str] = []
    with adapter.fake(script) as server:
        agent = Agent(model=adapter.model(server), tools=measurement_tools(log), stream=stream)
        result = run(agent.run_turn(QUESTION.text))
        server.assert_consumed()
        return result, log, bodies(server)


def assert_result_on_wire(wire: WireResult, call_id: str, outcome: Outcome) -> None:
    """The wire result answers ``call_id`` with exactly what the model must read, and an error
    is marked (by the wire's own field where it has one, always by the envelope)."""
    assert wire.call_id == call_id
    assert wire.payload == to_wire(outcome)
    failed = isinstance(outcome, ToolError)
    assert wire.error_field in (None, failed)
    if failed:
        assert wire.payload["is_error"] is True
    else:
        assert "is_error" not in wire.payload


# -- a plain reply --------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_plain_text_reply(adapter: Adapter, stream: bool) -> None:
    """A text answer comes back as one text part, ``end_turn``, stamped with the provider and
    the model; the Agent ends the turn with it after one request."""
    answer = "Hola, ñandú: «sin herramientas» 🏋️."
    with adapter.fake([turn(answer)]) as server:
        model = adapter.model(server)
        agent = Agent(model=model, tools=measurement_tools([]), stream=stream)
        result = run(agent.run_turn("Hola"))
        server.assert_consumed()
    assert (result.stop_reason, result.reply_author, result.reply) == ("completed", "model", answer)
    assert result.model_requests == 1
    (message,) = [m for m in agent.journal.load(result.conversation_id) if m.kind == "assistant"]
    assert isinstance(message, AssistantMessage)
    assert (message.text, message.tool_calls, message.finish) == (answer, (), "end_turn")
    assert (message.provider, message.model) == (adapter.provider, model.model_name)


# -- tool calls and their results -----------------------------------------------------------


def test_tool_call_then_ok_result_is_a_continuation_the_server_accepts(adapter: Adapter) -> None:
    """A call is parsed with its id and arguments, run once, and its Ok result goes back as
    the data itself, unmarked, answering that call; the strict server takes the request."""
    script = [turn(read("2020-01-01", "call_a1")), turn("Pesabas 76 kg.")]
    result, log, sent = agent_turn(adapter, script)
    assert (result.stop_reason, result.reply, result.model_requests) == (
        "completed",
        "Pesabas 76 kg.",
        2,
    )
    assert log == ["2020-01-01"]
    (record,) = result.calls
    assert (record.call.call_id, record.call.arguments) == ("call_a1", {"date": "2020-01-01"})
    assert record.outcome == Ok({"date": "2020-01-01", "weight_kg": 76.0})
    assert adapter.results(sent[0]) == []
    (wire,) = adapter.results(sent[1])
    assert_result_on_wire(wire, "call_a1", record.outcome)


def test_tool_error_result_carries_the_error_mark(adapter: Adapter) -> None:
    """A ``ToolError`` goes back as the error envelope (code, message, recovery) with the
    error mark, and the model's next answer is accepted."""
    script = [turn(read("2020-01-02", "call_e1")), turn("No hay registro ese día.")]
    result, _, sent = agent_turn(adapter, script)
    assert result.stop_reason == "completed"
    (record,) = result.calls
    assert isinstance(record.outcome, ToolError)
    assert record.outcome.code == "not_found"
    (wire,) = adapter.results(sent[1])
    assert_result_on_wire(wire, "call_e1", record.outcome)
    assert wire.payload["error"] == "not_found"
    assert wire.payload["message"] == "No hay registro para el 2020-01-02."
    assert wire.payload["recovery"] == "choose_alternative"


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_parallel_calls_and_their_results_keep_their_order(adapter: Adapter, stream: bool) -> None:
    """Three calls in one response are parsed in order, run in order, and their results
    (an error between two successes) go back in that order, each to its own call."""
    dates = ["2020-01-03", "2020-01-02", "2020-01-01"]
    ids = ["call_p1", "call_p2", "call_p3"]
    script = [
        turn("Miro tres días. ", *(read(d, i) for d, i in zip(dates, ids, strict=True))),
        turn("Listo."),
    ]
    result, log, sent = agent_turn(adapter, script, stream=stream)
    assert result.stop_reason == "completed"
    assert log == dates
    assert [r.call.call_id for r in result.calls] == ids
    assert [type(r.outcome) for r in result.calls] == [Ok, ToolError, Ok]
    wires = adapter.results(sent[1])
    assert len(wires) == 3
    for wire, record in zip(wires, result.calls, strict=True):
        assert_result_on_wire(wire, record.call.call_id, record.outcome)


# -- how a response ended -------------------------------------------------------------------

FINISHES: dict[str, AssistantMessage] = {
    "end_turn": turn("Hecho."),
    "tool_use": turn(read("2020-01-01", "call_f1")),
    "max_tokens": turn("Te cuento que el peso", finish="max_tokens"),
}


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("finish", sorted(FINISHES))
def test_stop_reason_maps_to_the_neutral_finish(
    adapter: Adapter, finish: str, stream: bool
) -> None:
    """The provider's own stop reason (``stop``/``length``, ``incomplete``, ...) becomes the
    neutral finish reason, streamed or not."""
    with adapter.fake([FINISHES[finish]]) as server:
        response = request_or_stream(adapter.model(server), stream)
    assert response.message.finish == finish
    assert response.message.text == FINISHES[finish].text
    assert [c.arguments for c in response.message.tool_calls] == [
        c.arguments for c in FINISHES[finish].tool_calls
    ]


def test_max_tokens_ends_the_turn_without_running_the_cut_call(adapter: Adapter) -> None:
    """A response cut by the token limit in the middle of a call: the call is never run and
    the turn ends as ``max_tokens``, told by the harness."""
    cut = turn("Guardo ", read("2020-01-01", "call_m1"), finish="max_tokens")
    result, log, _ = agent_turn(adapter, [cut])
    assert (result.stop_reason, result.reply_author) == ("max_tokens", "harness")
    assert log == []
    assert [(r.executed, r.outcome.code) for r in result.calls] == [(False, "not_executed")]


# -- provider failures ----------------------------------------------------------------------


class _Failing:
    """Wraps a fake server class: the first request gets ``status`` in the provider's own
    error body; later ones are served by the strict fake as usual."""

    def __init__(self, adapter: Adapter, status: int, turns: Sequence[AssistantMessage]) -> None:
        adapter_reply = adapter.error_reply
        base = adapter.fake

        class Failing(base):  # type: ignore[misc, valid-type]
            failed = False

            def handle(self, request: RecordedRequest) -> Reply:
                if not self.failed:
                    self.failed = True
                    return adapter_reply(status)
                return super().handle(request)

        self.server = Failing(turns)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize(
    ("status", "kind"), [(429, "rate_limit"), (500, "server"), (502, "server")]
)
def test_http_failure_is_a_provider_error_of_its_kind(
    adapter: Adapter, status: int, kind: str, stream: bool
) -> None:
    """An HTTP 429 is ``rate_limit`` and a 5xx ``server``, with the status and the provider,
    and none of the provider's own text; the next request goes through."""
    with _Failing(adapter, status, [turn("Ya estoy.")]).server as server:
        model = adapter.model(server)
        with pytest.raises(ProviderError) as caught:
            request_or_stream(model, stream)
        again = request_or_stream(model, stream)
    error = caught.value
    assert not isinstance(error, ProviderConnectionError)
    assert (error.kind, error.status, error.provider) == (kind, status, adapter.provider)
    assert SECRET not in str(error)
    assert SECRET not in error.safe_message
    assert again.message.text == "Ya estoy."


def test_rate_limit_ends_the_agent_turn_as_a_provider_error(adapter: Adapter) -> None:
    """Inside a turn the same 429 ends it as ``provider_error``, said by the harness, with the
    error attached; nothing is run."""
    log: list[str] = []
    with _Failing(adapter, 429, [turn("nunca")]).server as server:
        agent = Agent(model=adapter.model(server), tools=measurement_tools(log))
        result = run(agent.run_turn(QUESTION.text))
    assert (result.stop_reason, result.reply_author) == ("provider_error", "harness")
    assert result.provider_error is not None
    assert result.provider_error.kind == "rate_limit"
    assert SECRET not in result.reply
    assert log == []


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_refused_connection_is_a_connection_error(adapter: Adapter, stream: bool) -> None:
    """Nothing listening on the port: ``ProviderConnectionError`` of kind ``connection``,
    which says the provider is unreachable, not slow (an HTTP transport that reports a
    refused connection as a connect timeout fails here)."""
    with adapter.fake([]) as server:
        url = server.base_url
    model = adapter.make(url, 10.0)
    with pytest.raises(ProviderConnectionError) as caught:
        request_or_stream(model, stream)
    assert (caught.value.kind, caught.value.status) == ("connection", None)
    assert caught.value.provider == adapter.provider
    assert "timed out" not in caught.value.safe_message


class _Slow(FakeHTTPServer):
    """Answers only after a second."""

    def handle(self, request: RecordedRequest) -> Reply:
        time.sleep(1.0)
        return Reply.json(500, {"error": {"message": "too late"}})


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_timeout_is_a_connection_error(adapter: Adapter, stream: bool) -> None:
    """A server slower than the model's timeout: ``ProviderConnectionError`` saying so."""
    with _Slow() as server:
        model = adapter.model(server, timeout=0.2)
        with pytest.raises(ProviderConnectionError) as caught:
            request_or_stream(model, stream)
    assert (caught.value.kind, caught.value.provider) == ("connection", adapter.provider)
    assert "timed out" in caught.value.safe_message


class _Unreadable(FakeHTTPServer):
    """Answers 200 with a body that is not the API's: HTML for JSON, or broken SSE."""

    def handle(self, request: RecordedRequest) -> Reply:
        if isinstance(request.body, dict) and request.body.get("stream") is True:
            return Reply.sse([b"data: {not json\n\n", b"data: [1, 2]\n\n"])
        return Reply(200, b"<html>maintenance</html>", {"content-type": "application/json"})


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_an_unreadable_answer_is_a_bad_response(adapter: Adapter, stream: bool) -> None:
    """A 200 whose body cannot be read as the API's answer is ``bad_response``, never a
    crash and never a turn."""
    with _Unreadable() as server, pytest.raises(ProviderError) as caught:
        request_or_stream(adapter.model(server), stream)
    assert (caught.value.kind, caught.value.provider) == ("bad_response", adapter.provider)
    assert "maintenance" not in str(caught.value)


def test_a_model_serves_one_event_loop_after_another(adapter: Adapter) -> None:
    """Two ``asyncio.run`` calls on one model each get a working client."""
    with adapter.fake([turn("uno"), turn("dos")]) as server:
        model = adapter.model(server)
        texts = [request_or_stream(model, stream).message.text for stream in (False, True)]
    assert texts == ["uno", "dos"]


def test_within_connections_one_loop_shares_one_client_closed_at_the_end(
    adapter: Adapter,
) -> None:
    """Inside ``async with model.connections()`` a loop's requests, streamed or not and two
    at once, share one SDK client (its connections kept alive), closed when the block ends;
    outside it, each request makes and closes a client of its own."""
    made: list[Any] = []
    closed: list[Any] = []
    with adapter.fake([turn(str(n)) for n in range(6)]) as server:
        model = adapter.model(server)
        make = model._client  # type: ignore[attr-defined]

        @contextlib.asynccontextmanager
        async def counted() -> AsyncIterator[Any]:
            async with make() as client:
                made.append(client)
                try:
                    yield client
                finally:
                    closed.append(client)

        model._client = counted  # type: ignore[attr-defined]

        async def shared() -> list[str]:
            async with model.connections():  # type: ignore[attr-defined]
                first = await model.request(ModelRequest([QUESTION]))
                streamed = await collect(model.stream(ModelRequest([QUESTION])))
                both = await asyncio.gather(
                    model.request(ModelRequest([QUESTION])),
                    model.request(ModelRequest([QUESTION])),
                )
                assert (len(made), closed) == (1, [])
            assert isinstance(streamed[-1], ResponseDone)
            replies = [first, streamed[-1].response, *both]
            return [reply.message.text for reply in replies]

        texts = run(shared())
        assert closed == made
        run(model.request(ModelRequest([QUESTION])))
        run(collect(model.stream(ModelRequest([QUESTION]))))
    assert sorted(texts) == ["0", "1", "2", "3"]
    assert len(made) == len(closed) == 3


def test_importing_the_adapter_does_not_import_its_sdk(adapter: Adapter) -> None:
    """``import surefoot`` and its adapters stay fast: the SDK loads on first use only."""
    with adapter.fake([]) as server:
        module = type(adapter.model(server)).__module__
    code = (
        f"import sys, surefoot, {module}, surefoot.testing;"
        f"assert {adapter.sdk!r} not in sys.modules, sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# -- streaming and usage --------------------------------------------------------------------

RICH = turn(
    "Miro tus datos, ñandú 🏋️ — «paso a paso».\nLínea dos. ",
    read("2020-01-01", "call_s1"),
    call(
        "create_routine",
        {"name": "Fuerza", "exercises": [{"id": "sq", "series": [{"reps": 5}, {"reps": 3}]}]},
        call_id="call_s2",
    ),
)


def request_or_stream(model: Model, stream: bool) -> ModelResponse:
    """The response to one question, asked as JSON or as a stream (its final response)."""
    request = ModelRequest([QUESTION])
    if not stream:
        return run(model.request(request))
    events = run(collect(model.stream(request)))
    assert isinstance(events[-1], ResponseDone)
    return events[-1].response


def test_stream_gives_the_same_response_as_json(adapter: Adapter) -> None:
    """The stream's final response equals the JSON one (text, calls, arguments, finish,
    usage), and its text deltas add up to the text."""
    with adapter.fake([RICH]) as server:
        whole = run(adapter.model(server).request(ModelRequest([QUESTION])))
    with adapter.fake([RICH]) as server:
        events = run(collect(adapter.model(server).stream(ModelRequest([QUESTION]))))
    final = events[-1]
    assert isinstance(final, ResponseDone)
    assert all(isinstance(e, TextDelta) for e in events[:-1])
    assert final.response == whole
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == RICH.text
    assert [(c.call_id, c.name, c.arguments) for c in whole.message.tool_calls] == [
        (c.call_id, c.name, c.arguments) for c in RICH.tool_calls
    ]
    assert whole.message.finish == "tool_use"


COUNTED = ("input_tokens", "output_tokens")
CACHE_COUNTS = ("cache_creation_input_tokens", "cache_read_input_tokens")
"""The input kinds apart from ``input_tokens``: every adapter reports cache reads where its
API counts them; Anthropic reports cache writes too."""


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_usage_is_counted(adapter: Adapter, stream: bool) -> None:
    """Every response reports its input and output tokens as positive integers (a provider may
    add counters of its own), and a longer transcript reports more input tokens."""
    with adapter.fake([turn("Uno."), turn("Dos.")]) as server:
        model = adapter.model(server)
        first = request_or_stream(model, stream)
        longer = ModelRequest([QUESTION, first.message, UserMessage("¿Y ahora? " * 40)])
        if stream:
            events = run(collect(model.stream(longer)))
            assert isinstance(events[-1], ResponseDone)
            second = events[-1].response
        else:
            second = run(model.request(longer))
    for response in (first, second):
        usage = response.usage
        assert all(type(usage[key]) is int and usage[key] > 0 for key in COUNTED)
        # kinds that never overlap (no total): adding up the values counts each token once
        assert set(usage) <= {*COUNTED, *CACHE_COUNTS}
    assert second.usage["input_tokens"] > first.usage["input_tokens"]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_cached_input_is_counted_once(adapter: Adapter, stream: bool) -> None:
    """Input tokens the API read from its prompt cache are ``cache_read_input_tokens`` and never
    also ``input_tokens``: the same answer with 1500 of them has the same input and output
    counts as without, and its values add up to 1500 more."""
    with adapter.fake([turn("Uno.")]) as server:
        plain = request_or_stream(adapter.model(server), stream).usage
    with adapter.fake([turn("Uno.")], cached_input_tokens=1500) as server:
        cached = request_or_stream(adapter.model(server), stream).usage
    assert cached["cache_read_input_tokens"] == 1500
    assert {key: cached[key] for key in COUNTED} == {key: plain[key] for key in COUNTED}
    assert sum(cached.values()) == sum(plain.values()) + 1500
    assert set(cached) <= {*COUNTED, *CACHE_COUNTS}
