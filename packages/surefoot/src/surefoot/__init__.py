"""surefoot: an agent harness that gets tool errors right.

Declare tools with an argument schema and an effect, run them through an executor that
validates first and catches around the handler, and get back an explicit outcome
(``Ok | ToolError``) whose error mark, code and recovery directive the turn loop obeys.

The top level holds what an app author touches. The rest lives in documented submodules:
``surefoot.messages`` (the neutral transcript), ``surefoot.outcome`` (the wire envelope),
``surefoot.ledger``, ``surefoot.journal``, ``surefoot.sql``, ``surefoot.diagnostics``,
``surefoot.executor``, ``surefoot.providers`` (adapters) and ``surefoot.testing``.
"""

import typing

from ._context import ToolContext
from ._diagnostics import Diagnostic, Redactor
from ._exceptions import (
    ConfigurationError,
    ConversationBusyError,
    ProviderConnectionError,
    ProviderError,
    StoreError,
    SurefootError,
    TurnPendingError,
)
from ._journal import Approval, Journal, MemoryJournal
from ._ledger import Ledger, MemoryLedger
from ._loop import Agent
from ._messages import ModelRequest, ModelResponse
from ._model import Model
from ._outcome import Detail, ErrorCode, Ok, Outcome, Recovery, ToolError
from ._records import Usage
from ._result import PendingConfirmation, StopReason, TurnResult
from ._runner import TurnEvent
from ._sql import SqlDiagnostics, SqlJournal, SqlLedger, open_database
from ._texts import Lang
from ._tools import CalendarDate, ReconcileResult, Tool, ToolSet

if typing.TYPE_CHECKING:
    from ._arguments import Arguments

__version__ = "0.2.0"

__all__ = [
    "Agent",
    "Approval",
    "Arguments",
    "CalendarDate",
    "ConfigurationError",
    "ConversationBusyError",
    "Detail",
    "Diagnostic",
    "ErrorCode",
    "Journal",
    "Lang",
    "Ledger",
    "MemoryJournal",
    "MemoryLedger",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "Ok",
    "Outcome",
    "PendingConfirmation",
    "ProviderConnectionError",
    "ProviderError",
    "ReconcileResult",
    "Recovery",
    "Redactor",
    "SqlDiagnostics",
    "SqlJournal",
    "SqlLedger",
    "StopReason",
    "StoreError",
    "SurefootError",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolSet",
    "TurnEvent",
    "TurnPendingError",
    "TurnResult",
    "Usage",
    "open_database",
]


# Importing surefoot loads none of pydantic's model machinery (it costs more than the rest of
# surefoot together); ``Arguments`` is a pydantic model, so it is built on first use.
if not typing.TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        if name == "Arguments":
            from ._arguments import Arguments

            globals()["Arguments"] = Arguments
            return Arguments
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
