"""Local diagnostics: the original exceptions, kept apart from anything a model sees.

When a handler raises, the executor turns the failure into a safe outcome and hands the
exception here, keyed by call id. It also goes to the ``surefoot`` logger as a structured
record when the application has configured a handler for it (otherwise no record is built).
Configured secrets are redacted from both.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import logging

REDACTED = "[redacted]"


class Diagnostic:
    """One local failure, for the developer's eyes only.

    A diagnostic made from a caught exception keeps the exception and formats (and redacts)
    its traceback only when ``traceback`` is first read: the error path does not pay for
    formatting that nobody may look at. A sink that stores text reads it when it records."""

    __slots__ = (
        "_exception",
        "_redact",
        "_traceback",
        "call_id",
        "conversation_id",
        "created_at",
        "exception_type",
        "key",
        "message",
        "tool",
    )

    def __init__(
        self,
        conversation_id: str,
        call_id: str,
        tool: str,
        exception_type: str,
        message: str,
        traceback: str | None,
        created_at: float,
        key: str | None = None,
        *,
        exception: BaseException | None = None,
        redact: Callable[[str], str] | None = None,
    ) -> None:
        if traceback is None and exception is None:
            msg = "a diagnostic needs its traceback or the exception to format it from"
            raise ValueError(msg)
        self.conversation_id = conversation_id
        self.call_id = call_id
        self.tool = tool
        self.exception_type = exception_type
        self.message = message
        self.created_at = created_at
        self.key = key
        self._traceback = traceback
        self._exception = exception
        self._redact = redact

    @property
    def traceback(self) -> str:
        """The formatted traceback, redacted."""
        if self._traceback is None:
            exc = self._exception
            assert exc is not None  # checked when it was made
            import traceback  # formatting is rare: `import surefoot` does not pay for it

            text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            self._traceback = self._redact(text) if self._redact is not None else text
            self._exception = self._redact = None  # formatted once; the frames can go
        return self._traceback

    def _fields(self) -> tuple[object, ...]:
        return (
            self.conversation_id,
            self.call_id,
            self.tool,
            self.exception_type,
            self.message,
            self.traceback,
            self.created_at,
            self.key,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Diagnostic):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (
            f"Diagnostic(conversation_id={self.conversation_id!r}, call_id={self.call_id!r}, "
            f"tool={self.tool!r}, exception_type={self.exception_type!r}, "
            f"message={self.message!r}, created_at={self.created_at!r}, key={self.key!r})"
        )


class DiagnosticsSink(Protocol):
    """Where diagnostics are kept."""

    def record(self, diagnostic: Diagnostic) -> None:
        """Keep ``diagnostic``."""
        ...

    def list(self, *, conversation_id: str | None = None) -> list[Diagnostic]:
        """Diagnostics, oldest first."""
        ...


class Redactor:
    """Replaces configured secrets (API keys, tokens) in text."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self._secrets = sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text


def diagnostic_from(
    exc: BaseException,
    *,
    conversation_id: str,
    call_id: str,
    tool: str,
    key: str | None,
    redact: Redactor,
) -> Diagnostic:
    """Build a ``Diagnostic`` from a caught exception (its traceback formatted when first
    read) and log it if the application configured a handler for the ``surefoot`` logger."""
    diagnostic = Diagnostic(
        conversation_id=conversation_id,
        call_id=call_id,
        tool=tool,
        exception_type=type(exc).__qualname__,
        message=redact(str(exc)),
        traceback=None,
        created_at=time.time(),
        key=key,
        exception=exc,
        redact=redact,
    )
    logger = _configured_logger()
    if logger is not None:
        logger.error(
            "tool %s failed (call %s): %s: %s",
            tool,
            call_id,
            diagnostic.exception_type,
            diagnostic.message,
            extra={
                "surefoot_call_id": call_id,
                "surefoot_tool": tool,
                "surefoot_conversation_id": conversation_id,
            },
        )
    return diagnostic


_LOGGER: logging.Logger | None = None


def _configured_logger() -> logging.Logger | None:
    """The ``surefoot`` logger if an error logged on it would reach a handler that does
    something (not a ``NullHandler``); None otherwise, and then no record is built. Without
    the ``logging`` module imported, no handler can exist (and it is not imported here)."""
    global _LOGGER  # noqa: PLW0603 - the same logger every time: asked for once
    module = sys.modules.get("logging")
    if module is None:
        return None
    logger = _LOGGER
    if logger is None:
        logger = _LOGGER = module.getLogger("surefoot")
    if not logger.isEnabledFor(module.ERROR):
        return None
    current: logging.Logger | None = logger
    while current is not None:
        if any(not isinstance(h, module.NullHandler) for h in current.handlers):
            return logger
        if not current.propagate:
            return None
        current = current.parent
    return None


class MemoryDiagnostics:
    """Diagnostics kept in memory: the newest ``limit`` (older ones are dropped, so a
    long-running process keeps a bounded number; each keeps its exception until its traceback
    is read)."""

    def __init__(self, *, limit: int = 1000) -> None:
        self.limit = limit
        self._items: deque[Diagnostic] = deque(maxlen=limit)

    def record(self, diagnostic: Diagnostic) -> None:
        self._items.append(diagnostic)

    def list(self, *, conversation_id: str | None = None) -> list[Diagnostic]:
        return [d for d in self._items if conversation_id in (None, d.conversation_id)]
