"""Exceptions the harness raises to *developers*.

Tool failures are never exceptions past the executor: they become outcomes (``ToolError``).
What remains are problems for the program around the harness::

    SurefootError
    ├── ConfigurationError      a tool, registry or agent was declared wrongly
    ├── ProviderError           the model provider failed (auth, rate limit, bad request, ...)
    │   └── ProviderConnectionError   it could not be reached at all
    ├── ScriptError             a scripted test model met an unexpected or unconsumed step
    └── StoreError              the journal/ledger database is unusable

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
