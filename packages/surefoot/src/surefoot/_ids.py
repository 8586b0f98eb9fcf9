"""Fresh random ids (conversations, lease owners) without a system call each.

Ids are cut from a pool of random bytes that the operating system fills 4 KiB at a time (and
anew in a forked child, so parent and child never share bytes): as unpredictable as asking the
kernel for every id, without its system call per id (slow in sandboxes and under load).
"""

from __future__ import annotations

import os
import threading


class _Pool:
    """Random bytes from the operating system, handed out a few at a time."""

    size = 4096

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget every byte drawn (in a forked child: the parent drew them)."""
        self.lock = threading.Lock()
        self.data = b""
        self.used = 0

    def take(self, nbytes: int) -> bytes:
        with self.lock:
            if self.used + nbytes > len(self.data):
                self.data, self.used = os.urandom(self.size), 0
            start = self.used
            self.used += nbytes
            return self.data[start : self.used]


_POOL = _Pool()
os.register_at_fork(after_in_child=_POOL.reset)  # the child draws its own bytes


def random_hex(nbytes: int) -> str:
    """``nbytes`` random bytes (at most 4,096) as hex."""
    return _POOL.take(nbytes).hex()
