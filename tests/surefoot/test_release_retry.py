"""A hold whose release fails because the database is away is released once the database
answers again, not when its lease runs out; the retried release is fenced, so a hold taken
over meanwhile by another writer stays theirs.

On PostgreSQL the outage is real for the holder: its connection runs through a loopback TCP
relay that the test cuts (every connection dropped, new ones refused) and restores, while the
server itself keeps running for everyone else. On SQLite another connection keeps the write
lock past the holder's busy timeout."""

from __future__ import annotations

import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from surefoot import Agent, SqlJournal, SqlLedger, StoreError, ToolSet, open_database
from surefoot.sql import Database
from surefoot.testing import ScriptedModel

LEASE = 600.0
"""Far longer than any wait here: a conversation freed in these tests was released."""


class _Relay:
    """127.0.0.1:``port`` relayed to a PostgreSQL server; ``cut`` drops every connection and
    refuses new ones until ``restore``."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        self._listener = self._listen(0)
        self.port = int(self._listener.getsockname()[1])

    def _listen(self, port: int) -> socket.socket:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen()
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return listener

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:  # closed by ``cut``
                return
            server = socket.create_connection(self.target)
            with self._lock:
                self._open += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for end in (source, sink):
            with suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        with suppress(OSError):  # wakes the thread in accept(): else it would still listen
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        with self._lock:
            dropped, self._open = self._open, []
        for end in dropped:
            with suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()

    def restore(self) -> None:
        self._listener = self._listen(self.port)

    def close(self) -> None:
        self.cut()


def _through(url: str, port: int) -> str:
    parts = urlsplit(url)
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit(parts._replace(netloc=f"{user}127.0.0.1:{port}"))


def _agent(db: Database) -> Agent:
    return Agent(
        model=ScriptedModel([]),
        tools=ToolSet(),
        journal=SqlJournal(db),
        ledger=SqlLedger(db),
        lease_seconds=LEASE,
    )


def _owner(db: Database | sqlite3.Connection, conversation_id: str) -> str | None:
    sql = "SELECT owner FROM sf_conversations WHERE id = ?"
    if isinstance(db, sqlite3.Connection):  # a plain read, beside a connection's write lock
        ((owner,),) = db.execute(sql, (conversation_id,)).fetchall()
    else:
        ((owner,),) = db.query(sql, (conversation_id,))
    return None if owner is None else str(owner)


def _eventually(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 30  # a bound on the wait, not a measurement
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"never: {what}")
        time.sleep(0.05)


@pytest.fixture
def relay(pg_server: str) -> Iterator[_Relay]:
    parts = urlsplit(pg_server)
    relay = _Relay((parts.hostname or "127.0.0.1", parts.port or 5432))
    yield relay
    relay.close()


def test_a_release_lost_with_the_database_lands_when_it_is_back(pg_url: str, relay: _Relay) -> None:
    """The holder's database goes away inside the hold: the release at its end fails (no
    exception reaches the caller), the conversation stays held while the database is away,
    and is free soon after it is back, with 600 s of lease still to run."""
    db = open_database(_through(pg_url, relay.port))
    watcher = open_database(pg_url)  # straight to the server, never cut
    try:
        agent = _agent(db)
        with agent.hold("c1") as lease:
            relay.cut()
        assert _owner(watcher, "c1") == lease.owner  # still held: the release did not land
        assert SqlJournal(watcher).acquire("c1", seconds=LEASE) is None
        relay.restore()
        _eventually(lambda: _owner(watcher, "c1") is None, "the hold was released")
        assert SqlJournal(watcher).acquire("c1", seconds=LEASE) is not None
    finally:
        watcher.close()
        db.close()


def test_a_retried_release_does_not_free_the_hold_of_a_newer_holder(
    pg_url: str, relay: _Relay
) -> None:
    """While the holder's database is away, its lease runs out and another writer takes the
    conversation (a higher fence). When the database is back, the old holder's retried
    release runs (its connection commits again) and leaves the new holder's hold alone."""
    db = open_database(_through(pg_url, relay.port))
    watcher = open_database(pg_url)
    try:
        agent = _agent(db)
        with agent.hold("c1") as old:
            relay.cut()
        # its lease ran out while the database was away (as 60 s do in a long outage)
        watcher.query("UPDATE sf_conversations SET lease_until = 0 WHERE id = 'c1'")
        new = SqlJournal(watcher).acquire("c1", seconds=LEASE)
        assert new is not None
        assert new.fence == old.fence + 1
        sent = db.counts.round_trips  # what reached the database and came back
        relay.restore()
        _eventually(lambda: db.counts.round_trips > sent, "the retried release ran")
        assert _owner(watcher, "c1") == new.owner
        assert SqlJournal(watcher).renew(new, seconds=LEASE)
    finally:
        watcher.close()
        db.close()


def test_on_sqlite_a_release_locked_out_lands_once_the_lock_is_gone(tmp_path: Path) -> None:
    """Another connection holds SQLite's write lock past the holder's busy timeout when the
    hold ends: the release fails as ``locked`` (no exception reaches the caller), and lands
    once that connection lets go."""
    path = tmp_path / "hold.db"
    db = open_database(path, busy_timeout=0.1)
    blocker = sqlite3.connect(path, isolation_level=None)
    try:
        agent = _agent(db)
        with agent.hold("c1") as lease:
            blocker.execute("BEGIN IMMEDIATE")
        assert _owner(blocker, "c1") == lease.owner  # still held: the release did not land
        blocker.execute("ROLLBACK")
        _eventually(lambda: _owner(blocker, "c1") is None, "the hold was released")
    finally:
        blocker.close()
        db.close()


def test_a_release_that_fails_for_another_reason_is_raised(tmp_path: Path) -> None:
    """Only a database that is away or locked is waited for: a release that fails otherwise
    (here the store was closed under the hold, a misuse) reaches the caller."""
    db = open_database(tmp_path / "closed.db")
    agent = _agent(db)
    with pytest.raises(StoreError) as failed, agent.hold("c1"):
        db.close()
    assert failed.value.kind == "misuse"
