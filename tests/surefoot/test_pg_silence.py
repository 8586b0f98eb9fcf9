"""A PostgreSQL server that stops answering (its host paused, a network path that loses
packets) is not one that refuses: without a bound, psycopg waits for it forever, and a web
worker that makes its database calls on its event loop stops answering everyone.

Here the server is reached through a relay the test can freeze (``pg_relay``, in the shared
fixtures): frozen, it keeps the connection open and passes nothing either way."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from pg_relay import Relay  # tests/pg_relay.py, on the path as the shared fixtures' folder
from surefoot import StoreError, open_database
from surefoot._pgconn import Outage
from surefoot.sql import SqlJournal

BOUND = 0.5
"""The answer timeout the tests open their databases with (seconds)."""

LONG_ENOUGH = 20.0
"""How long a test waits for the server to answer again."""


def _assert_unavailable(exc: BaseException | None) -> None:
    assert isinstance(exc, StoreError), repr(exc)
    assert exc.kind == "unavailable"


def _answers_again(action: Callable[[], object]) -> None:
    deadline = time.monotonic() + LONG_ENOUGH
    while True:
        try:
            action()
            return
        except StoreError as exc:
            if exc.kind != "unavailable" or time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_a_statement_the_server_does_not_answer_ends_and_calls_then_fail_at_once(
    pg_relay: tuple[Relay, str],
) -> None:
    proxy, url = pg_relay
    db = open_database(url, answer_timeout=BOUND)
    try:
        journal = SqlJournal(db)
        assert journal.load("c1") == []
        proxy.frozen.set()
        _assert_unavailable(proxy.ends(lambda: journal.load("c1")))
        # out: the next calls do not reach for the server (no byte, no new connection)
        accepted, forwarded = proxy.accepted, proxy.forwarded
        _assert_unavailable(proxy.ends(lambda: db.query("SELECT 1")))
        _assert_unavailable(proxy.ends(lambda: journal.acquire("c1", seconds=30)))
        with pytest.raises(StoreError) as caught, db.transaction() as tx:
            tx.execute("SELECT 1")
        assert caught.value.kind == "unavailable"
        assert (proxy.accepted, proxy.forwarded) == (accepted, forwarded)
        # the server answers again: the heartbeat's probe finds it, and calls go through
        proxy.frozen.clear()
        _answers_again(lambda: db.query("SELECT 1"))
        assert proxy.accepted > accepted  # a new connection replaced the one that was ended
        assert journal.load("c1") == []
    finally:
        db.close()


def test_a_commit_the_server_does_not_answer_is_unavailable_not_a_hang(
    pg_relay: tuple[Relay, str],
) -> None:
    """The commit is sent and its answer never comes: the caller is told the database was
    unavailable (the write's fate is unknown, as when a connection is cut), in bounded time."""
    proxy, url = pg_relay
    db = open_database(url, answer_timeout=BOUND)
    try:
        db.execute("CREATE TABLE IF NOT EXISTS silence_notes (n INTEGER)")

        def write() -> None:
            with db.transaction() as tx:
                tx.execute("INSERT INTO silence_notes (n) VALUES (1)")
                proxy.frozen.set()  # the COMMIT goes nowhere

        _assert_unavailable(proxy.ends(write))
        proxy.frozen.clear()
        _answers_again(lambda: db.query("SELECT 1"))
        # whether it landed is for the server to say; it is there at most once
        ((count,),) = db.query("SELECT COUNT(*) FROM silence_notes")
        assert count in (0, 1)
    finally:
        db.close()


def test_connecting_to_a_server_that_does_not_answer_is_unavailable(
    pg_relay: tuple[Relay, str],
) -> None:
    proxy, url = pg_relay
    proxy.frozen.set()
    _assert_unavailable(proxy.ends(lambda: open_database(url, answer_timeout=BOUND)))


def test_a_server_that_is_there_cancels_a_slow_statement_itself(pg_url: str) -> None:
    """A statement that runs past most of the bound, or waits that long for another
    transaction's lock, is cancelled by the server (its ``statement_timeout`` and
    ``lock_timeout``): it fails as ``locked``, like a busy database, and the database is not
    put out for it; the next call goes through at once."""
    import psycopg

    db = open_database(pg_url, answer_timeout=0.5)
    try:
        with pytest.raises(StoreError) as caught:
            db.query("SELECT pg_sleep(2)")
        assert caught.value.kind == "locked"
        assert db.query("SELECT 1") == [(1,)]
        db.execute("CREATE TABLE held_things (n INTEGER)")
        db.execute("INSERT INTO held_things (n) VALUES (1)")
        with psycopg.connect(pg_url) as other:  # holds the row until it ends
            other.execute("UPDATE held_things SET n = 2")
            with pytest.raises(StoreError) as caught:
                db.execute("UPDATE held_things SET n = 3")
            assert caught.value.kind == "locked"
            assert db.query("SELECT 1") == [(1,)]
    finally:
        db.close()


def test_a_migration_waits_as_long_as_it_takes(pg_url: str) -> None:
    """Neither bound is on a migration (a schema change on a large table may take minutes):
    one that takes longer than the bound completes."""
    db = open_database(pg_url, answer_timeout=0.2)
    try:
        db.migrate("slow", ["SELECT pg_sleep(0.6); CREATE TABLE slow_things (n INTEGER)"])
        assert db.query("SELECT COUNT(*) FROM slow_things") == [(0,)]
        with pytest.raises(StoreError) as caught:  # the same wait outside a migration
            db.query("SELECT pg_sleep(0.6)")
        assert caught.value.kind == "locked"
    finally:
        db.close()


def test_the_probe_stops_with_the_database() -> None:
    """Once the database is closed, its probe ends instead of trying the server forever."""
    tries: list[int] = []

    def connect() -> object:
        tries.append(1)
        raise OSError("no answer")

    outage = Outage(connect, answer_timeout=BOUND, url="postgresql://x@127.0.0.1/t")
    assert outage.bound() == BOUND
    with outage.patient():
        assert outage.bound() is None
    assert outage.bound() == BOUND
    outage.close()
    outage.begin()  # a closed database is not put out, and nothing is probed
    assert not outage.out
    time.sleep(0.3)
    assert tries == []


def test_a_bound_that_is_not_positive_is_refused() -> None:
    with pytest.raises(ValueError, match="answer_timeout"):
        open_database("sqlite:///:memory:", answer_timeout=0)


@pytest.mark.parametrize("name", ["_WaitTimeout", "ConnectionTimeout"])
def test_psycopg_still_names_its_timeouts_as_surefoot_expects(name: str) -> None:
    """``_pgconn`` catches these two by name (one is private): a psycopg that renamed them
    would wait forever again, so an upgrade must fail here first."""
    import psycopg

    assert issubclass(getattr(psycopg.errors, name), psycopg.OperationalError)
