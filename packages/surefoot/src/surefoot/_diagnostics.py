"""Local diagnostics: the original exceptions, kept apart from anything a model sees.

When a handler raises, the executor turns the failure into a safe outcome and hands the
exception here, keyed by call id. It also goes to the ``surefoot`` logger as a structured
record. Configured secrets are redacted from both.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

logger = logging.getLogger("surefoot")
logger.addHandler(logging.NullHandler())  # a library logs; the application decides where to

REDACTED = "[redacted]"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One local failure, for the developer's eyes only."""

    conversation_id: str
    call_id: str
    tool: str
    exception_type: str
    message: str
    traceback: str
    created_at: float
    key: str | None = None


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
    """Build a ``Diagnostic`` from a caught exception and log it."""
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    diagnostic = Diagnostic(
        conversation_id=conversation_id,
        call_id=call_id,
        tool=tool,
        exception_type=type(exc).__qualname__,
        message=redact(str(exc)),
        traceback=redact(tb),
        created_at=time.time(),
        key=key,
    )
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


class MemoryDiagnostics:
    """Diagnostics kept in memory."""

    def __init__(self) -> None:
        self._items: list[Diagnostic] = []

    def record(self, diagnostic: Diagnostic) -> None:
        self._items.append(diagnostic)

    def list(self, *, conversation_id: str | None = None) -> list[Diagnostic]:
        return [d for d in self._items if conversation_id in (None, d.conversation_id)]
