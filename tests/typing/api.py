"""Type-checked, never run: the public API reads as documented to a type checker.

mypy checks this file (see ``[tool.mypy] files``); pytest does not collect it.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any, assert_type

from surefoot import (
    Agent,
    CalendarDate,
    MemoryJournal,
    Ok,
    Outcome,
    Recovery,
    Tool,
    ToolContext,
    ToolError,
    ToolSet,
    TurnResult,
)
from surefoot.mcp import IDEMPOTENCY_KEY, ToolServer, connect
from surefoot.otel import OtelTracer
from surefoot.outcome import from_record, to_record
from surefoot.testing import ScriptedModel, call, turn
from surefoot.tracing import NO_TRACING, Tracer

tools = ToolSet()


@tools.tool
def read_weight(date: CalendarDate) -> dict[str, Any] | ToolError:
    """Read one date."""
    return {"date": date.isoformat()}


@tools.tool(effect="write", idempotent=True)
def save_weight(ctx: ToolContext, weight_kg: float) -> dict[str, Any]:
    """Save a weight."""
    assert_type(ctx.key, str | None)
    return {"weight_kg": weight_kg}


assert_type(read_weight, Tool)
assert_type(save_weight, Tool)

outcome: Outcome = from_record({"ok": {}})
if isinstance(outcome, ToolError):
    assert_type(outcome.recovery, Recovery)
    assert_type(outcome.recoverable, bool)
else:
    assert_type(outcome, Ok)
    assert_type(outcome.data, dict[str, Any])
assert_type(to_record(outcome), dict[str, Any])

agent = Agent(
    model=ScriptedModel([turn(call("read_weight", {"date": "2020-01-01"})), turn("ok")]),
    tools=tools,
    journal=MemoryJournal(),
    lang="pt",
)
result = agent.run_turn_sync("?")
assert_type(result, TurnResult)


# -- the optional extras: tracing and MCP -------------------------------------------------------

traced = Agent(model=ScriptedModel([]), tools=tools, tracer=OtelTracer(capture_content=False))
assert_type(traced.tracer, Tracer)
untraced: Tracer = NO_TRACING
server = ToolServer(tools, executor=traced.executor, open_world=("save_weight",))
meta: dict[str, str] = {IDEMPOTENCY_KEY: "key-1"}
remote: AbstractAsyncContextManager[ToolSet] = connect("http://127.0.0.1:8765/mcp", trusted=False)
