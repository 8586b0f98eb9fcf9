"""A PostgreSQL ``Database`` with a pool of connections (``open_database(url, pool=N)``):
threads' transactions run at the same time, each on a connection of its own, at most N at
once; a transaction opened inside another on the same thread is a savepoint on that thread's
connection, as with one connection; a connection the server dropped is replaced; after
``close`` every transaction fails as ``unavailable``."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from surefoot import StoreError, open_database
from surefoot.sql import Database


def _backend(db: Database) -> int:
    return int(db.query("SELECT pg_backend_pid()")[0][0])


def _failing_insert(db: Database, n: int) -> None:
    with db.transaction() as tx:
        tx.execute("INSERT INTO t_nest (n) VALUES (?)", (n,))
        raise ZeroDivisionError


def test_threads_transactions_run_at_once_each_on_its_own_connection(pg_url: str) -> None:
    """Three threads inside a transaction at the same moment (a barrier no single connection
    could pass), on three backends; each commits its own row."""
    db = open_database(pg_url, pool=3)
    try:
        db.query("CREATE TABLE t_pool (who INTEGER PRIMARY KEY, backend INTEGER NOT NULL)")
        inside = threading.Barrier(3, timeout=10)

        def work(who: int) -> None:
            with db.transaction() as tx:
                backend = tx.execute("SELECT pg_backend_pid()")[0][0]
                inside.wait()  # all three transactions are open now
                tx.execute("INSERT INTO t_pool (who, backend) VALUES (?, ?)", (who, backend))

        with ThreadPoolExecutor(3) as pool:
            list(pool.map(work, range(3)))
        rows = db.query("SELECT who, backend FROM t_pool ORDER BY who")
    finally:
        db.close()
    assert [who for who, _ in rows] == [0, 1, 2]
    assert len({backend for _, backend in rows}) == 3


def test_no_more_connections_than_the_pool_and_a_nested_transaction_is_a_savepoint(
    pg_url: str,
) -> None:
    """With ``pool=2``, four threads never have more than two transactions open at once;
    inside one, a nested transaction runs on the same backend, and its failure rolls back
    only what it did."""
    db = open_database(pg_url, pool=2)
    open_now = 0
    most = 0
    lock = threading.Lock()
    try:
        db.query("CREATE TABLE t_nest (n INTEGER PRIMARY KEY)")

        def work(n: int) -> tuple[int, int]:
            nonlocal open_now, most
            with db.transaction() as tx:
                with lock:
                    open_now += 1
                    most = max(most, open_now)
                outer = tx.execute("SELECT pg_backend_pid()")[0][0]
                tx.execute("INSERT INTO t_nest (n) VALUES (?)", (n,))
                inner = _backend(db)  # its own transaction, inside this one
                with pytest.raises(ZeroDivisionError):
                    _failing_insert(db, n + 100)
                threading.Event().wait(0.05)
                with lock:
                    open_now -= 1
            return outer, inner

        with ThreadPoolExecutor(4) as pool:
            backends = list(pool.map(work, range(4)))
        rows = db.query("SELECT n FROM t_nest ORDER BY n")
    finally:
        db.close()
    assert most <= 2
    assert all(outer == inner for outer, inner in backends)
    assert rows == [(0,), (1,), (2,), (3,)]


def test_a_dropped_connection_is_replaced_and_a_closed_database_refuses(pg_url: str) -> None:
    """A pooled connection the server ended fails its transaction as ``unavailable``; the next
    one runs on a new connection. After ``close``, a transaction fails as ``unavailable``."""
    db = open_database(pg_url, pool=2)
    try:
        first = _backend(db)
        killer = open_database(pg_url)
        try:
            killer.query("SELECT pg_terminate_backend(?)", (first,))
        finally:
            killer.close()
        with pytest.raises(StoreError) as lost:
            db.query("SELECT 1")
        assert lost.value.kind == "unavailable"
        assert _backend(db) != first
    finally:
        db.close()
    with pytest.raises(StoreError) as closed:
        db.query("SELECT 1")
    assert closed.value.kind == "unavailable"


def test_sqlite_and_the_default_keep_one_connection(tmp_path: object, pg_url: str) -> None:
    """``pool`` below 1 is refused; SQLite keeps its one connection whatever the pool."""
    with pytest.raises(ValueError, match="pool"):
        open_database(pg_url, pool=0)
    db = open_database(f"{tmp_path}/one.db", pool=4)
    try:
        assert db._pool == 1
    finally:
        db.close()
