"""SQL storage for the journal, the write ledger and diagnostics: SQLite or PostgreSQL.

``open_database(url)`` takes a plain path or ``sqlite:///relative.db`` /
``sqlite:////absolute.db`` (SQLite: WAL, ``synchronous=FULL``, ``BEGIN IMMEDIATE``, a busy
timeout) or ``postgresql://...`` (psycopg 3). Both share one schema and one semantics:
concurrency on a ledger key is decided by the database (primary key + ``ON CONFLICT``, and
fenced ``UPDATE ... WHERE attempt = ?``), leases run on the database's clock, never an
in-process lock. Applications keep their own tables in the same database (``migrate``) so a
write and its ledger record commit in one transaction.

SQL is written once with ``?`` placeholders and a few dialect tokens (``{serial}``,
``{real}``) that ``Database`` rewrites.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from ._diagnostics import Diagnostic
from ._exceptions import StoreError
from ._ledger import Claim, FencedError, LedgerEntry, LedgerState
from ._messages import Message
from ._serde import message_from_json, message_to_json

Dialect = Literal["sqlite", "postgresql"]

_NOW = {
    "sqlite": "((julianday('now') - 2440587.5) * 86400.0)",
    "postgresql": "extract(epoch from clock_timestamp())::double precision",
}
_TOKENS = {
    "sqlite": {"{serial}": "INTEGER PRIMARY KEY AUTOINCREMENT", "{real}": "REAL"},
    "postgresql": {"{serial}": "BIGSERIAL PRIMARY KEY", "{real}": "DOUBLE PRECISION"},
}


class Tx:
    """An open transaction: ``execute`` runs one statement and returns its rows."""

    def __init__(self, db: Database, cursor: Any) -> None:
        self._db = db
        self._cursor = cursor
        self.rowcount = 0

    @property
    def dialect(self) -> Dialect:
        """``sqlite`` or ``postgresql``."""
        return self._db.dialect

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run ``sql`` (``?`` placeholders, ``{now}`` for the database clock)."""
        self._cursor.execute(self._db.sql(sql), tuple(params))
        self.rowcount = self._cursor.rowcount
        if self._cursor.description is None:
            return []
        return [tuple(row) for row in self._cursor.fetchall()]


class Database:
    """One database connection with transactions, for both dialects."""

    def __init__(self, dialect: Dialect, connection: Any, *, url: str) -> None:
        self.dialect: Dialect = dialect
        self.url = url
        self._conn = connection
        self._lock = threading.RLock()
        self._sql_cache: dict[str, str] = {}
        self.migrate("surefoot", _SUREFOOT_MIGRATIONS)

    def sql(self, statement: str) -> str:
        """``statement`` rewritten for this dialect."""
        cached = self._sql_cache.get(statement)
        if cached is not None:
            return cached
        out = statement.replace("{now}", _NOW[self.dialect])
        for token, value in _TOKENS[self.dialect].items():
            out = out.replace(token, value)
        if self.dialect == "postgresql":
            out = out.replace("%", "%%").replace("?", "%s")
        self._sql_cache[statement] = out
        return out

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """A write transaction (``BEGIN IMMEDIATE`` on SQLite); commits on success."""
        with self._lock:
            if self.dialect == "sqlite":
                cursor = self._conn.cursor()
                cursor.execute("BEGIN IMMEDIATE")
                try:
                    yield Tx(self, cursor)
                except BaseException:
                    cursor.execute("ROLLBACK")
                    raise
                cursor.execute("COMMIT")
            else:
                with self._conn.transaction(), self._conn.cursor() as cursor:
                    yield Tx(self, cursor)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement in its own transaction and return its rows."""
        with self.transaction() as tx:
            return tx.execute(sql, params)

    def migrate(self, namespace: str, migrations: Sequence[str]) -> None:
        """Apply ``migrations`` (each a ``;``-separated script) not yet applied, in order."""
        try:
            self._migrate(namespace, migrations)
        except self._driver_errors() as exc:
            msg = f"could not migrate the database ({type(exc).__name__})"
            raise StoreError(msg) from exc

    def _driver_errors(self) -> tuple[type[Exception], ...]:
        if self.dialect == "sqlite":
            return (sqlite3.Error,)
        import psycopg

        return (psycopg.Error,)

    def _migrate(self, namespace: str, migrations: Sequence[str]) -> None:
        with self.transaction() as tx:
            if self.dialect == "postgresql":
                # One migrator at a time across processes and hosts; released at commit.
                tx.execute("SELECT pg_advisory_xact_lock(7300418206)")
            tx.execute(
                "CREATE TABLE IF NOT EXISTS sf_migrations ("
                "namespace TEXT NOT NULL, version INTEGER NOT NULL, "
                "PRIMARY KEY (namespace, version))"
            )
            rows = tx.execute(
                "SELECT COALESCE(MAX(version), 0) FROM sf_migrations WHERE namespace = ?",
                (namespace,),
            )
            current = int(rows[0][0])
            for version, script in enumerate(migrations, start=1):
                if version <= current:
                    continue
                for statement in filter(None, (s.strip() for s in script.split(";"))):
                    tx.execute(statement)
                tx.execute(
                    "INSERT INTO sf_migrations (namespace, version) VALUES (?, ?)",
                    (namespace, version),
                )

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._conn.close()


def resolve_url(url: str | os.PathLike[str]) -> tuple[Dialect, str]:
    """``(dialect, target)``: a file path for SQLite, the URL itself for PostgreSQL."""
    text = os.fspath(url)
    if text.startswith(("postgresql://", "postgres://")):
        return "postgresql", text
    if text.startswith("sqlite:///"):
        return "sqlite", text.removeprefix("sqlite:///")
    if "://" in text:
        msg = "unsupported database URL; use a file path, sqlite:///..., or postgresql://..."
        raise StoreError(msg)
    return "sqlite", text


def open_database(url: str | os.PathLike[str], *, create: bool = True) -> Database:
    """Open (and migrate) the database at ``url``; see the module docstring for forms."""
    dialect, target = resolve_url(url)
    if dialect == "postgresql":
        return _open_postgres(target)
    if target == ":memory:":
        return _sqlite(":memory:", "sqlite:///:memory:")
    path = Path(target)
    if not path.exists():
        if not create:
            msg = "the database file does not exist"
            raise StoreError(msg)
        path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    return _sqlite(path, f"sqlite:///{path}")


def _sqlite(path: str | Path, url: str) -> Database:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA busy_timeout=30000")
    conn.execute("PRAGMA foreign_keys=ON")
    return Database("sqlite", conn, url=url)


def _open_postgres(url: str) -> Database:
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - depends on the install
        msg = "PostgreSQL needs the 'postgres' extra (psycopg)"
        raise StoreError(msg) from exc
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        msg = "could not connect to the PostgreSQL database"
        raise StoreError(msg) from exc
    return Database("postgresql", conn, url=url)


_SUREFOOT_MIGRATIONS = [
    """
    CREATE TABLE sf_ledger (
        key TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        arguments TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'committed', 'failed', 'unknown')),
        attempt INTEGER NOT NULL,
        lease_until {real} NOT NULL,
        result TEXT,
        error TEXT,
        created_at {real} NOT NULL,
        updated_at {real} NOT NULL
    );
    CREATE INDEX sf_ledger_conversation ON sf_ledger (conversation_id, created_at);
    CREATE TABLE sf_conversations (
        id TEXT PRIMARY KEY,
        created_at {real} NOT NULL,
        updated_at {real} NOT NULL
    );
    CREATE TABLE sf_messages (
        conversation_id TEXT NOT NULL REFERENCES sf_conversations (id),
        seq INTEGER NOT NULL,
        payload TEXT NOT NULL,
        created_at {real} NOT NULL,
        PRIMARY KEY (conversation_id, seq)
    );
    CREATE TABLE sf_decisions (
        conversation_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        approved INTEGER NOT NULL,
        decided_at {real} NOT NULL,
        PRIMARY KEY (conversation_id, call_id)
    );
    CREATE TABLE sf_diagnostics (
        id {serial},
        conversation_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        key TEXT,
        exception_type TEXT NOT NULL,
        message TEXT NOT NULL,
        traceback TEXT NOT NULL,
        created_at {real} NOT NULL
    )
    """,
]

_LEDGER_COLUMNS = (
    "key, conversation_id, tool, fingerprint, arguments, state, attempt, result, error, "
    "created_at, updated_at, (state = 'pending' AND lease_until < {now})"
)


def _entry(row: tuple[Any, ...]) -> LedgerEntry:
    return LedgerEntry(
        key=row[0],
        conversation_id=row[1],
        tool=row[2],
        fingerprint=row[3],
        arguments=json.loads(row[4]),
        state=row[5],
        attempt=int(row[6]),
        result=json.loads(row[7]) if row[7] is not None else None,
        error=json.loads(row[8]) if row[8] is not None else None,
        created_at=float(row[9]),
        updated_at=float(row[10]),
        lease_expired=bool(row[11]),
    )


def _filters(**columns: str | None) -> tuple[str, tuple[str, ...]]:
    """A ``WHERE`` clause over the given columns that are not None (names are ours)."""
    used = {name: value for name, value in columns.items() if value is not None}
    if not used:
        return "", ()
    return "WHERE " + " AND ".join(f"{name} = ?" for name in used), tuple(used.values())


def _json(value: dict[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


class SqlLedger:
    """The write ledger in a ``Database`` (see ``surefoot._ledger`` for the states)."""

    def __init__(self, db: Database) -> None:
        self.db = db

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
        with self.db.transaction() as tx:
            tx.execute(
                "INSERT INTO sf_ledger (key, conversation_id, tool, fingerprint, arguments, "
                "state, attempt, lease_until, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, 'pending', 1, {now} + ?, {now}, {now}) "
                "ON CONFLICT (key) DO NOTHING",
                (key, conversation_id, tool, fingerprint, _json(arguments), lease_seconds),
            )
            owned = tx.rowcount == 1
            rows = tx.execute(f"SELECT {_LEDGER_COLUMNS} FROM sf_ledger WHERE key = ?", (key,))
        return Claim(_entry(rows[0]), owned=owned)

    def commit_in(self, connection: Any, key: str, attempt: int, result: dict[str, Any]) -> None:
        if not isinstance(connection, Tx):
            msg = "commit_in needs the Tx of a transaction on the ledger's database"
            raise StoreError(msg)
        connection.execute(
            "UPDATE sf_ledger SET state = 'committed', result = ?, updated_at = {now} "
            "WHERE key = ? AND attempt = ? AND state = 'pending'",
            (_json(result), key, attempt),
        )
        if connection.rowcount != 1:
            msg = f"write {key} is no longer held at attempt {attempt}"
            raise FencedError(msg)

    def finalize(
        self,
        key: str,
        attempt: int,
        state: LedgerState,
        *,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
    ) -> bool:
        with self.db.transaction() as tx:
            tx.execute(
                "UPDATE sf_ledger SET state = ?, result = ?, error = ?, updated_at = {now} "
                "WHERE key = ? AND attempt = ? AND state IN ('pending', 'unknown')",
                (state, _json(result), _json(error), key, attempt),
            )
            return tx.rowcount == 1

    def get(self, key: str) -> LedgerEntry | None:
        rows = self.db.query(f"SELECT {_LEDGER_COLUMNS} FROM sf_ledger WHERE key = ?", (key,))
        return _entry(rows[0]) if rows else None

    def entries(
        self, *, conversation_id: str | None = None, state: LedgerState | None = None
    ) -> list[LedgerEntry]:
        where, params = _filters(conversation_id=conversation_id, state=state)
        rows = self.db.query(
            f"SELECT {_LEDGER_COLUMNS} FROM sf_ledger {where} ORDER BY created_at, key", params
        )
        return [_entry(r) for r in rows]

    def expire(self, key: str) -> LedgerEntry | None:
        with self.db.transaction() as tx:
            tx.execute(
                "UPDATE sf_ledger SET state = 'unknown', attempt = attempt + 1, "
                "updated_at = {now} WHERE key = ? AND state = 'pending' AND lease_until < {now}",
                (key,),
            )
        return self.get(key)


class SqlJournal:
    """The journal in a ``Database``: one row per message, appended in its own commit."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def load(self, conversation_id: str) -> list[Message]:
        rows = self.db.query(
            "SELECT payload FROM sf_messages WHERE conversation_id = ? ORDER BY seq",
            (conversation_id,),
        )
        return [message_from_json(json.loads(r[0])) for r in rows]

    def append(self, conversation_id: str, message: Message) -> None:
        payload = json.dumps(message_to_json(message), ensure_ascii=False)
        with self.db.transaction() as tx:
            tx.execute(
                "INSERT INTO sf_conversations (id, created_at, updated_at) "
                "VALUES (?, {now}, {now}) ON CONFLICT (id) DO UPDATE SET updated_at = {now}",
                (conversation_id,),
            )
            tx.execute(
                "INSERT INTO sf_messages (conversation_id, seq, payload, created_at) "
                "SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, {now} FROM sf_messages "
                "WHERE conversation_id = ?",
                (conversation_id, payload, conversation_id),
            )

    def exists(self, conversation_id: str) -> bool:
        rows = self.db.query(
            "SELECT 1 FROM sf_messages WHERE conversation_id = ? LIMIT 1", (conversation_id,)
        )
        return bool(rows)

    def conversations(self) -> list[str]:
        rows = self.db.query("SELECT id FROM sf_conversations ORDER BY updated_at DESC, id")
        return [r[0] for r in rows]

    def decide(self, conversation_id: str, call_id: str, *, approved: bool) -> bool:
        with self.db.transaction() as tx:
            tx.execute(
                "INSERT INTO sf_decisions (conversation_id, call_id, approved, decided_at) "
                "VALUES (?, ?, ?, {now}) ON CONFLICT (conversation_id, call_id) DO NOTHING",
                (conversation_id, call_id, int(approved)),
            )
            return tx.rowcount == 1

    def decisions(self, conversation_id: str) -> dict[str, bool]:
        rows = self.db.query(
            "SELECT call_id, approved FROM sf_decisions WHERE conversation_id = ?",
            (conversation_id,),
        )
        return {r[0]: bool(r[1]) for r in rows}


class SqlDiagnostics:
    """Diagnostics in a ``Database``, apart from every model-visible table."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def record(self, diagnostic: Diagnostic) -> None:
        self.db.query(
            "INSERT INTO sf_diagnostics (conversation_id, call_id, tool, key, exception_type, "
            "message, traceback, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                diagnostic.conversation_id,
                diagnostic.call_id,
                diagnostic.tool,
                diagnostic.key,
                diagnostic.exception_type,
                diagnostic.message,
                diagnostic.traceback,
                diagnostic.created_at,
            ),
        )

    def list(self, *, conversation_id: str | None = None) -> list[Diagnostic]:
        where, params = _filters(conversation_id=conversation_id)
        rows = self.db.query(
            "SELECT conversation_id, call_id, tool, exception_type, message, traceback, "
            f"created_at, key FROM sf_diagnostics {where} ORDER BY id",
            params,
        )
        return [Diagnostic(r[0], r[1], r[2], r[3], r[4], r[5], float(r[6]), r[7]) for r in rows]
