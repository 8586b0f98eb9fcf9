"""surefoot over the Model Context Protocol (the ``mcp`` extra).

* ``ToolServer`` serves a ``ToolSet`` as MCP tools through an ``Executor``: annotations from
  each tool's effect, successes as ``structuredContent``, every ``ToolError`` as ``isError``
  with the error envelope, writes keyed by the client's ``_meta[IDEMPOTENCY_KEY]``, and
  confirmations asked through the client.
* ``connect`` turns the tools of any MCP server into surefoot tools: ``isError`` becomes a
  ``ToolError``, a lost connection during a write becomes ``outcome_unknown`` (never retried),
  and annotations are believed only for servers the application trusts.

Importing ``surefoot`` never imports this module or the SDK.
"""

from ._client import RemoteOutcomeUnknownError, RemoteTool, connect, remote_tools
from ._server import CONFIRMATION, IDEMPOTENCY_KEY, ToolServer, call_result, tool_annotations

__all__ = [
    "CONFIRMATION",
    "IDEMPOTENCY_KEY",
    "RemoteOutcomeUnknownError",
    "RemoteTool",
    "ToolServer",
    "call_result",
    "connect",
    "remote_tools",
    "tool_annotations",
]
