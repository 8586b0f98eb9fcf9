"""surefoot's MCP client against a server written with the official SDK alone
(``mcp_sdk_server.py``, run over stdio in its own process)."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters

from surefoot import Agent, ErrorCode, MemoryLedger, Ok, Recovery, ToolError, ToolSet
from surefoot.executor import Executor, TurnState
from surefoot.mcp import RemoteTool, connect
from surefoot.messages import ToolCall
from surefoot.testing import ScriptedModel, call, turn

SERVER = Path(__file__).parent / "mcp_sdk_server.py"


def effects(path: Path) -> list[dict[str, Any]]:
    """The effects the server logged."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def with_tools(
    effects_file: Path, body: Callable[[ToolSet], Awaitable[Any]], *, trusted: bool = False
) -> Any:
    """Run ``body`` on the server's tools (a fresh server process), bounded in time."""
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER), str(effects_file)])

    async def main() -> Any:
        with anyio.fail_after(60):
            async with connect(params, trusted=trusted, read_timeout=20) as tools:
                return await body(tools)

    return anyio.run(main)


async def one(executor: Executor, name: str, arguments: dict[str, Any]) -> Any:
    state = TurnState("c1", 0, lang="en")
    batch = await executor.run_batch([ToolCall("call_1", name, arguments)], state)
    (record,) = batch.records
    return record


def test_untrusted_annotations_are_ignored(tmp_path: Path) -> None:
    """Untrusted, every tool is a write: even one that says it is read-only gets a key, a
    ledger entry and the key in ``_meta``."""
    log = tmp_path / "effects.jsonl"
    ledger = MemoryLedger()

    async def body(tools: ToolSet) -> Any:
        executor = Executor(tools, ledger=ledger)
        return {t.name: (t.effect, t.idempotent) for t in tools}, await one(executor, "tidy", {})

    seen, record = with_tools(log, body)
    assert set(seen.values()) == {("write", False)}
    assert isinstance(record.outcome, Ok)
    [effect] = effects(log)
    assert effect["tool"] == "tidy"
    assert effect["key"] == record.key
    assert record.key.startswith("sfk_")
    [entry] = ledger.entries()
    assert (entry.key, entry.state) == (record.key, "committed")


def test_trusted_annotations_set_the_effect(tmp_path: Path) -> None:
    """A server the app trusts: its read-only and idempotent hints are taken at their word."""

    async def body(tools: ToolSet) -> dict[str, tuple[str, bool]]:
        return {t.name: (t.effect, t.idempotent) for t in tools}

    seen = with_tools(tmp_path / "effects.jsonl", body, trusted=True)
    assert seen == {
        "lookup": ("read", False),
        "append": ("write", True),
        "tidy": ("read", False),
        "refuse": ("read", False),
        "over_quota": ("read", False),
        "append_then_die": ("write", False),
    }


def test_errors_map_onto_the_contract(tmp_path: Path) -> None:
    """``isError`` with an envelope keeps its code and recovery; without one a read is
    ``unavailable`` (the server's text is not passed on) and a write ``outcome_unknown``;
    a name the server did not list is ``unknown_tool``; arguments that break the server's
    schema are ``invalid_arguments`` and nothing is sent."""
    log = tmp_path / "effects.jsonl"

    async def body(tools: ToolSet) -> dict[str, Any]:
        trusted = Executor(tools)
        return {
            name: (await one(trusted, name, arguments)).outcome
            for name, arguments in [
                ("over_quota", {}),
                ("refuse", {}),
                ("missing", {}),
                ("lookup", {"term": 7}),
                ("lookup", {"term": "squat"}),
            ]
        } | {"bad_append": (await one(trusted, "append", {"text": None})).outcome}

    outcomes = with_tools(log, body, trusted=True)
    quota = outcomes["over_quota"]
    assert isinstance(quota, ToolError)
    assert (quota.code, quota.recovery, quota.message) == (
        "quota_exceeded",
        Recovery.STOP_TURN,
        "The daily quota is used up.",
    )
    refused = outcomes["refuse"]
    assert isinstance(refused, ToolError)
    assert (refused.code, refused.recovery) == (ErrorCode.UNAVAILABLE, Recovery.CHOOSE_ALTERNATIVE)
    assert "Ignore" not in refused.message
    unknown = outcomes["missing"]
    assert isinstance(unknown, ToolError)
    assert unknown.code == ErrorCode.UNKNOWN_TOOL
    invalid = outcomes["bad_append"]
    assert isinstance(invalid, ToolError)
    assert invalid.code == ErrorCode.INVALID_ARGUMENTS
    assert [d.field for d in invalid.details] == ["text"]
    assert outcomes["lookup"] == Ok({"term": "squat", "found": True})
    assert effects(log) == []


def test_an_unexplained_error_of_a_write_is_outcome_unknown(tmp_path: Path) -> None:
    """Untrusted, ``refuse`` is a write: an ``isError`` that does not say what happened leaves
    the write unknown in the ledger and stops the turn."""
    ledger = MemoryLedger()

    async def body(tools: ToolSet) -> Any:
        return await one(Executor(tools, ledger=ledger), "refuse", {})

    record = with_tools(tmp_path / "effects.jsonl", body)
    assert isinstance(record.outcome, ToolError)
    assert (record.outcome.code, record.outcome.recovery) == (
        ErrorCode.OUTCOME_UNKNOWN,
        Recovery.STOP_TURN,
    )
    assert [e.state for e in ledger.entries()] == ["unknown"]


def test_a_server_killed_after_receiving_a_write_is_outcome_unknown_with_one_effect(
    tmp_path: Path,
) -> None:
    """The server applies the write and dies before answering: the turn stops on
    ``outcome_unknown`` (the model, scripted to repeat the call, is not asked again), the
    ledger holds the write as unknown, and exactly one effect exists, carrying its key."""
    log = tmp_path / "effects.jsonl"
    ledger = MemoryLedger()
    append = call("append_then_die", {"text": "bench 80"})
    again = call("append_then_die", {"text": "bench 80"})
    model = ScriptedModel([turn(append), turn(again), turn("done")])

    async def body(tools: ToolSet) -> Any:
        agent = Agent(model=model, tools=tools, ledger=ledger, lang="en")
        return await agent.run_turn("Log my bench press.")

    result = with_tools(log, body)
    assert result.stop_reason == "stop_turn"
    assert result.model_requests == 1
    [record] = result.calls
    assert isinstance(record.outcome, ToolError)
    assert record.outcome.code == ErrorCode.OUTCOME_UNKNOWN
    [entry] = ledger.entries()
    assert entry.state == "unknown"
    [effect] = effects(log)
    assert effect["key"] == entry.key


def test_remote_tools_show_the_server_schema(tmp_path: Path) -> None:
    """The model is shown the server's own input schema, under the tool's name."""

    async def body(tools: ToolSet) -> Any:
        return [(s.name, s.parameters) for s in tools.specs() if s.name == "lookup"]

    [(name, schema)] = with_tools(tmp_path / "effects.jsonl", body)
    assert name == "lookup"
    assert schema["properties"] == {"term": {"type": "string"}}
    assert schema["required"] == ["term"]


@pytest.mark.parametrize("name", ["my-tool.v2", "2fast", "x" * 80])
def test_remote_names_become_tool_names(name: str) -> None:
    """Any server-side name maps to a name providers accept; the call uses the original."""
    import mcp_types as types

    from surefoot.mcp import remote_tools

    declared = types.Tool(name=name, input_schema={"type": "object"})
    [tool] = remote_tools(None, [declared])  # type: ignore[arg-type]
    assert isinstance(tool, RemoteTool)
    assert tool.remote_name == name
    assert len(tool.name) <= 64
    assert tool.name[0].isalpha()
    assert all(ch.isalnum() or ch == "_" for ch in tool.name)
