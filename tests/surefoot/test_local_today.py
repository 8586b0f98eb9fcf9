"""The Agent's default clock: the local date, as ``date.today()`` gives it, converted from the
clock again only when the clock may have left the day it last read."""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Iterator

import pytest

from surefoot import Agent, ToolSet
from surefoot._loop import local_today
from surefoot.testing import ScriptedModel


@pytest.fixture
def zone() -> Iterator[None]:
    """Restore the process's time zone after the test."""
    before = os.environ.get("TZ")
    yield
    if before is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = before
    time.tzset()


def _at(monkeypatch: pytest.MonkeyPatch, stamp: str) -> None:
    """The clock reads ``stamp`` (UTC) from now on."""
    now = dt.datetime.fromisoformat(stamp).replace(tzinfo=dt.UTC).timestamp()
    monkeypatch.setattr(time, "time", lambda: now)


def test_the_day_changes_at_local_midnight(monkeypatch: pytest.MonkeyPatch, zone: None) -> None:
    os.environ["TZ"] = "UTC"
    time.tzset()
    _at(monkeypatch, "2026-12-07T10:00:00")
    assert local_today() == dt.date(2026, 12, 7)
    _at(monkeypatch, "2026-12-07T23:59:59")
    assert local_today() == dt.date(2026, 12, 7)
    _at(monkeypatch, "2026-12-08T00:00:01")  # past midnight: not the day read at 10:00
    assert local_today() == dt.date(2026, 12, 8)
    _at(monkeypatch, "2026-12-07T12:00:00")  # a clock set back reads its own day
    assert local_today() == dt.date(2026, 12, 7)


def test_a_new_time_zone_is_read_at_once(monkeypatch: pytest.MonkeyPatch, zone: None) -> None:
    os.environ["TZ"] = "UTC"
    time.tzset()
    _at(monkeypatch, "2026-12-07T20:00:00")
    assert local_today() == dt.date(2026, 12, 7)
    os.environ["TZ"] = "Etc/GMT-12"  # UTC+12: already the 8th there
    time.tzset()
    assert local_today() == dt.date(2026, 12, 8)


def test_it_is_what_date_today_says_and_the_agents_default(zone: None) -> None:
    for name in ("UTC", "Etc/GMT+11", "Etc/GMT-13"):
        os.environ["TZ"] = name
        time.tzset()
        assert local_today() == dt.date.today()  # noqa: DTZ011 - the local date is the point
    agent = Agent(model=ScriptedModel([]), tools=ToolSet())
    assert agent.today is local_today
