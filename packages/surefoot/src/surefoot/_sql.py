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

Errors: every call into a driver (connect, migrate, begin, execute, commit, rollback, close)
runs inside ``driver_errors``, the one place a driver's exception becomes ``StoreError`` with a
typed ``kind`` (locked, unavailable, not_a_database, permission, disk_full, ...) and a message
that is safe to show: the URL with its password removed (``safe_url``), never the driver's
text, which stays reachable only as ``__cause__``.
"""

from __future__ import annotations

import errno
import functools
import json
import math
import os
import re
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit

from ._diagnostics import Diagnostic
from ._exceptions import ConversationBusyError, StoreError, StoreErrorKind
from ._journal import Approval, Lease, ModelRef
from ._ledger import DEFAULT_USER, Claim, FencedError, Landed, LedgerEntry, LedgerState
from ._messages import Message
from ._owner import new_owner, owner_is_gone
from ._pgconn import Outage
from ._pgconn import connect as _bounded_connect
from ._serde import message_from_json, message_to_json

Dialect = Literal["sqlite", "postgresql"]

_NOW = {
    "sqlite": "((julianday('now') - 2440587.5) * 86400.0)",
    "postgresql": "extract(epoch from clock_timestamp())::double precision",
}
_WRITES: Final = ("INSERT", "UPDATE", "DELETE")
_WRITES_WITHIN: Final = re.compile(r"\b(INSERT|UPDATE|DELETE)\b")
"""A write inside a ``WITH`` statement (a data-modifying common table expression)."""
_TOKENS = {
    "sqlite": {"{serial}": "INTEGER PRIMARY KEY AUTOINCREMENT", "{real}": "REAL"},
    "postgresql": {"{serial}": "BIGSERIAL PRIMARY KEY", "{real}": "DOUBLE PRECISION"},
}


# -- errors: the one choke point ---------------------------------------------------------------

_PASSWORD_PARAMS: Final = frozenset({"password", "passwd", "sslpassword"})


def safe_url(url: str | os.PathLike[str]) -> str:
    """``url`` fit to show: a password in the address (``user:secret@``) or in a parameter
    (``?password=``) is removed; a plain path is returned as it is."""
    text = os.fspath(url)
    if "://" not in text:
        return text
    scheme = text.partition("://")[0]
    try:
        parts = urlsplit(text)
        host = parts.hostname or ""
        port = parts.port
        user = parts.username
        password = parts.password
    except ValueError:  # an address that cannot be read: show only its scheme
        return f"{scheme}://..."
    query = parse_qsl(parts.query, keep_blank_values=True)
    if password is None and not any(k.lower() in _PASSWORD_PARAMS for k, _ in query):
        return text
    netloc = host if ":" not in host else f"[{host}]"
    if port is not None:
        netloc += f":{port}"
    if user:
        netloc = f"{user}@{netloc}"
    kept = urlencode([(k, v) for k, v in query if k.lower() not in _PASSWORD_PARAMS])
    return f"{scheme}://{netloc}{parts.path}" + (f"?{kept}" if kept else "")


_PHRASES: Final[dict[StoreErrorKind, str]] = {
    "locked": "the database is locked by another connection",
    "unavailable": "the database cannot be reached, or the connection to it was lost",
    "not_a_database": "this is not a database (another kind of file, a directory, or damaged)",
    "permission": "no permission to read or write the database",
    "disk_full": "no space left for the database to grow",
    "unsupported_url": "unsupported database URL; use a file path, sqlite:///..., "
    "or postgresql://...",
    "not_found": "the database does not exist",
    "misuse": "the database was used in a way it does not allow",
}

# SQLite primary result codes (the low byte of an extended code)
_SQLITE_KINDS: Final[dict[int, StoreErrorKind]] = {
    3: "permission",  # SQLITE_PERM
    5: "locked",  # SQLITE_BUSY
    6: "locked",  # SQLITE_LOCKED
    8: "permission",  # SQLITE_READONLY
    10: "unavailable",  # SQLITE_IOERR
    11: "not_a_database",  # SQLITE_CORRUPT
    13: "disk_full",  # SQLITE_FULL
    14: "permission",  # SQLITE_CANTOPEN: the file or its directory cannot be opened
    15: "locked",  # SQLITE_PROTOCOL
    23: "permission",  # SQLITE_AUTH
    26: "not_a_database",  # SQLITE_NOTADB
}

# PostgreSQL SQLSTATEs, exact first, then by class (the first two characters)
_PG_STATES: Final[dict[str, StoreErrorKind]] = {
    "53100": "disk_full",
    "40001": "locked",
    "40P01": "locked",
    "55P03": "locked",
    "57014": "locked",  # canceled, as by lock_timeout or statement_timeout
    "25P03": "unavailable",  # the session ended, idle in its transaction too long
    "25P04": "unavailable",  # the session ended, its transaction open too long
    "25006": "permission",
    "42501": "permission",
    "3D000": "not_found",
    "XX001": "not_a_database",
    "XX002": "not_a_database",
}
_PG_CLASSES: Final[dict[str, StoreErrorKind]] = {
    "08": "unavailable",
    "57": "unavailable",  # admin shutdown, crash shutdown, cannot connect now
    "53": "unavailable",
    "58": "unavailable",
    "28": "permission",
}


def store_error(kind: StoreErrorKind, url: str | None) -> StoreError:
    """A ``StoreError`` of ``kind`` about the database at ``url`` (shown without password)."""
    shown = safe_url(url) if url is not None else None
    message = _PHRASES[kind] if shown is None else f"{_PHRASES[kind]}: {shown}"
    return StoreError(message, kind=kind, url=shown)


def _sqlite_kind(exc: Exception) -> StoreErrorKind:
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return _SQLITE_KINDS.get(code & 0xFF, "misuse")
    return "misuse"


def _psycopg_kind(exc: Exception) -> StoreErrorKind:
    state = getattr(exc, "sqlstate", None)
    if isinstance(state, str):
        return _PG_STATES.get(state) or _PG_CLASSES.get(state[:2], "misuse")
    psycopg = sys.modules["psycopg"]
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return "unavailable"  # no server answer at all: refused, unreachable, closed
    return "misuse"


def _os_kind(exc: OSError) -> StoreErrorKind:
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "permission"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "disk_full"
    if exc.errno in (errno.EISDIR, errno.ENOTDIR, errno.EEXIST):
        return "not_a_database"
    return "unavailable"


def _is_psycopg_error(exc: BaseException) -> bool:
    psycopg = sys.modules.get("psycopg")
    return psycopg is not None and isinstance(exc, psycopg.Error)


@contextmanager
def driver_errors(url: str | None, *, files: bool = False) -> Iterator[None]:
    """Around a call into a database driver: its exceptions (SQLite's, psycopg's, and with
    ``files`` the file system's) leave as ``StoreError``, the driver's as ``__cause__`` only.
    Anything else (a ``StoreError``, the application's own exceptions) passes unchanged."""
    try:
        yield
    except StoreError:
        raise
    except OSError as exc:
        if not files:
            raise
        raise store_error(_os_kind(exc), url) from exc
    except Exception as exc:
        sqlite3 = sys.modules.get("sqlite3")  # loaded only once a SQLite database is used
        if sqlite3 is not None and isinstance(exc, sqlite3.Error):
            raise store_error(_sqlite_kind(exc), url) from exc
        if _is_psycopg_error(exc):
            raise store_error(_psycopg_kind(exc), url) from exc
        raise


@dataclass(slots=True)
class TransactionCounts:
    """What a ``Database`` committed since it was opened: how a benchmark or a test sees the
    commits a turn costs (counted in process; nothing is asked of the database)."""

    transactions: int = 0
    """Transactions that ended in a commit, those that only read included."""
    commits: int = 0
    """Of those, the ones that wrote (ran an ``INSERT``, ``UPDATE`` or ``DELETE``): the
    commits a disk flush is paid for."""
    round_trips: int = 0
    """Statements sent to the database, each transaction's ``BEGIN`` and ``COMMIT``
    included: on PostgreSQL, each one a wait for the server."""
    reads: int = 0
    """Statements run on their own (``Database.execute``) that only read, or that changed no
    row: no commit to pay for."""
    deferred: int = 0
    """Of the ``commits``, those that did not wait for the disk (``deferred_flush``)."""


# -- commits that need not wait for the disk ---------------------------------------------------

DEFERRED_COMMIT: Final = "(SELECT set_config('synchronous_commit', 'off', true)) AS deferred"
"""A ``FROM`` item that lets the statement's own transaction commit without waiting for
PostgreSQL to flush its log (``synchronous_commit`` off for that transaction only)."""


class Deferral:
    """A ``deferred_flush`` scope: for each database with a commit of the scope that did not
    wait for the disk and that no commit that waited has covered since, a write that waits
    (what the scope's end runs)."""

    __slots__ = ("pending",)

    def __init__(self) -> None:
        self.pending: dict[Database, Callable[[], object]] = {}


_DEFERRAL: ContextVar[Deferral | None] = ContextVar("surefoot_deferral", default=None)


@contextmanager
def deferred_flush(scope: Deferral | None = None, *, flush: bool = True) -> Iterator[Deferral]:
    """A scope whose journal commits need not wait for the disk, each on its own.

    On PostgreSQL, inside it, the journal's usual append and its taking of a free hold commit
    with ``synchronous_commit`` off: they are visible to everyone at once, and on disk a few
    hundred milliseconds later, or as soon as any later commit waits for the disk.
    PostgreSQL's log is one sequence, written in order, so a commit that waits makes every
    commit before it durable too. Every other commit still waits: a ledger claim (made before
    a write runs), the tools' own transactions, the settlement, a hold given back. And the
    scope does not end before its commits are durable: if none has waited since the last
    deferred one, its end runs one write that waits.

    What a server crash can lose is therefore only the tail of a turn since its last commit
    that waited: a hold taken, a person's message, the model's answers. A worker killed at
    that point would leave the conversation in the same state, and resuming handles it. A
    scope inside another joins it (the outer one's end waits). SQLite, and calls outside any
    scope, wait for every commit as before.

    A scope may span two blocks, as a web request takes a hold and hands the turn to a task
    of its own: the first opens it with ``flush=False`` (its end waits for nothing) and the
    second passes it as ``scope`` and ends it. If the second never runs, the first one's
    commits wait for the next commit that waits (the hold given back, say)."""
    current = _DEFERRAL.get()
    if scope is None and current is not None:
        yield current
        return
    scope = Deferral() if scope is None else scope
    token = _DEFERRAL.set(scope)
    try:
        yield scope
    except BaseException:
        if flush:  # what the body raised is what the caller sees; the flush is tried anyway
            with suppress(StoreError):
                _flush(scope)
        raise
    else:
        if flush:
            _flush(scope)
    finally:
        _DEFERRAL.reset(token)


@contextmanager
def every_commit_waits() -> Iterator[None]:
    """A block whose commits each wait for the disk again, even inside a ``deferred_flush``
    scope. A durable engine's step runs in one: the engine records the step's end in a
    transaction of its own, perhaps on another server, which covers nothing of ours."""
    token = _DEFERRAL.set(None)
    try:
        yield
    finally:
        _DEFERRAL.reset(token)


def _noted(db: Database, deferred: Callable[[], object] | None) -> bool:
    """A commit of ``db`` that wrote, noted in the ``deferred_flush`` scope, if any: one that
    did not wait is owed its flush (``deferred``, a write that waits); one that waited has
    flushed every commit before it. Whether it did not wait."""
    scope = _DEFERRAL.get()
    if scope is None:
        return False
    if deferred is None:
        scope.pending.pop(db, None)
        return False
    scope.pending[db] = deferred
    return True


def _flush(scope: Deferral) -> None:
    while scope.pending:
        _, flush = scope.pending.popitem()
        flush()


class Tx:
    """An open transaction: ``execute`` runs one statement and returns its rows."""

    def __init__(self, db: Database, cursor: Any) -> None:
        self._db = db
        self._cursor = cursor
        self.rowcount = 0
        self.wrote = False
        """Whether a statement that writes ran in it."""
        self.changed = False
        """Whether such a statement changed a row (then its commit waits for the disk, on
        PostgreSQL: one that changed none has nothing to flush)."""
        self.statements = 0
        self.committed = False
        """Whether it committed: set when its ``COMMIT`` returned (never on a savepoint,
        which only the transaction around it can commit)."""

    @property
    def dialect(self) -> Dialect:
        """``sqlite`` or ``postgresql``."""
        return self._db.dialect

    @property
    def database(self) -> Database:
        """The database it runs on."""
        return self._db

    @property
    def nested(self) -> bool:
        """Whether this is a savepoint inside another transaction of the same thread (what
        it writes is kept only if that one commits)."""
        return self._db.depth() > 1

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run ``sql`` (``?`` placeholders, ``{now}`` for the database clock)."""
        statement, writes = self._db.statement(sql)
        self.wrote = self.wrote or writes
        self.statements += 1
        with driver_errors(self._db.url):
            self._cursor.execute(statement, tuple(params))
            self.rowcount = self._cursor.rowcount
            self.changed = self.changed or (writes and self.rowcount > 0)
            if self._cursor.description is None:
                return []
            return [tuple(row) for row in self._cursor.fetchall()]


class Database:
    """One database connection with transactions, for both dialects.

    ``url`` is the database's address without its password. A PostgreSQL connection the
    server dropped (a restart, ``pg_terminate_backend``) fails the transaction it was in with
    ``StoreError(kind="unavailable")``; the next transaction connects again (``reconnect``).
    One that does not answer within its ``outage``'s bound is ended, and until the server
    answers again every call fails at once as ``unavailable`` (``_pgconn``).

    Transactions take turns on the one connection, whatever the thread. A PostgreSQL
    database opened with ``pool=N`` (``open_database``) keeps up to N connections instead:
    a thread's transaction takes one that is free (or waits for one), and a transaction
    opened inside it, on the same thread, is a savepoint on that same connection, as with
    one connection; so threads that wait for the server (a commit's flush to disk) wait at
    the same time, not one after another.
    """

    def __init__(
        self,
        dialect: Dialect,
        connection: Any,
        *,
        url: str,
        reconnect: Callable[[], Any] | None = None,
        pool: int = 1,
        outage: Outage | None = None,
    ) -> None:
        self.dialect: Dialect = dialect
        self.url = safe_url(url)
        self._reconnect = reconnect
        self._outage = outage
        self._conn = connection
        self._lock = threading.RLock()
        self._pool = pool if dialect == "postgresql" and reconnect is not None else 1
        self._idle: list[Any] = [connection]
        self._open = 1
        self._closed = False
        self._free = threading.Condition()
        self._held = threading.local()
        self._count_lock = threading.Lock()
        self._sql_cache: dict[str, tuple[str, bool]] = {}
        self._migrated: dict[str, int] = {}
        self.counts = TransactionCounts()
        """Transactions and commits so far (``TransactionCounts``)."""
        self.migrate("surefoot", _SUREFOOT_MIGRATIONS)

    def sql(self, statement: str) -> str:
        """``statement`` rewritten for this dialect."""
        return self.statement(statement)[0]

    def statement(self, statement: str) -> tuple[str, bool]:
        """``statement`` rewritten for this dialect, and whether it writes."""
        cached = self._sql_cache.get(statement)
        if cached is not None:
            return cached
        out = statement.replace("{now}", _NOW[self.dialect])
        for token, value in _TOKENS[self.dialect].items():
            out = out.replace(token, value)
        if self.dialect == "postgresql":
            out = out.replace("%", "%%").replace("?", "%s")
        head = statement.lstrip().upper()
        writes = head.startswith(_WRITES) or (
            head.startswith("WITH") and _WRITES_WITHIN.search(head) is not None
        )
        self._sql_cache[statement] = (out, writes)
        return out, writes

    def _committed(self, tx: Tx) -> None:
        tx.committed = not tx.nested
        if tx.changed and tx.committed:
            _noted(self, None)
        with self._count_lock:
            self.counts.transactions += 1
            self.counts.commits += tx.wrote
            self.counts.round_trips += tx.statements + 2

    def deferring(self) -> bool:
        """Whether a statement run on its own now may commit without waiting for the disk:
        on PostgreSQL, inside a ``deferred_flush`` scope, outside any transaction of this
        thread. Such a statement carries ``DEFERRED_COMMIT`` and is run with
        ``execute(..., deferred=...)``."""
        return self.dialect == "postgresql" and _DEFERRAL.get() is not None and self.depth() == 0

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """A write transaction (``BEGIN IMMEDIATE`` on SQLite); commits on success.

        Its own driver calls (begin, each ``Tx.execute``, commit, rollback) fail as
        ``StoreError``; whatever the body raises itself passes through unchanged (after the
        rollback)."""
        depth = self.depth()
        if depth == 0:
            self._reachable()
        self._held.depth = depth + 1
        try:
            if self._pool > 1:
                yield from self._pooled_transaction()
                return
            with self._lock:
                if self.dialect == "sqlite":
                    yield from self._sqlite_transaction()
                else:
                    yield from self._postgres_transaction()
        finally:
            self._held.depth = depth

    def depth(self) -> int:
        """How many transactions this thread has open on this database (0: none; 2: a
        savepoint inside a transaction)."""
        return getattr(self._held, "depth", 0)

    def _reachable(self) -> None:
        """Fail at once while the server is out (it let a wait run out and has not answered
        since), instead of waiting for it again."""
        if self._outage is not None and self._outage.out:
            raise store_error("unavailable", self.url)

    def _pooled_transaction(self) -> Iterator[Tx]:
        """A transaction on a connection of the pool: this thread's own when one of its
        transactions is open (a savepoint), else a free one, held until it ends."""
        mine = getattr(self._held, "conn", None)
        if mine is not None:
            yield from self._postgres_block(mine)
            return
        conn = self._checkout()
        self._held.conn = conn
        try:
            yield from self._postgres_block(conn)
        finally:
            self._held.conn = None
            self._checkin(conn)

    def _checkout(self) -> Any:
        """A free connection (a new one while fewer than ``pool`` are open; one the server
        dropped is replaced), waiting for one when all are taken."""
        with self._free:
            while not self._idle and self._open >= self._pool and not self._closed:
                self._free.wait()
            if self._closed:  # as the one connection fails once closed
                raise store_error("unavailable", self.url)
            conn = self._idle.pop() if self._idle else None
            if conn is None:
                self._open += 1
        if conn is not None and not conn.broken:
            try:
                self._reachable()  # it may have gone out while this waited
            except StoreError:
                self._checkin(conn)
                raise
            return conn
        assert self._reconnect is not None  # a pool is made only with one
        try:
            with driver_errors(self.url):
                if conn is not None:
                    conn.close()
                return self._reconnect()
        except BaseException:
            with self._free:
                self._open -= 1
                self._free.notify()
            raise

    def _checkin(self, conn: Any) -> None:
        with self._free:
            if not self._closed:
                self._idle.append(conn)
                self._free.notify()
                return
        with driver_errors(self.url):
            conn.close()

    def _sqlite_transaction(self) -> Iterator[Tx]:
        with driver_errors(self.url):
            cursor = self._conn.cursor()
            cursor.execute("BEGIN IMMEDIATE")
        try:
            tx = Tx(self, cursor)
            yield tx
            with driver_errors(self.url):
                cursor.execute("COMMIT")
            self._committed(tx)
        except BaseException:
            with driver_errors(self.url):
                self._rollback(cursor)
            raise

    def _rollback(self, cursor: Any) -> None:
        """Roll back after a failure (in the body, or of ``COMMIT`` itself) unless SQLite
        already did; the failure is what the caller sees, so a rollback that fails too does
        not replace it, unless the transaction is still open."""
        if not self._conn.in_transaction:
            return
        import sqlite3

        try:
            cursor.execute("ROLLBACK")
        except sqlite3.Error:
            if self._conn.in_transaction:
                raise

    def _postgres_transaction(self) -> Iterator[Tx]:
        with driver_errors(self.url):
            if self._reconnect is not None and self._conn.broken:
                self._conn = self._reconnect()
        yield from self._postgres_block(self._conn)

    def _postgres_block(self, conn: Any) -> Iterator[Tx]:
        with driver_errors(self.url):
            block = conn.transaction()
            block.__enter__()
        try:
            with driver_errors(self.url):
                cursor = conn.cursor()
            tx = Tx(self, cursor)
            try:
                yield tx
            finally:
                with driver_errors(self.url):
                    cursor.close()
        except BaseException as exc:
            try:
                with driver_errors(self.url):
                    block.__exit__(type(exc), exc, exc.__traceback__)  # rolls back
            except StoreError:
                if not conn.closed:
                    raise
                # the connection is gone (a wait ran out), and its transaction with it: the
                # caller sees what the body raised, not the rollback that could not be sent
            raise
        with driver_errors(self.url):
            block.__exit__(None, None, None)  # commits
        if conn.closed:  # ended under a body that caught its error: psycopg sends no COMMIT
            raise store_error("unavailable", self.url)
        self._committed(tx)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement on its own and return its rows (``execute``)."""
        return self.execute(sql, params)[0]

    def execute(
        self,
        sql: str,
        params: Sequence[Any] = (),
        *,
        deferred: Callable[[], object] | None = None,
    ) -> tuple[list[tuple[Any, ...]], int]:
        """Run one statement on its own and return its rows and its row count.

        The statement is its own transaction, with no ``BEGIN`` and ``COMMIT`` around it: one
        round trip to PostgreSQL where a transaction takes three, and on SQLite no write lock
        for a read. A statement is atomic either way, reads one snapshot, and a write is
        durable when this returns. Inside a transaction this thread has open, it runs in
        that transaction instead. Counted in ``counts``: a round trip; on its own, a write
        as a transaction and a commit, a read (or a write that changed no row) in
        ``reads``.

        ``deferred``: the statement carries ``DEFERRED_COMMIT`` (``deferring()`` said it may),
        so its commit does not wait for the disk; this is a write that waits, which the
        ``deferred_flush`` scope's end runs unless a commit that waits comes first."""
        statement, writes = self.statement(sql)
        inside = self.depth() > 0
        if not inside:
            self._reachable()
        if self._pool > 1:
            mine = getattr(self._held, "conn", None)
            if mine is not None:
                return self._alone(mine, statement, params, writes, inside=True)
            conn = self._checkout()
            try:
                return self._alone(conn, statement, params, writes, deferred=deferred)
            finally:
                self._checkin(conn)
        with self._lock:
            if not inside and self.dialect == "postgresql" and self._reconnect is not None:
                with driver_errors(self.url):
                    if self._conn.broken:
                        self._conn = self._reconnect()
            return self._alone(
                self._conn, statement, params, writes, inside=inside, deferred=deferred
            )

    def _alone(
        self,
        conn: Any,
        statement: str,
        params: Sequence[Any],
        writes: bool,
        *,
        inside: bool = False,
        deferred: Callable[[], object] | None = None,
    ) -> tuple[list[tuple[Any, ...]], int]:
        """Run ``statement`` on ``conn`` as it is; ``inside`` an open transaction, a write
        is that transaction's to commit (and to count). ``deferred``: as in ``execute``."""
        with driver_errors(self.url):
            cursor = conn.cursor()
            try:
                cursor.execute(statement, tuple(params))
                rowcount = cursor.rowcount
                rows = [] if cursor.description is None else [tuple(r) for r in cursor.fetchall()]
            finally:
                cursor.close()
        with self._count_lock:
            self.counts.round_trips += 1
            if inside:  # the transaction it ran in commits it, and is counted then
                return rows, rowcount
            if writes and rowcount != 0:  # one that changed nothing has nothing to flush
                self.counts.transactions += 1
                self.counts.commits += 1
                self.counts.deferred += _noted(self, deferred)
            else:
                self.counts.reads += 1
        return rows, rowcount

    def migrate(self, namespace: str, migrations: Sequence[str]) -> None:
        """Apply ``migrations`` (each a ``;``-separated script) not yet applied, in order.
        Once this connection has applied (or found) a namespace's migrations, asking again
        for no more of them asks nothing of the database (a server that opens a store per
        person on one ``Database`` migrates once)."""
        if self._migrated.get(namespace, -1) >= len(migrations):
            return
        # on PostgreSQL, found with a bounded wait: a server that hangs fails the opening
        bounded = self._outage is not None and self.depth() == 0
        if bounded and _applied(self, namespace) >= len(migrations):
            self._migrated[namespace] = len(migrations)
            return
        patient = self._outage.patient() if self._outage is not None else nullcontext()
        with patient, driver_errors(self.url):
            _apply(self, namespace, migrations)
        self._migrated[namespace] = len(migrations)

    def close(self) -> None:
        """Close the connection (with ``pool``, every one: those in a transaction when it
        ends); a transaction after this fails as ``unavailable``."""
        if self._outage is not None:
            self._outage.close()
        with self._lock, driver_errors(self.url):
            self._conn.close()
            with self._free:
                others = [conn for conn in self._idle if conn is not self._conn]
                self._idle.clear()
                self._closed = True
                self._free.notify_all()
            for conn in others:
                conn.close()


def _apply(db: Database, namespace: str, migrations: Sequence[str]) -> None:
    """Apply, in one transaction, the ``migrations`` of ``namespace`` not yet applied."""
    with db.transaction() as tx:
        if db.dialect == "postgresql":
            # as long as it takes (the connection's own limits are for calls that wait)
            tx.execute("SET LOCAL statement_timeout = 0")
            tx.execute("SET LOCAL lock_timeout = 0")
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


def _applied(db: Database, namespace: str) -> int:
    """How many of ``namespace``'s migrations ``db`` has (0 before the first)."""
    try:
        rows = db.query(
            "SELECT COALESCE(MAX(version), 0) FROM sf_migrations WHERE namespace = ?",
            (namespace,),
        )
    except StoreError as exc:
        if exc.kind != "misuse":  # not the table missing: the database failed
            raise
        return 0
    return int(rows[0][0])


def resolve_url(url: str | os.PathLike[str]) -> tuple[Dialect, str]:
    """``(dialect, target)``: a file path for SQLite, the URL itself for PostgreSQL."""
    text = os.fspath(url)
    if text.startswith(("postgresql://", "postgres://")):
        return "postgresql", text
    if text.startswith("sqlite:///"):
        return "sqlite", text.removeprefix("sqlite:///")
    if "://" in text:
        raise store_error("unsupported_url", text)
    return "sqlite", text


def open_database(
    url: str | os.PathLike[str],
    *,
    create: bool = True,
    busy_timeout: float = 30.0,
    pool: int = 1,
    answer_timeout: float = 10.0,
    idle_timeout: float | None = 60.0,
) -> Database:
    """Open (and migrate) the database at ``url``; see the module docstring for forms.

    ``busy_timeout``: how long (seconds) a SQLite statement waits for another connection's
    lock before failing with ``StoreError(kind="locked")``. ``pool``: how many connections a
    PostgreSQL database may open, for threads whose transactions run at the same time
    (``Database``); SQLite keeps one. ``answer_timeout``: how long (seconds) a PostgreSQL
    connection waits for its server's answer (to connect, to a statement, to a commit)
    before it is ended and the database fails calls at once as ``unavailable`` until the
    server answers again (a server that is there cancels a statement, or a wait for a lock,
    at 80 % of it: ``locked``); migrations wait as long as they take. ``idle_timeout``: how
    long (seconds) a PostgreSQL transaction may stay open with nothing sent before the server
    ends its session, so that a stopped client's locks go (``None``: the server's setting).
    Every failure is a ``StoreError``.
    """
    if pool < 1:
        msg = "pool must be at least 1"
        raise ValueError(msg)
    if not 0 < answer_timeout < math.inf:  # also refuses nan
        msg = "answer_timeout must be more than 0 seconds, and finite"
        raise ValueError(msg)
    if idle_timeout is not None and not 0 < idle_timeout < math.inf:
        msg = "idle_timeout must be more than 0 seconds, and finite, or None"
        raise ValueError(msg)
    dialect, target = resolve_url(url)
    if dialect == "postgresql":
        return _open_postgres(target, pool, answer_timeout, idle_timeout)
    if target == ":memory:":
        return _sqlite(":memory:", "sqlite:///:memory:", busy_timeout)
    path = Path(target)
    shown = f"sqlite:///{path}"
    with driver_errors(shown, files=True):
        if path.is_dir():
            raise store_error("not_a_database", shown)
        if not path.exists():
            if not create:
                raise store_error("not_found", shown)
            path.parent.mkdir(parents=True, exist_ok=True)
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    return _sqlite(path, shown, busy_timeout)


def _sqlite(path: str | Path, url: str, busy_timeout: float) -> Database:
    import sqlite3  # only SQLite databases need it: `import surefoot` stays light

    with driver_errors(url):
        conn = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, timeout=busy_timeout
        )
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute(f"PRAGMA busy_timeout={max(0, round(busy_timeout * 1000))}")
            conn.execute("PRAGMA foreign_keys=ON")
            return Database("sqlite", conn, url=url)
        except BaseException:
            conn.close()
            raise


def _open_postgres(
    url: str, pool: int, answer_timeout: float, idle_timeout: float | None
) -> Database:
    try:
        import psycopg  # noqa: F401 - only to say what is missing
    except ImportError as exc:  # pragma: no cover - depends on the install
        msg = "PostgreSQL needs the 'postgres' extra (psycopg)"
        raise StoreError(msg, kind="unavailable", url=safe_url(url)) from exc

    outage = Outage(
        lambda: _bounded_connect(url, outage, idle_timeout),
        answer_timeout=answer_timeout,
        url=safe_url(url),
    )

    def connect() -> Any:
        if outage.out:  # the probe on the heartbeat thread connects, not a caller
            raise store_error("unavailable", url)
        with driver_errors(url):
            return _bounded_connect(url, outage, idle_timeout)

    try:
        conn = connect()
    except BaseException:
        outage.close()  # no database to come back to: no probe
        raise
    try:
        return Database("postgresql", conn, url=url, reconnect=connect, pool=pool, outage=outage)
    except BaseException:
        outage.close()
        conn.close()
        raise


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
    # users (tenants), one writer per conversation, the model a turn runs on, and approvals
    # bound to the exact call (a call id alone is reused by some servers, so it binds nothing)
    """
    CREATE TABLE sf_conversations_v2 (
        user_id TEXT NOT NULL,
        id TEXT NOT NULL,
        created_at {real} NOT NULL,
        updated_at {real} NOT NULL,
        provider TEXT,
        model TEXT,
        base_url TEXT,
        owner TEXT,
        lease_until {real} NOT NULL DEFAULT 0,
        fence INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (user_id, id)
    );
    INSERT INTO sf_conversations_v2 (user_id, id, created_at, updated_at)
        SELECT 'default', id, created_at, updated_at FROM sf_conversations;
    CREATE TABLE sf_messages_v2 (
        user_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        payload TEXT NOT NULL,
        created_at {real} NOT NULL,
        PRIMARY KEY (user_id, conversation_id, seq),
        FOREIGN KEY (user_id, conversation_id) REFERENCES sf_conversations_v2 (user_id, id)
    );
    INSERT INTO sf_messages_v2 (user_id, conversation_id, seq, payload, created_at)
        SELECT 'default', conversation_id, seq, payload, created_at FROM sf_messages;
    DROP TABLE sf_messages;
    DROP TABLE sf_conversations;
    ALTER TABLE sf_conversations_v2 RENAME TO sf_conversations;
    ALTER TABLE sf_messages_v2 RENAME TO sf_messages;
    ALTER TABLE sf_ledger ADD COLUMN user_id TEXT NOT NULL DEFAULT 'default';
    CREATE INDEX sf_ledger_user ON sf_ledger (user_id, conversation_id, created_at);
    DROP TABLE sf_decisions;
    CREATE TABLE sf_approvals (
        user_id TEXT NOT NULL,
        id TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        user_turn INTEGER NOT NULL,
        key TEXT NOT NULL,
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        arguments TEXT NOT NULL,
        approved INTEGER,
        requested_at {real} NOT NULL,
        decided_at {real},
        PRIMARY KEY (user_id, id)
    );
    CREATE INDEX sf_approvals_conversation ON sf_approvals (user_id, conversation_id, user_turn);
    ALTER TABLE sf_diagnostics ADD COLUMN user_id TEXT NOT NULL DEFAULT 'default'
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


def _filters(**columns: object) -> tuple[str, tuple[object, ...]]:
    """``AND``-ed conditions over the given columns that are not None (names are ours)."""
    used = {name: value for name, value in columns.items() if value is not None}
    return "".join(f" AND {name} = ?" for name in used), tuple(used.values())


def _json(value: dict[str, Any] | None) -> str | None:
    """Stored JSON: standard (no NaN or Infinity), so every reader can load it back."""
    if value is None:
        return None
    return json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False)


class SqlLedger:
    """The write ledger in a ``Database`` (see ``surefoot._ledger`` for the states), for one
    user: every row carries ``user``, every query is scoped to it."""

    def __init__(self, db: Database, *, user: str = DEFAULT_USER) -> None:
        self.db = db
        self.user = user

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
        insert = (
            "INSERT INTO sf_ledger (key, user_id, conversation_id, tool, fingerprint, "
            "arguments, state, attempt, lease_until, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, 'pending', 1, {now} + ?, {now}, {now}) "
            "ON CONFLICT (key) DO NOTHING"
        )
        params = (key, self.user, conversation_id, tool, fingerprint, _json(arguments))
        read = f"SELECT {_LEDGER_COLUMNS} FROM sf_ledger WHERE key = ? AND user_id = ?"
        # on PostgreSQL the new row comes back with the insert, a statement on its own: one
        # round trip, where a transaction around it takes three (a key already claimed is
        # read by a second statement; one transaction around both would give neither more
        # than it has alone). SQLite before 3.35 has no RETURNING, and a statement there
        # costs no round trip
        if self.db.dialect == "postgresql":
            rows, inserted = self.db.execute(
                insert + f" RETURNING {_LEDGER_COLUMNS}", (*params, lease_seconds)
            )
            owned = inserted == 1
            if not owned:
                rows = self.db.query(read, (key, self.user))
        else:
            with self.db.transaction() as tx:
                tx.execute(insert, (*params, lease_seconds))
                owned = tx.rowcount == 1
                rows = tx.execute(read, (key, self.user))
        if not rows:  # a key is a hash over the user too: another user's key cannot match
            msg = "the write's key belongs to another user"
            raise StoreError(msg, kind="misuse", url=self.db.url)
        return Claim(_entry(rows[0]), owned=owned)

    def commit_in(
        self, connection: Any, key: str, attempt: int, result: dict[str, Any]
    ) -> Landed | None:
        if not isinstance(connection, Tx):
            msg = "commit_in needs the Tx of a transaction on the ledger's database"
            raise StoreError(msg, kind="misuse", url=self.db.url)
        stored = _json(result)
        connection.execute(
            "UPDATE sf_ledger SET state = 'committed', result = ?, updated_at = {now} "
            "WHERE key = ? AND user_id = ? AND attempt = ? AND state = 'pending'",
            (stored, key, self.user, attempt),
        )
        if connection.rowcount != 1:
            msg = f"write {key} is no longer held at attempt {attempt}"
            raise FencedError(msg)
        if connection.database is not self.db:
            return None

        def landed() -> dict[str, Any] | None:
            # the row this transaction updated is what it committed: the result as a read
            # of it would load it back, without the read
            return json.loads(stored) if connection.committed and stored else None

        return landed

    def finalize(
        self,
        key: str,
        attempt: int,
        state: LedgerState,
        *,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
    ) -> bool:
        _, changed = self.db.execute(
            "UPDATE sf_ledger SET state = ?, result = ?, error = ?, updated_at = {now} "
            "WHERE key = ? AND user_id = ? AND attempt = ? "
            "AND state IN ('pending', 'unknown')",
            (state, _json(result), _json(error), key, self.user, attempt),
        )
        return changed == 1

    def renew(self, key: str, attempt: int, lease_seconds: float) -> bool:
        _, changed = self.db.execute(
            "UPDATE sf_ledger SET lease_until = {now} + ? "
            "WHERE key = ? AND user_id = ? AND attempt = ? AND state = 'pending'",
            (lease_seconds, key, self.user, attempt),
        )
        return changed == 1

    def get(self, key: str) -> LedgerEntry | None:
        rows = self.db.query(
            f"SELECT {_LEDGER_COLUMNS} FROM sf_ledger WHERE key = ? AND user_id = ?",
            (key, self.user),
        )
        return _entry(rows[0]) if rows else None

    def entries(
        self, *, conversation_id: str | None = None, state: LedgerState | None = None
    ) -> list[LedgerEntry]:
        where, params = _filters(conversation_id=conversation_id, state=state)
        rows = self.db.query(
            f"SELECT {_LEDGER_COLUMNS} FROM sf_ledger WHERE user_id = ?{where} "
            "ORDER BY created_at, key",
            (self.user, *params),
        )
        return [_entry(r) for r in rows]

    def expire(self, key: str, *, orphaned: bool = False) -> LedgerEntry | None:
        lapsed = "" if orphaned else " AND lease_until < {now}"
        with self.db.transaction() as tx:
            tx.execute(
                "UPDATE sf_ledger SET state = 'unknown', attempt = attempt + 1, "
                "updated_at = {now} WHERE key = ? AND user_id = ? AND state = 'pending'" + lapsed,
                (key, self.user),
            )
        return self.get(key)


_APPROVAL_COLUMNS = (
    "id, conversation_id, user_turn, key, call_id, tool, fingerprint, arguments, approved"
)


def _approval(row: tuple[Any, ...]) -> Approval:
    return Approval(
        id=row[0],
        conversation_id=row[1],
        user_turn=int(row[2]),
        key=row[3],
        call_id=row[4],
        tool=row[5],
        fingerprint=row[6],
        arguments=json.loads(row[7]),
        approved=None if row[8] is None else bool(row[8]),
    )


_PROBE_MANY: Final = (
    "SELECT c.id, c.created_at, c.fence, COALESCE((SELECT m.seq FROM sf_messages m "
    "WHERE m.user_id = c.user_id AND m.conversation_id = c.id ORDER BY m.seq DESC LIMIT 1), 0) "
    "FROM sf_conversations c WHERE c.user_id = ? AND c.id IN ({ids})"
)
"""Each conversation's id, its creation time, its lease's fence and its last message's
number, for the ids in ``{ids}``."""
_PROBE: Final = _PROBE_MANY.format(ids="?")
"""``_PROBE_MANY`` for one conversation."""
_PROBE_BATCH: Final = 500
"""Conversations one ``_PROBE_MANY`` checks (an older SQLite takes 999 parameters at most)."""


def _probe_many(db: Database, user: str, ids: list[str]) -> dict[str, tuple[Any, ...]]:
    """``_PROBE``'s row (without the id) of each of ``ids`` that exists, by id."""
    found: dict[str, tuple[Any, ...]] = {}
    for start in range(0, len(ids), _PROBE_BATCH):
        batch = ids[start : start + _PROBE_BATCH]
        statement = _PROBE_MANY.format(ids=", ".join("?" * len(batch)))
        found.update((row[0], row[1:]) for row in db.query(statement, (user, *batch)))
    return found


@dataclass(slots=True)
class _Cached:
    """The transcript of one conversation as this journal last saw it: messages ``1..seq`` of
    the conversation created at ``created``, whose lease was then at ``fence``. ``checked``:
    the fence of the last append of ours that committed ``seq`` in a transaction of its own
    (its lease checked in it); the next append under that same fence takes its numbers from
    ``seq``, as no one else can append under it. A load never sets it: a reader's copy may
    be older than an append that committed while it read."""

    created: float
    fence: int
    seq: int
    messages: list[Message]
    checked: int = -1

    def ours(self, fence: int) -> bool:
        """Whether this copy is what our appends under ``fence`` left (see ``checked``)."""
        return self.fence == self.checked == fence


class _Copies:
    """A journal's copies of its most recently used transcripts (at most ``size``), and the
    conversations it holds, by the fence of its hold: what lets a load parse only what it
    has not seen, an append number its messages without asking, and a holder load its own
    appends without a check."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        self._holding: dict[str, tuple[int, float]] = {}  # the fence, the creation time
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._cache)

    def current(self, conversation_id: str, found: tuple[Any, ...]) -> list[Message] | None:
        """The cached transcript, if ``found`` (the probe's row) says it is still current."""
        created, fence, seq = float(found[0]), int(found[1]), int(found[2])
        with self._lock:
            cached = self._cache.get(conversation_id)
            if cached is None or (cached.created, cached.fence, cached.seq) != (
                created,
                fence,
                seq,
            ):
                return None
            self._cache.move_to_end(conversation_id)
            return list(cached.messages)

    def held(self, conversation_id: str) -> list[Message] | None:
        """The cached transcript, without asking the database, while the journal holds the
        conversation and the copy is what its own appends under that hold left (``checked``;
        at the hold's start, what they left under the hold before it, the same conversation
        and nobody's hold in between), of the conversation it holds (its creation time: a
        reader's copy stored late may be of one erased since): only a holder appends, so
        nothing else can be there. A hold lost meanwhile (a stalled process) is found by the
        next append, which fails."""
        with self._lock:
            held = self._holding.get(conversation_id)
            cached = self._cache.get(conversation_id)
            if held is None or cached is None:
                return None
            fence, created = held
            if not cached.ours(fence) or cached.created != created:
                return None
            self._cache.move_to_end(conversation_id)
            return list(cached.messages)

    def remember(self, conversation_id: str, cached: _Cached) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._cache[conversation_id] = cached
            self._cache.move_to_end(conversation_id)
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)

    def forget(self, conversation_id: str) -> None:
        with self._lock:
            self._cache.pop(conversation_id, None)

    def last_under(self, conversation_id: str, fence: int) -> int | None:
        """The last message's number, if an append of ours under ``fence`` (the lease this
        append holds, checked in the same transaction) committed it; else None."""
        with self._lock:
            cached = self._cache.get(conversation_id)
            if cached is None or not cached.ours(fence):
                return None
            return cached.seq

    def appended(
        self, conversation_id: str, fence: int, last: int, payloads: list[str], *, checked: bool
    ) -> None:
        """Extend the cached transcript by what was just committed after message ``last``,
        if the cache held exactly the messages before it under the same lease (the stored
        form, read back, so the cache holds what a load would return)."""
        with self._lock:
            cached = self._cache.get(conversation_id)
            if cached is None:
                return
            if (cached.fence, cached.seq) != (fence, last):
                del self._cache[conversation_id]
                return
            cached.messages.extend(message_from_json(json.loads(p)) for p in payloads)
            cached.seq = last + len(payloads)
            cached.checked = fence if checked else -1

    def acquired(self, conversation_id: str, previous: int, created: float) -> None:
        """The lease of the conversation created at ``created`` moved from ``previous`` to
        the next fence, taken by us: a transcript cached under ``previous`` carries over,
        and so does the number our last append under ``previous`` committed (nobody held
        the conversation in between: its fence would have moved further)."""
        with self._lock:
            self._holding[conversation_id] = (previous + 1, created)
            cached = self._cache.get(conversation_id)
            if cached is None:
                return
            if cached.fence == previous and cached.created == created:
                cached.fence = previous + 1
                if cached.checked == previous:
                    cached.checked = previous + 1
            else:
                del self._cache[conversation_id]

    def let_go(self, lease: Lease) -> None:
        """The journal no longer counts on ``lease`` (released, or found lost)."""
        with self._lock:
            held = self._holding.get(lease.conversation_id)
            if held is not None and held[0] == lease.fence:
                del self._holding[lease.conversation_id]


def _stored_message(message: Message) -> str:
    """The stored text of ``message``: JSON in UTF-8. The arguments of a model's call may hold
    what that cannot carry (a lone surrogate, NaN, an infinity): such a message is stored with
    ``\\u`` escapes and JSON's common extensions (``NaN``, ``Infinity``), which load back
    exactly as they were, so the transcript keeps what the model sent."""
    data = message_to_json(message)
    try:
        stored = json.dumps(data, ensure_ascii=False, allow_nan=False)
        if not stored.isascii():
            stored.encode()
    except ValueError:  # UnicodeEncodeError is one
        return json.dumps(data)
    return stored


_TAKE_FREE: Final = (
    "UPDATE sf_conversations SET owner = ?, lease_until = {now} + ?, fence = fence + 1 "
    "WHERE user_id = ? AND id = ? AND owner IS NULL RETURNING fence, created_at"
)
"""A hold on a conversation that exists and that nobody holds, in one statement."""
_TAKE_FREE_DEFERRED: Final = _TAKE_FREE.replace(" WHERE ", f" FROM {DEFERRED_COMMIT} WHERE ", 1)


class SqlJournal:
    """The journal in a ``Database`` for one user: messages, the one-writer lease, the model
    each turn runs on, and approvals. Every query is scoped to ``user``.

    Loads are incremental: the journal keeps the transcripts of its ``cache_size`` most
    recently used conversations, and a load checks in one query that the conversation is still
    the one cached (its creation time, its lease's fence and its last message's number): then
    nothing is parsed again; anything else (another process appended, took the lease over, or
    the conversation was made anew) is a full load. Messages are only ever appended, so the
    cached ones are exactly what a full load would return. While this journal holds the
    conversation and its copy is what its own appends left, a load asks nothing: only a
    holder appends. So, until the hold's renewal finds it lost (a third of the lease at
    most), such a load does not see what the database lost or gained behind the hold's
    back: another holder's appends after the hold was taken over unseen (the process
    stalled past the lease), or an erase; the holder's next append fails then, so nothing
    it does lands. A lease is the journal's that took it: appends under it through another
    journal are not seen by this one's loads (nor by its numbering)."""

    def __init__(self, db: Database, *, user: str = DEFAULT_USER, cache_size: int = 256) -> None:
        self.db = db
        self.user = user
        self.cache_size = cache_size
        self._copies = _Copies(cache_size)

    def load(self, conversation_id: str) -> list[Message]:
        held = self._copies.held(conversation_id)
        if held is not None:
            return held
        # the cached copy is checked by one statement of its own (no transaction: a single
        # round trip)
        found = self.db.query(_PROBE, (self.user, conversation_id))
        return self._checked(conversation_id, found[0][1:] if found else None)

    def load_many(self, conversation_ids: Sequence[str]) -> dict[str, list[Message]]:
        # one statement checks every cached copy (one round trip for a list this process has
        # read before)
        ids = list(dict.fromkeys(conversation_ids))
        found = _probe_many(self.db, self.user, ids)
        return {cid: self._checked(cid, found.get(cid)) for cid in ids}

    def _checked(self, conversation_id: str, probe: tuple[Any, ...] | None) -> list[Message]:
        """The transcript whose check gave ``probe`` (None: no such conversation): the cached
        copy if it is current, else read again with the check, in one transaction, so that
        the messages and the check come from one snapshot."""
        if probe is None:
            self._copies.forget(conversation_id)
            return []
        cached = self._copies.current(conversation_id, probe)
        if cached is not None:
            return cached
        key = (self.user, conversation_id)
        with self.db.transaction() as tx:
            found = tx.execute(_PROBE, key)
            if not found:
                self._copies.forget(conversation_id)
                return []
            created, fence, seq = float(found[0][1]), int(found[0][2]), int(found[0][3])
            cached = self._copies.current(conversation_id, found[0][1:])
            if cached is not None:
                return cached
            rows = tx.execute(
                "SELECT payload FROM sf_messages WHERE user_id = ? AND conversation_id = ? "
                "AND seq <= ? ORDER BY seq",
                (*key, seq),
            )
        messages = [message_from_json(json.loads(r[0])) for r in rows]
        if len(messages) == seq:  # seq numbers run 1..n: anything else is not cached
            self._copies.remember(conversation_id, _Cached(created, fence, seq, list(messages)))
        else:
            self._copies.forget(conversation_id)
        return messages

    def append(
        self, conversation_id: str, *messages: Message, lease: Lease, model: ModelRef | None = None
    ) -> None:
        payloads = [_stored_message(m) for m in messages]
        try:
            nested, last = self._append(conversation_id, payloads, lease, model)
        except BaseException:
            # a commit that failed may have landed: the next append asks the database
            self._copies.forget(conversation_id)
            raise
        self._copies.appended(conversation_id, lease.fence, last, payloads, checked=not nested)

    def _append(
        self, conversation_id: str, payloads: list[str], lease: Lease, model: ModelRef | None
    ) -> tuple[bool, int]:
        """Append ``payloads`` (one statement on PostgreSQL when the journal knows the number
        of the message before them, else one transaction); whether it was a savepoint (kept
        only if the transaction around it commits), and the number of the message before
        them."""
        if payloads and self.db.dialect == "postgresql" and self.db.depth() == 0:
            last = self._copies.last_under(conversation_id, lease.fence)
            if last is not None:
                self._append_alone(conversation_id, payloads, lease, model, last)
                return False, last
        with self.db.transaction() as tx:
            # the fence check takes the conversation's row lock: a new holder waits for us;
            # the model a turn runs on is set by the same statement
            tx.execute(*self._fence_check(conversation_id, lease, model))
            if tx.rowcount != 1:
                raise ConversationBusyError(conversation_id)
            nested = tx.nested
            last = None if nested else self._copies.last_under(conversation_id, lease.fence)
            if last is None:
                # the last message's number from the primary key's end (a plain MAX may be
                # planned as a scan of the whole conversation)
                rows = tx.execute(
                    "SELECT seq FROM sf_messages WHERE user_id = ? AND conversation_id = ? "
                    "ORDER BY seq DESC LIMIT 1",
                    (self.user, conversation_id),
                )
                last = int(rows[0][0]) if rows else 0
            for seq, payload in enumerate(payloads, start=last + 1):
                tx.execute(
                    "INSERT INTO sf_messages (user_id, conversation_id, seq, payload, created_at) "
                    "VALUES (?, ?, ?, ?, {now})",
                    (self.user, conversation_id, seq, payload),
                )
        return nested, last

    def _append_alone(
        self,
        conversation_id: str,
        payloads: list[str],
        lease: Lease,
        model: ModelRef | None,
        last: int,
    ) -> None:
        """The usual append on PostgreSQL in one statement, on its own: the fence check (with
        the turn's model) is a data-modifying ``WITH``, and the messages, numbered after
        ``last``, are inserted only if it matched. One round trip where a transaction takes
        four or five; atomic and durable all the same, and the check takes the
        conversation's row lock just as the transaction's ``UPDATE`` does."""
        check, params = self._fence_check(conversation_id, lease, model)
        values = ", ".join(["(?, ?)"] * len(payloads))
        deferring = self.db.deferring()
        sql = (
            f"WITH held AS ({check} RETURNING user_id, id) "
            "INSERT INTO sf_messages (user_id, conversation_id, seq, payload, created_at) "
            "SELECT held.user_id, held.id, added.seq, added.payload, {now} "
            f"FROM held, (VALUES {values}) AS added (seq, payload)"
            f"{', ' + DEFERRED_COMMIT if deferring else ''}"
        )
        numbered = [v for pair in enumerate(payloads, start=last + 1) for v in pair]
        flush = self._flusher(conversation_id) if deferring else None
        _, inserted = self.db.execute(sql, (*params, *numbered), deferred=flush)
        if inserted != len(payloads):
            raise ConversationBusyError(conversation_id)

    def _fence_check(
        self, conversation_id: str, lease: Lease, model: ModelRef | None
    ) -> tuple[str, tuple[Any, ...]]:
        """The ``UPDATE`` that finds the conversation still held under ``lease`` (one row, or
        none), setting the turn's model when given, and its parameters."""
        setting = ", provider = ?, model = ?, base_url = ?" if model is not None else ""
        chosen = () if model is None else (model.provider, model.model, model.base_url)
        sql = (
            f"UPDATE sf_conversations SET updated_at = {{now}}{setting} "
            "WHERE user_id = ? AND id = ? AND owner = ? AND fence = ?"
        )
        return sql, (*chosen, self.user, conversation_id, lease.owner, lease.fence)

    def exists(self, conversation_id: str) -> bool:
        rows = self.db.query(
            "SELECT 1 FROM sf_messages WHERE user_id = ? AND conversation_id = ? LIMIT 1",
            (self.user, conversation_id),
        )
        return bool(rows)

    def conversations(self) -> list[str]:
        rows = self.db.query(
            "SELECT c.id FROM sf_conversations c WHERE c.user_id = ? AND EXISTS ("
            "SELECT 1 FROM sf_messages m WHERE m.user_id = c.user_id "
            "AND m.conversation_id = c.id) ORDER BY c.updated_at DESC, c.id",
            (self.user,),
        )
        return [r[0] for r in rows]

    def acquire(self, conversation_id: str, *, seconds: float) -> Lease | None:
        owner = new_owner()
        if self.db.dialect == "postgresql":
            # the usual case, a conversation that exists and that nobody holds, in one
            # statement (SQLite before 3.35 has no RETURNING; a statement there costs no
            # round trip)
            deferring = self.db.deferring()
            rows, _ = self.db.execute(
                _TAKE_FREE_DEFERRED if deferring else _TAKE_FREE,
                (owner, seconds, self.user, conversation_id),
                deferred=self._flusher(conversation_id) if deferring else None,
            )
            if rows:
                fence = int(rows[0][0])
                self._copies.acquired(conversation_id, fence - 1, float(rows[0][1]))
                return Lease(conversation_id, owner, fence)
        with self.db.transaction() as tx:
            tx.execute(
                "INSERT INTO sf_conversations (user_id, id, created_at, updated_at, lease_until, "
                "fence) VALUES (?, ?, {now}, {now}, 0, 0) ON CONFLICT (user_id, id) DO NOTHING",
                (self.user, conversation_id),
            )
            ((held_by, fence, free, created),) = tx.execute(
                "SELECT owner, fence, (owner IS NULL OR lease_until < {now}), created_at "
                "FROM sf_conversations WHERE user_id = ? AND id = ?",
                (self.user, conversation_id),
            )
            orphaned = held_by is not None and owner_is_gone(held_by)
            if not (free or orphaned):
                return None
            # compare-and-set on the fence: of two writers racing here, one wins
            tx.execute(
                "UPDATE sf_conversations SET owner = ?, lease_until = {now} + ?, "
                "fence = fence + 1 WHERE user_id = ? AND id = ? AND fence = ?",
                (owner, seconds, self.user, conversation_id, fence),
            )
            if tx.rowcount != 1:
                return None
        self._copies.acquired(conversation_id, int(fence), float(created))
        return Lease(conversation_id, owner, int(fence) + 1, orphaned=orphaned)

    def _flusher(self, conversation_id: str) -> Callable[[], object]:
        """A write that waits for the disk, for a ``deferred_flush`` scope's end: the
        conversation's row written again as it is (a row of ours, so nobody else's is
        locked)."""
        return functools.partial(
            self.db.execute,
            "UPDATE sf_conversations SET updated_at = updated_at WHERE user_id = ? AND id = ?",
            (self.user, conversation_id),
        )

    def renew(self, lease: Lease, *, seconds: float) -> bool:
        _, changed = self.db.execute(
            "UPDATE sf_conversations SET lease_until = {now} + ? "
            "WHERE user_id = ? AND id = ? AND owner = ? AND fence = ?",
            (seconds, self.user, lease.conversation_id, lease.owner, lease.fence),
        )
        if changed != 1:
            self._copies.let_go(lease)
        return changed == 1

    def release(self, lease: Lease) -> None:
        self._copies.let_go(lease)
        self.db.query(
            "UPDATE sf_conversations SET owner = NULL, lease_until = 0 "
            "WHERE user_id = ? AND id = ? AND owner = ? AND fence = ?",
            (self.user, lease.conversation_id, lease.owner, lease.fence),
        )

    def model_of(self, conversation_id: str) -> ModelRef | None:
        rows = self.db.query(
            "SELECT provider, model, base_url FROM sf_conversations WHERE user_id = ? AND id = ?",
            (self.user, conversation_id),
        )
        if not rows or rows[0][0] is None:
            return None
        return ModelRef(rows[0][0], rows[0][1], rows[0][2])

    def request_approval(self, approval: Approval) -> Approval:
        with self.db.transaction() as tx:
            tx.execute(
                "INSERT INTO sf_approvals (user_id, id, conversation_id, user_turn, key, call_id, "
                "tool, fingerprint, arguments, requested_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, {now}) ON CONFLICT (user_id, id) DO NOTHING",
                (
                    self.user,
                    approval.id,
                    approval.conversation_id,
                    approval.user_turn,
                    approval.key,
                    approval.call_id,
                    approval.tool,
                    approval.fingerprint,
                    _json(approval.arguments),
                ),
            )
            rows = tx.execute(
                f"SELECT {_APPROVAL_COLUMNS} FROM sf_approvals WHERE user_id = ? AND id = ?",
                (self.user, approval.id),
            )
        return _approval(rows[0])

    def decide(self, conversation_id: str, approval_id: str, *, approved: bool) -> bool:
        _, changed = self.db.execute(
            "UPDATE sf_approvals SET approved = ?, decided_at = {now} "
            "WHERE user_id = ? AND id = ? AND conversation_id = ? AND approved IS NULL",
            (int(approved), self.user, approval_id, conversation_id),
        )
        return changed == 1

    def approvals(
        self,
        *,
        conversation_id: str | None = None,
        user_turn: int | None = None,
        decided: bool | None = None,
    ) -> list[Approval]:
        where, params = _filters(conversation_id=conversation_id, user_turn=user_turn)
        if decided is not None:
            where += " AND approved IS NOT NULL" if decided else " AND approved IS NULL"
        rows = self.db.query(
            f"SELECT {_APPROVAL_COLUMNS} FROM sf_approvals WHERE user_id = ?{where} "
            "ORDER BY requested_at, id",
            (self.user, *params),
        )
        return [_approval(r) for r in rows]


class SqlDiagnostics:
    """Diagnostics in a ``Database``, apart from every model-visible table, for one user."""

    def __init__(self, db: Database, *, user: str = DEFAULT_USER) -> None:
        self.db = db
        self.user = user

    def record(self, diagnostic: Diagnostic) -> None:
        self.db.query(
            "INSERT INTO sf_diagnostics (user_id, conversation_id, call_id, tool, key, "
            "exception_type, message, traceback, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                self.user,
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
            f"created_at, key FROM sf_diagnostics WHERE user_id = ?{where} ORDER BY id",
            (self.user, *params),
        )
        return [Diagnostic(r[0], r[1], r[2], r[3], r[4], r[5], float(r[6]), r[7]) for r in rows]


# -- erasing a user ------------------------------------------------------------------------------

_HARNESS_TABLES: Final = (
    ("messages", "sf_messages"),
    ("conversations", "sf_conversations"),
    ("writes", "sf_ledger"),
    ("approvals", "sf_approvals"),
    ("diagnostics", "sf_diagnostics"),
)


def erase_user(tx: Tx, user: str) -> dict[str, int]:
    """Delete every row the harness keeps for ``user`` (journal messages and conversations,
    ledger writes, approvals, diagnostics) inside the caller's transaction, so an application
    erases its own rows in the same one; returns how many rows of each kind went. On SQLite
    the freed space is overwritten with zeros (``secure_delete``); ``Database.reclaim`` then
    drops every other copy of the bytes."""
    if tx.dialect == "sqlite":
        tx.execute("PRAGMA secure_delete = ON")
    counts: dict[str, int] = {}
    for kind, table in _HARNESS_TABLES:
        tx.execute(f"DELETE FROM {table} WHERE user_id = ?", (user,))
        counts[kind] = max(tx.rowcount, 0)
    return counts


def reclaim(db: Database) -> None:
    """After an erase: on SQLite, rebuild the file without its free pages (``VACUUM``) and
    empty the write-ahead log (``wal_checkpoint(TRUNCATE)``), so no copy of deleted rows is
    left in either file. PostgreSQL reuses the space of deleted rows itself (autovacuum);
    nothing is done there."""
    if db.dialect != "sqlite":
        return
    with db._lock, driver_errors(db.url):
        db._conn.execute("VACUUM")
        db._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
