"""surefoot's MCP server, driven by the official SDK's client over stdio and Streamable HTTP.

The server runs in its own process (``mcp_weights_app.py``), which logs every handler run to
a file: the tests count real effects there, not what the server says about them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from jsonschema import Draft202012Validator
from mcp import Client, StdioServerParameters

from surefoot.mcp import ERROR_SCHEMA, IDEMPOTENCY_KEY

APP = Path(__file__).parent / "mcp_weights_app.py"
TIMEOUT = 30.0


def handler_runs(calls: Path, tool: str | None = None) -> list[dict[str, Any]]:
    """The handler runs the app logged (of ``tool`` only, if given)."""
    if not calls.exists():
        return []
    runs = [json.loads(line) for line in calls.read_text(encoding="utf-8").splitlines()]
    return [r for r in runs if tool is None or r["tool"] == tool]


@pytest.fixture
def calls(tmp_path: Path) -> Path:
    return tmp_path / "calls.jsonl"


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The app over Streamable HTTP on 127.0.0.1 (one process for the module): its URL and
    its calls file."""
    calls = tmp_path_factory.mktemp("mcp-http") / "calls.jsonl"
    proc = subprocess.Popen(
        [sys.executable, str(APP), str(calls), "--http"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("PORT "), (line, proc.stderr.read() if proc.stderr else "")
        url = f"http://127.0.0.1:{int(line.split()[1])}/mcp"
        _wait_for_http(url)
        yield url, calls
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def _wait_for_http(url: str) -> None:
    import httpx

    deadline = time.monotonic() + 15
    while True:
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            assert time.monotonic() < deadline, "the MCP HTTP server did not start in 15 s"
            time.sleep(0.1)


Connect = Any


@pytest.fixture(params=["stdio", "http"])
def connect(
    request: pytest.FixtureRequest, calls: Path, http_server: tuple[str, Path]
) -> tuple[Connect, Path]:
    """A way to open a client on the app over one transport, and that app's calls file."""
    if request.param == "stdio":
        # the whole environment: the SDK passes only a few variables, and without PYTHONPATH
        # the server would import whichever surefoot is installed, not the one under test
        params = StdioServerParameters(
            command=sys.executable, args=[str(APP), str(calls)], env=dict(os.environ)
        )

        def open_stdio(**options: Any) -> Client:
            return Client(params, read_timeout_seconds=TIMEOUT, **options)

        return open_stdio, calls
    url, http_calls = http_server

    def open_http(**options: Any) -> Client:
        return Client(url, read_timeout_seconds=TIMEOUT, **options)

    return open_http, http_calls


@asynccontextmanager
async def bounded(client: Client) -> AsyncIterator[Client]:
    """``client``, entered, with the whole block bounded in time."""
    with anyio.fail_after(60):
        async with client as entered:
            yield entered


def run(coro: Any) -> Any:
    return anyio.run(lambda: coro)


async def _list(open_client: Connect) -> dict[str, types.Tool]:
    async with bounded(open_client()) as client:
        listed = await client.list_tools()
        return {t.name: t for t in listed.tools}


def test_tools_are_listed_with_honest_annotations(connect: tuple[Connect, Path]) -> None:
    """Each tool's annotations follow its declaration (a write is destructive unless declared
    additive, an idempotent upsert included); the input schema is the one the argument model
    generates; open-world is only what the app says reaches outside."""
    open_client, _ = connect
    tools = anyio.run(_list, open_client)
    assert set(tools) == {
        "read_weight",
        "save_weight",
        "add_entry",
        "clear_entries",
        "post_message",
    }
    hints = {
        name: (
            t.annotations.read_only_hint,
            t.annotations.destructive_hint,
            t.annotations.idempotent_hint,
            t.annotations.open_world_hint,
        )
        for name, t in tools.items()
        if t.annotations is not None
    }
    assert hints == {
        "read_weight": (True, False, True, False),
        "save_weight": (False, True, True, False),
        "add_entry": (False, False, False, False),
        "clear_entries": (False, True, False, False),
        "post_message": (False, True, False, True),
    }
    read = tools["read_weight"].input_schema
    assert read["required"] == ["date"]
    assert read["additionalProperties"] is False
    assert tools["save_weight"].input_schema["properties"]["kg"]["type"] == "number"


def test_every_tool_has_a_title(connect: tuple[Connect, Path]) -> None:
    """A declared title is listed as it is; the others are made from the name (on the tool
    and in its annotations)."""
    open_client, _ = connect
    tools = anyio.run(_list, open_client)
    titles = {name: t.title for name, t in tools.items()}
    assert titles == {
        "read_weight": "Read weight",
        "save_weight": "Save weight",
        "add_entry": "Add a diary entry",
        "clear_entries": "Clear entries",
        "post_message": "Post message",
    }
    assert all(t.annotations and t.annotations.title == t.title for t in tools.values())


def test_output_schemas_describe_the_result_or_the_error(connect: tuple[Connect, Path]) -> None:
    """Every input and output schema is valid draft 2020-12; an output schema is the
    result's (from the return annotation) or the error envelope, and a real one refuses
    what the tool never returns."""
    open_client, _ = connect
    tools = anyio.run(_list, open_client)
    for tool in tools.values():
        Draft202012Validator.check_schema(tool.input_schema)
        assert tool.output_schema is not None
        Draft202012Validator.check_schema(tool.output_schema)
        assert tool.output_schema["type"] == "object"
        assert ERROR_SCHEMA in tool.output_schema["anyOf"]
    weighed = Draft202012Validator(tools["read_weight"].output_schema)
    assert weighed.is_valid({"date": "2020-01-01", "weight_kg": 76.0})
    assert not weighed.is_valid({"date": "2020-01-01"})
    assert not weighed.is_valid({"error": {"code": "not_found"}})


async def _read_both(open_client: Connect) -> tuple[types.CallToolResult, types.CallToolResult]:
    async with bounded(open_client()) as client:
        missing = await client.call_tool("read_weight", {"date": "2020-01-02"})
        found = await client.call_tool("read_weight", {"date": "2020-01-01"})
        return missing, found


def test_not_found_is_an_error_with_the_envelope_then_the_fallback_succeeds(
    connect: tuple[Connect, Path],
) -> None:
    """Scenario 1's two reads: ``isError`` with the envelope in ``structuredContent`` and the
    safe message as text; then a success whose ``structuredContent`` is the data."""
    open_client, _ = connect
    missing, found = anyio.run(_read_both, open_client)
    assert missing.is_error is True
    assert missing.structured_content == {
        "error": {
            "code": "not_found",
            "message": "No weight is saved for 2020-01-02.",
            "recovery": "choose_alternative",
            "recoverable": True,
            "details": [],
        }
    }
    [text] = [c.text for c in missing.content if isinstance(c, types.TextContent)]
    assert json.loads(text) == missing.structured_content  # code, recovery, details too
    assert found.is_error is False
    assert found.structured_content == {"date": "2020-01-01", "weight_kg": 76.0}
    assert json.loads(found.content[0].text) == found.structured_content  # type: ignore[union-attr]


async def _every_kind_of_result(
    open_client: Connect,
) -> tuple[dict[str, types.Tool], list[tuple[str, types.CallToolResult]]]:
    async with bounded(open_client()) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        calls: list[tuple[str, dict[str, Any]]] = [
            ("read_weight", {"date": "2020-01-01"}),
            ("read_weight", {"date": "2020-01-02"}),
            ("save_weight", {"date": "2020-01-01", "kg": "76kg"}),
            ("save_weight", {"date": "2020-01-03", "kg": 77.5}),
            ("clear_entries", {}),
        ]
        return listed, [(name, await client.call_tool(name, args)) for name, args in calls]


def test_every_structured_content_satisfies_the_output_schema(
    connect: tuple[Connect, Path],
) -> None:
    """Successes and errors alike match their tool's output schema (the TypeScript SDK, and
    so the MCP Inspector, checks errors too); an error's text is its envelope as JSON."""
    open_client, _ = connect
    listed, results = anyio.run(_every_kind_of_result, open_client)
    assert [r.is_error for _, r in results] == [False, True, True, False, True]
    for name, result in results:
        Draft202012Validator(listed[name].output_schema).validate(result.structured_content)
        [text] = [c.text for c in result.content if isinstance(c, types.TextContent)]
        assert json.loads(text) == result.structured_content


async def _invalid(open_client: Connect) -> types.CallToolResult:
    async with bounded(open_client()) as client:
        return await client.call_tool("save_weight", {"date": "02/01/2020", "kg": "76kg"})


def test_invalid_arguments_never_reach_the_handler(connect: tuple[Connect, Path]) -> None:
    """Arguments the model gets wrong come back as ``invalid_arguments`` with details."""
    open_client, calls = connect
    before = len(handler_runs(calls, "save_weight"))
    result = anyio.run(_invalid, open_client)
    assert result.is_error is True
    error = result.structured_content["error"]
    assert (error["code"], error["recovery"]) == ("invalid_arguments", "correct_arguments")
    assert {d["field"] for d in error["details"]} == {"date", "kg"}
    assert len(handler_runs(calls, "save_weight")) == before


async def _write_twice(open_client: Connect, key: str, text: str) -> list[types.CallToolResult]:
    results = []
    for _ in range(2):  # a client that retries on a new connection (over stdio: a new process)
        async with bounded(open_client()) as client:
            results.append(
                await client.call_tool("add_entry", {"text": text}, meta={IDEMPOTENCY_KEY: key})
            )
    async with bounded(open_client()) as client:
        results.append(
            await client.call_tool("add_entry", {"text": text + "!"}, meta={IDEMPOTENCY_KEY: key})
        )
    return results


def test_a_retried_write_with_the_same_key_runs_once(connect: tuple[Connect, Path]) -> None:
    """The same key twice: one handler run, the second answer replayed from the ledger; the
    same key with other arguments is refused, not run."""
    open_client, calls = connect
    first, again, other = anyio.run(_write_twice, open_client, "retry-1", "leg day")
    assert first.structured_content == again.structured_content == {"added": "leg day"}
    assert not first.is_error
    assert not again.is_error
    assert other.is_error is True
    assert other.structured_content["error"]["code"] == "invalid_arguments"
    runs = [r for r in handler_runs(calls, "add_entry") if r["arguments"]["text"] == "leg day"]
    assert len(runs) == 1


async def _retry_in_one_session(open_client: Connect, key: str) -> list[types.CallToolResult]:
    async with bounded(open_client()) as client:
        return [
            await client.call_tool("add_entry", {"text": "core"}, meta={IDEMPOTENCY_KEY: key}),
            await client.call_tool("add_entry", {"text": "core"}, meta={IDEMPOTENCY_KEY: key}),
            await client.call_tool("add_entry", {"text": "core"}),
            await client.call_tool("add_entry", {"text": "core"}),
        ]


def test_the_key_decides_what_is_the_same_write(connect: tuple[Connect, Path]) -> None:
    """Within one connection: the keyed write twice runs once; without a key, each call is a
    new write (the client asked for two)."""
    open_client, calls = connect
    before = len(handler_runs(calls, "add_entry"))
    results = anyio.run(_retry_in_one_session, open_client, "retry-core")
    assert all(r.structured_content == {"added": "core"} for r in results)
    assert len(handler_runs(calls, "add_entry")) - before == 3


async def _clear(open_client: Connect, **options: Any) -> types.CallToolResult:
    async with bounded(open_client(**options)) as client:
        return await client.call_tool("clear_entries", {}, meta={IDEMPOTENCY_KEY: "clear-1"})


def test_a_write_that_needs_confirmation_is_refused_when_the_client_cannot_ask(
    connect: tuple[Connect, Path],
) -> None:
    """A client without elicitation gets ``denied`` and the handler does not run."""
    open_client, calls = connect
    before = len(handler_runs(calls, "clear_entries"))
    result = anyio.run(_clear, open_client)
    assert result.is_error is True
    error = result.structured_content["error"]
    assert (error["code"], error["recovery"]) == ("denied", "choose_alternative")
    assert "confirmation" in error["message"]
    assert len(handler_runs(calls, "clear_entries")) == before


def _answering(action: str, approve: bool | None) -> tuple[Any, list[str]]:
    asked: list[str] = []

    async def elicit(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        content = None if approve is None else {"approve": approve}
        return types.ElicitResult(action=action, content=content)  # type: ignore[arg-type]

    return elicit, asked


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize(
    ("action", "approve"), [("decline", None), ("cancel", None), ("accept", False)]
)
def test_a_write_that_needs_confirmation_does_not_run_without_approval(
    connect: tuple[Connect, Path], mode: str, action: str, approve: bool | None
) -> None:
    """The person is asked (an ``input_required`` round on 2026-07-28, an elicitation request
    on a handshake connection); anything but an explicit yes is ``denied``, nothing runs."""
    open_client, calls = connect
    before = len(handler_runs(calls, "clear_entries"))
    elicit, asked = _answering(action, approve)
    result = anyio.run(lambda: _clear(open_client, elicitation_callback=elicit, mode=mode))
    assert len(asked) == 1
    assert "clear_entries" in asked[0]
    assert result.is_error is True
    assert result.structured_content["error"]["code"] == "denied"
    assert len(handler_runs(calls, "clear_entries")) == before


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_an_approved_write_runs_once(
    connect: tuple[Connect, Path], mode: str, tmp_path: Path
) -> None:
    """Approved, it runs; a retry with its key is answered from the ledger without asking."""
    open_client, calls = connect
    key = f"clear-{mode}-{tmp_path.name}"
    elicit, asked = _answering("accept", True)

    async def twice() -> list[types.CallToolResult]:
        async with bounded(open_client(elicitation_callback=elicit, mode=mode)) as client:
            return [
                await client.call_tool("clear_entries", {}, meta={IDEMPOTENCY_KEY: key})
                for _ in range(2)
            ]

    before = len(handler_runs(calls, "clear_entries"))
    results = anyio.run(twice)
    assert [r.structured_content for r in results] == [{"cleared": True}] * 2
    assert len(asked) == 1
    assert len(handler_runs(calls, "clear_entries")) - before == 1


# -- malformed requests --------------------------------------------------------------------

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
# (the tools/call params, the problems the error must name)
MALFORMED: list[tuple[Any, list[dict[str, str]]]] = [
    ({"arguments": {}}, [{"field": "params.name", "problem": "is required"}]),
    (
        {"name": "read_weight", "arguments": "2020-01-01"},
        [{"field": "params.arguments", "problem": "must be an object"}],
    ),
    ({"name": 7}, [{"field": "params.name", "problem": "must be a string"}]),
]


def _raw_stdio(calls: Path, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each request's JSON-RPC response from the app over stdio, after the handshake (each
    read before the next is sent)."""
    proc = subprocess.Popen(
        [sys.executable, str(APP), str(calls)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    answers = []
    watchdog = threading.Timer(TIMEOUT, proc.kill)  # a server that never answers ends
    watchdog.start()
    try:
        messages: list[dict[str, Any]] = [INITIALIZE, INITIALIZED, *requests]
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            if "id" in message:
                answers.append(json.loads(proc.stdout.readline()))
    finally:
        proc.stdin.close()
        proc.wait(timeout=TIMEOUT)
        watchdog.cancel()
        proc.stdout.close()
    return answers[1:]


def _raw_http(url: str, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each request's JSON-RPC response from the app over Streamable HTTP."""
    import httpx

    headers = {"accept": "application/json, text/event-stream"}

    def post(client: httpx.Client, message: dict[str, Any]) -> Any:
        response = client.post(url, json=message, headers=headers, timeout=TIMEOUT)
        if "id" not in message:
            return None
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            data = [ln[5:] for ln in response.text.splitlines() if ln.startswith("data:")]
            return json.loads(data[-1])
        return response.json()

    with httpx.Client() as client:
        first = client.post(url, json=INITIALIZE, headers=headers, timeout=TIMEOUT)
        headers["mcp-session-id"] = first.headers["mcp-session-id"]
        headers["mcp-protocol-version"] = "2025-06-18"
        post(client, INITIALIZED)
        return [post(client, message) for message in requests]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_malformed_request_says_what_is_wrong_in_the_protocols_terms(
    transport: str, calls: Path, http_server: tuple[str, Path]
) -> None:
    """A ``tools/call`` whose params the protocol refuses is ``invalid params`` naming each
    field and what it must be, with none of pydantic's text; nothing runs."""
    requests = [
        {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}
        for n, (params, _) in enumerate(MALFORMED, start=1)
    ]
    url, http_calls = http_server
    before = len(handler_runs(http_calls))
    answers = _raw_stdio(calls, requests) if transport == "stdio" else _raw_http(url, requests)
    assert [a["id"] for a in answers] == [1, 2, 3]
    for answer, (_, problems) in zip(answers, MALFORMED, strict=True):
        error = answer["error"]
        assert error["code"] == types.INVALID_PARAMS
        assert error["data"] == {"problems": problems}
        said = "; ".join(f"{p['field']} {p['problem']}" for p in problems)
        assert error["message"] == f"Invalid request parameters for tools/call: {said}"
        for internal in ("Input should", "valid dictionary", "pydantic", "CallToolRequestParams"):
            assert internal not in json.dumps(error)
    assert handler_runs(calls) == []
    assert len(handler_runs(http_calls)) == before
