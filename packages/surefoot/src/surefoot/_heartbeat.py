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
"""

from __future__ import annotations

import heapq
import itertools
import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


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

    @contextmanager
    def keep(self, renew: Callable[[], object], *, every: float) -> Iterator[None]:
        """Call ``renew`` every ``every`` seconds while the block runs."""
        beat = next(self._ids)
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
            self._start()
            if wake:
                self._cond.notify()
        try:
            yield
        finally:
            with self._cond:
                self._beats.pop(beat, None)

    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="surefoot-heartbeat")
            self._thread.daemon = True
            self._thread.start()

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


HEARTBEAT = Heartbeat()
"""The process's heartbeat."""
