"""Exceptions the harness raises to *developers*.

Tool failures are never exceptions past the executor: they become outcomes (``ToolError``).
What remains are problems for the program around the harness::

    SurefootError
    ├── ConfigurationError      a tool, registry or agent was declared wrongly
    ├── ProviderError           the model provider failed (auth, rate limit, bad request, ...)
    │   └── ProviderConnectionError   it could not be reached at all
    ├── ScriptError             a scripted test model met an unexpected or unconsumed step
    ├── StoreError              the journal/ledger database is unusable
    ├── ConversationBusyError   another writer holds the conversation (its turn is running)
    └── TurnPendingError        the conversation's last turn is unfinished (a decision to make,
                                or an interruption): resume it before starting another

Provider errors are translated from each SDK's exceptions at exactly one place per adapter.
"""

from __future__ import annotations


class SurefootError(Exception):
    """Base class of every surefoot exception."""


class ConfigurationError(SurefootError):
    """Something was declared wrongly (a tool, a registry, an agent option)."""


class ScriptError(SurefootError):
    """A scripted model was asked for a step it did not have, or left steps unconsumed."""


class StoreError(SurefootError):
    """The journal or ledger database cannot be used."""


class ConversationBusyError(SurefootError):
    """Another writer holds this conversation: a turn is running in another process, or one
    that died recently still holds its lease. Nothing was written; try again later."""

    def __init__(self, conversation_id: str) -> None:
        super().__init__(f"conversation {conversation_id!r} is busy: another turn holds it")
        self.conversation_id = conversation_id


class TurnPendingError(SurefootError):
    """The conversation's last turn has calls without results (it waits for a person's
    decision, or it was interrupted): ``Agent.resume`` must finish it before a new turn."""

    def __init__(self, conversation_id: str) -> None:
        super().__init__(
            f"conversation {conversation_id!r} has an unfinished turn; decide any pending "
            "confirmation and resume it first"
        )
        self.conversation_id = conversation_id


class ProviderError(SurefootError):
    """The model provider failed to answer.

    ``safe_message`` is fit to show a person: it never carries keys or response bodies.
    """

    def __init__(
        self,
        *,
        provider: str,
        status: int | None,
        kind: str,
        safe_message: str,
    ) -> None:
        super().__init__(f"{provider}: {kind} (status {status}): {safe_message}")
        self.provider = provider
        self.status = status
        self.kind = kind
        self.safe_message = safe_message


class ProviderConnectionError(ProviderError):
    """The provider could not be reached (connection refused, DNS, timeout)."""
