"""What a handler may know about the call it is running."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._exceptions import ConfigurationError
from ._outcome import checked_data
from ._texts import Lang

if TYPE_CHECKING:
    from ._ledger import Landed, Ledger


@dataclass(slots=True)
class ToolContext:
    """Passed to handlers that declare a first parameter ``ctx: ToolContext``.

    Attributes:
        call_id: The provider's id of the call (not unique: some servers reuse ids).
        tool: The tool's name.
        conversation_id: The conversation the call belongs to.
        lang: The language of the turn, for messages the handler writes.
        key: The harness-minted idempotency key of a write (None for reads). It is stable
            across re-plans, resumes and workers, so an external service can use it to
            deduplicate or to find the effect again.
        attempt: The ledger attempt this run of the write holds (its fence).
        app: The ``app_context`` the agent was given.
    """

    call_id: str
    tool: str
    conversation_id: str
    lang: Lang
    key: str | None = None
    attempt: int = 0
    app: dict[str, Any] = field(default_factory=dict)
    _ledger: Ledger | None = field(default=None, repr=False)
    _committed_in_tx: bool = field(default=False, repr=False)
    _landed: Landed | None = field(default=None, repr=False)
    _unverifiable: bool = field(default=False, repr=False)

    def commit_in(self, connection: Any, data: dict[str, Any]) -> None:
        """Record this write as committed, with ``data`` as its result, inside the caller's
        open transaction on the ledger's database. Call it just before committing the
        effect: both then land together or not at all. Raises if the write's claim was
        fenced off (another worker took over), or if ``data`` is not plain JSON data (see
        ``checked_data``): either must abort the transaction."""
        if self.key is None or self._ledger is None:
            msg = "commit_in is only for write tools run with a ledger"
            raise ConfigurationError(msg)
        self._landed = self._ledger.commit_in(
            connection, self.key, self.attempt, checked_data(data)
        )
        self._committed_in_tx = True

    def mark_unverifiable(self) -> None:
        """Tell the harness it must not decide this write's fate from the ledger: if the
        handler then fails, the outcome is ``outcome_unknown``. (Fault injection uses it.)"""
        self._unverifiable = True
