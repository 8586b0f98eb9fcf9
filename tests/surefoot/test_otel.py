"""``surefoot.otel`` on its own: spans of a failed model request, of calls served over MCP,
and the promise that the library does not load OpenTelemetry or MCP unless asked."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from surefoot import (
    Agent,
    ModelRequest,
    ModelResponse,
    ProviderError,
    Recovery,
    ToolError,
    ToolSet,
)
from surefoot.executor import Executor, TurnState
from surefoot.messages import ToolCall
from surefoot.otel import OtelTracer
from surefoot.testing import FunctionModel, ScriptedModel, call, turn


def traced() -> tuple[OtelTracer, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return OtelTracer(provider), exporter


class Overloaded:
    """A model whose provider is overloaded."""

    provider = "anthropic"
    model_name = "claude-test"

    async def request(self, request: ModelRequest) -> ModelResponse:
        raise ProviderError(
            provider="anthropic", status=529, kind="overloaded", safe_message="overloaded"
        )

    def stream(self, request: ModelRequest) -> Any:
        raise NotImplementedError


def test_a_failed_model_request_is_an_error_span() -> None:
    """The ``chat`` span carries the provider's error kind; the turn ends ``provider_error``."""
    tracer, exporter = traced()
    agent = Agent(model=Overloaded(), tools=ToolSet(), tracer=tracer, lang="en")
    result = asyncio.run(agent.run_turn("hi"))
    assert result.stop_reason == "provider_error"
    chat, whole = exporter.get_finished_spans()
    assert chat.name == "chat claude-test"
    assert dict(chat.attributes or {})["error.type"] == "overloaded"
    assert dict(chat.attributes or {})["gen_ai.provider.name"] == "anthropic"
    assert chat.status.status_code is StatusCode.ERROR
    assert whole.name == "invoke_agent surefoot"
    assert dict(whole.attributes or {})["surefoot.stop_reason"] == "provider_error"


def test_calls_that_never_run_get_a_span_too() -> None:
    """A call to a missing tool and a call skipped after a stop each get their span."""
    tools = ToolSet()

    @tools.tool
    def halt() -> ToolError:
        """Stop."""
        return ToolError("broken", "It broke.", Recovery.STOP_TURN)

    tracer, exporter = traced()
    executor = Executor(tools, tracer=tracer)
    calls = [ToolCall("a", "nope", {}), ToolCall("b", "halt", {}), ToolCall("c", "halt", {})]
    asyncio.run(executor.run_batch(calls, TurnState("c1", 0, lang="en")))
    spans = [(s.name, dict(s.attributes or {})) for s in exporter.get_finished_spans()]
    assert [(n, a["gen_ai.tool.call.id"], a["error.type"]) for n, a in spans] == [
        ("execute_tool nope", "a", "unknown_tool"),
        ("execute_tool halt", "b", "broken"),
        ("execute_tool halt", "c", "not_executed"),
    ]
    assert "surefoot.tool.effect" not in spans[0][1]


def test_a_scripted_turn_nests_its_spans() -> None:
    """Requests and calls are children of the turn's span, in order."""
    tools = ToolSet()

    @tools.tool
    def ping() -> dict[str, Any]:
        """Answer."""
        return {"pong": True}

    tracer, exporter = traced()
    model = ScriptedModel([turn(call("ping")), turn("done")])
    asyncio.run(Agent(model=model, tools=tools, tracer=tracer, app_name="Demo").run_turn("go"))
    spans = exporter.get_finished_spans()
    names = [s.name for s in spans]
    assert names == ["chat script", "execute_tool ping", "chat script", "invoke_agent Demo"]
    root = spans[-1]
    assert all(
        s.parent is not None and s.parent.span_id == root.context.span_id for s in spans[:-1]
    )


def test_usage_attributes_count_cached_input_in_the_input() -> None:
    """``gen_ai.usage.input_tokens`` is all the input, cached included, as the convention asks;
    the cache reads and writes get their own attributes."""
    usage = {
        "input_tokens": 40,
        "cache_read_input_tokens": 1500,
        "cache_creation_input_tokens": 60,
        "output_tokens": 9,
    }
    model = FunctionModel(lambda request: ModelResponse(turn("Hola."), usage=usage))
    tracer, exporter = traced()
    asyncio.run(Agent(model=model, tools=ToolSet(), tracer=tracer, lang="en").run_turn("hi"))
    chat = next(s for s in exporter.get_finished_spans() if s.name.startswith("chat "))
    attributes = dict(chat.attributes or {})
    assert {k: v for k, v in attributes.items() if k.startswith("gen_ai.usage.")} == {
        "gen_ai.usage.input_tokens": 1600,
        "gen_ai.usage.output_tokens": 9,
        "gen_ai.usage.cache_read.input_tokens": 1500,
        "gen_ai.usage.cache_creation.input_tokens": 60,
    }


def test_importing_surefoot_loads_neither_opentelemetry_nor_mcp() -> None:
    """``import surefoot`` (and its tracing hook) loads neither SDK: both are extras."""
    code = (
        "import sys, surefoot, surefoot.tracing\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('opentelemetry', 'mcp', 'mcp_types')))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert proc.stdout.strip() == "[]"
