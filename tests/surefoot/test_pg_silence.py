"""A PostgreSQL server that stops answering (its host paused, a network path that loses
packets) is not one that refuses: without a bound, psycopg waits for it forever, and a web
worker that makes its database calls on its event loop stops answering everyone.

Here the server is reached through a relay the test can freeze (``pg_relay``, in the shared
fixtures): frozen, it keeps the connection open and passes nothing either way."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from pg_relay import Relay  # tests/pg_relay.py, on the path as the shared fixtures' folder
from surefoot import Ok, StoreError, ToolContext, ToolSet, open_database
from surefoot._pgconn import Outage
from surefoot.executor import Executor, TurnState
from surefoot.sql import SqlJournal, SqlLedger
from surefoot.testing import call

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
        # within the bound given (0.5 s), not the default's 10 s
        _assert_unavailable(proxy.ends(lambda: journal.load("c1"), seconds=5))
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


@pytest.mark.parametrize(
    ("swallowed", "landed"),
    [(False, [(1,)]), (True, [(0,)])],
    ids=["commit_unanswered", "body_swallows_the_error"],
)
def test_a_transaction_the_server_stops_answering_is_unavailable_not_a_hang(
    pg_relay: tuple[Relay, str], swallowed: bool, landed: list[tuple[int]]
) -> None:
    """The server stops answering inside a transaction. Its COMMIT is sent and no answer
    comes: the caller is told the database was unavailable (the write's fate unknown, as
    when a connection is cut); the COMMIT waited in the relay and is carried out when it
    thaws, once (what a write's ledger entry is for). Or a statement runs out of time first
    and the body carries on as if nothing happened: leaving the block must not report a
    commit either, and none is sent (psycopg sends none on a connection that was ended)."""
    proxy, url = pg_relay
    db = open_database(url, answer_timeout=BOUND)
    try:
        db.execute("CREATE TABLE IF NOT EXISTS silence_notes (n INTEGER)")

        def write() -> None:
            with db.transaction() as tx:
                tx.execute("INSERT INTO silence_notes (n) VALUES (1)")
                proxy.frozen.set()
                if swallowed:
                    with contextlib.suppress(StoreError):
                        tx.execute("SELECT 1")

        _assert_unavailable(proxy.ends(write, seconds=5))
        proxy.frozen.clear()
        _answers_again(lambda: db.query("SELECT 1"))
        assert db.query("SELECT COUNT(*) FROM silence_notes") == landed
    finally:
        db.close()


class _BodyError(Exception):
    """What a transaction's body raises, which its caller must see."""


def test_a_rollback_the_server_does_not_answer_leaves_the_body_s_error(
    pg_relay: tuple[Relay, str],
) -> None:
    """The body raises, and the rollback then runs out of time: the caller sees what the
    body raised (the transaction is gone with its connection), not the rollback."""
    proxy, url = pg_relay
    db = open_database(url, answer_timeout=BOUND)
    try:

        def write() -> None:
            with db.transaction() as tx:
                tx.execute("SELECT 1")
                proxy.frozen.set()
                raise _BodyError

        raised = proxy.ends(write, seconds=5)
        assert isinstance(raised, _BodyError), repr(raised)
        proxy.frozen.clear()
        _answers_again(lambda: db.query("SELECT 1"))
    finally:
        db.close()


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


@pytest.mark.parametrize("idle_timeout", [0.3, None])
def test_a_transaction_left_idle_by_a_stopped_client_is_ended_and_its_locks_go(
    pg_url: str, idle_timeout: float | None
) -> None:
    """A client that stops inside a transaction (a paused process, a handler that never
    returns) keeps its row locks: every other writer of the row fails as ``locked`` for as
    long as it stays stopped. With ``idle_timeout`` the server ends that session once it has
    been idle that long: the other writer goes through, the stopped client's change is
    rolled back, and it finds its connection ended when it wakes."""
    stopped = open_database(pg_url, answer_timeout=2.0, idle_timeout=idle_timeout)
    other = open_database(pg_url, answer_timeout=1.0)  # waits 0.8 s for a lock
    try:
        other.execute("CREATE TABLE held_things (n INTEGER)")
        other.execute("INSERT INTO held_things (n) VALUES (1)")
        holding, wake = threading.Event(), threading.Event()
        woke: list[BaseException | None] = []

        def stop_inside_a_transaction() -> None:
            try:
                with stopped.transaction() as tx:
                    tx.execute("UPDATE held_things SET n = 2")
                    holding.set()
                    wake.wait(10)  # sends nothing: idle in its transaction
                woke.append(None)
            except BaseException as exc:  # noqa: BLE001 - what it found, asserted below
                woke.append(exc)

        thread = threading.Thread(target=stop_inside_a_transaction)
        thread.start()
        assert holding.wait(10)
        try:
            if idle_timeout is None:
                with pytest.raises(StoreError) as caught:
                    other.execute("UPDATE held_things SET n = 3")
                assert caught.value.kind == "locked"
            else:
                time.sleep(idle_timeout)  # the server's timer runs from the last statement
                other.execute("UPDATE held_things SET n = 3")  # within its 0.8 s lock wait
                assert other.query("SELECT n FROM held_things") == [(3,)]
        finally:
            wake.set()
            thread.join(10)
        if idle_timeout is None:
            assert woke == [None]  # it committed when it woke
            assert other.query("SELECT n FROM held_things") == [(2,)]
        else:
            _assert_unavailable(woke[0])  # its session was ended: its change did not land
            assert other.query("SELECT n FROM held_things") == [(3,)]
            assert stopped.query("SELECT n FROM held_things") == [(3,)]  # reconnected
    finally:
        stopped.close()
        other.close()


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


def test_the_probe_tries_on_its_own_thread_and_stops_with_the_database() -> None:
    """While out, a thread of the outage's own tries the server (not a caller's thread, not
    the heartbeat's); once the database is closed it ends instead of trying forever."""
    tries: list[str] = []

    def connect() -> object:
        tries.append(threading.current_thread().name)
        raise OSError("no answer")

    outage = Outage(connect, answer_timeout=BOUND, url="postgresql://x@127.0.0.1/t")
    assert outage.bound() == BOUND
    with outage.patient():
        assert outage.bound() is None
    assert outage.bound() == BOUND
    outage.begin()
    assert outage.out
    deadline = time.monotonic() + LONG_ENOUGH
    while not tries:
        assert time.monotonic() < deadline, "nothing tried the server"
        time.sleep(0.05)
    assert set(tries) == {"surefoot-pg-probe"}
    prober = next(t for t in threading.enumerate() if t.name == "surefoot-pg-probe")
    outage.close()
    prober.join(LONG_ENOUGH)
    assert not prober.is_alive()
    closed = Outage(connect, answer_timeout=BOUND, url="postgresql://x@127.0.0.1/t")
    closed.close()
    closed.begin()  # a closed database is not put out
    assert not closed.out


def test_connecting_to_a_server_that_does_not_answer_fails_and_leaves_no_probe(
    pg_relay: tuple[Relay, str],
) -> None:
    """Opening the database when the server does not answer is ``unavailable``; with no
    database to come back to, the probe that started ends."""
    proxy, url = pg_relay
    proxy.frozen.set()
    before = {t for t in threading.enumerate() if t.name == "surefoot-pg-probe"}
    _assert_unavailable(proxy.ends(lambda: open_database(url, answer_timeout=BOUND)))
    left = {t for t in threading.enumerate() if t.name == "surefoot-pg-probe"} - before
    for thread in left:
        thread.join(LONG_ENOUGH)
        assert not thread.is_alive()


def test_a_bound_that_is_not_positive_is_refused() -> None:
    with pytest.raises(ValueError, match="answer_timeout"):
        open_database("sqlite:///:memory:", answer_timeout=0)
    with pytest.raises(ValueError, match="idle_timeout"):
        open_database("sqlite:///:memory:", idle_timeout=0)
    with pytest.raises(ValueError, match="idle_timeout"):
        open_database("sqlite:///:memory:", idle_timeout=float("nan"))


@pytest.mark.parametrize("name", ["_WaitTimeout", "ConnectionTimeout"])
def test_psycopg_still_names_its_timeouts_as_surefoot_expects(name: str) -> None:
    """``_pgconn`` catches these two by name (one is private): a psycopg that renamed them
    would wait forever again, so an upgrade must fail here first."""
    import psycopg

    assert issubclass(getattr(psycopg.errors, name), psycopg.OperationalError)


def test_a_write_whose_commit_answer_never_came_lands_once_and_is_not_run_again(
    pg_relay: tuple[Relay, str],
) -> None:
    """An atomic write's COMMIT is sent and its answer never comes: the turn fails as
    ``unavailable`` (nobody is told it was saved, nor that it was not), the server carries
    the COMMIT out when it answers again, and the ledger, committed with it, makes the same
    call a settled success that is not run a second time."""
    proxy, url = pg_relay
    db = open_database(url, answer_timeout=BOUND)
    try:
        db.migrate("silence", ["CREATE TABLE silence_effects (k TEXT PRIMARY KEY)"])
        ran: list[str] = []
        tools = ToolSet()

        @tools.tool(effect="write", atomic=True)
        def put(ctx: ToolContext, k: str) -> dict[str, Any]:
            """Store ``k``, atomically with the ledger."""
            ran.append(k)
            with db.transaction() as tx:
                tx.execute("INSERT INTO silence_effects (k) VALUES (?)", (k,))
                ctx.commit_in(tx, {"k": k})
                proxy.frozen.set()  # the COMMIT goes out, and no answer comes back
            return {"k": k}

        ledger = SqlLedger(db)
        executor = Executor(tools, ledger=ledger)
        state = TurnState("c1", 0, lang="en")
        batch = [call("put", {"k": "a"})]
        _assert_unavailable(proxy.ends(lambda: asyncio.run(executor.run_batch(batch, state))))
        proxy.frozen.clear()
        _answers_again(lambda: db.query("SELECT 1"))
        assert db.query("SELECT k FROM silence_effects") == [("a",)]
        (entry,) = ledger.entries(conversation_id="c1")
        assert entry.state == "committed"
        again = TurnState("c1", 0, lang="en")  # the same turn, resumed
        (record,) = asyncio.run(executor.run_batch(batch, again)).records
        assert record.outcome == Ok({"k": "a"})
        assert record.executed is False
        assert ran == ["a"]
    finally:
        db.close()
