"""The tracing hook: where the turn loop and the executor tell an observer what they do.

Three nested scopes, each a context manager so that an implementation can make its span the
current one (model requests and tool calls then nest under their turn)::

    turn ─┬─ model_request  (one per request to the model)
          └─ tool_call      (one per call, whether it ran, was refused or was skipped)

Each scope is told how it ended through the object it yields. ``NO_TRACING`` does nothing,
and costs nothing: the loop and the executor open no scope when it is their tracer (nobody
listens). ``surefoot.otel`` implements the protocol with OpenTelemetry spans. Nothing here
imports a tracing library.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ._exceptions import ProviderError
    from ._ledger import Ledger
    from ._messages import ModelResponse, ToolCall
    from ._records import CallRecord


class TurnTrace(Protocol):
    """How a turn ended."""

    def finished(self, stop_reason: str, model_requests: int) -> None:
        """The turn ended with ``stop_reason`` after ``model_requests`` requests."""
        ...


class RequestTrace(Protocol):
    """How a model request ended."""

    def finished(self, response: ModelResponse | None, error: ProviderError | None) -> None:
        """The model answered ``response``, or failed with ``error``."""
        ...


class CallTrace(Protocol):
    """How a tool call ended."""

    def finished(self, record: CallRecord, ledger: Ledger) -> None:
        """The call's one outcome; ``ledger`` holds its write's state, if it is a write."""
        ...


class Tracer(Protocol):
    """Receives the scopes of turns, model requests and tool calls."""

    def turn(
        self, *, app: str, conversation_id: str, user_turn: int
    ) -> AbstractContextManager[TurnTrace]:
        """One user turn (run or resumed) of ``app`` in ``conversation_id``."""
        ...

    def model_request(self, *, provider: str, model: str) -> AbstractContextManager[RequestTrace]:
        """One request to ``provider``'s ``model``."""
        ...

    def tool_call(self, call: ToolCall, *, effect: str | None) -> AbstractContextManager[CallTrace]:
        """One tool call (``effect``: ``read``/``write``, None if the tool does not exist)."""
        ...


class _Nothing:
    """Every trace and its context manager at once, doing nothing (one shared object, so the
    default costs no allocation per scope)."""

    def __enter__(self) -> _Nothing:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def finished(self, *args: object) -> None:
        """Nothing to record."""


_NOTHING = _Nothing()


class NoTracing:
    """The default tracer: records nothing."""

    def turn(
        self, *, app: str, conversation_id: str, user_turn: int
    ) -> AbstractContextManager[TurnTrace]:
        """No span."""
        del app, conversation_id, user_turn
        return _NOTHING

    def model_request(self, *, provider: str, model: str) -> AbstractContextManager[RequestTrace]:
        """No span."""
        del provider, model
        return _NOTHING

    def tool_call(self, call: ToolCall, *, effect: str | None) -> AbstractContextManager[CallTrace]:
        """No span."""
        del call, effect
        return _NOTHING


NO_TRACING: Tracer = NoTracing()
"""The tracer an agent or executor uses when given none."""
