"""The renewal thread: renewals run while their block runs, a renewal due sooner than the
thread's next wake-up wakes it, and finished renewals do not pile up."""

from __future__ import annotations

import threading
import time

from surefoot._heartbeat import Heartbeat


def _wait_for(event: threading.Event, seconds: float) -> bool:
    return event.wait(seconds)


def test_a_renewal_runs_while_its_block_runs_and_stops_after() -> None:
    beat = Heartbeat()
    calls: list[float] = []
    three = threading.Event()

    def renew() -> None:
        calls.append(time.monotonic())
        if len(calls) >= 3:
            three.set()

    with beat.keep(renew, every=0.02):
        assert _wait_for(three, 10)
    done = len(calls)
    time.sleep(0.1)
    assert len(calls) <= done + 1  # at most one already under way when the block ended


def test_a_renewal_due_sooner_wakes_a_thread_sleeping_until_later() -> None:
    beat = Heartbeat()
    soon = threading.Event()
    with beat.keep(lambda: None, every=60.0):  # the thread now sleeps for a minute
        time.sleep(0.05)
        with beat.keep(soon.set, every=0.05):
            assert _wait_for(soon, 5)


def test_finished_renewals_do_not_pile_up() -> None:
    beat = Heartbeat()
    with beat.keep(lambda: None, every=60.0):
        for _ in range(1000):
            with beat.keep(lambda: None, every=60.0):
                pass
        assert len(beat._due) <= 2 * 2 + 17


def test_a_retry_runs_until_it_succeeds_and_then_stops() -> None:
    beat = Heartbeat()
    calls: list[int] = []
    succeeded = threading.Event()

    def release() -> None:
        calls.append(1)
        if len(calls) < 3:
            raise OSError("the database is away")
        succeeded.set()

    beat.retry(release, every=0.01, within=60.0)
    assert _wait_for(succeeded, 10)
    with beat.keep(lambda: None, every=0.01):  # the thread keeps running other work
        time.sleep(0.1)
    assert len(calls) == 3
    assert not beat._beats


def test_a_retry_that_never_succeeds_is_given_up_after_its_bound() -> None:
    beat = Heartbeat()
    calls: list[int] = []

    def release() -> None:
        calls.append(1)
        raise OSError("the database is away")

    beat.retry(release, every=0.01, within=0.05)
    deadline = time.monotonic() + 10  # a bound on the wait, not a measurement
    while beat._beats and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not beat._beats  # given up
    tried = len(calls)
    time.sleep(0.1)
    assert len(calls) == tried >= 1
