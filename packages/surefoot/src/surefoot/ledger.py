"""The write ledger: one entry per idempotency key, moved through its states by claims that
carry a fence, so a write runs at most once however often it is retried, replayed or resumed.
"""

from ._ledger import (
    LEDGER_STATES,
    Claim,
    FencedError,
    Landed,
    Ledger,
    LedgerEntry,
    LedgerState,
    MemoryLedger,
    canonical_json,
    idempotency_key,
)

__all__ = [
    "LEDGER_STATES",
    "Claim",
    "FencedError",
    "Landed",
    "Ledger",
    "LedgerEntry",
    "LedgerState",
    "MemoryLedger",
    "canonical_json",
    "idempotency_key",
]
