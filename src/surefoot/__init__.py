"""surefoot: an agent harness that gets tool errors right.

Declare tools with an argument schema and an effect, run them through an executor that
validates first and catches around the handler, and get back an explicit outcome
(``Ok | ToolError``) whose error mark, code and recovery directive the turn loop obeys.
"""

from ._context import ToolContext
from ._diagnostics import Diagnostic, DiagnosticsSink, MemoryDiagnostics, Redactor
from ._exceptions import (
    ConfigurationError,
    ProviderConnectionError,
    ProviderError,
    ScriptError,
    StoreError,
    SurefootError,
)
from ._executor import CallRecord, Executor, TurnState
from ._journal import Journal, MemoryJournal
from ._ledger import (
    LEDGER_STATES,
    Claim,
    FencedError,
    Ledger,
    LedgerEntry,
    LedgerState,
    MemoryLedger,
    canonical_json,
    idempotency_key,
)
from ._loop import Agent, PendingConfirmation, StopReason, TurnEvent, TurnResult
from ._messages import (
    AssistantMessage,
    FinishReason,
    HarnessMessage,
    Message,
    ModelRequest,
    ModelResponse,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)
from ._model import Model, ResponseDone, StreamEvent, TextDelta, stream_from_request
from ._outcome import (
    Detail,
    ErrorCode,
    Ok,
    Outcome,
    Recovery,
    ToolError,
    dumps,
    envelope_to_error,
    from_record,
    to_record,
    to_wire,
    to_wire_text,
)
from ._serde import message_from_json, message_to_json
from ._sql import Database, SqlDiagnostics, SqlJournal, SqlLedger, Tx, open_database
from ._texts import LANGS, Lang
from ._tools import Arguments, CalendarDate, ReconcileResult, Tool, ToolSet

__all__ = [
    "LANGS",
    "LEDGER_STATES",
    "Agent",
    "Arguments",
    "AssistantMessage",
    "CalendarDate",
    "CallRecord",
    "Claim",
    "ConfigurationError",
    "Database",
    "Detail",
    "Diagnostic",
    "DiagnosticsSink",
    "ErrorCode",
    "Executor",
    "FencedError",
    "FinishReason",
    "HarnessMessage",
    "Journal",
    "Lang",
    "Ledger",
    "LedgerEntry",
    "LedgerState",
    "MemoryDiagnostics",
    "MemoryJournal",
    "MemoryLedger",
    "Message",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "Ok",
    "Outcome",
    "PendingConfirmation",
    "ProviderConnectionError",
    "ProviderError",
    "ReasoningPart",
    "ReconcileResult",
    "Recovery",
    "Redactor",
    "ResponseDone",
    "ScriptError",
    "SqlDiagnostics",
    "SqlJournal",
    "SqlLedger",
    "StopReason",
    "StoreError",
    "StreamEvent",
    "SurefootError",
    "TextDelta",
    "TextPart",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "ToolResultsMessage",
    "ToolSet",
    "ToolSpec",
    "TurnEvent",
    "TurnResult",
    "TurnState",
    "Tx",
    "UserMessage",
    "canonical_json",
    "dumps",
    "envelope_to_error",
    "from_record",
    "idempotency_key",
    "message_from_json",
    "message_to_json",
    "open_database",
    "stream_from_request",
    "to_record",
    "to_wire",
    "to_wire_text",
]
