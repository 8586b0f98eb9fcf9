"""Every exception surefoot raises, and the typed kinds of ``ProviderError`` and
``StoreError`` (string values, stable: programs and wire formats may rely on them)."""

from ._exceptions import (
    PROVIDER_ERROR_KINDS,
    STORE_ERROR_KINDS,
    ConfigurationError,
    ConversationBusyError,
    ProviderConnectionError,
    ProviderError,
    ProviderErrorKind,
    ScriptError,
    StoreError,
    StoreErrorKind,
    SurefootError,
    TurnPendingError,
)

__all__ = [
    "PROVIDER_ERROR_KINDS",
    "STORE_ERROR_KINDS",
    "ConfigurationError",
    "ConversationBusyError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderErrorKind",
    "ScriptError",
    "StoreError",
    "StoreErrorKind",
    "SurefootError",
    "TurnPendingError",
]
