"""PostgreSQL connections that do not wait forever for their server.

A server that is down refuses a new connection, and one it drops fails the statement it was
in; both are ``StoreError(kind="unavailable")`` at once (``_sql``). A server that *hangs* (its
host paused, its disk stalled, a network path that loses packets without a reset) answers
nothing, and psycopg would wait for it without end. A web worker makes its database calls on
its event loop: it would stop answering everyone, its readiness probe included.

So every wait of a connection for its server is bounded (``answer_timeout`` seconds: a
statement, a commit, a rollback, the connection itself). A wait that runs out ends that
connection (what it was doing is unknown: a commit may have landed or not, as when a
connection is cut, which the ledger's ``unknown`` state is for) and puts the database *out*
(``Outage``): until the server answers again, a call that would reach it fails at once as
``unavailable`` instead of waiting out the bound again, and a thread of the outage's own
tries the server every ``PROBE_EVERY`` seconds (each try waits for it at most the bound, on
that thread only: not on a caller's, nor on the heartbeat's that renews leases). Its first
answer lets calls through again. Migrations are not bounded (``Outage.patient``): a schema change on
a large table may take minutes, and nothing else waits on it.

A server that is there but slow to answer is not silent: a statement that waits for another
transaction's lock, or runs long, is cancelled by the server itself a little before the
bound (``statement_timeout`` and ``lock_timeout``, ``SERVER_SHARE`` of it), so it fails as
``locked``, as a busy database does, and the database is not put out for it.

The other side of that: a client that stops inside a transaction (its process paused or
hung, a handler that never returns inside an atomic write) keeps its locks, and every other
writer of those rows fails as ``locked`` for as long as it stays stopped. The server ends
such a session after ``idle_timeout`` seconds with nothing sent in its open transaction
(``idle_in_transaction_session_timeout``): the transaction is rolled back, its locks go, and
the stopped client, if it wakes, finds its connection ended (``unavailable``; a commit it
had not sent did not land).
"""

from __future__ import annotations

import functools
import logging
import math
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

PROBE_EVERY = 1.0
"""Seconds between two tries of a server that did not answer in time."""
SERVER_SHARE = 0.8
"""The share of the bound after which the server cancels a statement or a lock wait itself."""


class Outage:
    """Whether a database's server is *out* (it let a wait run out), and the probe that ends
    it. ``connect`` opens a new bounded connection (it raises when the server does not
    answer)."""

    __slots__ = (
        "_closed",
        "_connect",
        "_lock",
        "_out",
        "_patient",
        "_prober",
        "answer_timeout",
        "url",
    )

    def __init__(self, connect: Callable[[], Any], *, answer_timeout: float, url: str) -> None:
        self._connect = connect
        self.answer_timeout = answer_timeout
        self.url = url
        self._out = False
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._patient = threading.local()
        self._prober: threading.Thread | None = None

    @property
    def out(self) -> bool:
        """The server let a wait run out and has not answered since."""
        if self._out:
            self._probe()  # a process forked while it was out has no probe of its own yet
        return self._out

    def bound(self) -> float | None:
        """How long this thread's waits may last (``None``: in a migration, unbounded)."""
        return None if getattr(self._patient, "on", False) else self.answer_timeout

    @contextmanager
    def patient(self) -> Iterator[None]:
        """This thread's waits are unbounded for the length of the block."""
        before = getattr(self._patient, "on", False)
        self._patient.on = True
        try:
            yield
        finally:
            self._patient.on = before

    def begin(self) -> None:
        """The server let a wait run out: calls fail at once until it answers again."""
        with self._lock:
            if self._out or self._closed.is_set():
                return
            self._out = True
        logging.getLogger("surefoot").warning(
            "PostgreSQL at %s did not answer within %g s; calls fail at once as unavailable "
            "until it answers again (tried every %g s)",
            self.url,
            self.answer_timeout,
            PROBE_EVERY,
        )
        self._probe()

    def close(self) -> None:
        """The database is closed: its probe ends."""
        self._closed.set()

    def _probe(self) -> None:
        """Start the probe's thread unless it runs."""
        with self._lock:
            if self._closed.is_set() or (self._prober is not None and self._prober.is_alive()):
                return
            self._prober = threading.Thread(
                target=self._probing, name="surefoot-pg-probe", daemon=True
            )
            self._prober.start()

    def _probing(self) -> None:
        while not self._closed.wait(PROBE_EVERY):
            try:
                conn = self._connect()
                try:
                    conn.execute("SELECT 1")
                finally:
                    conn.close()
            except Exception:  # noqa: BLE001, S112 - still silent, or refusing: try again
                continue
            self._out = False
            logging.getLogger("surefoot").warning("PostgreSQL at %s answers again", self.url)
            return


def connect(url: str, outage: Outage, idle_timeout: float | None = None) -> Any:
    """A new psycopg connection (autocommit) to ``url`` whose waits ``outage`` bounds, and
    whose transaction the server ends after ``idle_timeout`` seconds idle (``None``: the
    server's own setting); a connection attempt that runs out of time puts the database
    out, as a statement does."""
    import psycopg

    try:
        conn = _bounded_class().connect(
            url, autocommit=True, connect_timeout=max(2, math.ceil(outage.answer_timeout))
        )
    except psycopg.errors.ConnectionTimeout:
        outage.begin()
        raise
    try:
        conn.outage = outage
        server = max(1, round(outage.answer_timeout * SERVER_SHARE * 1000))  # milliseconds
        settings = f"SET statement_timeout = {server}; SET lock_timeout = {server}"
        if idle_timeout is not None:
            idle = max(1, round(idle_timeout * 1000))  # milliseconds
            settings += f"; SET idle_in_transaction_session_timeout = {idle}"
        conn.execute(settings)
    except BaseException:
        conn.close()
        raise
    return conn


@functools.cache
def _bounded_class() -> Any:
    """``psycopg.Connection`` with every wait bounded by its outage's ``bound()`` (made on
    first use: psycopg is imported only once a PostgreSQL database is opened)."""
    import psycopg

    # The exception psycopg raises when a wait given a timeout runs out. It is private, so
    # the version is pinned and tests/surefoot/test_pg_silence.py fails if it changes.
    wait_timeout: type[BaseException] = psycopg.errors._WaitTimeout

    class BoundedConnection(psycopg.Connection[Any]):
        outage: Outage | None = None  # set once connected

        def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
            outage = self.outage
            if timeout is None and outage is not None:
                timeout = outage.bound()
            try:
                return super().wait(gen, interval=interval, timeout=timeout)
            except wait_timeout:
                self.pgconn.finish()  # its state is unknown; ``broken`` from now on
                if outage is not None:
                    outage.begin()
                raise

    return BoundedConnection
