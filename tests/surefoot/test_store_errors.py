"""Storage failures reach callers as ``StoreError`` with a typed kind, from one choke point:
a SQLite database another connection holds past the busy timeout, a PostgreSQL connection
killed in the middle of a transaction, files that are not databases, a full database, and a
driver failure injected at every call the stores make. No driver exception escapes, no
password is shown, and the driver's exception stays the ``__cause__``."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pg_relay import started  # tests/pg_relay.py, beside the shared fixtures
from surefoot import (
    Approval,
    Diagnostic,
    SqlDiagnostics,
    SqlJournal,
    SqlLedger,
    StoreError,
    open_database,
)
from surefoot.exceptions import STORE_ERROR_KINDS
from surefoot.messages import UserMessage
from surefoot.sql import Database, safe_url

SECRET = "s3cr3t-pw"


# -- addresses ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("gym.db", "gym.db"),
        ("sqlite:////abs/gym.db", "sqlite:////abs/gym.db"),
        (f"postgresql://app:{SECRET}@db.local:5433/gym", "postgresql://app@db.local:5433/gym"),
        (f"postgres://:{SECRET}@[::1]/gym", "postgres://[::1]/gym"),
        (
            f"postgresql://app@h/gym?password={SECRET}&sslmode=require",
            "postgresql://app@h/gym?sslmode=require",
        ),
        (
            "postgresql://app@h/gym?options=-csearch_path%3Dx",
            "postgresql://app@h/gym?options=-csearch_path%3Dx",
        ),
        (f"mysql://root:{SECRET}@h:notaport/db", "mysql://..."),
    ],
)
def test_safe_url_drops_the_password(url: str, shown: str) -> None:
    assert safe_url(url) == shown
    assert SECRET not in safe_url(url)


def test_an_unsupported_scheme_is_a_typed_error_without_the_password() -> None:
    with pytest.raises(StoreError) as caught:
        open_database(f"mysql://root:{SECRET}@127.0.0.1/gym")
    assert caught.value.kind == "unsupported_url"
    assert caught.value.url == "mysql://root@127.0.0.1/gym"
    assert SECRET not in str(caught.value)


# -- SQLite files that cannot be used ----------------------------------------------------------


def _open_error(target: str | Path, **options: Any) -> StoreError:
    with pytest.raises(StoreError) as caught:
        open_database(target, **options)
    return caught.value


def test_sqlite_files_that_are_not_databases(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all, just some text long enough " * 200)
    error = _open_error(text)
    assert error.kind == "not_a_database"
    assert isinstance(error.__cause__, sqlite3.DatabaseError)
    assert _open_error(tmp_path).kind == "not_a_database"  # a directory
    assert _open_error(tmp_path / "missing.db", create=False).kind == "not_found"
    assert _open_error(text / "below-a-file.db").kind == "not_a_database"  # ENOTDIR


def test_a_full_sqlite_database_is_disk_full(tmp_path: Path) -> None:
    """A full disk, simulated honestly: ``PRAGMA max_page_count`` caps the file at its size,
    and SQLite then fails to grow it with ``SQLITE_FULL``, the code a full disk gives."""
    db = open_database(tmp_path / "full.db")
    try:
        db.query("PRAGMA max_page_count = 1")  # raised to the file's current size
        journal = SqlJournal(db)
        lease = journal.acquire("c1", seconds=60)
        assert lease is not None
        big = UserMessage("x" * 200_000)
        with pytest.raises(StoreError) as caught:
            journal.append("c1", big, lease=lease)
        assert caught.value.kind == "disk_full"
        assert isinstance(caught.value.__cause__, sqlite3.Error)
        assert journal.load("c1") == []  # the failed transaction left nothing
    finally:
        db.close()


# -- a SQLite database locked past the busy timeout -------------------------------------------


@pytest.fixture
def locked_sqlite(tmp_path: Path) -> Iterator[tuple[Database, Callable[[], None]]]:
    """A database (busy timeout 0.2 s) and a function that makes another connection take
    it with ``BEGIN EXCLUSIVE`` and keep it until the test ends."""
    path = tmp_path / "locked.db"
    db = open_database(path, busy_timeout=0.2)
    holder = sqlite3.connect(path, isolation_level=None, timeout=0.2)

    def lock() -> None:
        holder.execute("BEGIN EXCLUSIVE")

    yield db, lock
    holder.close()
    db.close()


def _assert_locked(action: Callable[[], object]) -> None:
    started = time.monotonic()
    with pytest.raises(StoreError) as caught:
        action()
    assert caught.value.kind == "locked"
    assert isinstance(caught.value.__cause__, sqlite3.OperationalError)
    assert "locked by another connection" in str(caught.value)
    assert time.monotonic() - started < 10  # the small timeout, not the default 30 s


def test_a_locked_sqlite_database_is_a_store_error_at_every_entry_point(
    locked_sqlite: tuple[Database, Callable[[], None]],
) -> None:
    db, lock = locked_sqlite
    journal, ledger = SqlJournal(db), SqlLedger(db)
    lease = journal.acquire("c1", seconds=60)
    assert lease is not None
    lock()
    _assert_locked(lambda: journal.append("c1", UserMessage("hola"), lease=lease))
    _assert_locked(
        lambda: ledger.claim(
            key="k1",
            conversation_id="c1",
            tool="save",
            fingerprint="fp",
            arguments={},
            lease_seconds=60,
        )
    )

    def write() -> None:
        with db.transaction() as tx:
            tx.execute("SELECT 1")

    _assert_locked(write)
    _assert_locked(lambda: open_database(db.url, busy_timeout=0.2))


# -- a PostgreSQL connection killed mid-transaction -------------------------------------------


def _backend_pid(db: Database) -> int:
    ((pid,),) = db.query("SELECT pg_backend_pid()")
    return int(pid)


def _kill_while_waiting(server: str, pid: int, action: Callable[[], object]) -> BaseException:
    """Run ``action`` in a thread until backend ``pid`` waits on a lock, kill that backend
    with ``pg_terminate_backend``, and return what ``action`` raised."""
    import psycopg

    thread, raised = started(action)
    with psycopg.connect(server, autocommit=True) as killer:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            row = killer.execute(
                "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", (pid,)
            ).fetchone()
            if row is not None and row[0] == "Lock":
                break
            time.sleep(0.02)
        else:
            pytest.fail("the transaction never reached the lock")
        killer.execute("SELECT pg_terminate_backend(%s)", (pid,))
    thread.join(20)
    assert not thread.is_alive()
    assert len(raised) == 1
    return raised[0]


def _assert_unavailable(exc: BaseException) -> None:
    import psycopg

    assert isinstance(exc, StoreError), repr(exc)
    assert exc.kind == "unavailable"
    assert isinstance(exc.__cause__, psycopg.Error)


def test_a_postgresql_connection_killed_mid_transaction_is_a_store_error(
    pg_url: str, pg_server: str
) -> None:
    """Each store blocks on a row another transaction holds; its backend is then killed. The
    caller gets ``StoreError(unavailable)``, and the next call connects again."""
    import psycopg

    db = open_database(pg_url)
    journal, ledger = SqlJournal(db), SqlLedger(db)
    lease = journal.acquire("c1", seconds=60)
    assert lease is not None
    blocker = psycopg.connect(pg_url)
    try:
        # the conversation's row, locked by another transaction: append waits on it
        blocker.execute("SELECT 1 FROM sf_conversations WHERE id = 'c1' FOR UPDATE")
        exc = _kill_while_waiting(
            pg_server,
            _backend_pid(db),
            lambda: journal.append("c1", UserMessage("hola"), lease=lease),
        )
        _assert_unavailable(exc)
        assert journal.load("c1") == []  # reconnected; nothing of the killed append landed
        # a ledger key another transaction is inserting: claim waits on it
        blocker.rollback()
        blocker.execute(
            "INSERT INTO sf_ledger (key, conversation_id, tool, fingerprint, arguments, state, "
            "attempt, lease_until, created_at, updated_at) "
            "VALUES ('k1', 'c1', 'save', 'fp', '{}', 'pending', 1, 0, 0, 0)"
        )
        exc = _kill_while_waiting(
            pg_server,
            _backend_pid(db),
            lambda: ledger.claim(
                key="k1",
                conversation_id="c1",
                tool="save",
                fingerprint="fp",
                arguments={},
                lease_seconds=60,
            ),
        )
        _assert_unavailable(exc)
        blocker.rollback()
        blocker.execute("SELECT 1 FROM sf_conversations WHERE id = 'c1' FOR UPDATE")

        def transaction() -> None:
            with db.transaction() as tx:
                tx.execute("UPDATE sf_conversations SET updated_at = 1 WHERE id = 'c1'")

        _assert_unavailable(_kill_while_waiting(pg_server, _backend_pid(db), transaction))
        blocker.rollback()
        assert ledger.get("k1") is None  # the blocker's insert was rolled back; reconnected
    finally:
        blocker.close()
        db.close()


def test_a_postgresql_server_that_is_not_there_is_unavailable() -> None:
    with pytest.raises(StoreError) as caught:
        open_database(f"postgresql://postgres:{SECRET}@127.0.0.1:1/test")
    assert caught.value.kind == "unavailable"
    assert caught.value.url == "postgresql://postgres@127.0.0.1:1/test"
    assert SECRET not in str(caught.value)


# -- a driver failure injected at every call ---------------------------------------------------


class _Injected:
    """Counts the driver calls a ``Database`` makes and fails the ``fail_at``-th one."""

    def __init__(self, make_error: Callable[[], Exception]) -> None:
        self.make_error = make_error
        self.calls = 0
        self.fail_at: int | None = None
        self.failed = False

    def tick(self) -> None:
        self.calls += 1
        if self.calls == self.fail_at:
            self.failed = True
            raise self.make_error()


class _Cursor:
    def __init__(self, cursor: Any, plan: _Injected) -> None:
        self._cursor, self._plan = cursor, plan

    def execute(self, *args: Any) -> Any:
        self._plan.tick()
        return self._cursor.execute(*args)

    def fetchall(self) -> Any:
        self._plan.tick()
        return self._cursor.fetchall()

    def __enter__(self) -> _Cursor:
        self._cursor.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._cursor.__exit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


class _Transaction:
    def __init__(self, inner: Any, plan: _Injected) -> None:
        self._inner, self._plan = inner, plan

    def __enter__(self) -> object:
        self._plan.tick()
        return self._inner.__enter__()

    def __exit__(self, *exc: Any) -> Any:
        if exc[0] is None:
            try:
                self._plan.tick()  # the commit fails: the transaction is rolled back
            except Exception as failure:
                self._inner.__exit__(type(failure), failure, None)
                raise
        return self._inner.__exit__(*exc)


class _Connection:
    def __init__(self, conn: Any, plan: _Injected) -> None:
        self._conn, self._plan = conn, plan

    def cursor(self) -> _Cursor:
        self._plan.tick()
        return _Cursor(self._conn.cursor(), self._plan)

    def transaction(self) -> _Transaction:
        return _Transaction(self._conn.transaction(), self._plan)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def _entry_points(db: Database) -> list[tuple[str, Callable[[], object]]]:
    journal, ledger, diagnostics = SqlJournal(db), SqlLedger(db), SqlDiagnostics(db)
    approval = Approval("a1", "c1", 1, "k2", "call1", "save", "fp", {"x": 1}, None)

    def append() -> None:
        lease = journal.acquire("c1", seconds=-1)  # free again at once, even if not released
        assert lease is not None
        try:
            journal.append("c1", UserMessage("hola"), lease=lease)
        finally:
            journal.release(lease)

    def claim() -> object:
        return ledger.claim(
            key="k1",
            conversation_id="c1",
            tool="save",
            fingerprint="fp",
            arguments={"x": 1},
            lease_seconds=60,
        )

    def commit_in() -> None:
        with db.transaction() as tx:
            ledger.commit_in(tx, "k1", 1, {"ok": True})

    return [
        ("append", append),
        ("load", lambda: journal.load("c1")),
        ("conversations", journal.conversations),
        ("exists", lambda: journal.exists("c1")),
        ("model_of", lambda: journal.model_of("c1")),
        ("request_approval", lambda: journal.request_approval(approval)),
        ("decide", lambda: journal.decide("c1", "a1", approved=True)),
        ("approvals", journal.approvals),
        ("claim", claim),
        ("commit_in", commit_in),
        ("get", lambda: ledger.get("k1")),
        ("entries", ledger.entries),
        ("renew", lambda: ledger.renew("k1", 1, 60)),
        ("finalize", lambda: ledger.finalize("k1", 1, "committed", result={"ok": True})),
        ("expire", lambda: ledger.expire("k1", orphaned=True)),
        (
            "record",
            lambda: diagnostics.record(Diagnostic("c1", "call1", "save", "E", "m", "tb", 1.0)),
        ),
        ("list", diagnostics.list),
        ("migrate", lambda: db.migrate("tests", ["CREATE TABLE t_x (a INTEGER)"])),
    ]


def _driver_error(dialect: str) -> Callable[[], Exception]:
    if dialect == "sqlite":

        def sqlite_busy() -> Exception:
            exc = sqlite3.OperationalError("database is locked")
            exc.sqlite_errorcode = 5  # type: ignore[attr-defined]
            return exc

        return sqlite_busy
    import psycopg.errors

    return lambda: psycopg.errors.AdminShutdown("terminating connection")


def _store_error_of(name: str, action: Callable[[], object]) -> StoreError | None:
    """The ``StoreError`` ``action`` raised, or None; anything else fails the test."""
    try:
        action()
    except StoreError as exc:
        return exc
    except Exception as exc:  # noqa: BLE001 - the failure names it
        pytest.fail(f"{name} leaked {type(exc).__module__}.{type(exc).__name__}")
    return None


def test_a_driver_failure_at_any_call_is_a_store_error(db_url: str) -> None:
    """Every entry point is run again and again with the n-th driver call failing (n = 1, 2,
    ... until it runs through): each time the caller gets ``StoreError`` whose cause is the
    injected exception, and then the store still works."""
    db = open_database(db_url)
    dialect = db.dialect
    plan = _Injected(_driver_error(dialect))
    db._conn = _Connection(db._conn, plan)  # the injection point
    expected_kind = "locked" if dialect == "sqlite" else "unavailable"
    failures = 0
    try:
        for name, action in _entry_points(db):
            fail_at = 1
            while True:
                plan.calls, plan.fail_at, plan.failed = 0, fail_at, False
                error = _store_error_of(name, action)
                if error is None:
                    assert not plan.failed, f"{name} swallowed the failure at call {fail_at}"
                    break
                assert plan.failed, f"{name}: {error!r} without an injected failure"
                assert error.kind == expected_kind, name
                assert type(error.__cause__).__module__.startswith(("sqlite3", "psycopg"))
                failures += 1
                fail_at += 1
    finally:
        plan.fail_at = None
        db.close()
    assert failures >= 3 * len(_entry_points(db))  # each entry point makes several calls
    assert set(STORE_ERROR_KINDS) >= {"locked", "unavailable"}
