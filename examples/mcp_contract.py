"""An MCP server and a client carrying the outcome contract across the wire.

``python examples/mcp_contract.py`` starts this same file as an MCP server over stdio
(``--serve``: a ``ToolSet`` served by ``surefoot.mcp.ToolServer``), connects to it with
``surefoot.mcp.connect`` and runs an agent on the remote tools. An error crosses as MCP's
``isError`` with surefoot's envelope and comes back a ``ToolError`` with the same code and
recovery; a write carries the key the client's harness minted for it in ``_meta``, and the
server's ledger keys the write by it (a retry is answered from there). Needs the ``mcp``
extra (``pip install 'surefoot[mcp]'``).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from surefoot import Agent, CalendarDate, Recovery, ToolError, ToolSet

WEIGHTS = {"2020-01-01": 76.0}


def server_tools() -> ToolSet:
    """The tools the server process serves: a read and an idempotent write."""
    tools = ToolSet()

    @tools.tool
    def read_weight(date: CalendarDate) -> dict[str, Any] | ToolError:
        """Read the body weight (kg) saved for one date (YYYY-MM-DD)."""
        day = date.isoformat()
        if day not in WEIGHTS:
            message = f"No weight is saved for {day}."
            return ToolError("not_found", message, Recovery.CHOOSE_ALTERNATIVE)
        return {"date": day, "weight_kg": WEIGHTS[day]}

    @tools.tool(effect="write", idempotent=True)
    def save_weight(date: CalendarDate, weight_kg: float) -> dict[str, Any]:
        """Save the body weight (kg) of one date (YYYY-MM-DD)."""
        WEIGHTS[date.isoformat()] = weight_kg
        return {"date": date.isoformat(), "weight_kg": weight_kg}

    return tools


def serve() -> None:
    """The server side: the tools over this process's stdin and stdout."""
    from surefoot.mcp import ToolServer

    asyncio.run(ToolServer(server_tools(), name="weights").run_stdio())


async def client() -> None:
    """The client side: an agent whose tools are the server's."""
    from mcp import StdioServerParameters

    from surefoot.mcp import connect
    from surefoot.testing import ScriptedModel, call, turn

    server = StdioServerParameters(command=sys.executable, args=[__file__, "--serve"])
    async with connect(server, trusted=True) as remote:
        print(f"remote tools: {sorted(t.name for t in remote)}")
        model = ScriptedModel(
            [
                turn(call("read_weight", {"date": "2020-01-02"})),
                turn(call("read_weight", {"date": "2020-01-01"})),
                turn(call("save_weight", {"date": "2020-01-02", "weight_kg": 75.5})),
                turn("Saved 75.5 kg for 2020-01-02 (the day before, you weighed 76 kg)."),
            ]
        )
        result = await Agent(model=model, tools=remote).run_turn(
            "Save 75.5 kg for the 2nd; how was the day before?"
        )
    for record in result.calls:
        outcome = record.outcome
        if isinstance(outcome, ToolError):
            shown = f"ToolError {outcome.code} ({outcome.recovery})"
        else:
            shown = f"Ok {outcome.data}"
        key = f" key={record.key}" if record.key else ""
        print(f"{record.call.name} -> {shown}{key}")
    print(f"reply: {result.reply}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        asyncio.run(client())
