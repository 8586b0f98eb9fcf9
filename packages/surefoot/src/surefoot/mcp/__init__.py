"""surefoot over the Model Context Protocol (the ``mcp`` extra).

* ``ToolServer`` serves a ``ToolSet`` as MCP tools through an ``Executor``: titles, output
  schemas and annotations from each tool's declaration, successes as ``structuredContent``,
  every ``ToolError`` as ``isError`` with the error envelope (as structured content and as
  text), writes keyed by the client's ``_meta[IDEMPOTENCY_KEY]``, and
  confirmations asked through the client.
* ``connect`` turns the tools of any MCP server into surefoot tools: ``isError`` becomes a
  ``ToolError``, a lost connection during a write becomes ``outcome_unknown`` (never retried),
  and annotations are believed only for servers the application trusts.

Importing ``surefoot`` never imports this module or the SDK.
"""

try:
    from ._client import RemoteOutcomeUnknownError, RemoteTool, connect, remote_tools
    from ._server import (
        CONFIRMATION,
        ERROR_SCHEMA,
        IDEMPOTENCY_KEY,
        ToolServer,
        call_result,
        output_schema,
        request_problems,
        tool_annotations,
    )
except ModuleNotFoundError as _missing:  # pragma: no cover - depends on the environment
    if _missing.name not in ("mcp", "mcp_types"):
        raise
    _msg = "surefoot.mcp needs the mcp extra: pip install 'surefoot[mcp]'"
    raise ImportError(_msg) from _missing

__all__ = [
    "CONFIRMATION",
    "ERROR_SCHEMA",
    "IDEMPOTENCY_KEY",
    "RemoteOutcomeUnknownError",
    "RemoteTool",
    "ToolServer",
    "call_result",
    "connect",
    "output_schema",
    "remote_tools",
    "request_problems",
    "tool_annotations",
]
