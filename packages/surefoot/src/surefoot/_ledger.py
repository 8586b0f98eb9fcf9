"""The write ledger: one row per harness-minted idempotency key.

States::

    pending ──► committed      the effect happened; its result is recorded and replayed
       │   └──► failed         it is known that nothing changed
       └──────► unknown        the effect can't be determined (crash, lost ack, lease expired)
                  ├──► committed / failed   by reconciliation
                  └──  stays unknown: the write is held back, never re-run automatically

``attempt`` is a fencing counter: a worker may only settle the row for the attempt it claimed.
Moving an expired pending row to ``unknown`` bumps it, so a worker that wakes up after its
lease cannot settle (and, for atomic writes, its whole transaction is rolled back). While a
handler runs, its claim's lease is renewed (``renew``), so a slow but live handler is never
taken for a dead one.

A ledger belongs to one user (tenant): every row carries it, every query is scoped to it, and
the user is part of every key, so one database can hold many people's writes apart.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Final, Literal, Protocol

from ._exceptions import StoreError

LedgerState = Literal["pending", "committed", "failed", "unknown"]
LEDGER_STATES: tuple[LedgerState, ...] = ("pending", "committed", "failed", "unknown")


class FencedError(StoreError):
    """The claim this worker holds is no longer current; its work must not land."""


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One write, as the ledger knows it."""

    key: str
    conversation_id: str
    tool: str
    fingerprint: str
    arguments: dict[str, Any]
    state: LedgerState
    attempt: int
    result: dict[str, Any] | None
    error: dict[str, Any] | None
    created_at: float
    updated_at: float
    lease_expired: bool = False


@dataclass(frozen=True, slots=True)
class Claim:
    """The answer to a claim: the entry, and whether this caller now owns the attempt."""

    entry: LedgerEntry
    owned: bool


Landed = Callable[[], dict[str, Any] | None]
"""Asked after a handler's transaction ended: the write's result as the ledger now holds it,
if the transaction ``commit_in`` ran in committed (its ``COMMIT`` returned); None if that is
not known here (the ledger is asked then)."""


class Ledger(Protocol):
    """Where writes are claimed and settled. ``MemoryLedger`` and ``SqlLedger`` implement it."""

    @property
    def user(self) -> str:
        """Whose writes these are."""
        ...

    def claim(
        self,
        *,
        key: str,
        conversation_id: str,
        tool: str,
        fingerprint: str,
        arguments: dict[str, Any],
        lease_seconds: float,
    ) -> Claim:
        """Insert ``pending`` for a new key (owned), or return what the key already is."""
        ...

    def commit_in(
        self, connection: Any, key: str, attempt: int, result: dict[str, Any]
    ) -> Landed | None:
        """Mark committed inside the caller's transaction; raise ``FencedError`` if fenced.
        May return a ``Landed`` check, which settling asks once the handler has returned
        instead of reading the entry back; None: settling reads it back."""
        ...

    def finalize(
        self,
        key: str,
        attempt: int,
        state: LedgerState,
        *,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
    ) -> bool:
        """Settle a pending/unknown row claimed at ``attempt``; False if fenced or settled."""
        ...

    def renew(self, key: str, attempt: int, lease_seconds: float) -> bool:
        """Extend the lease of a ``pending`` claim held at ``attempt``; False if fenced."""
        ...

    def get(self, key: str) -> LedgerEntry | None:
        """The entry for ``key``."""
        ...

    def entries(
        self, *, conversation_id: str | None = None, state: LedgerState | None = None
    ) -> list[LedgerEntry]:
        """Entries, oldest first, optionally filtered."""
        ...

    def expire(self, key: str, *, orphaned: bool = False) -> LedgerEntry | None:
        """If ``key`` is pending past its lease (or ``orphaned``: its worker is known to be
        dead), make it ``unknown`` (fencing bump)."""
        ...


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_json(value: Any) -> str:
    """Canonical JSON: sorted keys, compact, so equal arguments give equal text."""
    return _CANONICAL.encode(value)


def fingerprint(tool: str, canonical_arguments: str) -> str:
    """A short stable hash of a call's tool and canonical arguments."""
    from hashlib import sha256  # loaded at the first call: `import surefoot` stays light

    # a lone surrogate (a model can send one) is hashed as is instead of failing to encode
    text = f"{tool}\x00{canonical_arguments}"
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


DEFAULT_USER: Final = "default"


def idempotency_key(
    *,
    user: str = DEFAULT_USER,
    conversation_id: str,
    user_turn: int,
    tool: str,
    call_fingerprint: str,
    ordinal: int,
) -> str:
    """The write's identity: user, conversation, user turn, tool, arguments (fingerprint) and
    the ordinal of that identical call within the turn. The default user is left out of the
    hash, so keys minted before users existed stay the same."""
    raw = f"{conversation_id}\x00{user_turn}\x00{tool}\x00{call_fingerprint}\x00{ordinal}"
    if user != DEFAULT_USER:
        raw = f"{user}\x00{raw}"
    from hashlib import sha256

    return "sfk_" + sha256(raw.encode()).hexdigest()[:40]


def supplied_key(*, user: str = DEFAULT_USER, conversation_id: str, supplied: str) -> str:
    """The ledger key of a write whose caller supplied its own idempotency key (an MCP
    client's): the user, the conversation and that key, nothing else, so a retry with the same
    key finds the first attempt whatever else changed."""
    from hashlib import sha256

    raw = f"{user}\x00{conversation_id}\x00supplied\x00{supplied}"
    return "sfk_" + sha256(raw.encode()).hexdigest()[:40]


class MemoryLedger:
    """An in-process ledger for tests and ephemeral agents (no atomic writes)."""

    def __init__(self, *, user: str = DEFAULT_USER, clock: Any = time.time) -> None:
        self.user = user
        self._rows: dict[str, LedgerEntry] = {}
        self._leases: dict[str, float] = {}
        self._keys: dict[str, list[str]] = {}
        self._lock = threading.Lock()
        self._clock = clock

    def claim(
        self,
        *,
        key: str,
        conversation_id: str,
        tool: str,
        fingerprint: str,
        arguments: dict[str, Any],
        lease_seconds: float,
    ) -> Claim:
        now = self._clock()
        with self._lock:
            row = self._rows.get(key)
            if row is not None:
                return Claim(self._with_lease(row, now), owned=False)
            row = LedgerEntry(
                key,
                conversation_id,
                tool,
                fingerprint,
                arguments,
                "pending",
                1,
                None,
                None,
                now,
                now,
            )
            self._rows[key] = row
            self._leases[key] = now + lease_seconds
            self._keys.setdefault(conversation_id, []).append(key)
            return Claim(row, owned=True)

    def unsettled(self, conversation_id: str) -> bool:
        """Whether a write of the conversation is ``pending`` or ``unknown``."""
        with self._lock:
            keys = self._keys.get(conversation_id, ())
            return any(self._rows[k].state in ("pending", "unknown") for k in keys)

    def forget(self, conversation_id: str) -> None:
        """Drop the conversation's settled writes (``committed``, ``failed``); unsettled ones
        stay. ``MemoryJournal`` calls it when it forgets the conversation, so memory stays
        bounded in a long-running process."""
        with self._lock:
            keys = self._keys.pop(conversation_id, [])
            kept = [k for k in keys if self._rows[k].state in ("pending", "unknown")]
            for key in keys:
                if key not in kept:
                    del self._rows[key]
                    self._leases.pop(key, None)
            if kept:
                self._keys[conversation_id] = kept

    def _with_lease(self, row: LedgerEntry, now: float) -> LedgerEntry:
        expired = row.state == "pending" and self._leases.get(row.key, 0.0) < now
        return replace(row, lease_expired=expired)

    def commit_in(
        self, connection: Any, key: str, attempt: int, result: dict[str, Any]
    ) -> Landed | None:
        del connection
        msg = "MemoryLedger cannot join another database's transaction; use SqlLedger"
        raise StoreError(msg)

    def finalize(
        self,
        key: str,
        attempt: int,
        state: LedgerState,
        *,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
    ) -> bool:
        with self._lock:
            row = self._rows.get(key)
            if row is None or row.attempt != attempt or row.state not in ("pending", "unknown"):
                return False
            self._rows[key] = replace(
                row, state=state, result=result, error=error, updated_at=self._clock()
            )
            return True

    def renew(self, key: str, attempt: int, lease_seconds: float) -> bool:
        with self._lock:
            row = self._rows.get(key)
            if row is None or row.attempt != attempt or row.state != "pending":
                return False
            self._leases[key] = self._clock() + lease_seconds
            return True

    def get(self, key: str) -> LedgerEntry | None:
        with self._lock:
            row = self._rows.get(key)
            return None if row is None else self._with_lease(row, self._clock())

    def entries(
        self, *, conversation_id: str | None = None, state: LedgerState | None = None
    ) -> list[LedgerEntry]:
        with self._lock:
            rows = list(self._rows.values())
        return [
            r
            for r in rows
            if (conversation_id is None or r.conversation_id == conversation_id)
            and (state is None or r.state == state)
        ]

    def expire(self, key: str, *, orphaned: bool = False) -> LedgerEntry | None:
        now = self._clock()
        with self._lock:
            row = self._rows.get(key)
            if row is None or row.state != "pending":
                return row
            if not orphaned and self._leases.get(key, 0.0) >= now:
                return row
            row = replace(row, state="unknown", attempt=row.attempt + 1, updated_at=now)
            self._rows[key] = row
            return row
