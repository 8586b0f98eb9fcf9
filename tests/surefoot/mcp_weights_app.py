"""A surefoot ``ToolSet`` served over MCP, for the MCP server tests (not a test module).

Run as ``python mcp_weights_app.py CALLS_FILE [--http]``: every handler run appends one JSON
line to ``CALLS_FILE``, so a test counts how often a handler really ran; the ledger is a SQLite
file beside it, so every server process on that file shares it. Without ``--http`` it
serves stdio; with it, Streamable HTTP on a free 127.0.0.1 port, printed as ``PORT <n>``.

* ``read_weight(date)`` — a read: 2020-01-01 holds 76 kg, every other date is ``not_found``;
  it returns a dataclass, so its output schema is a real one.
* ``save_weight(date, kg)`` — an idempotent write (an upsert by date: destructive).
* ``add_entry(text)`` — a write that is not idempotent (each run adds one entry), declared
  additive, with a title of its own.
* ``clear_entries()`` — a write a person must confirm.
* ``post_message(text)`` — a write that reaches the world outside the app.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from surefoot import CalendarDate, Recovery, SqlLedger, ToolError, ToolSet, open_database
from surefoot.executor import Executor
from surefoot.mcp import ToolServer

OPEN_WORLD = ("post_message",)


@dataclass(frozen=True)
class Weighed:
    """One saved weight."""

    date: dt.date
    weight_kg: float


def build(calls: Path) -> ToolSet:
    """The app's tools, logging each handler run to ``calls``."""
    tools = ToolSet()

    def ran(name: str, **arguments: Any) -> None:
        with calls.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"tool": name, "arguments": arguments}) + "\n")

    @tools.tool
    def read_weight(date: CalendarDate) -> Weighed | ToolError:
        """Read the weight saved for one calendar date."""
        ran("read_weight", date=date.isoformat())
        if date.isoformat() != "2020-01-01":
            return ToolError(
                "not_found", f"No weight is saved for {date}.", Recovery.CHOOSE_ALTERNATIVE
            )
        return Weighed(date, 76.0)

    @tools.tool(effect="write", idempotent=True)
    def save_weight(date: CalendarDate, kg: float) -> Weighed:
        """Save the weight of one calendar date (replaces what that date held)."""
        ran("save_weight", date=date.isoformat(), kg=kg)
        return Weighed(date, kg)

    @tools.tool(effect="write", destructive=False, title="Add a diary entry")
    def add_entry(text: str) -> dict[str, Any]:
        """Add one entry to the diary."""
        ran("add_entry", text=text)
        return {"added": text}

    @tools.tool(effect="write", confirm=True)
    def clear_entries() -> dict[str, Any]:
        """Delete every diary entry."""
        ran("clear_entries")
        return {"cleared": True}

    @tools.tool(effect="write")
    def post_message(text: str) -> dict[str, Any]:
        """Post a message to the user's coach."""
        ran("post_message", text=text)
        return {"posted": text}

    return tools


def server(calls: Path) -> ToolServer:
    """The MCP server over the app's tools."""
    tools = build(calls)
    ledger = SqlLedger(open_database(str(calls.with_suffix(".db"))))
    executor = Executor(tools, ledger=ledger)
    return ToolServer(tools, executor=executor, name="weights", open_world=OPEN_WORLD)


def main() -> None:
    """Serve stdio, or Streamable HTTP with ``--http``."""
    served = server(Path(sys.argv[1]))
    if "--http" not in sys.argv:
        asyncio.run(served.run_stdio())
        return
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(served.http_app(), log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
