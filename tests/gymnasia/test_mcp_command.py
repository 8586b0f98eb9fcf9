"""``gymnasia mcp`` through the official SDK's MCP client, over stdio and Streamable HTTP:
scenario 1 and scenario 2 (a write whose storage fails) give the outcomes ``gymnasia ask``
gives, on the same kind of database, through the same ledger."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from surefoot.mcp import IDEMPOTENCY_KEY

FALLBACK = (
    "Look up my weight for 2020-01-02; if there is none, look up 2020-01-01. "
    "Don't create or change anything."
)
SAVE = "Save my weight: 77.0 kg on 2020-01-03."
BEFORE_COMMIT = "write_measurement:before_commit"
READ_ERROR = ("--fault", "read_measurement:read_error")


def gym(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gymnasia", *args, "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def gym_json(db: Path, *args: str) -> Any:
    proc = gym(db, *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def seeded(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    db = directory / "gymnasia.db"
    proc = gym(db, "measurements", "add", "2020-01-01", "--weight-kg", "76")
    assert proc.returncode == 0, proc.stderr
    return db


def ask(db: Path, message: str, *extra: str) -> dict[str, Any]:
    proc = gym(db, "ask", message, "--json", "--lang", "en", "--today", "2020-01-05", *extra)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def mcp_server(db: Path, transport: str, *extra: str) -> Iterator[Any]:
    """What to hand ``mcp.Client`` for ``gymnasia mcp`` on ``db`` over ``transport``."""
    args = ["-m", "gymnasia", "mcp", "--db", str(db), "--lang", "en", *extra]
    if transport == "stdio":
        # the whole environment (the SDK passes only a few variables): PYTHONPATH included, the
        # server imports the gymnasia under test, not whichever is installed
        yield StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ))
        return
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, *args, "--transport", "http", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        _wait_for(url, proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        if proc.stderr is not None:
            proc.stderr.close()


def _wait_for(url: str, proc: subprocess.Popen[str]) -> None:
    import httpx

    deadline = time.monotonic() + 30
    while True:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else "exited"
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            assert time.monotonic() < deadline, "gymnasia mcp did not start in 30 s"
            time.sleep(0.1)


def call_all(server: Any, calls: list[tuple[str, dict[str, Any], dict[str, Any] | None]]) -> Any:
    """Call each ``(tool, arguments, meta)`` in order on one connection."""

    async def main() -> list[types.CallToolResult]:
        with anyio.fail_after(90):
            async with Client(server, read_timeout_seconds=30) as client:
                return [await client.call_tool(n, a, meta=m) for n, a, m in calls]  # type: ignore[arg-type]

    return anyio.run(main)


def as_outcome(result: types.CallToolResult) -> dict[str, Any]:
    """An MCP result in the shape ``ask --json`` prints an outcome."""
    if not result.is_error:
        return {"ok": result.structured_content}
    error = result.structured_content["error"]
    outcome = {
        "kind": "tool_error",
        "version": 1,
        "is_error": True,
        "error": error["code"],
        "message": error["message"],
        "recovery": error["recovery"],
        "recoverable": error["recoverable"],
    }
    if error["details"]:
        outcome["details"] = error["details"]
    return outcome


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize(
    ("fault", "codes"),
    [((), ["not_found", None]), (READ_ERROR, ["unavailable", "unavailable"])],
    ids=["plain", "read_error"],
)
def test_scenario_1_over_mcp_gives_the_outcomes_of_ask(
    tmp_path: Path, transport: str, fault: tuple[str, ...], codes: list[str | None]
) -> None:
    """The reads ``ask`` makes for scenario 1, made by an MCP client: the same two outcomes
    (``not_found`` / ``choose_alternative``, then 76 kg), word for word; with the storage's
    reads failing, the same two ``unavailable``."""
    turn = ask(seeded(tmp_path / "ask"), FALLBACK, *fault)
    expected = [(c["name"], c["arguments"], c["outcome"]) for c in turn["tool_calls"]]
    assert [o.get("error") for _, _, o in expected] == codes
    db = seeded(tmp_path / "mcp")
    with mcp_server(db, transport, *fault) as server:
        results = call_all(server, [(n, a, None) for n, a, _ in expected])
    assert [as_outcome(r) for r in results] == [o for _, _, o in expected]
    assert results[0].is_error is True
    assert gym_json(db, "writes") == []


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_scenario_2_over_mcp_gives_the_outcome_of_ask(tmp_path: Path, transport: str) -> None:
    """With the write's storage failing before commit, ``ask`` and an MCP client both get
    ``not_applied`` / ``stop_turn``; nothing is saved; the ledger knows it failed."""
    turn = ask(seeded(tmp_path / "ask"), SAVE, "--fault", BEFORE_COMMIT)
    [(name, arguments, outcome)] = [
        (c["name"], c["arguments"], c["outcome"]) for c in turn["tool_calls"]
    ]
    assert (outcome["error"], outcome["recovery"]) == ("not_applied", "stop_turn")
    db = seeded(tmp_path / "mcp")
    with mcp_server(db, transport, "--fault", BEFORE_COMMIT) as server:
        [result] = call_all(server, [(name, arguments, {IDEMPOTENCY_KEY: "s2"})])
    assert as_outcome(result) == outcome
    assert [r["date"] for r in gym_json(db, "measurements", "list")] == ["2020-01-01"]
    [write] = gym_json(db, "writes")
    assert (write["tool"], write["state"]) == ("write_measurement", "failed")


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_client_retry_saves_once_in_the_ledger(tmp_path: Path, transport: str) -> None:
    """A write sent twice with one key: both answers are the saved row, one ledger entry."""
    db = seeded(tmp_path / "mcp")
    arguments = {"date": "2020-01-04", "weight_kg": 77.4}
    with mcp_server(db, transport) as server:
        results = call_all(
            server, [("write_measurement", arguments, {IDEMPOTENCY_KEY: "retry-0104"})] * 2
        )
    assert [r.structured_content["weight_kg"] for r in results] == [77.4, 77.4]
    [write] = gym_json(db, "writes")
    assert (write["tool"], write["state"], write["conversation_id"]) == (
        "write_measurement",
        "committed",
        "mcp",
    )


def test_a_confirmed_tool_is_refused_to_a_client_that_cannot_ask(tmp_path: Path) -> None:
    """``delete_measurement`` needs a person: a client without elicitation gets ``denied``
    (for a record that exists: deleting one that does not is ``not_found``, nobody asked)."""
    db = seeded(tmp_path / "mcp")
    with mcp_server(db, "stdio") as server:
        [result] = call_all(server, [("delete_measurement", {"date": "2020-01-01"}, None)])
    assert result.is_error is True
    assert result.structured_content["error"]["code"] == "denied"


@pytest.mark.parametrize(
    "args", [("--transport", "carrier-pigeon"), ("--transport", "http", "--host", "0.0.0.0")]
)
def test_mcp_usage_mistakes_are_one_line(tmp_path: Path, args: tuple[str, ...]) -> None:
    """A bad transport, or a non-loopback host, ends with one line and exit code 2."""
    proc = gym(tmp_path / "g.db", "mcp", *args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1
