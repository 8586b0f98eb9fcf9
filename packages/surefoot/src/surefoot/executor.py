"""The executor on its own: validate a batch of tool calls, run them under the ledger, and
return one outcome per call. ``Agent`` uses it; use it directly to run tools outside a turn."""

from ._executor import Executor
from ._records import CallRecord
from ._state import TurnState

__all__ = ["CallRecord", "Executor", "TurnState"]
