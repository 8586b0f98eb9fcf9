"""Lease renewal while work runs: one daemon thread per process.

A lease (a conversation held by one writer, a write claimed in the ledger) expires unless it
is renewed, so that a dead worker's lease can be taken over. A live worker must therefore
renew it for as long as it works — also while a *synchronous* handler blocks the event loop,
which is why renewal runs on a thread, not as an asyncio task::

    with HEARTBEAT.keep(lambda: ledger.renew(key, attempt, 60.0), every=20.0):
        run the handler

The thread starts on first use and sleeps until the next renewal is due. A renewal that
fails (the lease was fenced off, the database is unreachable) is dropped silently: the
fencing checks at commit time decide what may land, not the heartbeat.

The same thread retries what must happen once but could not happen now (``retry``): a hold
whose release failed because the database was down is released as soon as the database
answers again, instead of staying held until its lease runs out.
"""

from __future__ import annotations

import heapq
import itertools
import math
import os
import threading
import time
import weakref
from collections.abc import Callable


class Heartbeat:
    """Calls registered renewals every ``every`` seconds until they are unregistered."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._cond = threading.Condition()
        self._due: list[tuple[float, int]] = []
        self._beats: dict[int, tuple[Callable[[], object], float]] = {}
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None
        self._wake_at = math.inf  # when the thread wakes up by itself (inf: only if notified)
        _ALL.add(self)

    def keep(self, renew: Callable[[], object], *, every: float) -> _Beat:
        """Call ``renew`` every ``every`` seconds while the returned block runs."""
        return _Beat(self, renew, every)

    def retry(self, action: Callable[[], object], *, every: float, within: float) -> None:
        """Call ``action`` every ``every`` seconds until it returns without raising, or until
        ``within`` seconds from now have passed (then it is given up, with a warning)."""
        beat = next(self._ids)
        give_up = self._clock() + within

        def attempt() -> None:
            try:
                action()
            except Exception:
                import logging  # rare, and off the import path

                log = logging.getLogger("surefoot")
                if self._clock() < give_up:
                    log.debug("retry failed; again in %.1f s", every, exc_info=True)
                    return
                log.warning("retry given up after %.0f s", within, exc_info=True)
            self._remove(beat)

        self._add(attempt, every, beat)

    def _add(self, renew: Callable[[], object], every: float, beat: int | None = None) -> int:
        beat = next(self._ids) if beat is None else beat
        due = self._clock() + every
        with self._cond:
            self._beats[beat] = (renew, every)
            if len(self._due) > 2 * len(self._beats) + 16:  # mostly finished beats: compact
                self._due = [entry for entry in self._due if entry[1] in self._beats]
                heapq.heapify(self._due)
            # the thread sleeps until a time it chose: wake it only when this beat is due
            # sooner (waking it on every call costs the caller a thread switch and the GIL)
            wake = due < self._wake_at
            heapq.heappush(self._due, (due, beat))
            if self._thread is None:
                self._start()
            elif wake:
                self._cond.notify()
        return beat

    def _remove(self, beat: int) -> None:
        with self._cond:
            self._beats.pop(beat, None)

    def _start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="surefoot-heartbeat")
        self._thread.daemon = True
        self._thread.start()

    def _forked(self) -> None:
        """In a forked child: the thread did not come along; the next renewal starts one."""
        self._cond = threading.Condition()
        self._thread = None
        self._wake_at = math.inf

    def _run(self) -> None:
        while True:
            renew = self._next()
            try:
                renew()
            except Exception:  # a failed renewal decides nothing; fencing at commit does
                import logging  # rare, and off the import path

                logging.getLogger("surefoot").debug("lease renewal failed", exc_info=True)

    def _next(self) -> Callable[[], object]:
        """Wait for the next renewal that is due and still registered; reschedule it."""
        with self._cond:
            while True:
                while self._due and self._due[0][1] not in self._beats:
                    heapq.heappop(self._due)
                if not self._due:
                    self._wake_at = math.inf
                    self._cond.wait()
                    continue
                due, beat = self._due[0]
                wait = due - self._clock()
                if wait > 0:
                    self._wake_at = due
                    self._cond.wait(wait)
                    continue
                self._wake_at = -math.inf  # running renewals: it looks at the heap again
                heapq.heappop(self._due)
                renew, every = self._beats[beat]
                heapq.heappush(self._due, (self._clock() + every, beat))
                return renew


class _Beat:
    """A renewal registered for the length of a ``with`` block."""

    __slots__ = ("_beat", "_every", "_heartbeat", "_renew")

    def __init__(self, heartbeat: Heartbeat, renew: Callable[[], object], every: float) -> None:
        self._heartbeat = heartbeat
        self._renew = renew
        self._every = every
        self._beat = -1

    def __enter__(self) -> None:
        self._beat = self._heartbeat._add(self._renew, self._every)

    def __exit__(self, *exc: object) -> None:
        self._heartbeat._remove(self._beat)


_ALL: weakref.WeakSet[Heartbeat] = weakref.WeakSet()


def _after_fork() -> None:
    for heartbeat in list(_ALL):
        heartbeat._forked()


os.register_at_fork(after_in_child=_after_fork)

HEARTBEAT = Heartbeat()
"""The process's heartbeat."""
