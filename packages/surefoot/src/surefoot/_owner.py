"""Who holds a lease, and whether that process is provably gone.

A lease names its owner as ``machine/pid/start/nonce``: ``machine`` is this kernel's boot id
and PID namespace (so two containers on one host, or two hosts, never match), ``start`` the
process's start time in clock ticks (so a reused pid never matches). On the owner's own
machine a new writer can then tell that the holder died (SIGKILL, a crash, a power cut of
the process) and take the lease over at once, instead of waiting for it to expire. Anywhere
else, or without ``/proc``, nothing is concluded: the lease's expiry decides, as always.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from ._ids import random_hex

_PROC = Path("/proc")


@functools.cache
def _machine() -> str:
    """This boot of this kernel, and this PID namespace ('' when they cannot be read)."""
    try:
        boot = (_PROC / "sys/kernel/random/boot_id").read_text().strip()
        namespace = (_PROC / "self/ns/pid").stat().st_ino
    except OSError:
        return ""
    return f"{boot}:{namespace}"


def _started(pid: int) -> str | None:
    """The start time of live process ``pid`` (None if there is none, or it is a zombie)."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    if len(fields) < 20 or fields[0] in ("Z", "X"):
        return None
    return fields[19]


@functools.cache
def _this_process(pid: int) -> str:
    """``machine/pid/start`` of this process (by pid, so a forked child gets its own)."""
    return f"{_machine()}/{pid}/{_started(pid) or ''}"


def new_owner() -> str:
    """A fresh owner id for a lease taken by this process."""
    return f"{_this_process(os.getpid())}/{random_hex(16)}"


def owner_is_gone(owner: str) -> bool:
    """True only when ``owner`` is provably a process of this machine that no longer runs."""
    parts = owner.split("/")
    if len(parts) != 4 or not parts[0] or not parts[2] or parts[0] != _machine():
        return False
    try:
        pid = int(parts[1])
    except ValueError:
        return False
    return _started(pid) != parts[2]
