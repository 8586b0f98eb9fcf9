"""Accounts for the web app, in the app's own database: each account is a surefoot user (its
name is the ``user_id`` of every row it owns), signed in with a password or a one-time link.

Everything lives in the database so that any number of ``serve`` workers, on any host, agree:
accounts (an Argon2 hash of the password, never the password), one-time sign-in links and
sessions (by the SHA-256 of their random value, never the value), recent failed sign-ins (the
rate limit) and the key that signs the session cookie. Times are the database's clock.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from typing import Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from surefoot.sql import Database

MIGRATIONS: Final = [
    """
    CREATE TABLE gym_accounts (
        user_id TEXT PRIMARY KEY,
        password_hash TEXT,
        created_at {real} NOT NULL
    );
    CREATE TABLE gym_signin_links (
        code_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES gym_accounts (user_id) ON DELETE CASCADE,
        expires_at {real} NOT NULL,
        used_at {real}
    );
    CREATE TABLE gym_sessions (
        id_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES gym_accounts (user_id) ON DELETE CASCADE,
        created_at {real} NOT NULL,
        expires_at {real} NOT NULL
    );
    CREATE INDEX gym_sessions_user ON gym_sessions (user_id);
    CREATE TABLE gym_signin_failures (
        subject TEXT NOT NULL,
        at {real} NOT NULL
    );
    CREATE INDEX gym_signin_failures_subject ON gym_signin_failures (subject, at);
    CREATE TABLE gym_web_keys (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )
    """,
]

NAME_PATTERN: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
"""An account name: what ``--user`` accepts too, safe in a URL and a log line."""
MIN_PASSWORD: Final = 8
LINK_SECONDS: Final = 24 * 3600.0
"""How long a one-time sign-in link stays valid."""

_HASHER: Final = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)
"""Argon2id at OWASP's recommended minimum (19 MiB, 2 passes, 1 lane): about 0.1 s of one
core per sign-in, so a web worker's sign-ins do not starve its turns. A stored hash carries
its parameters, so raising them later still verifies the older ones."""
_DUMMY_HASH: Final = _HASHER.hash("not a password anyone has")
"""Verified against when the account does not exist, so a wrong name costs what a wrong
password costs (no timing tells which names exist)."""


def hash_password(password: str) -> str:
    """The Argon2id hash stored for ``password`` (salted; the password itself is not kept)."""
    return _HASHER.hash(password)


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


@dataclass
class AccountStore:
    """The accounts, links, sessions and sign-in failures of one database."""

    db: Database

    def __post_init__(self) -> None:
        self.db.migrate("gymnasia_accounts", MIGRATIONS)

    # -- accounts ----------------------------------------------------------------------------

    def add(self, user: str, password: str | None) -> bool:
        """Create ``user`` (with ``password``, or none until a link sets one); False if that
        account exists already (nothing changes)."""
        hashed = hash_password(password) if password is not None else None
        with self.db.transaction() as tx:
            tx.execute(
                "INSERT INTO gym_accounts (user_id, password_hash, created_at) "
                "VALUES (?, ?, {now}) ON CONFLICT (user_id) DO NOTHING",
                (user, hashed),
            )
            return tx.rowcount == 1

    def exists(self, user: str) -> bool:
        """Whether ``user`` has an account."""
        return bool(self.db.query("SELECT 1 FROM gym_accounts WHERE user_id = ?", (user,)))

    def users(self) -> list[str]:
        """Every account's name, sorted."""
        return [r[0] for r in self.db.query("SELECT user_id FROM gym_accounts ORDER BY user_id")]

    def any(self) -> bool:
        """Whether the database has at least one account (the web app then asks to sign in)."""
        return bool(self.db.query("SELECT 1 FROM gym_accounts LIMIT 1"))

    def check_password(self, user: str, password: str) -> bool:
        """Whether ``password`` is ``user``'s (False for an unknown user or one without a
        password yet, after the same work)."""
        rows = self.db.query("SELECT password_hash FROM gym_accounts WHERE user_id = ?", (user,))
        stored = rows[0][0] if rows and rows[0][0] else None
        try:
            _HASHER.verify(stored or _DUMMY_HASH, password)
        except (VerificationError, InvalidHashError):
            return False
        return stored is not None

    def set_password(self, user: str, password: str) -> None:
        """Replace ``user``'s password."""
        with self.db.transaction() as tx:
            tx.execute(
                "UPDATE gym_accounts SET password_hash = ? WHERE user_id = ?",
                (hash_password(password), user),
            )

    # -- one-time links ----------------------------------------------------------------------

    def new_link(self, user: str, *, seconds: float = LINK_SECONDS) -> str:
        """A one-time sign-in code for ``user``, valid ``seconds``."""
        code = secrets.token_urlsafe(32)
        with self.db.transaction() as tx:
            tx.execute(
                "INSERT INTO gym_signin_links (code_hash, user_id, expires_at) "
                "VALUES (?, ?, {now} + ?)",
                (_digest(code), user, seconds),
            )
        return code

    def link_user(self, code: str) -> str | None:
        """The account a valid, unused, unexpired ``code`` signs in (without using it)."""
        rows = self.db.query(
            "SELECT user_id FROM gym_signin_links WHERE code_hash = ? AND used_at IS NULL "
            "AND expires_at > {now}",
            (_digest(code),),
        )
        return str(rows[0][0]) if rows else None

    def use_link(self, code: str) -> str | None:
        """Spend ``code``: its account, or None if it is unknown, used or expired. Of two
        requests with one code, one gets the account."""
        with self.db.transaction() as tx:
            user = tx.execute(
                "SELECT user_id FROM gym_signin_links WHERE code_hash = ? AND used_at IS NULL "
                "AND expires_at > {now}",
                (_digest(code),),
            )
            if not user:
                return None
            tx.execute(
                "UPDATE gym_signin_links SET used_at = {now} "
                "WHERE code_hash = ? AND used_at IS NULL",
                (_digest(code),),
            )
            return str(user[0][0]) if tx.rowcount == 1 else None

    # -- sessions ----------------------------------------------------------------------------

    def open_session(self, user: str, *, seconds: float) -> str:
        """A new session for ``user`` that ends ``seconds`` from now: its random id."""
        session = secrets.token_urlsafe(32)
        with self.db.transaction() as tx:
            tx.execute(
                "INSERT INTO gym_sessions (id_hash, user_id, created_at, expires_at) "
                "VALUES (?, ?, {now}, {now} + ?)",
                (_digest(session), user, seconds),
            )
        return session

    def session_user(self, session: str) -> str | None:
        """The account of a live session, or None (unknown, ended or expired)."""
        rows = self.db.query(
            "SELECT user_id FROM gym_sessions WHERE id_hash = ? AND expires_at > {now}",
            (_digest(session),),
        )
        return str(rows[0][0]) if rows else None

    def close_session(self, session: str) -> None:
        """End a session (signing out); expired sessions go at the same time."""
        with self.db.transaction() as tx:
            tx.execute("DELETE FROM gym_sessions WHERE id_hash = ?", (_digest(session),))
            tx.execute("DELETE FROM gym_sessions WHERE expires_at <= {now}")

    # -- failed sign-ins ---------------------------------------------------------------------

    def recent_failures(self, subject: str, *, seconds: float) -> int:
        """How many sign-ins failed for ``subject`` in the last ``seconds``."""
        rows = self.db.query(
            "SELECT COUNT(*) FROM gym_signin_failures WHERE subject = ? AND at > {now} - ?",
            (subject, seconds),
        )
        return int(rows[0][0])

    def record_failure(self, subjects: tuple[str, ...], *, keep_seconds: float) -> None:
        """A failed sign-in, counted against each of ``subjects``; failures older than
        ``keep_seconds`` are dropped."""
        with self.db.transaction() as tx:
            for subject in subjects:
                tx.execute(
                    "INSERT INTO gym_signin_failures (subject, at) VALUES (?, {now})", (subject,)
                )
            tx.execute("DELETE FROM gym_signin_failures WHERE at <= {now} - ?", (keep_seconds,))

    # -- keys --------------------------------------------------------------------------------

    def key(self, name: str) -> bytes:
        """The secret ``name`` (made on first use; every worker reads the same one)."""
        with self.db.transaction() as tx:
            tx.execute(
                "INSERT INTO gym_web_keys (name, value) VALUES (?, ?) "
                "ON CONFLICT (name) DO NOTHING",
                (name, secrets.token_hex(32)),
            )
            rows = tx.execute("SELECT value FROM gym_web_keys WHERE name = ?", (name,))
        return bytes.fromhex(rows[0][0])
