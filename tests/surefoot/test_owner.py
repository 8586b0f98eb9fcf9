"""Lease owners: a holder is taken for dead only when that is provable (a process of this
machine that no longer runs, a zombie included); anything unreadable or foreign is alive."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from surefoot import _owner
from surefoot._owner import new_owner, owner_is_gone


@pytest.fixture(autouse=True)
def fresh_machine_id() -> Iterator[None]:
    """The machine id and this process's prefix are cached; each test starts and ends
    without them."""
    _owner._machine.cache_clear()
    _owner._this_process.cache_clear()
    yield
    _owner._machine.cache_clear()
    _owner._this_process.cache_clear()


def owner_of(pid: int, started: str | None) -> str:
    return f"{_owner._machine()}/{pid}/{started}/nonce"


def state_of(pid: int) -> str:
    """The state letter of process ``pid`` (R, S, Z, ...)."""
    return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[-1].split()[0]


def test_this_process_is_alive_and_owners_are_unique() -> None:
    """A new owner names this machine, this pid and its start time; it is never gone."""
    first, second = new_owner(), new_owner()
    assert first != second
    machine, pid, started, _nonce = first.split("/")
    assert machine == _owner._machine() != ""
    assert (int(pid), started) == (_owner.os.getpid(), _owner._started(_owner.os.getpid()))
    assert not owner_is_gone(first)


def test_an_exited_process_is_gone_a_zombie_too() -> None:
    """A child that exited but was not yet reaped (a zombie) is gone; so is it once reaped."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    started = _owner._started(child.pid)
    owner = owner_of(child.pid, started)
    deadline = time.monotonic() + 30
    while state_of(child.pid) != "Z":  # not reaped while we do not wait for it
        assert time.monotonic() < deadline, "the child did not exit"
        time.sleep(0.01)
    assert owner_is_gone(owner)
    child.wait()
    assert owner_is_gone(owner)


def test_a_reused_pid_with_another_start_time_is_gone() -> None:
    """The pid runs, but not the process that took the lease (its start time differs)."""
    pid = _owner.os.getpid()
    assert owner_is_gone(owner_of(pid, "1"))


@pytest.mark.parametrize(
    "owner",
    [
        "",
        "no-slashes",
        "a/b/c",
        "a/b/c/d/e",
        "otherboot:1/1/1/nonce",  # another machine
        "{machine}/1//nonce",  # no start time recorded
        "{machine}/not-a-pid/1/nonce",
    ],
)
def test_what_cannot_be_proven_dead_is_alive(owner: str) -> None:
    """Malformed ids, other machines, missing start times, bad pids: never taken for dead."""
    assert not owner_is_gone(owner.format(machine=_owner._machine()))


def test_without_proc_nothing_is_concluded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Where ``/proc`` cannot be read the machine id is empty: owners made there carry no
    machine, and no owner is ever taken for dead."""
    real = new_owner()
    _owner._machine.cache_clear()
    _owner._this_process.cache_clear()
    monkeypatch.setattr(_owner, "_PROC", tmp_path)
    made_here = new_owner()
    assert made_here.startswith("/")
    assert not owner_is_gone(made_here)
    assert not owner_is_gone(real)
    assert _owner._started(1) is None
